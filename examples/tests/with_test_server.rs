//! An integration test as an integrator writes one: their code (here `announce_new_episodes`,
//! which turns podhost's `episode.published` webhooks into posts) tested against a real podhost
//! in-process (`TestServer`) and a webhook endpoint that checks signatures (`WebhookReceiver`).

use std::time::Duration;

use http::{Method, StatusCode};
use jiff::SignedDuration;
use podhost_testkit::{Received, TestServer, WebhookReceiver};
use serde_json::json;

/// The integrator's code under test: a post for each published episode.
fn announce_new_episodes(received: &[Received]) -> Vec<String> {
    received
        .iter()
        .filter(|r| r.verified && r.event_type == "episode.published")
        .map(|r| {
            format!(
                "New episode of {}: {}",
                r.body["data"]["feed_id"].as_str().unwrap_or("?"),
                r.body["data"]["attributes"]["title"]
                    .as_str()
                    .unwrap_or("?")
            )
        })
        .collect()
}

#[tokio::test]
async fn published_episodes_are_announced_once_each() {
    let server = TestServer::start().await;
    let receiver = WebhookReceiver::start().await;
    let token = Some(server.token());
    let hook = server
        .request(
            Method::POST,
            "/api/webhooks",
            token,
            Some(json!({"url": receiver.url(), "secret": receiver.secret(), "events": ["episode.published"]})),
        )
        .await;
    assert_eq!(hook.status, StatusCode::CREATED, "{}", hook.text());
    let feed = server
        .request(
            Method::POST,
            "/api/feeds",
            token,
            Some(json!({"id": "daily", "title": "Daily"})),
        )
        .await;
    assert_eq!(feed.status, StatusCode::CREATED, "{}", feed.text());

    // One episode now, one scheduled for tomorrow (set up through the core, as fixtures are).
    let alice = server.owner().await;
    let feed_id = "daily".parse().unwrap();
    let mut now = podhost_core::model::NewEpisode::titled("Pilot");
    now.fields.is_public = Some(true);
    server
        .host()
        .podcasts()
        .create_episode(&alice, &feed_id, now)
        .await
        .unwrap();
    let mut later = podhost_core::model::NewEpisode::titled("Second");
    later.fields.is_public = Some(true);
    later.fields.publish_at = Some(server.host().now() + SignedDuration::from_hours(24));
    server
        .host()
        .podcasts()
        .create_episode(&alice, &feed_id, later)
        .await
        .unwrap();

    receiver
        .wait_for("episode.published", Duration::from_secs(20))
        .await;
    assert_eq!(
        announce_new_episodes(&receiver.received()),
        ["New episode of daily: Pilot"]
    );

    server.advance(SignedDuration::from_hours(25)).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while announce_new_episodes(&receiver.received()).len() < 2 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{:?}",
            receiver.received()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        announce_new_episodes(&receiver.received()),
        [
            "New episode of daily: Pilot",
            "New episode of daily: Second"
        ]
    );
    // Another account cannot see alice's podcast.
    let theirs = server
        .request(
            Method::GET,
            "/api/feeds/daily",
            Some(server.other_token()),
            None,
        )
        .await;
    assert_eq!(theirs.status, StatusCode::NOT_FOUND);
}
