//! The `podhost` command line as admins' scripts use it: forms, output, exit codes.

use std::process::{Command, Output, Stdio};

struct Cli {
    store: tempfile::TempDir,
}

impl Cli {
    fn new() -> Self {
        Cli {
            store: tempfile::tempdir().unwrap(),
        }
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_podhost"))
            .args(["--store", self.store.path().to_str().unwrap()])
            .args(args)
            .env_remove("PODHOST_STORE")
            .output()
            .unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }
}

#[test]
fn users_tokens_and_feeds_as_scripts_use_them() {
    let cli = Cli::new();
    cli.ok(&["user", "create", "alice"]);
    cli.ok(&["user", "create", "bob"]);
    let users: serde_json::Value =
        serde_json::from_str(&cli.ok(&["--json", "user", "list"])).unwrap();
    let names: Vec<_> = users
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alice", "bob"]);

    let secret = cli.ok(&[
        "token",
        "create",
        "--user",
        "alice",
        "--scopes",
        "media,feeds,shows",
        "--label",
        "ci",
    ]);
    let secret = secret.strip_suffix('\n').unwrap();
    assert!(
        secret.starts_with("phk_") && !secret.contains(char::is_whitespace),
        "the token alone: {secret:?}"
    );

    let listed = cli.ok(&["--json", "token", "list", "--user", "alice"]);
    assert!(!listed.contains(secret), "never the secret");
    let tokens: serde_json::Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(tokens[0]["label"], "ci");
    assert_eq!(tokens[0]["scopes"], "media,feeds,shows");
    assert!(tokens[0]["revoked"].is_null());
    let id = tokens[0]["id"].as_str().unwrap().to_string();
    let text = cli.ok(&["token", "list", "--user", "alice"]);
    assert!(text.starts_with("ID") && text.contains(&id), "{text}");

    cli.ok(&["token", "revoke", &id]);
    let tokens: serde_json::Value =
        serde_json::from_str(&cli.ok(&["--json", "token", "list", "--user", "alice"])).unwrap();
    assert!(tokens[0]["revoked"].is_string());

    cli.ok(&[
        "feed",
        "create",
        "--user",
        "alice",
        "--id",
        "my show",
        "--title",
        "My Show",
        "--description",
        "About",
    ]);
    let feeds: serde_json::Value =
        serde_json::from_str(&cli.ok(&["--json", "feed", "list", "--user", "alice"])).unwrap();
    assert_eq!(feeds[0]["id"], "my show");
    assert_eq!(feeds[0]["title"], "My Show");
    assert_eq!(feeds[0]["rss"], "http://127.0.0.1:8080/feeds/my%20show/rss");
    assert_eq!(
        cli.ok(&["--json", "feed", "list", "--user", "bob"]).trim(),
        "[]"
    );
}

#[test]
fn failures_say_why_and_exit_with_their_code() {
    let cli = Cli::new();
    cli.ok(&["user", "create", "alice"]);
    let cases: [(&[&str], i32, &str); 5] = [
        (&["user", "create", "alice"], 4, "exists already"),
        (&["user", "create", "Bad Name"], 2, "account name"),
        (&["token", "list", "--user", "nobody"], 3, "not found"),
        (
            &["token", "create", "--user", "alice", "--scopes", "root"],
            1,
            "unknown scope",
        ),
        (&["token", "revoke", "tok_aaaaaaaaaaaaaaaa"], 3, "not found"),
    ];
    for (args, code, message) in cases {
        let out = cli.run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty());
    }
    cli.ok(&[
        "feed", "create", "--user", "alice", "--id", "x", "--title", "X",
    ]);
    let out = cli.run(&[
        "feed", "create", "--user", "alice", "--id", "x", "--title", "Again",
    ]);
    assert_eq!(out.status.code(), Some(4));
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    let cli = Cli::new();
    for i in 0..30 {
        cli.ok(&["user", "create", &format!("user{i}")]);
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_podhost"))
        .args([
            "--store",
            cli.store.path().to_str().unwrap(),
            "user",
            "list",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
