//! `--log-format json`: one JSON object a line on stderr, and the request's id on the lines of
//! the request and of the job it started.

mod common;

use std::{
    io::{Read, Write},
    net::TcpStream,
    time::{Duration, Instant},
};

use common::Cli;
use podhost_testkit::fixtures;
use serde_json::Value;

#[test]
fn a_requests_id_is_on_its_log_lines_and_its_jobs() {
    let cli = Cli::with_users(&["alice"]);
    let token = cli.ok(&[
        "token", "create", "--user", "alice", "--scopes", "media", "--label", "logs",
    ]);
    let token = token.trim();
    let media = cli.upload("alice", "talk.wav", &fixtures::wav(2.0, 8000));
    let (mut server, address, logs) =
        common::serve_logged(cli.store_path(), &["--log-format", "json"], &[]);

    let body = "{}";
    let mut stream = TcpStream::connect(&address).unwrap();
    write!(
        stream,
        "POST /api/generate/waveform/{media} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\nX-Request-Id: req-logs-1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 202"), "{answer}");
    assert!(
        answer
            .to_ascii_lowercase()
            .contains("x-request-id: req-logs-1"),
        "{answer}"
    );

    // Every line is an object; the request's line and the job's carry the request's id.
    let mut seen = Vec::new();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(30) {
        let Ok(line) = logs.recv_timeout(Duration::from_millis(200)) else {
            continue;
        };
        let value: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        if value["span"]["request_id"] == "req-logs-1" {
            seen.push((
                value["span"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                value["message"].as_str().unwrap_or_default().to_string(),
            ));
        }
        if seen.iter().any(|(_, m)| m == "job ended") {
            break;
        }
    }
    server.kill().unwrap();
    server.wait().unwrap();
    let has = |span: &str, message: &str| seen.iter().any(|(s, m)| s == span && m == message);
    assert!(has("request", "answered"), "{seen:?}");
    assert!(has("job", "job started"), "{seen:?}");
    assert!(has("job", "job ended"), "{seen:?}");
}

#[test]
fn metrics_listen_serves_the_metrics_without_a_token() {
    let cli = Cli::with_users(&["alice"]);
    let (mut server, address, logs) =
        common::serve_logged(cli.store_path(), &[], &["--metrics-listen", "127.0.0.1:0"]);
    // "podhost: metrics on http://ADDR/metrics", said after "serving".
    let metrics = loop {
        let line = logs
            .recv_timeout(Duration::from_secs(30))
            .expect("the metrics address is said");
        if let Some(rest) = line.split("metrics on http://").nth(1) {
            break rest.trim_end_matches("/metrics").to_string();
        }
    };
    let get = common::http_get;
    // A request to the main address, then the metrics show it, without a token.
    assert!(get(&address, "/healthz").starts_with("HTTP/1.1 200"));
    let answer = get(&metrics, "/metrics");
    // On the main address, the metrics need a token.
    let main = get(&address, "/metrics");
    server.kill().unwrap();
    server.wait().unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        answer.contains(
            r#"podhost_http_requests_total{route="/healthz",method="GET",status="200"} 1"#
        ),
        "{answer}"
    );
    assert!(
        answer.contains("# TYPE podhost_downloads_total counter"),
        "{answer}"
    );
    assert!(main.starts_with("HTTP/1.1 401"), "{main}");
}

/// Log lines written to a file or a pipe are plain text: no terminal escape codes, and the
/// access line says how the request was answered and what it touched.
#[test]
fn logs_to_a_pipe_have_no_colour_and_access_lines_can_be_turned_down() {
    let cli = Cli::with_users(&["alice"]);
    let get = |address: &str| {
        let mut stream = TcpStream::connect(address).unwrap();
        write!(
            stream,
            "GET /healthz HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    };
    let lines_of = |logs: &std::sync::mpsc::Receiver<String>| {
        let mut lines = Vec::new();
        while let Ok(line) = logs.recv_timeout(Duration::from_millis(500)) {
            lines.push(line);
        }
        lines
    };
    let (mut server, address, logs) = common::serve_logged(cli.store_path(), &[], &[]);
    get(&address);
    let lines = lines_of(&logs);
    server.kill().unwrap();
    server.wait().unwrap();
    let access: Vec<&String> = lines.iter().filter(|l| l.contains("answered")).collect();
    assert_eq!(access.len(), 1, "{lines:?}");
    assert!(access[0].contains("podhost::access"), "{}", access[0]);
    assert!(access[0].contains("status=200"), "{}", access[0]);
    assert!(access[0].contains("records=0"), "{}", access[0]);
    for line in &lines {
        assert!(!line.contains('\u{1b}'), "an escape code in {line:?}");
    }

    // The access lines' target turned down, the other lines stay.
    let (mut server, address, logs) = common::serve_logged_with_env(
        cli.store_path(),
        &[],
        &[],
        &[("PODHOST_LOG", "info,podhost::access=warn")],
    );
    get(&address);
    let lines = lines_of(&logs);
    server.kill().unwrap();
    server.wait().unwrap();
    assert!(!lines.iter().any(|l| l.contains("answered")), "{lines:?}");
}
