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
