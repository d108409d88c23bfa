//! Over a real socket: the server answers, limits request heads and slow clients, and lets
//! requests in flight finish on shutdown.

mod common;

use std::time::Duration;

use common::{Fixture, multipart_body};
use podhost_http::HttpConfig;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
    sync::oneshot,
};

struct Running {
    addr: std::net::SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    done: tokio::task::JoinHandle<std::io::Result<()>>,
    alice: String,
    fx: Fixture,
}

async fn start(config: HttpConfig) -> Running {
    let fx = Fixture::with_config(config).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let done = tokio::spawn(podhost_http::serve(listener, fx.api.clone(), async move {
        let _ = stopped.await;
    }));
    Running {
        addr,
        stop: Some(stop),
        done,
        alice: fx.alice.clone(),
        fx,
    }
}

/// Sends raw bytes, reads until the server closes or `wait` passes; returns what came back.
async fn exchange(addr: std::net::SocketAddr, bytes: &[u8], wait: Duration) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(bytes).await.unwrap();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(wait, stream.read_to_end(&mut out)).await;
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn answers_over_a_socket() {
    let server = start(HttpConfig::default()).await;
    let request = format!(
        "GET /api/feeds HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nConnection: close\r\n\r\n",
        server.alice
    );
    let answer = exchange(server.addr, request.as_bytes(), Duration::from_secs(5)).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("x-ratelimit-limit: 180"), "{answer}");
    assert!(answer.ends_with("{\"data\":[]}"), "{answer}");
}

#[tokio::test]
async fn oversized_heads_are_refused() {
    let server = start(HttpConfig::default()).await;
    let request = format!(
        "GET /api/feeds HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "a".repeat(64 << 10)
    );
    let answer = exchange(server.addr, request.as_bytes(), Duration::from_secs(5)).await;
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 431"),
        "{answer:?}"
    );
}

#[tokio::test]
async fn a_client_that_never_finishes_its_head_is_cut_off() {
    let server = start(HttpConfig {
        header_read_timeout: Duration::from_millis(300),
        ..HttpConfig::default()
    })
    .await;
    let started = std::time::Instant::now();
    let answer = exchange(
        server.addr,
        b"GET /api/feeds HTTP/1.1\r\nHost: x\r\n",
        Duration::from_secs(10),
    )
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the server closed the connection"
    );
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
        "{answer:?}"
    );
}

#[tokio::test]
async fn shutdown_lets_an_upload_in_flight_finish() {
    let mut server = start(HttpConfig::default()).await;
    let (content_type, body) = multipart_body(
        &[],
        &[("media", "a.wav", podhost_testkit::fixtures::wav(2.0, 8000))],
    );
    let head = format!(
        "POST /api/media HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        server.alice,
        body.len()
    );
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&body[..body.len() / 2]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    server.stop.take().unwrap().send(()).unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        !server.done.is_finished(),
        "the server waits for the request in flight"
    );
    stream.write_all(&body[body.len() / 2..]).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");
    tokio::time::timeout(Duration::from_secs(5), server.done)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(
        TcpStream::connect(server.addr).await.is_err(),
        "no longer listening"
    );
}

/// Reads one answer: the head, then `Content-Length` bytes of body.
async fn read_answer(stream: &mut TcpStream) -> (String, String) {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let text = String::from_utf8_lossy(&buffer).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length: "))
                .map_or(0, |n| n.trim().parse().unwrap());
            if body.len() >= length {
                return (head.to_string(), body[..length].to_string());
            }
        }
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut chunk))
            .await
            .expect("an answer within 10 s")
            .expect("no connection reset");
        assert!(n > 0, "the connection closed before the answer: {text:?}");
        buffer.extend_from_slice(&chunk[..n]);
    }
}

/// A client that sends a whole 20 MB upload at once, without `Expect: 100-continue`, and only
/// then reads (as Python's `requests` does), gets the early answer, not a connection reset, and
/// can go on on the same connection; the server takes an upload afterwards.
#[tokio::test]
async fn an_early_answer_reaches_a_client_that_sends_its_whole_body() {
    let server = start(HttpConfig::default()).await;
    server.fx.feed("show").await;
    let read_only = server.fx.token("media-read-only").await;
    let shows = server.fx.token("shows").await;
    let (content_type, body) = multipart_body(&[], &[("media", "big.wav", vec![7u8; 20 << 20])]);
    let cases = [
        (
            "/api/media",
            read_only.as_str(),
            "403",
            "this operation needs the scope media",
        ),
        ("/api/media", "nonsense", "401", "Unauthenticated."),
        (
            "/api/feed/nope/show",
            shows.as_str(),
            "404",
            "feed nope not found",
        ),
    ];
    for (path, token, status, message) in cases {
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        let mut stream = TcpStream::connect(server.addr).await.unwrap();
        let mut request = head.into_bytes();
        request.extend_from_slice(&body);
        tokio::time::timeout(Duration::from_secs(20), stream.write_all(&request))
            .await
            .expect("the server reads the body")
            .expect("no connection reset while sending");
        let (head, answer) = read_answer(&mut stream).await;
        assert!(
            head.starts_with(&format!("HTTP/1.1 {status}")),
            "{path}: {head}"
        );
        let answer: serde_json::Value = serde_json::from_str(&answer).unwrap();
        assert!(
            answer["message"].as_str().unwrap().contains(message),
            "{path}: {answer}"
        );
        // The body was read to its end: the connection goes on.
        let next = format!(
            "GET /api/feeds HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\r\n",
            server.alice
        );
        stream.write_all(next.as_bytes()).await.unwrap();
        let (head, _) = read_answer(&mut stream).await;
        assert!(head.starts_with("HTTP/1.1 200"), "{path}, then: {head}");
    }
    // A correct upload on a new connection.
    let (content_type, body) = multipart_body(
        &[],
        &[("media", "a.wav", podhost_testkit::fixtures::wav(1.0, 8000))],
    );
    let head = format!(
        "POST /api/media HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        server.alice,
        body.len()
    );
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&body).await.unwrap();
    let (head, answer) = read_answer(&mut stream).await;
    assert!(head.starts_with("HTTP/1.1 201"), "{head} {answer}");
}

/// `HEAD` over a socket: the `GET` answer's head, `Content-Length` included, and no body.
#[tokio::test]
async fn head_over_a_socket_has_the_length_and_no_body() {
    let server = start(HttpConfig::default()).await;
    let mut lengths = Vec::new();
    for method in ["GET", "HEAD"] {
        let request = format!(
            "{method} /api/feeds HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nConnection: close\r\n\r\n",
            server.alice
        );
        let answer = exchange(server.addr, request.as_bytes(), Duration::from_secs(5)).await;
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        lengths.push((
            head.lines()
                .find_map(|l| l.strip_prefix("content-length: "))
                .map(str::to_string),
            body.len(),
        ));
    }
    assert_eq!(lengths, [(Some("11".into()), 11), (Some("11".into()), 0)]);
}
