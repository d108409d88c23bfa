//! Who did what, on a scripted day of one account: changes through the API (a token), the
//! command line and a job of the server, each answered with its actor by `GET /api/activity`
//! and by `podhost member activity`.

mod common;

use std::{
    io::{Read, Write},
    net::TcpStream,
    time::{Duration, Instant},
};

use common::Cli;
use podhost_testkit::fixtures;
use serde_json::Value;

/// One request to the server; its status and JSON body (`Null` for none).
fn request(address: &str, method: &str, path: &str, token: &str, body: &str) -> (u16, Value) {
    let mut stream = TcpStream::connect(address).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer[9..12].parse().unwrap();
    let (_, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

/// (action, object, via, login) of each change, newest first.
fn changes(listed: &Value) -> Vec<(String, String, String, String)> {
    listed
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
            (
                s(&a["action"]),
                format!("{} {}", s(&a["object"]["type"]), s(&a["object"]["id"])),
                s(&a["actor"]["via"]),
                s(&a["actor"]["login"]),
            )
        })
        .collect()
}

#[test]
fn the_activity_says_who_did_each_change_of_a_day() {
    // The command line: the account, its podcast, a token, a member invited.
    let cli = Cli::with_users(&["acme"]);
    let token = cli.ok(&[
        "token",
        "create",
        "--user",
        "acme",
        "--scopes",
        "feeds,media,members-read-only",
        "--label",
        "script",
    ]);
    let token = token.trim();
    cli.ok(&[
        "member", "invite", "--user", "acme", "writer", "--role", "author",
    ]);
    let (mut server, address) = common::serve_at(cli.store_path(), &[], &[]);

    // The API, with the token: the podcast renamed.
    let (status, body) = request(
        &address,
        "PUT",
        "/api/feeds/daily",
        token,
        r#"{"title": "Daily news"}"#,
    );
    assert_eq!(status, 200, "{body}");
    // The command line: an episode and a file.
    cli.ok(&[
        "episode", "create", "--user", "acme", "--feed", "daily", "--title", "One",
    ]);
    let media = cli.upload("acme", "talk.wav", &fixtures::wav(2.0, 8000));
    // A job the server runs: the file's waveform, written onto its record by podhost.
    let (status, body) = request(
        &address,
        "POST",
        &format!("/api/generate/waveform/{media}"),
        token,
        "{}",
    );
    assert_eq!(status, 202, "{body}");

    let start = Instant::now();
    let listed = loop {
        let (status, body) = request(&address, "GET", "/api/activity", token, "");
        assert_eq!(status, 200, "{body}");
        let done = changes(&body["data"])
            .first()
            .is_some_and(|(action, _, via, _)| action == "media.updated" && via == "podhost");
        if done || start.elapsed() > Duration::from_secs(60) {
            break body["data"].clone();
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    server.kill().unwrap();
    server.wait().unwrap();

    let got = changes(&listed);
    let file = format!("media {media}");
    let expected: Vec<(&str, &str, &str, &str)> = vec![
        ("media.updated", &file, "podhost", ""),
        ("media.created", &file, "cli", ""),
        ("episode.created", "episode pod-1", "cli", ""),
        ("podcast.updated", "podcast daily", "token", "acme"),
        ("member.invited", got[4].1.as_str(), "cli", ""),
        ("token.created", got[5].1.as_str(), "cli", ""),
        ("podcast.created", "podcast daily", "cli", ""),
    ];
    let got_ref: Vec<(&str, &str, &str, &str)> = got
        .iter()
        .map(|(a, o, v, l)| (a.as_str(), o.as_str(), v.as_str(), l.as_str()))
        .collect();
    assert_eq!(got_ref, expected);
    // The token's change names the member it acts as: the account's founder.
    assert!(
        listed[3]["actor"]["member_id"]
            .as_str()
            .unwrap()
            .starts_with("mem_")
    );
    assert!(
        listed[3]["actor"]["token_id"]
            .as_str()
            .unwrap()
            .starts_with("tok_")
    );

    // The command line answers the same, narrowed to the podcast.
    let by_cli = cli.json(&["member", "activity", "--user", "acme", "--feed", "daily"]);
    let actions: Vec<&str> = by_cli
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        ["episode.created", "podcast.updated", "podcast.created"]
    );
}
