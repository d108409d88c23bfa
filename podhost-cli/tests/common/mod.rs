//! Running a real `podhost serve` for the crash tests.

use std::{
    io::{BufRead, BufReader},
    process::{Child, Command, Stdio},
};

/// Starts `podhost --store STORE [global...] serve --listen 127.0.0.1:0 [serve_args...]` and
/// returns once it says it is serving.
pub fn serve(store: &str, global: &[&str], serve_args: &[&str]) -> Child {
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
    for line in lines.by_ref() {
        if line.unwrap().contains("serving") {
            break;
        }
    }
    std::thread::spawn(move || for _ in lines {});
    child
}
