//! The rate limit holds across real servers: two `podhost serve` processes on one local-folder
//! store accept one token's 180 requests per minute between them, within 10 %.

mod common;

use std::{
    io::{Read, Write},
    net::{SocketAddr, TcpStream},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use common::{Server, podhost_on as podhost};

/// The status of `GET /api/feeds` with `token`, over a connection of its own.
fn status(addr: SocketAddr, token: &str) -> u16 {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "GET /api/feeds HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    // "HTTP/1.1 200 OK"
    String::from_utf8_lossy(&answer[9..12]).parse().unwrap()
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

#[test]
fn two_servers_on_one_store_share_a_tokens_budget() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().to_str().unwrap();
    podhost(store, &["user", "create", "alice"]);
    let token = podhost(
        store,
        &["token", "create", "--user", "alice", "--scopes", "feeds"],
    );
    let (a, addr_a) = common::serve_listening(store, &[], &[]);
    let _a = Server(a);
    let (b, addr_b) = common::serve_listening(store, &[], &[]);
    let _b = Server(b);
    // Windows are the clock's minutes: start with at least 10 s of this one left.
    if unix_now() % 60 > 50 {
        std::thread::sleep(Duration::from_secs(60 - unix_now() % 60));
    }
    let window = unix_now() / 60;
    let clients: Vec<_> = [addr_a, addr_b]
        .into_iter()
        .map(|addr| {
            let token = token.clone();
            std::thread::spawn(move || (0..200).map(|_| status(addr, &token)).collect::<Vec<u16>>())
        })
        .collect();
    let statuses: Vec<u16> = clients
        .into_iter()
        .flat_map(|c| c.join().unwrap())
        .collect();
    assert_eq!(unix_now() / 60, window, "the requests took over 10 s");
    let accepted = statuses.iter().filter(|s| **s == 200).count();
    let limited = statuses.iter().filter(|s| **s == 429).count();
    eprintln!("two servers: {accepted} accepted, {limited} refused of 400");
    assert_eq!(accepted + limited, 400, "{statuses:?}");
    assert!((162..=180).contains(&accepted), "{accepted} accepted");
}
