//! Running the real `podhost` binary: one-shot commands against a temporary store, and
//! `podhost serve` for the tests that need a server.
#![allow(dead_code)]

use std::{
    io::{BufRead, BufReader},
    path::PathBuf,
    process::{Child, Command, Output, Stdio},
};

use serde_json::Value;

/// A temporary store and the `podhost` commands run on it.
pub struct Cli {
    /// The store (a local folder).
    pub store: tempfile::TempDir,
    /// Local files the tests upload.
    pub files: tempfile::TempDir,
}

impl Cli {
    /// A fresh, empty store.
    pub fn new() -> Self {
        Cli {
            store: tempfile::tempdir().unwrap(),
            files: tempfile::tempdir().unwrap(),
        }
    }

    /// The store's path.
    pub fn store_path(&self) -> &str {
        self.store.path().to_str().unwrap()
    }

    /// `podhost --store STORE ARGS...`, not yet run.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_podhost"));
        command
            .args(["--store", self.store_path()])
            .args(args)
            .env_remove("PODHOST_STORE")
            .env_remove("PODHOST_PUBLIC_URL")
            .env("PODHOST_LOG", "warn")
            .stdin(Stdio::null());
        command
    }

    /// Runs `podhost ARGS...`.
    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// Runs `podhost ARGS...`, which must succeed; its stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Runs `podhost --json ARGS...`, which must succeed and print exactly one JSON value.
    pub fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let stdout = self.ok(&all);
        let mut values = serde_json::Deserializer::from_str(&stdout).into_iter::<Value>();
        let value = values
            .next()
            .unwrap_or_else(|| panic!("{args:?}: no JSON on stdout"))
            .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {stdout}"));
        assert!(
            values.next().is_none(),
            "{args:?}: one JSON value: {stdout}"
        );
        value
    }

    /// Runs `podhost ARGS...`, which must fail with `code` and print nothing on stdout; its
    /// stderr.
    pub fn fails(&self, args: &[&str], code: i32) -> String {
        let out = self.run(args);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(
            out.stdout.is_empty(),
            "{args:?}: stdout: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert_eq!(
            stderr.trim_end().lines().count(),
            1,
            "{args:?}: one line: {stderr}"
        );
        stderr
    }

    /// Runs `podhost --json ARGS...`, which must fail with `code`: nothing on stdout, the JSON
    /// error `{"error": {"message", "code"}}` on stderr, whose `code` is returned with the
    /// message.
    pub fn json_error(&self, args: &[&str], code: i32) -> (String, String) {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let stderr = self.fails(&all, code);
        let value: Value = serde_json::from_str(stderr.trim())
            .unwrap_or_else(|e| panic!("{args:?}: a JSON error ({e}): {stderr}"));
        let error = value["error"].as_object().expect("{error: {...}}");
        assert_eq!(error.len(), 2, "{value}");
        (
            error["code"].as_str().unwrap().to_string(),
            error["message"].as_str().unwrap().to_string(),
        )
    }

    /// Writes a local file to upload; its path.
    pub fn file(&self, name: &str, bytes: &[u8]) -> String {
        let path: PathBuf = self.files.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path.to_str().unwrap().to_string()
    }

    /// Creates users, and for the first one the podcast `daily`.
    pub fn with_users(users: &[&str]) -> Self {
        let cli = Cli::new();
        for user in users {
            cli.ok(&["user", "create", user]);
        }
        cli.ok(&[
            "feed", "create", "--user", users[0], "--id", "daily", "--title", "Daily",
        ]);
        cli
    }

    /// Uploads a file as `user`; its media id.
    pub fn upload(&self, user: &str, name: &str, bytes: &[u8]) -> String {
        let path = self.file(name, bytes);
        let uploaded = self.json(&["media", "upload", "--user", user, &path]);
        uploaded[0]["id"].to_string()
    }
}

/// Starts `podhost --store STORE [global...] serve --listen 127.0.0.1:0 [serve_args...]` and
/// returns once it says it is serving.
pub fn serve(store: &str, global: &[&str], serve_args: &[&str]) -> Child {
    serve_at(store, global, serve_args).0
}

/// [`serve`], also returning the address it listens on (`127.0.0.1:PORT`). `serve_args` may
/// name the address (`--listen`); else any free port.
pub fn serve_at(store: &str, global: &[&str], serve_args: &[&str]) -> (Child, String) {
    let (child, address, _) = serve_logged(store, global, serve_args);
    (child, address)
}

/// [`serve_at`], also returning the lines the server writes on stderr after it said it serves.
pub fn serve_logged(
    store: &str,
    global: &[&str],
    serve_args: &[&str],
) -> (Child, String, std::sync::mpsc::Receiver<String>) {
    serve_logged_with_env(store, global, serve_args, &[])
}

/// [`serve_logged`] with these environment variables set.
pub fn serve_logged_with_env(
    store: &str,
    global: &[&str],
    serve_args: &[&str],
    env: &[(&str, &str)],
) -> (Child, String, std::sync::mpsc::Receiver<String>) {
    let listen: &[&str] = match serve_args.contains(&"--listen") {
        true => &[],
        false => &["--listen", "127.0.0.1:0"],
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_podhost"))
        .envs(env.iter().copied())
        .args(["--store", store])
        .args(global)
        .arg("serve")
        .args(listen)
        .args(serve_args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let mut address = String::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        if line.contains("serving") {
            // "podhost: serving on http://ADDR (Ctrl-C stops)", or "podhost: serving on
            // http://ADDR, links start with URL (Ctrl-C stops)"
            address = line
                .split(" on http://")
                .nth(1)
                .and_then(|rest| rest.split_whitespace().next())
                .map(|address| address.trim_end_matches(','))
                .unwrap_or_default()
                .to_string();
            break;
        }
    }
    let (logged, logs) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            let _ = logged.send(line);
        }
    });
    (child, address, logs)
}

/// [`serve_at`], with the address parsed.
pub fn serve_listening(
    store: &str,
    global: &[&str],
    serve_args: &[&str],
) -> (Child, std::net::SocketAddr) {
    let (child, address) = serve_at(store, global, serve_args);
    (child, address.parse().expect("the address serve prints"))
}

/// A server, killed when the test ends (even by a panic).
pub struct Server(pub std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn podhost_on(store: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_podhost"))
        .args(["--store", store])
        .args(args)
        .env_remove("PODHOST_STORE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// `GET path` of the server at `address` over a fresh connection: the whole answer, head and
/// body, as text.
pub fn http_get(address: &str, path: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}
