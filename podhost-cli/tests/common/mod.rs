//! Running a real `podhost serve` for the crash tests.

#![allow(dead_code)]

use std::{
    io::{BufRead, BufReader},
    net::SocketAddr,
    process::{Child, Command, Stdio},
};

/// Starts `podhost --store STORE [global...] serve --listen 127.0.0.1:0 [serve_args...]` and
/// returns once it says it is serving.
pub fn serve(store: &str, global: &[&str], serve_args: &[&str]) -> Child {
    serve_listening(store, global, serve_args).0
}

/// [`serve`], also returning the address the server listens on.
pub fn serve_listening(store: &str, global: &[&str], serve_args: &[&str]) -> (Child, SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_podhost"))
        .args(["--store", store])
        .args(global)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(serve_args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    // "podhost: serving {public URL} on http://{address} (Ctrl-C stops)"
    let mut addr = None;
    for line in lines.by_ref() {
        let line = line.unwrap();
        if line.contains("serving") {
            addr = line
                .split(" on http://")
                .nth(1)
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|a| a.parse().ok());
            break;
        }
    }
    std::thread::spawn(move || for _ in lines {});
    let addr = addr.expect("the server says where it listens");
    (child, addr)
}
