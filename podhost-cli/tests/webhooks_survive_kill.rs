//! An event survives a `kill -9` of the server that was delivering it: the change is in the
//! store with its event, the dead server's attempt failed, and the restarted server delivers it
//! once the subscriber answers (at least once, with the same `webhook-id`).

mod common;

use std::{
    net::TcpListener,
    process::Child,
    time::{Duration, Instant},
};

use podhost_core::{
    HostConfig, PodcastHost,
    model::{FeedPatch, NewFeed},
    webhooks::{signature::Secret, subscription::NewWebhook},
};
use podhost_testkit::WebhookReceiver;

fn serve(store: &str) -> Child {
    common::serve(store, &["--allow-private-webhooks"], &[])
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
    let secret = Secret::generate();
    let (admin, webhook) = runtime.block_on(async {
        let admin = host
            .access()
            .owner(&"admin".parse().unwrap())
            .await
            .unwrap();
        let webhook = host
            .work()
            .create_webhook(
                &admin,
                NewWebhook {
                    url: format!("http://127.0.0.1:{port}/hook"),
                    events: vec!["feed.created".into()],
                    secret: Some(secret.as_str().to_string()),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        host.podcasts()
            .create_feed(
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
            .block_on(host.work().webhook_deliveries(&admin, &webhook.id))
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

    // Now someone listens, at the subscription's URL, with its secret.
    let receiver = runtime.block_on(WebhookReceiver::start_on(port, secret));
    let mut second = serve(&store);
    let delivered = runtime.block_on(receiver.wait_for("feed.created", Duration::from_secs(60)));
    second.kill().unwrap();
    second.wait().unwrap();
    let deliveries = runtime
        .block_on(host.work().webhook_deliveries(&admin, &webhook.id))
        .unwrap();
    assert_eq!(
        delivered.id, deliveries[0].event_id,
        "the event first attempted"
    );
    assert_eq!(delivered.body["data"]["id"], "show");
}
