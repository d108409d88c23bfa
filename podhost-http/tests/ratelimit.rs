//! The rate limit holds across processes: two hosts on one store (each with its own API, sharing
//! nothing in memory) accept one token's 180 requests per window between them, within 10 %.

mod common;

use bytes::Bytes;
use common::Fixture;
use futures::StreamExt;
use http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::Full;
use jiff::SignedDuration;
use podhost_http::{Api, HttpConfig};

/// The end of the fixture's first window (its clock starts at 2026-01-01T00:00:00Z).
const FIRST_RESET: u64 = 1_767_225_660;

async fn get(api: &Api, token: &str) -> (StatusCode, HeaderMap) {
    let request = Request::builder()
        .method(Method::GET)
        .uri("/api/feeds")
        .header("authorization", format!("Bearer {token}"))
        .body(Full::new(Bytes::new()))
        .unwrap();
    let answer = api.handle(request).await;
    (answer.status(), answer.headers().clone())
}

fn header(headers: &HeaderMap, name: &str) -> u64 {
    headers[name].to_str().unwrap().parse().unwrap()
}

/// `count` requests of `token` through each API, four at a time per API, both APIs at once;
/// returns the answers.
async fn burst(apis: &[&Api], token: &str, count: usize) -> Vec<(StatusCode, HeaderMap)> {
    let per_api = apis.iter().map(|api| {
        futures::stream::iter(0..count)
            .map(|_| get(api, token))
            .buffer_unordered(4)
            .collect::<Vec<_>>()
    });
    futures::future::join_all(per_api)
        .await
        .into_iter()
        .flatten()
        .collect()
}

/// Checks one window's answers: between 162 and 180 accepted (90 % of the limit), the rest 429
/// with the headers; returns the accepted count.
fn accepted_in_window(answers: &[(StatusCode, HeaderMap)], reset_at: u64) -> usize {
    let mut accepted = 0;
    for (status, headers) in answers {
        assert_eq!(header(headers, "x-ratelimit-limit"), 180);
        match *status {
            StatusCode::OK => accepted += 1,
            StatusCode::TOO_MANY_REQUESTS => {
                assert_eq!(header(headers, "x-ratelimit-remaining"), 0);
                assert!((1..=60).contains(&header(headers, "retry-after")));
                assert_eq!(header(headers, "x-ratelimit-reset"), reset_at);
            }
            other => panic!("{other}"),
        }
    }
    assert!(
        (162..=180).contains(&accepted),
        "{accepted} of {} accepted",
        answers.len()
    );
    accepted
}

async fn two_processes_share_one_budget(fx: Fixture) {
    let (_, other) = fx.another_process();
    let answers = burst(&[&fx.api, &other], &fx.alice, 200).await;
    let accepted = accepted_in_window(&answers, FIRST_RESET);
    eprintln!("accepted {accepted} of 400 in one window");
    // Another token has its own budget.
    assert_eq!(get(&other, &fx.mallory).await.0, StatusCode::OK);
    // The next window: both processes accept again, and share again.
    fx.clock.advance(SignedDuration::from_secs(60));
    assert_eq!(get(&fx.api, &fx.alice).await.0, StatusCode::OK);
    assert_eq!(get(&other, &fx.alice).await.0, StatusCode::OK);
    let answers = burst(&[&fx.api, &other], &fx.alice, 200).await;
    let accepted = accepted_in_window(&answers, FIRST_RESET + 60) + 2;
    assert!(accepted <= 180, "{accepted}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_in_memory_share_one_budget() {
    two_processes_share_one_budget(Fixture::new().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_on_a_local_folder_share_one_budget() {
    let dir = tempfile::tempdir().unwrap();
    let opened = podhost_core::open_store(dir.path().to_str().unwrap()).unwrap();
    two_processes_share_one_budget(Fixture::on_store(opened.store, HttpConfig::default()).await)
        .await;
}

/// One process asking alone gets exactly the limit, claiming a lease of 9 requests per store
/// write (the store sees 20 lease writes for 180 requests, not 180).
#[tokio::test]
async fn the_store_sees_one_write_per_lease() {
    let store = podhost_testkit::FaultStore::new(std::sync::Arc::new(
        object_store::memory::InMemory::new(),
    ));
    let fx = Fixture::on_store(std::sync::Arc::new(store.clone()), HttpConfig::default()).await;
    store.reset_counts();
    let answers = burst(&[&fx.api], &fx.alice, 200).await;
    let accepted = answers.iter().filter(|(s, _)| s.is_success()).count();
    assert_eq!(accepted, 180);
    // 20 leases, the notes of the token's and its member's last use (once a minute each),
    // and the marker of this window's sweep (written in the background, so perhaps not yet).
    let puts = store.counts().puts;
    assert!((22..=23).contains(&puts), "{puts} writes");
}

/// When the store fails, the limit falls back to each process counting alone: no 500, and a
/// process still refuses past the limit.
#[tokio::test]
async fn a_failing_store_makes_each_process_count_alone() {
    let store = podhost_testkit::FaultStore::new(std::sync::Arc::new(
        object_store::memory::InMemory::new(),
    ));
    let fx = Fixture::on_store(std::sync::Arc::new(store.clone()), HttpConfig::default()).await;
    let (_, other) = fx.another_process();
    // Both processes know the token and its account before the store goes away; then a new
    // window begins.
    assert_eq!(get(&other, &fx.alice).await.0, StatusCode::OK);
    assert_eq!(get(&fx.api, &fx.alice).await.0, StatusCode::OK);
    fx.clock.advance(SignedDuration::from_secs(60));
    store.set(podhost_testkit::Faults {
        error: 1.0,
        ..Default::default()
    });
    for api in [&fx.api, &other] {
        let answers = burst(&[api], &fx.alice, 190).await;
        assert!(
            answers
                .iter()
                .all(|(s, _)| [StatusCode::OK, StatusCode::TOO_MANY_REQUESTS].contains(s))
        );
        let accepted = answers.iter().filter(|(s, _)| s.is_success()).count();
        assert_eq!(accepted, 180, "each process accepts its own 180");
    }
    // The store is back, a window later: the processes share the budget again.
    store.heal();
    fx.clock.advance(SignedDuration::from_secs(60));
    let answers = burst(&[&fx.api, &other], &fx.alice, 200).await;
    accepted_in_window(&answers, FIRST_RESET + 120);
}
