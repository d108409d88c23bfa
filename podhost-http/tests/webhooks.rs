//! Webhooks end to end against wiremock servers: subscriptions, the signed body, retries with
//! back-off, giving up, order per endpoint, scheduled publications, the outbox across a process
//! change, refusals.

mod common;

use std::time::Duration;

use common::Fixture;
use http::{Method, StatusCode};
use jiff::SignedDuration;
use podhost_core::webhooks::{
    attempts::STALE_CLAIM,
    signature::{Secret, verify},
};
use serde_json::{Value, json};
use wiremock::{
    Mock, MockServer, ResponseTemplate,
    matchers::{method, path},
};

async fn subscribe(fx: &Fixture, url: &str, events: Value) -> (String, String) {
    let answer = fx
        .call(
            Method::POST,
            "/api/webhooks",
            &fx.alice,
            Some(json!({"url": url, "events": events, "description": "tests"})),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    let data = &answer.body["data"];
    (
        data["id"].as_str().unwrap().to_string(),
        data["secret"].as_str().unwrap().to_string(),
    )
}

async fn process(fx: &Fixture) -> Value {
    let answer = fx
        .call(Method::POST, "/api/webhooks-processing", &fx.alice, None)
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    answer.body["data"].clone()
}

fn counts(run: &Value) -> (u64, u64, u64, u64) {
    (
        run["attempted"].as_u64().unwrap(),
        run["delivered"].as_u64().unwrap(),
        run["failed"].as_u64().unwrap(),
        run["pending"].as_u64().unwrap(),
    )
}

async fn received(server: &MockServer) -> Vec<wiremock::Request> {
    server.received_requests().await.unwrap_or_default()
}

#[tokio::test]
async fn a_signed_event_with_the_object_as_the_api_shows_it() {
    let fx = Fixture::new().await;
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/hook"))
        .respond_with(ResponseTemplate::new(204))
        .mount(&server)
        .await;
    // An event before the subscription is not sent.
    fx.feed("before").await;
    let (id, secret) = subscribe(&fx, &format!("{}/hook", server.uri()), json!([])).await;
    assert!(secret.starts_with("whsec_"), "{secret}");
    fx.feed("show").await;

    assert_eq!(counts(&process(&fx).await), (1, 1, 0, 0));
    let requests = received(&server).await;
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    let header = |name: &str| {
        request
            .headers
            .get(name)
            .unwrap()
            .to_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(header("content-type"), "application/json");
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    assert_eq!(body["type"], "feed.created");
    assert!(
        body["timestamp"]
            .as_str()
            .unwrap()
            .starts_with("2026-01-01T")
    );
    // `data` is the feed as GET /api/feeds/show shows it.
    let api = fx.get("/api/feeds/show").await;
    assert_eq!(body["data"], api.body["data"]);
    // Who made the change: alice's token, acting as the account's founder.
    assert_eq!(body["actor"]["via"], "token", "{body}");
    assert_eq!(body["actor"]["login"], "alice", "{body}");
    assert!(
        body["actor"]["member_id"]
            .as_str()
            .is_some_and(|m| m.starts_with("mem_")),
        "{body}"
    );
    let timestamp: i64 = header("webhook-timestamp").parse().unwrap();
    let secret = Secret::parse(&secret).unwrap();
    assert!(verify(
        &secret,
        &header("webhook-id"),
        timestamp,
        &request.body,
        &header("webhook-signature")
    ));
    // Nothing more is due; the subscription lists its delivery.
    assert_eq!(counts(&process(&fx).await), (0, 0, 0, 0));
    let deliveries = fx.get(&format!("/api/webhooks/{id}/deliveries")).await;
    assert_eq!(deliveries.body["data"][0]["status"], "delivered");
    assert_eq!(deliveries.body["data"][0]["attempts"][0]["status"], 204);
    // The list and the single record never show the secret again.
    let listed = fx.get("/api/webhooks").await;
    assert_eq!(listed.body["data"][0]["id"], id.as_str());
    assert!(listed.body["data"][0].get("secret").is_none());
    assert!(
        fx.get(&format!("/api/webhooks/{id}")).await.body["data"]
            .get("secret")
            .is_none()
    );
}

#[tokio::test]
async fn retries_with_back_off_keep_the_id_and_the_order() {
    let fx = Fixture::new().await;
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503).set_body_string("busy"))
        .up_to_n_times(2)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&server)
        .await;
    subscribe(&fx, &server.uri(), json!(["feed.created", "feed.updated"])).await;
    fx.feed("show").await;
    fx.call(
        Method::PUT,
        "/api/feeds/show",
        &fx.alice,
        Some(json!({"title": "New"})),
    )
    .await;
    fx.episode("show", &[("title", "not subscribed")]).await;

    // The first event fails; the second waits behind it.
    assert_eq!(counts(&process(&fx).await), (1, 0, 1, 1));
    assert_eq!(counts(&process(&fx).await), (0, 0, 0, 1), "not due yet");
    fx.clock.advance(SignedDuration::from_secs(7));
    assert_eq!(
        counts(&process(&fx).await),
        (1, 0, 1, 1),
        "second attempt, still 503"
    );
    fx.clock.advance(SignedDuration::from_mins(7));
    assert_eq!(
        counts(&process(&fx).await),
        (2, 2, 0, 0),
        "third attempt, then the next event"
    );
    let requests = received(&server).await;
    let ids: Vec<String> = requests
        .iter()
        .map(|r| {
            r.headers
                .get("webhook-id")
                .unwrap()
                .to_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(ids[0], ids[1]);
    assert_eq!(ids[1], ids[2], "one id across retries");
    assert_ne!(ids[2], ids[3]);
    let types: Vec<String> = requests
        .iter()
        .map(|r| {
            serde_json::from_slice::<Value>(&r.body).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        types,
        [
            "feed.created",
            "feed.created",
            "feed.created",
            "feed.updated"
        ]
    );
}

#[tokio::test]
async fn a_delivery_is_given_up_after_about_a_day_and_kept() {
    let fx = Fixture::new().await;
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500).set_body_string("x".repeat(10_000)))
        .mount(&server)
        .await;
    let (id, _) = subscribe(&fx, &server.uri(), json!(["feed.created"])).await;
    fx.feed("show").await;
    let start = fx.host.now();
    let mut attempts = 0;
    for _ in 0..80 {
        attempts += counts(&process(&fx).await).0;
        fx.clock.advance(SignedDuration::from_mins(30));
    }
    let deliveries = fx.get(&format!("/api/webhooks/{id}/deliveries")).await;
    let delivery = &deliveries.body["data"][0];
    assert_eq!(
        attempts,
        podhost_core::webhooks::attempts::MAX_ATTEMPTS as u64
    );
    assert_eq!(delivery["status"], "failed");
    let tried = delivery["attempts"].as_array().unwrap();
    assert_eq!(tried.len(), podhost_core::webhooks::attempts::MAX_ATTEMPTS);
    assert!(tried.iter().all(|a| a["status"] == 500));
    assert!(
        tried[0]["excerpt"].as_str().unwrap().len() <= podhost_core::webhooks::EXCERPT_BYTES,
        "only an excerpt is kept"
    );
    let last: jiff::Timestamp = tried.last().unwrap()["at"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let span = last.duration_since(start);
    assert!(
        span > SignedDuration::from_hours(20) && span < SignedDuration::from_hours(40),
        "{span:?}"
    );
    // Redelivery by hand sends it again, now.
    let again = fx
        .call(
            Method::POST,
            &format!(
                "/api/webhooks/{id}/deliveries/{}/redeliver",
                delivery["seq"]
            ),
            &fx.alice,
            None,
        )
        .await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.body);
    assert_eq!(
        again.body["data"]["attempts"].as_array().unwrap().len(),
        tried.len() + 1
    );
    assert_eq!(
        again.body["data"]["attempts"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()["manual"],
        true
    );
}

/// A process that claimed an attempt and died before recording it: no other process sends that
/// attempt while the claim is fresh; once it is stale (`STALE_CLAIM`, 30 s) the attempt
/// counts as failed and the next one is sent, with the same id.
#[tokio::test]
async fn an_attempt_claimed_by_a_dead_process_is_failed_once_stale_and_retried() {
    use object_store::ObjectStoreExt;
    let fx = Fixture::new().await;
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(204))
        .mount(&server)
        .await;
    let (id, _) = subscribe(&fx, &server.uri(), json!(["feed.created"])).await;
    fx.feed("show").await;
    // The dead process's claim of the first attempt of event 1, as the store layout has it.
    let claim = object_store::path::Path::from(format!(
        "accounts/alice/webhooks/{id}/claims/{:020}-{:03}",
        1, 1
    ));
    let at = json!({"at": fx.host.now()}).to_string();
    fx.store.put(&claim, at.into()).await.unwrap();

    let stale = SignedDuration::try_from(STALE_CLAIM).unwrap();
    assert_eq!(counts(&process(&fx).await), (0, 0, 0, 1), "held");
    fx.clock.advance(stale - SignedDuration::from_secs(1));
    assert_eq!(counts(&process(&fx).await), (0, 0, 0, 1), "still held");
    assert!(received(&server).await.is_empty());
    let held = fx.get(&format!("/api/webhooks/{id}/deliveries")).await;
    assert_eq!(
        held.body["data"],
        json!([]),
        "nothing is recorded while the claim is fresh"
    );

    fx.clock.advance(SignedDuration::from_secs(2));
    process(&fx).await;
    fx.clock.advance(SignedDuration::from_secs(10));
    assert_eq!(counts(&process(&fx).await), (1, 1, 0, 0), "the retry");
    assert_eq!(received(&server).await.len(), 1);

    let deliveries = fx.get(&format!("/api/webhooks/{id}/deliveries")).await;
    let delivery = &deliveries.body["data"][0];
    assert_eq!(delivery["status"], "delivered", "{delivery}");
    let attempts = delivery["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2, "{delivery}");
    assert_eq!(attempts[0]["status"], Value::Null);
    assert_eq!(
        attempts[0]["excerpt"],
        "the sending process stopped before an answer"
    );
    assert_eq!(attempts[1]["status"], 204);
}

#[tokio::test]
async fn timeouts_are_failures_and_retried() {
    let fx = Fixture::new().await;
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(2)))
        .mount(&server)
        .await;
    subscribe(&fx, &server.uri(), json!([])).await;
    fx.feed("show").await;
    let alice = fx
        .host
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    let run = fx
        .host
        .work()
        .process_webhooks(
            &alice,
            &podhost_http::HttpWebhookSender::with_timeout(Duration::from_millis(300)),
            &podhost_http::wire::WireEvents::new(fx.host.clone()),
        )
        .await
        .unwrap();
    assert_eq!((run.attempted, run.failed, run.pending), (1, 1, 1));
}

#[tokio::test]
async fn a_scheduled_episode_is_announced_when_its_time_comes() {
    let fx = Fixture::new().await;
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&server)
        .await;
    fx.feed("show").await;
    subscribe(&fx, &server.uri(), json!(["episode.published"])).await;
    fx.episode(
        "show",
        &[
            ("title", "Now"),
            ("is_public", "1"),
            ("publishing_date", "2025-12-01"),
        ],
    )
    .await;
    fx.episode(
        "show",
        &[
            ("title", "Later"),
            ("is_public", "1"),
            ("publishing_date", "2026-01-03"),
        ],
    )
    .await;
    assert_eq!(counts(&process(&fx).await), (1, 1, 0, 0));
    fx.clock.advance(SignedDuration::from_hours(24));
    assert_eq!(counts(&process(&fx).await), (0, 0, 0, 0), "not yet");
    fx.clock.advance(SignedDuration::from_hours(48));
    assert_eq!(counts(&process(&fx).await), (1, 1, 0, 0));
    assert_eq!(counts(&process(&fx).await), (0, 0, 0, 0), "announced once");
    let titles: Vec<String> = received(&server)
        .await
        .iter()
        .map(|r| {
            serde_json::from_slice::<Value>(&r.body).unwrap()["data"]["attributes"]["title"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(titles, ["Now", "Later"]);
}

#[tokio::test]
async fn a_scheduled_episode_renamed_after_its_time_but_before_its_announcement_is_announced_once()
{
    let fx = Fixture::new().await;
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&server)
        .await;
    fx.feed("show").await;
    subscribe(&fx, &server.uri(), json!(["episode.published"])).await;
    let id = fx
        .episode(
            "show",
            &[
                ("title", "Later"),
                ("is_public", "1"),
                ("publishing_date", "2026-01-03"),
            ],
        )
        .await;
    assert_eq!(counts(&process(&fx).await), (0, 0, 0, 0), "not yet");
    // Its time comes; before any pass announces it, the podcaster renames it.
    fx.clock.advance(SignedDuration::from_hours(72));
    let renamed = fx
        .call(
            Method::PUT,
            &format!("/api/feed/show/show/{id}"),
            &fx.alice,
            Some(json!({"title": "Later, renamed"})),
        )
        .await;
    assert_eq!(renamed.status, StatusCode::OK, "{}", renamed.body);
    assert_eq!(counts(&process(&fx).await), (1, 1, 0, 0), "announced");
    assert_eq!(counts(&process(&fx).await), (0, 0, 0, 0), "announced once");
    let titles: Vec<String> = received(&server)
        .await
        .iter()
        .map(|r| {
            serde_json::from_slice::<Value>(&r.body).unwrap()["data"]["attributes"]["title"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(titles, ["Later, renamed"]);
}

#[tokio::test]
async fn the_outbox_survives_the_process_and_a_refused_change_has_no_event() {
    let fx = Fixture::new().await;
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&server)
        .await;
    subscribe(&fx, &server.uri(), json!([])).await;
    fx.feed("show").await;
    // Refused changes record nothing.
    let taken = fx
        .call(
            Method::POST,
            "/api/feeds",
            &fx.alice,
            Some(json!({"id": "show", "title": "x"})),
        )
        .await;
    assert_eq!(taken.status, StatusCode::CONFLICT);
    let missing = fx
        .call(Method::DELETE, "/api/feed/show/show/pod-9", &fx.alice, None)
        .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    // The process that made the change is gone before delivering; another one delivers.
    let (other, _) = fx.another_process();
    let alice = other
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    let run = other
        .work()
        .process_webhooks(
            &alice,
            &podhost_http::HttpWebhookSender::new(),
            &podhost_http::wire::WireEvents::new(other.clone()),
        )
        .await
        .unwrap();
    assert_eq!((run.attempted, run.delivered), (1, 1));
    assert_eq!(received(&server).await.len(), 1);
}

#[tokio::test]
async fn refusals() {
    let fx = Fixture::new().await;
    let no_scope = fx.token("feeds").await;
    let cases: Vec<(Value, &str, StatusCode)> = vec![
        (
            json!({"url": "ftp://example.com/x"}),
            &fx.alice,
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"url": "https://example.com", "events": ["nope"]}),
            &fx.alice,
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"url": "https://example.com", "events": "all"}),
            &fx.alice,
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"url": "https://example.com", "secret": "plain"}),
            &fx.alice,
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"events": []}),
            &fx.alice,
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"url": "https://example.com", "colour": 1}),
            &fx.alice,
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"url": "https://example.com"}),
            &no_scope,
            StatusCode::FORBIDDEN,
        ),
    ];
    for (body, token, expected) in cases {
        let answer = fx
            .call(Method::POST, "/api/webhooks", token, Some(body.clone()))
            .await;
        assert_eq!(answer.status, expected, "{body}: {}", answer.body);
    }
    let (id, _) = subscribe(&fx, "https://example.com/hook", json!([])).await;
    for (method, path) in [
        (Method::GET, format!("/api/webhooks/{id}")),
        (Method::GET, format!("/api/webhooks/{id}/deliveries")),
        (Method::DELETE, format!("/api/webhooks/{id}")),
    ] {
        let theirs = fx.call(method.clone(), &path, &fx.mallory, None).await;
        assert_eq!(theirs.status, StatusCode::NOT_FOUND, "{method} {path}");
    }
    let deleted = fx
        .call(
            Method::DELETE,
            &format!("/api/webhooks/{id}"),
            &fx.alice,
            None,
        )
        .await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    assert_eq!(
        fx.get(&format!("/api/webhooks/{id}")).await.status,
        StatusCode::NOT_FOUND
    );

    // A deployment that does not allow private targets refuses loopback and private addresses.
    let store = std::sync::Arc::new(object_store::memory::InMemory::new());
    let strict = podhost_core::PodcastHost::new(
        podhost_core::HostConfig::new("https://pod.test").unwrap(),
        store,
    );
    let owner = podhost_testkit::setup::account(&strict, "a").await;
    for url in [
        "http://127.0.0.1:9/x",
        "http://10.0.0.1/x",
        "http://169.254.169.254/latest",
        "http://localhost/x",
    ] {
        let refused = strict
            .work()
            .create_webhook(
                &owner,
                podhost_core::webhooks::subscription::NewWebhook {
                    url: url.into(),
                    ..Default::default()
                },
            )
            .await;
        assert!(
            matches!(refused, Err(podhost_core::Error::Invalid(_))),
            "{url}"
        );
    }
}
