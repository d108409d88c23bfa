//! podhost-testkit: what integrators and podhost's own tests test with.
//!
//! # Testing your code against podhost, in one screen
//!
//! Start the whole service in your test ([`TestServer`]: in-process, a loopback port, a memory
//! store, a manual clock, accounts `alice` and `mallory` with all-scope tokens), point a
//! subscription at a [`WebhookReceiver`] (it checks each signature with its own secret), drive
//! podhost over HTTP or through its core, and move time on when your test needs tomorrow:
//!
//! ```
//! use std::time::Duration;
//! use http::{Method, StatusCode};
//! use podhost_testkit::{TestServer, WebhookReceiver};
//! use serde_json::json;
//!
//! # #[tokio::main] async fn main() {
//! let server = TestServer::start().await;
//! let receiver = WebhookReceiver::start().await;
//! let token = Some(server.token());
//! let hook = json!({"url": receiver.url(), "secret": receiver.secret()});
//! let made = server.request(Method::POST, "/api/webhooks", token, Some(hook)).await;
//! assert_eq!(made.status, StatusCode::CREATED);
//!
//! let feed = json!({"id": "daily", "title": "Daily"});
//! let made = server.request(Method::POST, "/api/feeds", token, Some(feed)).await;
//! assert_eq!(made.status, StatusCode::CREATED);
//! let event = receiver.wait_for("feed.created", Duration::from_secs(20)).await;
//! assert_eq!(event.body["data"]["id"], "daily");
//!
//! // Another account sees nothing of alice's.
//! let theirs = server.request(Method::GET, "/api/feeds/daily", Some(server.other_token()), None).await;
//! assert_eq!(theirs.status, StatusCode::NOT_FOUND);
//!
//! // Tomorrow: scheduled episodes are published, statistics days close.
//! server.advance(jiff::SignedDuration::from_hours(24)).await;
//! # }
//! ```
//!
//! For property tests, [`strategies`] makes valid feeds, episodes, patches, list queries and
//! uploads, and hostile text. `examples/` shows podhost mounted in another application, a
//! custom clock and a custom webhook sender.
//!
//! # What else is here
//!
//! - [`FaultStore`]: an [`ObjectStore`](object_store::ObjectStore) wrapper that injects errors,
//!   ambiguous successes (the write lands, the answer is lost), delays and ignored conditional
//!   writes, holds chosen calls at a [`Gate`] until the test opens it, and counts calls.
//! - [`conformance`]: the behaviour of [`PodcastHost`], written once
//!   as `pub async fn`s over a store, run against every backend.
//! - [`setup`]: an account, a podcast, an uploaded file, made through the core.
//! - [`contract`]: the API's answers held to its OpenAPI document (every test fixture checks
//!   every answer).
//! - [`fixtures`]: small media files made in code.
//! - [`refusal`]: whether a refusal reads as a sentence (no debug form, no template hole);
//!   [`contract`] holds every error answer to it.
//! - [`history`]: a recorded history of a deployment's answers under faults, and the checker
//!   of its promises (per-record linearizability, nothing lost or applied twice, deliveries,
//!   leases).
//! - [`disk`]: a small tmpfs of a test's own, filled and emptied, for a store on a full disk.
//! - [`browser`]: the headless Chromium and Node scripts of the page and site tests.
//! - [`s3`]: a real S3-compatible server on loopback (a SeaweedFS cluster from [`seaweedfs`], or
//!   moto), a bucket per test.
#![deny(missing_docs)]

pub mod browser;
pub mod conformance;
pub mod contract;
pub mod disk;
mod fault;
pub mod fixtures;
pub mod history;
mod loopback;
pub mod memory;
pub mod refusal;
pub mod s3;
pub mod seaweedfs;
mod server;
pub mod setup;
pub mod strategies;
mod webhook_receiver;

pub use fault::{Call, Counts, FaultStore, Faults, Gate};
pub use server::{TestResponse, TestServer, TestServerBuilder};
pub use webhook_receiver::{Received, WebhookReceiver};

use std::sync::Arc;

use bytes::Bytes;
use podhost_core::{HostConfig, ManualClock, PodcastHost};

/// The public URL test hosts use.
pub const TEST_PUBLIC_URL: &str = "https://pod.test";

/// A host over `store` on a manual clock (starting 2026-01-01T00:00:00Z) that reads other
/// processes' writes at once (refresh interval zero), allows webhook targets on loopback (test
/// servers run there) and keeps job files in [`scratch_dir`].
pub fn test_host(store: Arc<dyn object_store::ObjectStore>) -> (PodcastHost, ManualClock) {
    test_host_with(store, test_config())
}

/// [`test_host`] with a configuration of the test's (start from [`test_config`]).
pub fn test_host_with(
    store: Arc<dyn object_store::ObjectStore>,
    config: HostConfig,
) -> (PodcastHost, ManualClock) {
    let clock = ManualClock::new("2026-01-01T00:00:00Z".parse().expect("a valid timestamp"));
    (
        PodcastHost::with_clock(config, store, Arc::new(clock.clone())),
        clock,
    )
}

/// The configuration of [`test_host`]: [`TEST_PUBLIC_URL`], refresh interval zero, webhooks to
/// loopback allowed, job files in [`scratch_dir`].
pub fn test_config() -> HostConfig {
    let mut config = HostConfig::new(TEST_PUBLIC_URL).expect("a valid URL");
    config.catalog.refresh_interval = std::time::Duration::ZERO;
    config.allow_private_webhooks = true;
    config.scratch_dir = Some(scratch_dir());
    config
}

/// The scratch folder of test hosts: `podhost-testkit` in the system's temporary folder (jobs
/// name their working files by job id, so tests never collide there).
pub fn scratch_dir() -> std::path::PathBuf {
    std::env::temp_dir().join("podhost-testkit")
}

/// A byte stream of `bytes` in chunks of `chunk` bytes, as an upload body.
pub fn body(
    bytes: Vec<u8>,
    chunk: usize,
) -> impl futures::Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static {
    let chunks: Vec<_> = bytes
        .chunks(chunk.max(1))
        .map(|c| Ok(Bytes::copy_from_slice(c)))
        .collect();
    futures::stream::iter(chunks)
}

/// What a test needs from outside Rust (a browser, an S3 server), or `None` after saying loudly
/// on stderr that `test` is skipped and why; a failure (panic) under
/// `PODHOST_REQUIRE_EXTERNAL=1`, as `scripts/test` runs, which installs everything.
pub fn or_skip<T>(test: &str, needs: &str, found: Result<T, String>) -> Option<T> {
    match found {
        Ok(found) => Some(found),
        Err(missing) if std::env::var("PODHOST_REQUIRE_EXTERNAL").as_deref() == Ok("1") => {
            panic!("{test} needs {needs}: {missing}; run scripts/test, which installs it")
        }
        Err(missing) => {
            // Straight to stderr, past the test harness's capture: a skip must be seen.
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr().lock(),
                "\n!!!!!!!!\nSKIPPED: {test}: {missing}; run scripts/test, which installs it\n!!!!!!!!\n"
            );
            None
        }
    }
}
