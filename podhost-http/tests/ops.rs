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
    // With the store's format, the newest this server reads, and its release (a new store
    // is made at the newest).
    let format = podhost_core::store_format::FORMAT;
    assert_eq!(
        answer.body,
        json!({"status": "ready", "store": {"format": format, "reads": format,
                                            "release": podhost_core::store_format::RELEASE}})
    );
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_refuses_writes_with_507_loses_nothing_and_recovers_by_itself() {
    let Some(disk) = podhost_testkit::or_skip(
        "a_full_disk_refuses_writes_with_507_loses_nothing_and_recovers_by_itself",
        "a tmpfs of its own (root)",
        podhost_testkit::disk::SmallDisk::mount(8 << 20),
    ) else {
        return;
    };
    let opened = podhost_core::open_store(disk.path().join("store").to_str().unwrap()).unwrap();
    let mut config = podhost_testkit::test_config();
    config.local_root = opened.local_root.clone();
    config.scratch_dir = opened.scratch_dir.clone();
    let fx = Fixture::on_store_with(opened.store, Default::default(), config).await;
    let alice = fx.alice.clone();
    fx.feed("f").await;
    let kept = fx.episode("f", &[("title", "kept")]).await;
    let wav = podhost_testkit::fixtures::wav(1.0, 8000);
    let edit_title = || async {
        let path = format!("/api/feed/f/show/{kept}");
        fx.call(Method::PUT, &path, &alice, Some(json!({"title": "edited"})))
            .await
    };

    // An upload larger than the space left: 507, and none of it stays.
    let too_big = fx
        .multipart(
            "/api/media",
            &alice,
            &[],
            &[("media", "big.wav", vec![7u8; 12 << 20])],
        )
        .await;
    assert_eq!(
        too_big.status,
        StatusCode::INSUFFICIENT_STORAGE,
        "{}",
        too_big.body
    );
    assert!(
        too_big.body["message"]
            .as_str()
            .unwrap()
            .contains("no space left")
    );
    // No space at all: uploads and edits alike are 507.
    disk.fill();
    let upload = fx
        .multipart(
            "/api/media",
            &alice,
            &[],
            &[("media", "a.wav", wav.clone())],
        )
        .await;
    assert_eq!(
        upload.status,
        StatusCode::INSUFFICIENT_STORAGE,
        "{}",
        upload.body
    );
    let edit = edit_title().await;
    assert_eq!(
        edit.status,
        StatusCode::INSUFFICIENT_STORAGE,
        "{}",
        edit.body
    );
    // What was acknowledged is read as it was.
    let shows = fx.get("/api/feed/f/shows").await;
    assert_eq!(shows.status, StatusCode::OK);
    assert_eq!(shows.body["data"][0]["attributes"]["title"], "kept");

    // Space again: the same requests succeed, with no restart.
    disk.free();
    fx.upload("a.wav", wav).await;
    let edit = edit_title().await;
    assert_eq!(edit.status, StatusCode::OK, "{}", edit.body);
    let shows = fx.get("/api/feed/f/shows").await;
    assert_eq!(shows.body["data"].as_array().unwrap().len(), 1);
    assert_eq!(shows.body["data"][0]["attributes"]["title"], "edited");
}
