//! An event survives a `kill -9` of the server that was delivering it: the change is in the
//! store with its event, the dead server's attempt failed, and the restarted server delivers it
//! once the subscriber answers (at least once, with the same `webhook-id`).

mod common;

use std::{
    io::{Read, Write},
    net::TcpListener,
    process::Child,
    sync::mpsc,
    time::{Duration, Instant},
};

use podhost_core::{
    HostConfig, PodcastHost,
    model::{FeedPatch, NewFeed},
    webhooks::subscription::NewWebhook,
};

fn serve(store: &str) -> Child {
    common::serve(store, &["--allow-private-webhooks"], &[])
}

/// A subscriber on `port` that answers 200 to every request and reports each request's head.
fn subscriber(port: u16, seen: mpsc::Sender<String>) {
    let listener = TcpListener::bind(("127.0.0.1", port)).unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            stream.set_read_timeout(Some(Duration::from_secs(5))).ok();
            let mut request = Vec::new();
            let mut buf = [0u8; 4096];
            while let Ok(n) = stream.read(&mut buf) {
                if n == 0 {
                    break;
                }
                request.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&request);
                if let Some(end) = text.find("\r\n\r\n") {
                    let length = text
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                        })
                        .unwrap_or(0);
                    if request.len() >= end + 4 + length {
                        break;
                    }
                }
            }
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
            let _ = seen.send(String::from_utf8_lossy(&request).into_owned());
        }
    });
}

#[test]
fn an_event_survives_kill_9_of_the_delivering_server() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().to_str().unwrap().to_string();
    // A port with nobody listening yet: the first server's attempts fail.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut first = serve(&store);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let opened = podhost_core::open_store(&store).unwrap();
    let mut config = HostConfig::new("http://127.0.0.1:8080").unwrap();
    config.catalog.refresh_interval = Duration::ZERO;
    config.allow_private_webhooks = true;
    let host = PodcastHost::new(config, opened.store);
    let (admin, webhook) = runtime.block_on(async {
        let admin = host.owner(&"admin".parse().unwrap()).await.unwrap();
        let webhook = host
            .create_webhook(
                &admin,
                NewWebhook {
                    url: format!("http://127.0.0.1:{port}/hook"),
                    events: vec!["feed.created".into()],
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        host.create_feed(
            &admin,
            NewFeed {
                id: "show".into(),
                fields: FeedPatch {
                    title: Some("Show".into()),
                    ..Default::default()
                },
            },
        )
        .await
        .unwrap();
        (admin, webhook)
    });
    // The first server tries, fails (nobody listens), and is killed before any retry.
    let start = Instant::now();
    loop {
        let deliveries = runtime
            .block_on(host.webhook_deliveries(&admin, &webhook.id))
            .unwrap();
        if deliveries.first().is_some_and(|d| !d.attempts.is_empty()) {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no attempt was made"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    first.kill().unwrap(); // SIGKILL
    first.wait().unwrap();

    let (seen, requests) = mpsc::channel();
    subscriber(port, seen);
    let mut second = serve(&store);
    let request = requests
        .recv_timeout(Duration::from_secs(60))
        .expect("the restarted server delivers the event");
    second.kill().unwrap();
    second.wait().unwrap();
    assert!(request.starts_with("POST /hook HTTP/1.1"), "{request}");
    assert!(request.contains("\"type\":\"feed.created\""), "{request}");
    let deliveries = runtime
        .block_on(host.webhook_deliveries(&admin, &webhook.id))
        .unwrap();
    let event_id = &deliveries[0].event_id;
    assert!(
        request
            .to_ascii_lowercase()
            .contains(&format!("webhook-id: {event_id}")),
        "{request}"
    );
}
