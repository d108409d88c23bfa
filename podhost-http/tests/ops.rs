//! Operating a deployment: the probes a load balancer asks.

mod common;

use std::sync::Arc;

use common::Fixture;
use http::{Method, StatusCode, header};
use podhost_testkit::{FaultStore, Faults};
use serde_json::json;

#[tokio::test]
async fn healthz_answers_while_the_process_serves() {
    let fx = Fixture::new().await;
    let answer = fx.public(Method::GET, "/healthz", &[]).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body, json!({"status": "ok"}));
    assert_eq!(answer.headers[header::CACHE_CONTROL], "no-store");
    let head = fx.public(Method::HEAD, "/healthz", &[]).await;
    assert_eq!(head.status, StatusCode::OK);
    assert!(head.raw.is_empty());
}

#[tokio::test]
async fn readyz_answers_503_while_the_store_fails() {
    let faulty = FaultStore::new(Arc::new(object_store::memory::InMemory::new()));
    // The fixture's server checked the store's conditional writes, as `podhost serve` does.
    let fx = Fixture::on_store(Arc::new(faulty.clone()), Default::default()).await;
    // The store stops answering: not ready, with the reason; alive all the same.
    faulty.set(Faults {
        error: 1.0,
        ..Faults::default()
    });
    let answer = fx.public(Method::GET, "/readyz", &[]).await;
    assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(answer.body["status"], "unavailable");
    assert!(
        answer.body["reason"].as_str().unwrap().contains("store"),
        "{}",
        answer.body
    );
    assert_eq!(
        fx.public(Method::GET, "/healthz", &[]).await.status,
        StatusCode::OK
    );
    // It answers again: ready (and HEAD too, as probes often ask).
    faulty.set(Faults::default());
    let answer = fx.public(Method::GET, "/readyz", &[]).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body, json!({"status": "ready"}));
    let head = fx.public(Method::HEAD, "/readyz", &[]).await;
    assert_eq!(head.status, StatusCode::OK);
}

#[tokio::test]
async fn probes_need_no_token_and_are_not_rate_limited() {
    let fx = Fixture::with_rate_limit(1).await;
    for _ in 0..5 {
        for path in ["/healthz", "/readyz"] {
            let answer = fx.public(Method::GET, path, &[]).await;
            assert_eq!(answer.status, StatusCode::OK, "{path}");
            assert!(answer.headers.get("x-ratelimit-limit").is_none());
        }
    }
}

#[tokio::test]
async fn every_answer_carries_its_requests_id() {
    let fx = Fixture::new().await;
    let id_of =
        |answer: &common::Answer| answer.headers["x-request-id"].to_str().unwrap().to_string();
    // A sane id sent is answered back, on any route and status.
    for path in ["/api/feeds", "/healthz", "/nowhere"] {
        let answer = fx
            .public(Method::GET, path, &[("x-request-id", "lb-7f3a.42")])
            .await;
        assert_eq!(id_of(&answer), "lb-7f3a.42", "{path}");
    }
    // None, or one that is not sane: a new one each time.
    let new = [
        fx.public(Method::GET, "/healthz", &[]).await,
        fx.public(Method::GET, "/healthz", &[]).await,
        fx.public(Method::GET, "/healthz", &[("x-request-id", "two words")])
            .await,
    ]
    .map(|a| id_of(&a));
    for id in &new {
        assert_eq!(id.len(), 32, "{id}");
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
    }
    assert!(new[0] != new[1] && new[1] != new[2]);
}

#[tokio::test]
async fn a_job_keeps_the_id_of_the_request_that_asked_for_it() {
    let fx = Fixture::new().await;
    let media = fx.upload_wav("talk.wav").await;
    let request = http::Request::builder()
        .method(Method::POST)
        .uri(format!("/api/generate/silence/{media}"))
        .header("authorization", format!("Bearer {}", fx.alice))
        .header("x-request-id", "req-job-1")
        .body(http_body_util::Full::new(bytes::Bytes::new()))
        .unwrap();
    let answer = fx.send(request).await;
    assert_eq!(answer.status, StatusCode::ACCEPTED, "{}", answer.body);
    let job: podhost_core::JobId = answer.body["data"]["id"].as_str().unwrap().parse().unwrap();
    let alice = fx
        .host
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    let job = fx.host.work().get_job(&alice, &job).await.unwrap();
    assert_eq!(job.request_id.as_deref(), Some("req-job-1"));
}
