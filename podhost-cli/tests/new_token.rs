//! A new token works at once: a token made by `podhost token create` while servers run, or made
//! through another server, is accepted on its first use, right after it was made (not only once
//! the server's catalog refreshes), and its first uses are no failed attempts.

mod common;

use std::{
    io::{Read, Write},
    net::{SocketAddr, TcpStream},
};

use common::{Server, podhost_on as podhost};

/// The status and body of a request with `token`, over a connection of its own.
fn request(addr: SocketAddr, method: &str, path: &str, token: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let answer = String::from_utf8_lossy(&answer).into_owned();
    // "HTTP/1.1 200 OK"
    let status = answer[9..12].parse().unwrap();
    let body = answer
        .split_once("\r\n\r\n")
        .map_or(String::new(), |(_, b)| b.to_string());
    (status, body)
}

/// The statuses of five `GET /api/feeds` in a row with `token`, the first sent at once.
fn five_uses(addr: SocketAddr, token: &str) -> Vec<u16> {
    (0..5)
        .map(|_| request(addr, "GET", "/api/feeds", token, "").0)
        .collect()
}

#[test]
fn a_token_made_elsewhere_works_on_its_first_use() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().to_str().unwrap();
    podhost(store, &["user", "create", "alice"]);
    let first = podhost(
        store,
        &[
            "token",
            "create",
            "--user",
            "alice",
            "--scopes",
            "feeds,tokens",
        ],
    );
    let (a, addr_a) = common::serve_listening(store, &[], &[]);
    let _a = Server(a);
    let (b, addr_b) = common::serve_listening(store, &[], &[]);
    let _b = Server(b);

    // Both servers have the account open and have just read it: what is made now is newer
    // than what they hold, for the next half second of refresh interval.
    assert_eq!(request(addr_a, "GET", "/api/feeds", &first, "").0, 200);
    assert_eq!(request(addr_b, "GET", "/api/feeds", &first, "").0, 200);

    // Made by the CLI, used at once on a server.
    let by_cli = podhost(
        store,
        &["token", "create", "--user", "alice", "--scopes", "feeds"],
    );
    assert_eq!(five_uses(addr_a, &by_cli), [200; 5], "a token the CLI made");

    // Made through one server, used at once on the other.
    assert_eq!(request(addr_a, "GET", "/api/feeds", &first, "").0, 200);
    let (status, body) = request(
        addr_b,
        "POST",
        "/api/tokens",
        &first,
        r#"{"label":"script","scopes":["feeds"]}"#,
    );
    assert_eq!(status, 201, "{body}");
    let created: serde_json::Value = serde_json::from_str(&body).unwrap();
    let by_server = created["data"]["token"].as_str().unwrap().to_string();
    assert_eq!(
        five_uses(addr_a, &by_server),
        [200; 5],
        "a token another server made"
    );

    // A token that exists nowhere is still refused, after the second look; so is a known
    // token's id with another secret.
    let (id_tail, random) = by_cli["phk_".len()..].split_at(16);
    let unknown = format!("phk_{}{random}", "z".repeat(id_tail.len()));
    assert_eq!(request(addr_a, "GET", "/api/feeds", &unknown, "").0, 401);
    let wrong = format!("phk_{id_tail}_{}", "A".repeat(43));
    assert_eq!(request(addr_a, "GET", "/api/feeds", &wrong, "").0, 401);
}
