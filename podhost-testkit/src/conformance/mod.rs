//! The conformance suite: what every [`PodcastHost`](podhost_core::PodcastHost) does, whatever store is under it.
//!
//! Each case is a `pub async fn` over a fresh store; [`run_all`] runs every case against stores
//! from a factory and names the case that failed.

use std::{any::Any, future::Future, pin::Pin, sync::Arc};

use object_store::ObjectStore;

mod accounts;
mod background;
mod media;
pub mod members;
mod podcasts;
pub mod privacy;
mod publishing;
pub mod teams;
mod video;

/// The owner of a new account (kept here for the tests that named it so).
pub use crate::setup::account as owner;
pub use accounts::{accounts, ownership, scopes, tokens};
pub use background::{jobs, private_podcasts, statistics, webhooks};
pub use media::{media, media_list, uploads_that_fail_leave_nothing};
pub use members::{activity, owners_and_tokens, roles};
pub use podcasts::{episode_list, episodes, feeds, scheduled_publishing};
pub use privacy::private_stays_private;
pub use publishing::{publishing, two_hosts_share_a_store};
pub use video::video_streams;

/// A case: a name and the test.
pub type Case = (
    &'static str,
    fn(Arc<dyn ObjectStore>) -> Pin<Box<dyn Future<Output = ()> + Send>>,
);

/// Every case of the suite.
pub fn cases() -> Vec<Case> {
    vec![
        ("accounts", |s| Box::pin(accounts(s))),
        ("tokens", |s| Box::pin(tokens(s))),
        ("media", |s| Box::pin(media(s))),
        ("media_list", |s| Box::pin(media_list(s))),
        ("uploads_that_fail_leave_nothing", |s| {
            Box::pin(uploads_that_fail_leave_nothing(s))
        }),
        ("feeds", |s| Box::pin(feeds(s))),
        ("episodes", |s| Box::pin(episodes(s))),
        ("episode_list", |s| Box::pin(episode_list(s))),
        ("scheduled_publishing", |s| {
            Box::pin(scheduled_publishing(s))
        }),
        ("ownership", |s| Box::pin(ownership(s))),
        ("scopes", |s| Box::pin(scopes(s))),
        ("two_hosts_share_a_store", |s| {
            Box::pin(two_hosts_share_a_store(s))
        }),
        ("publishing", |s| Box::pin(publishing(s))),
        ("jobs", |s| Box::pin(jobs(s))),
        ("statistics", |s| Box::pin(statistics(s))),
        ("webhooks", |s| Box::pin(webhooks(s))),
        ("private_podcasts", |s| Box::pin(private_podcasts(s))),
        ("private_stays_private", |s| {
            Box::pin(private_stays_private(s))
        }),
        ("roles", |s| Box::pin(roles(s))),
        ("owners_and_tokens", |s| Box::pin(owners_and_tokens(s))),
        ("activity", |s| Box::pin(activity(s))),
        ("video_streams", |s| Box::pin(video_streams(s))),
    ]
}

/// Runs every case, each on a fresh store from `make` (which may return a guard, such as a
/// temporary folder, kept alive for the case).
pub async fn run_all(make: impl Fn() -> (Arc<dyn ObjectStore>, Box<dyn Any + Send>)) {
    let mut failed = Vec::new();
    for (name, case) in cases() {
        let (store, guard) = make();
        let outcome = tokio::spawn(case(store)).await;
        drop(guard);
        if outcome.is_err() {
            failed.push(name);
        }
    }
    assert!(
        failed.is_empty(),
        "conformance cases failed (their panics are above): {failed:?}"
    );
}

macro_rules! assert_err_ {
    ($result:expr, $pattern:pat) => {
        match $result {
            Err($pattern) => {}
            other => panic!(
                "expected {}, got {:?}",
                stringify!($pattern),
                other.map(|_| "Ok(..)")
            ),
        }
    };
}

pub(crate) use assert_err_ as assert_err;
