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

/// A job run in the command (`--wait`) on an MP3: the decoder library logs at INFO through the
/// `log` crate. By default only podhost's own lines and libraries' warnings are written, and
/// never a source path; `--log-libraries` writes the library's line under its own target.
#[test]
fn libraries_info_lines_are_off_by_default_and_never_carry_a_source_path() {
    let cli = Cli::with_users(&["alice"]);
    let wav = cli.upload("alice", "talk.wav", &fixtures::wav(2.0, 8000));
    let wav = wav.trim_matches('"');
    let id_of = |id: &Value| id.as_str().map_or_else(|| id.to_string(), str::to_string);
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut command = cli.command(args);
        command.env_remove("PODHOST_LOG").env_remove("RUST_LOG");
        command.envs(env.iter().copied());
        let out = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{args:?}: {stderr}");
        (String::from_utf8(out.stdout).unwrap(), stderr)
    };
    // A new MP3 each time: a waveform of the same file is not decoded twice.
    let mp3 = |bitrate: &str| {
        let (stdout, _) = run(
            &[
                "--json",
                "master",
                wav,
                "--user",
                "alice",
                "--bitrate",
                bitrate,
                "--wait",
            ],
            &[],
        );
        let made: Value = serde_json::from_str(&stdout).unwrap();
        id_of(&made["id"])
    };

    let (_, stderr) = run(&["waveform", &mp3("64"), "--user", "alice", "--wait"], &[]);
    assert!(
        stderr.contains("job ended"),
        "podhost's own INFO lines stay: {stderr}"
    );
    for line in stderr.lines() {
        if line.contains(" INFO ") {
            assert!(line.contains(": podhost"), "a library's INFO line: {line}");
        }
        assert!(
            !line.contains("log.file") && !line.contains(".cargo"),
            "{line}"
        );
    }

    for (args, env, bitrate) in [
        (&["--log-libraries"][..], &[][..], "32"),
        (&[][..], &[("PODHOST_LOG_LIBRARIES", "1")][..], "40"),
        (&[][..], &[("RUST_LOG", "info")][..], "48"),
    ] {
        let media = mp3(bitrate);
        let mut all = args.to_vec();
        all.extend(["waveform", &media, "--user", "alice", "--wait"]);
        let (_, stderr) = run(&all, env);
        let library: Vec<&str> = stderr
            .lines()
            .filter(|l| l.contains(" INFO symphonia"))
            .collect();
        assert!(
            !library.is_empty(),
            "{args:?} {env:?}: the library's line: {stderr}"
        );
        for line in stderr.lines() {
            assert!(!line.contains("log.") && !line.contains(".cargo"), "{line}");
        }
    }
}

/// `serve` says where it listens once, and the public URL only when it is another.
#[test]
fn the_start_line_says_each_thing_once() {
    let cli = Cli::with_users(&["alice"]);
    let start = |global: &[&str]| {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_podhost"))
            .args(["--store", cli.store_path()])
            .args(global)
            .args(["serve", "--listen", "127.0.0.1:0"])
            .env_remove("PODHOST_PUBLIC_URL")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let line = std::io::BufRead::lines(std::io::BufReader::new(stderr))
            .map_while(Result::ok)
            .find(|line| line.contains("serving"))
            .unwrap_or_default();
        child.kill().unwrap();
        child.wait().unwrap();
        line
    };
    let line = start(&[]);
    let address = line
        .strip_prefix("podhost: serving on http://")
        .and_then(|rest| rest.strip_suffix(" (Ctrl-C stops)"))
        .unwrap_or_else(|| panic!("{line}"));
    assert!(address.starts_with("127.0.0.1:"), "{line}");
    assert_eq!(line.matches(address).count(), 1, "once: {line}");

    let line = start(&["--public-url", "https://pod.example"]);
    assert!(
        line.starts_with("podhost: serving on http://127.0.0.1:")
            && line.ends_with(", links start with https://pod.example (Ctrl-C stops)"),
        "{line}"
    );
}
