//! Every kind of refusal the core makes, driven through the API, reads as a sentence: no debug
//! form of a type, no template hole, no plural after one, no schema text in place of a rule
//! (the rules: podhost-testkit's `refusal_rules.txt`), with the status its kind has.
//!
//! The fixture's contract check holds every error answer of every API test to the same rules;
//! this test makes sure each kind is among them, the compiler naming a kind that is added.

mod common;

use std::sync::{
    Arc,
    atomic::{AtomicUsize, Ordering},
};

use bytes::Bytes;
use common::{Answer, Fixture, multipart_body, send_to};
use http::{Method, Request, StatusCode, header};
use http_body_util::Full;
use podhost_core::ErrorKind;
use podhost_testkit::{Call, FaultStore, Faults};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The answers that show `kind`, each with what was asked.
async fn driven(kind: ErrorKind) -> Vec<(String, StatusCode, Answer)> {
    let mut answers = Vec::new();
    let mut asked = |what: &str, status: StatusCode, answer: Answer| {
        answers.push((what.to_string(), status, answer));
    };
    match kind {
        ErrorKind::NotFound => {
            let fx = Fixture::new().await;
            asked(
                "a podcast that does not exist",
                StatusCode::NOT_FOUND,
                fx.get("/api/feeds/nope").await,
            );
            fx.feed("f").await;
            asked(
                "an episode that does not exist",
                StatusCode::NOT_FOUND,
                fx.get("/api/feed/f/show/pod-99").await,
            );
            asked(
                "a media file that does not exist",
                StatusCode::NOT_FOUND,
                fx.get("/api/media/99").await,
            );
        }
        ErrorKind::Forbidden => {
            let fx = Fixture::new().await;
            let token = fx.token("feeds").await;
            asked(
                "a webhook with a token of the scope feeds only",
                StatusCode::FORBIDDEN,
                fx.call(
                    Method::POST,
                    "/api/webhooks",
                    &token,
                    Some(json!({"url": "https://example.com/hook"})),
                )
                .await,
            );
        }
        ErrorKind::Unauthenticated => {
            let fx = Fixture::new().await;
            asked(
                "no token",
                StatusCode::UNAUTHORIZED,
                fx.call(Method::GET, "/api/feeds", "", None).await,
            );
        }
        ErrorKind::Invalid => {
            let fx = Fixture::new().await;
            fx.feed("f").await;
            let episode = fx.episode("f", &[("title", "E")]).await;
            let episode_path: &'static str =
                Box::leak(format!("/api/feed/f/show/{episode}").into_boxed_str());
            let alice = fx.alice.clone();
            for (method, what, path, body) in [
                (
                    Method::POST,
                    "a podcast id with a slash",
                    "/api/feeds",
                    json!({"id": "a/b", "title": "T"}),
                ),
                (
                    Method::POST,
                    "an empty podcast id",
                    "/api/feeds",
                    json!({"id": "", "title": "T"}),
                ),
                (
                    Method::POST,
                    "a podcast without a title",
                    "/api/feeds",
                    json!({"id": "t"}),
                ),
                (
                    Method::POST,
                    "an object for a title",
                    "/api/feeds",
                    json!({"id": "t", "title": {}}),
                ),
                (
                    Method::POST,
                    "an unknown field",
                    "/api/feeds",
                    json!({"id": "t", "title": "T", "colour": "red"}),
                ),
                (
                    Method::POST,
                    "a medium that is none",
                    "/api/feeds",
                    json!({"id": "t", "title": "T", "podcast": {"medium": "tv"}}),
                ),
                (
                    Method::PUT,
                    "a time of day that is not one",
                    episode_path,
                    json!({"publishing_date": "2030-01-01", "publishing_time": "9am"}),
                ),
                (
                    Method::PUT,
                    "an episode type that is none",
                    episode_path,
                    json!({"itunes": {"episodeType": "pilot"}}),
                ),
            ] {
                let answer = fx.call(method, path, &alice, Some(body)).await;
                asked(what, StatusCode::UNPROCESSABLE_ENTITY, answer);
            }
            asked(
                "a page of size 0",
                StatusCode::UNPROCESSABLE_ENTITY,
                fx.get("/api/feeds?page[size]=0").await,
            );
        }
        ErrorKind::Conflict => {
            let fx = Fixture::new().await;
            fx.feed("hello").await;
            let answer = fx
                .call(
                    Method::POST,
                    "/api/feeds",
                    &fx.alice.clone(),
                    Some(json!({"id": "hello", "title": "Again"})),
                )
                .await;
            assert!(
                answer.body["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("\"hello\"")),
                "the taken id is named as written: {}",
                answer.body
            );
            asked("a taken podcast id", StatusCode::CONFLICT, answer);
        }
        ErrorKind::TooLarge => {
            let fx = Fixture::with_host_config(|c| c.max_upload_bytes = 1 << 10).await;
            let answer = fx
                .multipart(
                    "/api/media",
                    &fx.alice.clone(),
                    &[],
                    &[("media", "big.wav", vec![7u8; 4 << 10])],
                )
                .await;
            asked(
                "an upload over the limit",
                StatusCode::PAYLOAD_TOO_LARGE,
                answer,
            );
        }
        ErrorKind::Interrupted => {
            // A body that ends before its Content-Length: the connection closes mid-upload.
            let fx = Fixture::new().await;
            let (content_type, body) = multipart_body(
                &[],
                &[("media", "a.wav", podhost_testkit::fixtures::wav(1.0, 8000))],
            );
            let address = fx.server.base_url().replace("http://", "");
            let mut socket = tokio::net::TcpStream::connect(address).await.unwrap();
            let head = format!(
                "POST /api/media HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
                 Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
                fx.alice,
                body.len()
            );
            socket.write_all(head.as_bytes()).await.unwrap();
            socket.write_all(&body[..body.len() / 2]).await.unwrap();
            socket.shutdown().await.unwrap();
            let mut raw = Vec::new();
            socket.read_to_end(&mut raw).await.unwrap();
            let text = String::from_utf8_lossy(&raw);
            let status = text
                .split(' ')
                .nth(1)
                .and_then(|s| s.parse::<u16>().ok())
                .unwrap_or(0);
            let json = text.split("\r\n\r\n").nth(1).unwrap_or("");
            let json =
                json.trim_start_matches(|c: char| c.is_ascii_hexdigit() || c == '\r' || c == '\n');
            let json = &json[..json.rfind('}').map_or(0, |i| i + 1)];
            asked(
                "an upload cut off midway",
                StatusCode::BAD_REQUEST,
                Answer {
                    status: StatusCode::from_u16(status).unwrap_or(StatusCode::IM_A_TEAPOT),
                    headers: Default::default(),
                    body: serde_json::from_str(json).unwrap_or_else(|e| {
                        panic!("the answer to a cut-off upload is not JSON ({e}): {text}")
                    }),
                    raw: Bytes::new(),
                },
            );
        }
        ErrorKind::Throttled => {
            let fx = Fixture::new().await;
            let mut last = None;
            for attempt in 0..40 {
                let token = format!("phk_{attempt:016}_wrong");
                let answer = fx.call(Method::GET, "/api/feeds", &token, None).await;
                if answer.status == StatusCode::TOO_MANY_REQUESTS {
                    last = Some(answer);
                    break;
                }
            }
            let answer = last.expect("40 wrong tokens from one address are throttled");
            asked(
                "wrong tokens again and again",
                StatusCode::TOO_MANY_REQUESTS,
                answer,
            );
        }
        ErrorKind::InProgress => {
            let store = FaultStore::new(Arc::new(object_store::memory::InMemory::new()));
            let fx = Fixture::on_store(Arc::new(store.clone()), Default::default()).await;
            fx.feed("f").await;
            let puts = Arc::new(AtomicUsize::new(0));
            let counted = puts.clone();
            let gate = store.gate(move |call, path| {
                call == Call::Put
                    && path.as_ref().starts_with("accounts/alice/log/")
                    && counted.fetch_add(1, Ordering::SeqCst) == 1
            });
            let request = || {
                let (content_type, body) = multipart_body(&[("title", "A")], &[]);
                Request::builder()
                    .method(Method::POST)
                    .uri("/api/feed/f/show")
                    .header(header::AUTHORIZATION, format!("Bearer {}", fx.alice))
                    .header(header::CONTENT_TYPE, content_type)
                    .header("idempotency-key", "slow")
                    .body(Full::new(Bytes::from(body)))
                    .unwrap()
            };
            let (_, other) = fx.another_process();
            let first = fx.send(request());
            let repeat = async {
                gate.reached().await;
                let answer = send_to(&other, request()).await;
                gate.open();
                answer
            };
            let (_, repeat) = tokio::join!(first, repeat);
            asked(
                "a repeat while the first runs",
                StatusCode::CONFLICT,
                repeat,
            );
        }
        ErrorKind::InsufficientStorage => {
            let Some(disk) = podhost_testkit::or_skip(
                "refusals: a full disk",
                "a tmpfs of its own (root)",
                podhost_testkit::disk::SmallDisk::mount(8 << 20),
            ) else {
                return answers;
            };
            let opened =
                podhost_core::open_store(disk.path().join("store").to_str().unwrap()).unwrap();
            let mut config = podhost_testkit::test_config();
            config.local_root = opened.local_root.clone();
            config.scratch_dir = opened.scratch_dir.clone();
            let fx = Fixture::on_store_with(opened.store, Default::default(), config).await;
            fx.feed("f").await;
            disk.fill();
            let answer = fx
                .call(
                    Method::PUT,
                    "/api/feeds/f",
                    &fx.alice.clone(),
                    Some(json!({"title": "edited"})),
                )
                .await;
            disk.free();
            asked(
                "an edit on a full disk",
                StatusCode::INSUFFICIENT_STORAGE,
                answer,
            );
        }
        ErrorKind::Unavailable => {
            let store = FaultStore::new(Arc::new(object_store::memory::InMemory::new()));
            let mut config = podhost_testkit::test_config();
            config.store_timeout = std::time::Duration::from_secs(1);
            let fx =
                Fixture::on_store_with(Arc::new(store.clone()), Default::default(), config).await;
            fx.feed("f").await;
            store.set(Faults {
                delay: Some(std::time::Duration::from_secs(3)),
                ..Default::default()
            });
            let answer = fx
                .call(
                    Method::PUT,
                    "/api/feeds/f",
                    &fx.alice.clone(),
                    Some(json!({"title": "edited"})),
                )
                .await;
            store.heal();
            asked(
                "an edit while the store stalls",
                StatusCode::SERVICE_UNAVAILABLE,
                answer,
            );
        }
        ErrorKind::Storage => {
            let store = FaultStore::new(Arc::new(object_store::memory::InMemory::new()));
            let fx = Fixture::on_store(Arc::new(store.clone()), Default::default()).await;
            fx.feed("f").await;
            store.set(Faults {
                error: 1.0,
                ..Default::default()
            });
            let answer = fx
                .call(
                    Method::PUT,
                    "/api/feeds/f",
                    &fx.alice.clone(),
                    Some(json!({"title": "edited"})),
                )
                .await;
            store.heal();
            asked(
                "an edit while the store fails",
                StatusCode::INTERNAL_SERVER_ERROR,
                answer,
            );
        }
    }
    answers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_kind_of_refusal_reads_as_a_sentence_with_its_status() {
    let mut problems = Vec::new();
    for kind in ErrorKind::ALL {
        let answers = driven(kind).await;
        for (what, status, answer) in answers {
            println!("{kind:?}, {what}: {} {}", answer.status, answer.body);
            if answer.status != status {
                problems.push(format!(
                    "{what}: {} instead of {status}: {}",
                    answer.status, answer.body
                ));
            }
            if let Err(problem) = podhost_testkit::refusal::check_answer(&answer.body) {
                problems.push(format!("{what}: {problem}"));
            }
            if podhost_testkit::refusal::texts(&answer.body).is_empty() {
                problems.push(format!("{what}: no message: {}", answer.body));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
