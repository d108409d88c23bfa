//! The testkit's server and webhook receiver, used as an integrator would: over HTTP, with the
//! two accounts' tokens, the clock moved on, and webhooks checked by their signatures.

use std::time::Duration;

use http::{Method, StatusCode};
use jiff::SignedDuration;
use podhost_core::model::{NewEpisode, NewFeed};
use podhost_testkit::{TestServer, WebhookReceiver};
use serde_json::json;

#[tokio::test]
async fn the_server_answers_with_two_accounts_that_do_not_see_each_other() {
    let server = TestServer::start().await;
    let created = server
        .request(
            Method::POST,
            "/api/feeds",
            Some(server.token()),
            Some(json!({"id": "show", "title": "Show"})),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text());
    // (token, status of GET /api/feeds/show)
    let cases = [
        (Some(server.token()), StatusCode::OK),
        (Some(server.other_token()), StatusCode::NOT_FOUND),
        (None, StatusCode::UNAUTHORIZED),
    ];
    for (token, status) in cases {
        let got = server
            .request(Method::GET, "/api/feeds/show", token, None)
            .await;
        assert_eq!(got.status, status, "{token:?}: {}", got.text());
    }
    // Links point at the server itself.
    let feed = server.get("/api/feeds/show").await.json();
    let text = feed.to_string();
    assert!(text.contains(&server.base_url()), "{text}");
}

#[tokio::test]
async fn webhooks_arrive_signed_and_time_moves_on_demand() {
    let server = TestServer::start().await;
    let receiver = WebhookReceiver::start().await;
    let subscribed = server
        .request(
            Method::POST,
            "/api/webhooks",
            Some(server.token()),
            Some(json!({"url": receiver.url(), "secret": receiver.secret(), "events": ["episode.published"]})),
        )
        .await;
    assert_eq!(
        subscribed.status,
        StatusCode::CREATED,
        "{}",
        subscribed.text()
    );

    let alice = server.owner().await;
    let feed = server
        .host()
        .podcasts()
        .create_feed(&alice, NewFeed::titled("show", "Show"))
        .await
        .unwrap()
        .feed
        .id;
    let mut now = NewEpisode::titled("Now");
    now.fields.is_public = Some(true);
    server
        .host()
        .podcasts()
        .create_episode(&alice, &feed, now)
        .await
        .unwrap();
    let published = receiver
        .wait_for("episode.published", Duration::from_secs(20))
        .await;
    assert!(published.verified);
    assert_eq!(
        published.body["data"]["attributes"]["title"], "Now",
        "{}",
        published.body
    );

    // An episode scheduled for tomorrow is published when the clock gets there.
    let mut later = NewEpisode::titled("Later");
    later.fields.is_public = Some(true);
    later.fields.publish_at = Some("2026-01-02T00:00:00Z".parse().unwrap());
    server
        .host()
        .podcasts()
        .create_episode(&alice, &feed, later)
        .await
        .unwrap();
    let rss = server
        .request(Method::GET, "/feeds/show/rss", None, None)
        .await;
    assert!(!rss.text().contains("Later"), "not yet");
    server.advance(SignedDuration::from_hours(25)).await;
    let rss = server
        .request(Method::GET, "/feeds/show/rss", None, None)
        .await;
    assert!(rss.text().contains("Later"), "{}", rss.text());
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while !receiver
        .received()
        .iter()
        .any(|r| r.verified && r.body["data"]["attributes"]["title"] == "Later")
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{:?}",
            receiver.received()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
