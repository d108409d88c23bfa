//! Safe retries: a write sent again under its `Idempotency-Key` is carried out once, on any
//! server, and every repeat gets the first answer.

mod common;

use std::sync::{
    Arc,
    atomic::{AtomicUsize, Ordering},
};

use bytes::Bytes;
use common::{Answer, Fixture, multipart_body, send_to};
use http::{Method, Request, StatusCode, header};
use http_body_util::Full;
use podhost_core::{RequestContext, idempotency::Begin};
use podhost_testkit::{Call, FaultStore};
use serde_json::{Value, json};

/// A JSON request of alice's with a key.
fn keyed(fx: &Fixture, method: Method, path: &str, key: &str, json: Value) -> Request<Full<Bytes>> {
    Request::builder()
        .method(method)
        .uri(path)
        .header(header::AUTHORIZATION, format!("Bearer {}", fx.alice))
        .header(header::CONTENT_TYPE, "application/json")
        .header("idempotency-key", key)
        .body(Full::new(Bytes::from(json.to_string())))
        .unwrap()
}

/// An episode's creation (multipart, as the API takes it) of alice's with a key.
fn show(fx: &Fixture, path: &str, key: &str, title: &str) -> Request<Full<Bytes>> {
    let (content_type, body) = multipart_body(&[("title", title)], &[]);
    Request::builder()
        .method(Method::POST)
        .uri(path)
        .header(header::AUTHORIZATION, format!("Bearer {}", fx.alice))
        .header(header::CONTENT_TYPE, content_type)
        .header("idempotency-key", key)
        .body(Full::new(Bytes::from(body)))
        .unwrap()
}

async fn episodes(fx: &Fixture) -> Vec<Value> {
    let list = fx.get("/api/feed/f/shows").await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.body);
    list.body["data"].as_array().unwrap().clone()
}

/// A 503 saying the store is not answering.
fn assert_store_not_answering(answer: &Answer) {
    assert_eq!(
        answer.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        answer.body
    );
    let message = answer.body["message"].as_str().unwrap_or_default();
    assert!(message.contains("not answering"), "{}", answer.body);
}

/// Alice's podcast `f` on a store that faults when told, whose timeout is 1 s.
async fn with_a_store_timeout_of_1s() -> (FaultStore, Fixture) {
    let store = FaultStore::new(Arc::new(object_store::memory::InMemory::new()));
    let mut config = podhost_testkit::test_config();
    config.store_timeout = std::time::Duration::from_secs(1);
    let fx = Fixture::on_store_with(Arc::new(store.clone()), Default::default(), config).await;
    fx.feed("f").await;
    (store, fx)
}

fn replayed(answer: &Answer) -> bool {
    answer
        .headers
        .get("idempotent-replayed")
        .is_some_and(|v| v == "true")
}

#[tokio::test]
async fn a_repeat_gets_the_first_answer_from_any_server_and_changes_nothing() {
    let fx = Fixture::new().await;
    fx.feed("f").await;
    let create = || show(&fx, "/api/feed/f/show", "8e0f-41c2-a7", "Pilot");
    let first = fx.send(create()).await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.body);
    assert!(!replayed(&first));
    // The same server, another one on the same store, and one started afresh: the same answer.
    let (_, other) = fx.another_process();
    let (_, restarted) = fx.another_process();
    for repeat in [
        fx.send(create()).await,
        send_to(&other, create()).await,
        send_to(&restarted, create()).await,
    ] {
        assert_eq!(repeat.status, first.status);
        assert_eq!(repeat.raw, first.raw);
        assert_eq!(
            repeat.headers[header::LOCATION],
            first.headers[header::LOCATION]
        );
        assert!(replayed(&repeat));
    }
    assert_eq!(episodes(&fx).await.len(), 1, "created once");
    // Another key is another request.
    let second = fx
        .send(show(&fx, "/api/feed/f/show", "8e0f-41c2-a8", "Pilot"))
        .await;
    assert_eq!(second.status, StatusCode::CREATED);
    assert_ne!(second.body["data"]["id"], first.body["data"]["id"]);
}

#[tokio::test]
async fn the_key_of_another_request_is_422_naming_the_key() {
    let fx = Fixture::new().await;
    fx.feed("f").await;
    let path = "/api/feed/f/show";
    let first = fx.send(show(&fx, path, "k1", "A")).await;
    assert_eq!(first.status, StatusCode::CREATED);
    let another_body = show(&fx, path, "k1", "B");
    let another_path = keyed(&fx, Method::POST, "/api/feeds", "k1", json!({"id": "g"}));
    let another_method = keyed(
        &fx,
        Method::PUT,
        "/api/feeds/f",
        "k1",
        json!({"title": "X"}),
    );
    for request in [another_body, another_path, another_method] {
        let target = format!("{} {}", request.method(), request.uri());
        let answer = fx.send(request).await;
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{target}");
        assert!(
            answer.body["errors"]["Idempotency-Key"][0]
                .as_str()
                .unwrap()
                .contains("key"),
            "{target}: {}",
            answer.body
        );
    }
    assert_eq!(episodes(&fx).await.len(), 1);
    assert_eq!(fx.get("/api/feeds/g").await.status, StatusCode::NOT_FOUND);
    let feed = fx.get("/api/feeds/f").await.body;
    assert_eq!(feed["data"]["attributes"]["rss"]["title"], "f", "{feed}");
}

#[tokio::test]
async fn keys_belong_to_the_account() {
    let fx = Fixture::new().await;
    fx.feed("f").await;
    let create = |token: &str, id: &str| {
        Request::builder()
            .method(Method::POST)
            .uri("/api/feeds")
            .header(header::AUTHORIZATION, format!("Bearer {token}"))
            .header("idempotency-key", "shared-key")
            .body(Full::new(Bytes::from(
                json!({"id": id, "title": "T"}).to_string(),
            )))
            .unwrap()
    };
    let alice = fx.send(create(&fx.alice, "a")).await;
    assert_eq!(alice.status, StatusCode::CREATED, "{}", alice.body);
    // Mallory's request under the same key is hers: carried out, not alice's answer.
    let mallory = fx.send(create(&fx.mallory, "m")).await;
    assert_eq!(mallory.status, StatusCode::CREATED, "{}", mallory.body);
    assert!(!replayed(&mallory));
    assert_eq!(mallory.body["data"]["id"], "m");
}

#[tokio::test]
async fn a_bad_key_is_422_and_changes_nothing() {
    let fx = Fixture::new().await;
    fx.feed("f").await;
    for key in ["two words", &"k".repeat(256), "tab\there"] {
        let answer = fx.send(show(&fx, "/api/feed/f/show", key, "A")).await;
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{key:?}");
        assert!(answer.body["errors"]["Idempotency-Key"].is_array());
    }
    assert!(episodes(&fx).await.is_empty());
    // The longest key is fine.
    let answer = fx
        .send(show(&fx, "/api/feed/f/show", &"k".repeat(255), "A"))
        .await;
    assert_eq!(answer.status, StatusCode::CREATED);
}

#[tokio::test]
async fn a_store_that_stalls_is_503_with_retry_after_and_the_retry_takes_effect_once() {
    let (store, fx) = with_a_store_timeout_of_1s().await;
    // The store stops answering writes (a server cut off from it, a volume server lost).
    let gate = store.gate(|call, _| call == Call::Put);
    let request = || show(&fx, "/api/feed/f/show", "stalled", "A");
    let answer = tokio::time::timeout(std::time::Duration::from_secs(30), fx.send(request()))
        .await
        .expect("an answer, not a request held until the store returns");
    assert_store_not_answering(&answer);
    assert_eq!(answer.headers[header::RETRY_AFTER], "1");
    // Sent again once the store answers: carried out, once.
    gate.open();
    let again = fx.send(request()).await;
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.body);
    let repeat = fx.send(request()).await;
    assert_eq!(repeat.raw, again.raw);
    assert_eq!(episodes(&fx).await.len(), 1);
}

#[tokio::test]
async fn a_store_that_answers_slowly_is_503_once_the_store_time_of_one_timeout_is_spent() {
    let (store, fx) = with_a_store_timeout_of_1s().await;
    // Every store request is answered, each 0.6 s late: within the timeout, but a keyed
    // creation makes several in turn (the key's claim, the episode), 1 s in all.
    store.set(podhost_testkit::Faults {
        delay: Some(std::time::Duration::from_millis(600)),
        ..Default::default()
    });
    let request = || show(&fx, "/api/feed/f/show", "slow", "A");
    let answer = fx.send(request()).await;
    assert_store_not_answering(&answer);
    // The store fast again: sent again (after the claim, if it landed, is released or runs
    // out), carried out once.
    store.heal();
    let mut again = fx.send(request()).await;
    for _ in 0..12 {
        if again.status != StatusCode::CONFLICT {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        again = fx.send(request()).await;
    }
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.body);
    assert_eq!(episodes(&fx).await.len(), 1);
}

#[tokio::test]
async fn while_the_store_stalls_a_read_is_answered_from_memory_and_says_how_old() {
    let (store, fx) = with_a_store_timeout_of_1s().await;
    fx.episode("f", &[("title", "kept")]).await;
    let fresh = fx.get("/api/feed/f/shows").await;
    assert!(fresh.headers.get(header::AGE).is_none());
    // Nothing of the store answers.
    let gate = store.gate(|_, _| true);
    let read = || async {
        tokio::time::timeout(
            std::time::Duration::from_secs(30),
            fx.get("/api/feed/f/shows"),
        )
        .await
        .expect("an answer, not a request held until the store returns")
    };
    let (first, second) = tokio::join!(read(), read());
    for answer in [first, second] {
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
        assert_eq!(answer.body["data"][0]["attributes"]["title"], "kept");
        let age: u64 = answer.headers[header::AGE]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(age >= 1, "Age: {age}");
    }
    // The store back, answers are fresh again.
    gate.open();
    let again = fx.get("/api/feed/f/shows").await;
    assert_eq!(again.status, StatusCode::OK);
    assert!(again.headers.get(header::AGE).is_none());
}

#[tokio::test]
async fn past_the_requests_in_progress_one_is_shed_with_503_and_a_probe_is_not() {
    let store = FaultStore::new(Arc::new(object_store::memory::InMemory::new()));
    let config = podhost_http::HttpConfig {
        max_in_flight: 1,
        ..Default::default()
    };
    let fx = Fixture::on_store(Arc::new(store.clone()), config).await;
    fx.feed("f").await;
    // One request in progress, held at the store.
    let gate = store.gate(|call, _| call == Call::Put);
    let held = fx.send(show(&fx, "/api/feed/f/show", "held", "A"));
    let meanwhile = async {
        gate.reached().await;
        let shed = fx.get("/api/feeds").await;
        let probe = fx.public(Method::GET, "/healthz", &[]).await;
        gate.open();
        (shed, probe)
    };
    let (held, (shed, probe)) = tokio::join!(held, meanwhile);
    assert_eq!(
        shed.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        shed.body
    );
    assert_eq!(shed.headers[header::RETRY_AFTER], "1");
    assert_eq!(probe.status, StatusCode::OK);
    assert_eq!(held.status, StatusCode::CREATED, "{}", held.body);
    // Its permit returned, the next request is served.
    assert_eq!(fx.get("/api/feeds").await.status, StatusCode::OK);
}

#[tokio::test]
async fn a_repeat_while_the_first_runs_is_409_with_retry_after() {
    let store = FaultStore::new(Arc::new(object_store::memory::InMemory::new()));
    let fx = Fixture::on_store(Arc::new(store.clone()), Default::default()).await;
    fx.feed("f").await;
    // The first request's second write to alice's log (the episode, after the key's claim) is
    // held.
    let puts = Arc::new(AtomicUsize::new(0));
    let counted = puts.clone();
    let gate = store.gate(move |call, path| {
        call == Call::Put
            && path.as_ref().starts_with("accounts/alice/log/")
            && counted.fetch_add(1, Ordering::SeqCst) == 1
    });
    let request = || show(&fx, "/api/feed/f/show", "slow", "A");
    let (_, other) = fx.another_process();
    let first = fx.send(request());
    let repeat = async {
        gate.reached().await;
        let answer = send_to(&other, request()).await;
        gate.open();
        answer
    };
    let (first, repeat) = tokio::join!(first, repeat);
    assert_eq!(repeat.status, StatusCode::CONFLICT, "{}", repeat.body);
    let wait: u64 = repeat.headers[header::RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=10).contains(&wait), "Retry-After: {wait}");
    assert_eq!(first.status, StatusCode::CREATED);
    // Once it answered, the repeat gets its answer.
    let again = send_to(&other, request()).await;
    assert_eq!(again.status, StatusCode::CREATED);
    assert_eq!(again.raw, first.raw);
    assert_eq!(episodes(&fx).await.len(), 1);
}

#[tokio::test]
async fn a_request_whose_server_died_is_finished_by_another_without_doing_twice() {
    let fx = Fixture::new().await;
    fx.feed("f").await;
    let who = fx.host.access().authenticate(&fx.alice).await.unwrap();
    let target = "POST /api/feed/f/show";
    // Server 1 began the request and created the episode, then died before answering.
    let Begin::Run(run) = fx.host.begin_keyed(&who, "k", target).await.unwrap() else {
        panic!("a new key runs");
    };
    let new = podhost_core::model::NewEpisode::titled("Pilot");
    let made = RequestContext::new(None)
        .keyed(&run)
        .run(
            fx.host
                .podcasts()
                .create_episode(&who, &"f".parse().unwrap(), new),
        )
        .await
        .unwrap();
    // The client's retry reaches server 2 while server 1's claim holds: wait.
    let (_, other) = fx.another_process();
    let retry = || show(&fx, "/api/feed/f/show", "k", "Pilot");
    assert_eq!(send_to(&other, retry()).await.status, StatusCode::CONFLICT);
    // Past the claim, server 2 carries it out: the episode that landed, not a second one.
    fx.clock
        .advance(podhost_core::idempotency::KEY_LEASE + jiff::SignedDuration::from_secs(1));
    let answer = send_to(&other, retry()).await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    assert_eq!(answer.body["data"]["id"], made.episode.id.to_string());
    assert!(!replayed(&answer), "carried out, by replaying what landed");
    assert_eq!(episodes(&fx).await.len(), 1);
}

#[tokio::test]
async fn uploads_are_compared_by_the_hash_of_their_body() {
    let fx = Fixture::new().await;
    let upload = |bytes: Vec<u8>| {
        let (content_type, body) = multipart_body(&[], &[("media", "talk.wav", bytes)]);
        Request::builder()
            .method(Method::POST)
            .uri("/api/media")
            .header(header::AUTHORIZATION, format!("Bearer {}", fx.alice))
            .header(header::CONTENT_TYPE, content_type)
            .header("idempotency-key", "upload-1")
            .body(Full::new(Bytes::from(body)))
            .unwrap()
    };
    let wav = podhost_testkit::fixtures::wav(2.0, 8000);
    let first = fx.send(upload(wav.clone())).await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.body);
    let repeat = fx.send(upload(wav.clone())).await;
    assert_eq!(repeat.status, StatusCode::CREATED);
    assert_eq!(repeat.body["id"], first.body["id"]);
    assert!(replayed(&repeat));
    let mut other = wav;
    *other.last_mut().unwrap() ^= 1;
    let changed = fx.send(upload(other)).await;
    assert_eq!(changed.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(changed.body["errors"]["Idempotency-Key"].is_array());
    let media = fx.get("/api/media").await;
    assert_eq!(media.body["count"], 1, "{}", media.body);
}

#[tokio::test]
async fn a_new_token_is_not_shown_again() {
    let fx = Fixture::new().await;
    let create = || {
        keyed(
            &fx,
            Method::POST,
            "/api/tokens",
            "token-1",
            json!({"label": "ci", "scopes": ["feeds"]}),
        )
    };
    let first = fx.send(create()).await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.body);
    let secret = first.body["data"]["token"].as_str().unwrap().to_string();
    let repeat = fx.send(create()).await;
    assert_eq!(repeat.status, StatusCode::CONFLICT, "{}", repeat.body);
    assert!(replayed(&repeat));
    assert!(!String::from_utf8_lossy(&repeat.raw).contains(&secret));
    assert!(
        repeat.body["message"]
            .as_str()
            .unwrap()
            .contains("carried out")
    );
    let tokens = fx.get("/api/tokens").await;
    let named: Vec<_> = tokens.body["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["label"] == "ci")
        .collect();
    assert_eq!(named.len(), 1, "{}", tokens.body);
}

#[tokio::test]
async fn a_write_without_a_key_and_a_read_with_one_are_as_before() {
    let fx = Fixture::new().await;
    fx.feed("f").await;
    for _ in 0..2 {
        let answer = fx
            .multipart("/api/feed/f/show", &fx.alice, &[("title", "A")], &[])
            .await;
        assert_eq!(answer.status, StatusCode::CREATED);
        assert!(!replayed(&answer));
    }
    assert_eq!(episodes(&fx).await.len(), 2);
    // A GET is safe already: the key is ignored.
    let read = fx
        .send(keyed(
            &fx,
            Method::GET,
            "/api/feeds/f",
            "read-key",
            json!({}),
        ))
        .await;
    assert_eq!(read.status, StatusCode::OK);
    assert!(!replayed(&read));
}
