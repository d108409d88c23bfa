//! `podhost` on a real S3-compatible server (the tests' SeaweedFS cluster, `podhost_testkit::s3`): `serve` starts on a bucket and answers, and
//! refuses, before serving anything, a server that ignores conditional writes.

use std::{
    io::Read,
    process::{Command, Stdio},
    time::Duration,
};

use podhost_testkit::s3::S3Server;

/// `podhost --store s3://BUCKET serve`, with the server's settings in the environment.
fn serve_on(server: &S3Server, endpoint: &str, bucket: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_podhost"));
    command
        .args(["--store", &format!("s3://{bucket}"), "serve"])
        .args(["--listen", "127.0.0.1:0"])
        .envs(server.env())
        .env("AWS_ENDPOINT", endpoint)
        .env("PODHOST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

#[test]
fn serve_starts_on_s3_and_refuses_a_server_without_conditional_writes() {
    let Some(server) = S3Server::shared_or_skip("serve_on_s3") else {
        return;
    };
    // A server that honours If-None-Match: serving, with the bootstrap token printed.
    let mut child = serve_on(server, server.endpoint(), &server.new_bucket())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let mut said = String::new();
    let mut byte = [0u8; 1];
    while !said.contains("serving") && stderr.read(&mut byte).unwrap_or(0) == 1 {
        said.push(byte[0] as char);
    }
    child.kill().unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(said.contains("serving"), "{said}");
    let token = String::from_utf8_lossy(&out.stdout);
    assert!(
        token.trim().starts_with("phk_"),
        "the bootstrap token: {token}"
    );

    // The same server behind a proxy that drops If-None-Match: refused, with the reason.
    let ignoring = server.ignoring_conditional_writes();
    let mut child = serve_on(server, &ignoring, &server.new_bucket())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("serve did not refuse the store");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(status.code(), Some(2), "invalid (the store): {stderr}");
    assert!(stderr.contains("conditional writes"), "{stderr}");
    assert!(!stderr.contains("serving"), "{stderr}");
}
