//! New episodes reach apps in seconds: WebSub hubs and Podping are told of every public feed
//! change, through the webhooks' durable outbox and delivery (a local hub and a Podping
//! endpoint here are wiremock servers; podhost's real `HttpWebhookSender` sends).

mod common;

use std::{sync::Arc, time::Duration};

use common::Fixture;
use http::{Method, StatusCode};
use podhost_core::{
    PodcastHost, Principal,
    model::{FeedPatch, NewEpisode, NewFeed},
    webhooks::notify::Notifiers,
};
use podhost_http::HttpWebhookSender;
use wiremock::{
    Mock, MockServer, ResponseTemplate,
    matchers::{body_string, header, method, path, query_param},
};

async fn fixture(notify: Notifiers, allow_private: bool) -> Fixture {
    Fixture::with_host_config(move |config| {
        config.notify = notify;
        config.allow_private_webhooks = allow_private;
    })
    .await
}

async fn alice(host: &PodcastHost) -> Principal {
    host.access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap()
}

/// alice's podcast `show`, then one delivery round (which gives the account its notifier
/// subscriptions, from its next event on).
async fn podcast(fx: &Fixture) {
    let who = alice(&fx.host).await;
    fx.host
        .podcasts()
        .create_feed(&who, NewFeed::titled("show", "The Show"))
        .await
        .unwrap();
    round(&fx.host).await;
}

async fn round(host: &PodcastHost) -> podhost_core::WebhookRun {
    let who = alice(host).await;
    host.work()
        .process_webhooks(
            &who,
            &HttpWebhookSender::new(),
            &podhost_http::wire::WireEvents::new(host.clone()),
        )
        .await
        .unwrap()
}

async fn publish(host: &PodcastHost, title: &str) {
    let who = alice(host).await;
    let mut episode = NewEpisode::titled(title);
    episode.fields.is_public = Some(true);
    host.podcasts()
        .create_episode(&who, &"show".parse().unwrap(), episode)
        .await
        .unwrap();
}

/// Waits (at most 20 s) until `server` got `n` requests; returns them.
async fn received(server: &MockServer, n: usize) -> Vec<wiremock::Request> {
    for _ in 0..400 {
        let got = server.received_requests().await.unwrap_or_default();
        if got.len() >= n {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{n} requests expected");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_publish_pings_the_websub_hub_the_feed_names() {
    let hub = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/hub"))
        .and(header("content-type", "application/x-www-form-urlencoded"))
        .and(body_string(
            "hub.mode=publish&hub.url=https%3A%2F%2Fpod.test%2Ffeeds%2Fshow%2Frss",
        ))
        .respond_with(ResponseTemplate::new(204))
        .mount(&hub)
        .await;
    let hub_url = format!("{}/hub", hub.uri());
    let fx = fixture(
        Notifiers {
            websub_hubs: vec![hub_url.clone()],
            ..Default::default()
        },
        true,
    )
    .await;
    podcast(&fx).await;
    let feed = fx.public(Method::GET, "/feeds/show/rss", &[]).await;
    let xml = String::from_utf8_lossy(&feed.raw);
    assert!(
        xml.contains(&format!("<atom:link href=\"{hub_url}\" rel=\"hub\"/>")),
        "{xml}"
    );
    // A server's delivery loop, as `podhost serve` runs it.
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let host = fx.host.clone();
    let loop_task = tokio::spawn(async move {
        host.work()
            .run_webhooks(
                Arc::new(HttpWebhookSender::new()),
                Arc::new(podhost_http::wire::WireEvents::new(host.clone())),
                async {
                    let _ = stopped.await;
                },
            )
            .await;
    });
    let started = std::time::Instant::now();
    publish(&fx.host, "Pilot").await;
    let got = received(&hub, 1).await;
    eprintln!("the hub was told in {:?}", started.elapsed());
    assert_eq!(got[0].method.as_str(), "POST");
    // The webhooks API does not show the deployment's notifiers.
    let listed = fx.get("/api/webhooks").await;
    assert_eq!(listed.body["data"], serde_json::json!([]));
    let _ = stop.send(());
    loop_task.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn podping_is_told_with_its_token_and_the_podcasts_medium() {
    let podping = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/"))
        .and(query_param("url", "https://pod.test/feeds/show/rss"))
        .and(query_param("reason", "update"))
        .and(query_param("medium", "music"))
        .and(header("authorization", "Bearer podping-secret"))
        .respond_with(ResponseTemplate::new(200).set_body_string("Success!"))
        .mount(&podping)
        .await;
    let fx = fixture(
        Notifiers {
            podping_url: Some(format!("{}/", podping.uri())),
            podping_token: Some("Bearer podping-secret".into()),
            ..Default::default()
        },
        true,
    )
    .await;
    podcast(&fx).await;
    let who = alice(&fx.host).await;
    let patch = FeedPatch {
        podcast_medium: Some("music".into()),
        ..Default::default()
    };
    fx.host
        .podcasts()
        .update_feed(&who, &"show".parse().unwrap(), &patch)
        .await
        .unwrap();
    let xml = String::from_utf8_lossy(&fx.public(Method::GET, "/feeds/show/rss", &[]).await.raw)
        .into_owned();
    assert!(
        xml.contains("<podcast:podping usesPodping=\"true\"/>"),
        "{xml}"
    );
    let run = round(&fx.host).await;
    assert_eq!((run.attempted, run.delivered), (1, 1), "{run:?}");
    let got = received(&podping, 1).await;
    assert_eq!(got[0].method.as_str(), "GET");
}

/// The change is recorded by one process, which stops before any ping; another process (the
/// restarted server) sends it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ping_survives_a_restart_between_the_change_and_the_ping() {
    let hub = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/hub"))
        .respond_with(ResponseTemplate::new(202))
        .mount(&hub)
        .await;
    let fx = fixture(
        Notifiers {
            websub_hubs: vec![format!("{}/hub", hub.uri())],
            ..Default::default()
        },
        true,
    )
    .await;
    podcast(&fx).await;
    publish(&fx.host, "Recorded, not yet pinged").await;
    assert!(hub.received_requests().await.unwrap().is_empty());
    let (restarted, _) = fx.another_process();
    let run = round(&restarted).await;
    assert_eq!(run.delivered, 1, "{run:?}");
    assert_eq!(received(&hub, 1).await.len(), 1);
    // Sent once: a further round has nothing to send.
    let run = round(&restarted).await;
    assert_eq!(run.attempted, 0, "{run:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_podcasts_and_forbidden_targets_are_never_pinged() {
    let hub = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(204))
        .mount(&hub)
        .await;
    let notify = Notifiers {
        websub_hubs: vec![format!("{}/hub", hub.uri())],
        ..Default::default()
    };
    // A private podcast: its changes tell nobody, and its subscribers' feeds name no hub.
    let fx = fixture(notify.clone(), true).await;
    podcast(&fx).await;
    let who = alice(&fx.host).await;
    let patch = FeedPatch {
        private: Some(true),
        ..Default::default()
    };
    fx.host
        .podcasts()
        .update_feed(&who, &"show".parse().unwrap(), &patch)
        .await
        .unwrap();
    publish(&fx.host, "Members only").await;
    round(&fx.host).await;
    assert!(hub.received_requests().await.unwrap().is_empty());
    let subscriber = fx
        .host
        .delivery()
        .add_subscriber(&who, &"show".parse().unwrap(), "Jane")
        .await
        .unwrap();
    let url = fx.host.delivery().subscriber_feed_url(&subscriber);
    let feed = fx
        .public(
            Method::GET,
            url.strip_prefix("https://pod.test").unwrap(),
            &[],
        )
        .await;
    assert_eq!(feed.status, StatusCode::OK);
    assert!(!String::from_utf8_lossy(&feed.raw).contains("rel=\"hub\""));

    // A hub on loopback, where the deployment does not allow private targets: refused at
    // every attempt, never sent.
    let fx = fixture(notify, false).await;
    podcast(&fx).await;
    publish(&fx.host, "Pilot").await;
    let run = round(&fx.host).await;
    assert_eq!((run.attempted, run.failed), (1, 1), "{run:?}");
    assert!(hub.received_requests().await.unwrap().is_empty());
}

/// Podping's reason follows the podcast's live items: `live` when one goes live, `liveEnd`
/// when it ends, `update` for any other change.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn podping_says_when_a_live_item_starts_and_ends() {
    let podping = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&podping)
        .await;
    let fx = fixture(
        Notifiers {
            podping_url: Some(format!("{}/", podping.uri())),
            ..Default::default()
        },
        true,
    )
    .await;
    podcast(&fx).await;
    let who = alice(&fx.host).await;
    let live = |status: &str| {
        let item = serde_json::json!([{"status": status, "start": "2027-01-01T16:00:00Z",
            "title": "Live Q&A", "guid": "live-1", "url": "https://live.example/s.mp3", "type": "audio/mpeg"}]);
        FeedPatch {
            podcast_tags: serde_json::Map::from_iter([("liveItem".to_string(), item)]),
            ..Default::default()
        }
    };
    let mut reasons = Vec::new();
    for status in ["pending", "live", "live", "ended"] {
        fx.host
            .podcasts()
            .update_feed(&who, &"show".parse().unwrap(), &live(status))
            .await
            .unwrap();
        round(&fx.host).await;
        let got = podping.received_requests().await.unwrap();
        let url = got.last().unwrap().url.clone();
        reasons.push(
            url.query_pairs()
                .find(|(k, _)| k == "reason")
                .map(|(_, v)| v.into_owned())
                .unwrap(),
        );
    }
    // An update while the item is already live is an update.
    assert_eq!(reasons, ["update", "live", "update", "liveEnd"]);
}
