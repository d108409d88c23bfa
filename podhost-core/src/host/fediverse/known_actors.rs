//! What this process remembers for the fediverse: remote actors fetched (their keys, inboxes
//! and names), for an hour, each remote instance's recent requests to the inbox, and how many
//! posts each podcast's outbox holds (counted once per version of its account).

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

use crate::{
    activitypub::inbound::RemoteActor,
    cache::{Cache, Weigh},
    ids::FeedId,
    lock::Locked,
};

/// How long a fetched actor is believed (a key that fails to verify is fetched again sooner:
/// the actor may have rotated it).
pub(super) const ACTOR_TTL: Duration = Duration::from_secs(3600);

/// Actors remembered at most (the oldest go first).
const ACTORS_KEPT: usize = 10_000;

/// Activities one remote instance may post to this process's inboxes per minute.
pub(crate) const INSTANCE_PER_MINUTE: u32 = 600;

/// The bound of the cache of outbox counts, in bytes (about 16,000 podcasts).
const POST_COUNTS_BYTES: usize = 1 << 20;

/// How many posts a podcast's outbox holds: its published episodes.
#[derive(Clone, Copy)]
pub(super) struct PostCount(pub(super) usize);

impl Weigh for PostCount {
    fn weight(&self) -> usize {
        64
    }
}

/// The bound of the cache of rendered outbox pages, in bytes.
const OUTBOX_PAGES_BYTES: usize = 16 << 20;

/// A rendered page of an outbox, with what its JSON weighs.
#[derive(Clone)]
pub(super) struct OutboxPage(
    pub(super) std::sync::Arc<serde_json::Value>,
    pub(super) usize,
);

impl OutboxPage {
    /// `page`, weighed by its JSON's length.
    pub(super) fn new(page: serde_json::Value) -> Self {
        let weight = serde_json::to_vec(&page).map_or(0, |bytes| bytes.len());
        OutboxPage(std::sync::Arc::new(page), weight)
    }
}

impl Weigh for OutboxPage {
    fn weight(&self) -> usize {
        self.1
    }
}

/// This process's memory of the fediverse.
pub(crate) struct KnownActors {
    /// Fetched actors by the id of the key or actor they were fetched for, with when.
    actors: Mutex<HashMap<String, (RemoteActor, Instant)>>,
    /// Each instance's requests in the current minute.
    windows: Mutex<HashMap<String, (Instant, u32)>>,
    /// Each podcast's count of posts, stamped with its account's version and good until its
    /// next scheduled episode publishes: an outbox request reads it instead of walking the
    /// podcast's episodes.
    pub(super) post_counts: Cache<FeedId, u64, PostCount>,
    /// Each podcast's rendered outbox pages (by number), stamped and kept like the counts: a
    /// page is 20 posts made from their episodes, rendered once per version.
    pub(super) outbox_pages: Cache<(FeedId, usize), u64, OutboxPage>,
}

impl Default for KnownActors {
    fn default() -> Self {
        KnownActors {
            actors: Mutex::default(),
            windows: Mutex::default(),
            post_counts: Cache::new(POST_COUNTS_BYTES),
            outbox_pages: Cache::new(OUTBOX_PAGES_BYTES),
        }
    }
}

impl KnownActors {
    /// The actor remembered for `key`, while fresh.
    pub(super) fn actor(&self, key: &str) -> Option<RemoteActor> {
        let actors = self.actors.locked();
        let (actor, at) = actors.get(key)?;
        (at.elapsed() < ACTOR_TTL).then(|| actor.clone())
    }

    /// Remembers the actor fetched for `key`.
    pub(super) fn remember(&self, key: &str, actor: RemoteActor) {
        let mut actors = self.actors.locked();
        if actors.len() >= ACTORS_KEPT {
            let oldest = actors
                .iter()
                .min_by_key(|(_, (_, at))| *at)
                .map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                actors.remove(&oldest);
            }
        }
        actors.insert(key.to_string(), (actor, Instant::now()));
    }

    /// Forgets the actor remembered for `key` (its signature did not verify with it).
    pub(super) fn forget(&self, key: &str) {
        self.actors.locked().remove(key);
    }

    /// Counts a request of `instance`: false when it is past [`INSTANCE_PER_MINUTE`].
    pub(super) fn admit(&self, instance: &str) -> bool {
        let mut windows = self.windows.locked();
        if windows.len() > 100_000 {
            windows.retain(|_, (start, _)| start.elapsed() < Duration::from_secs(60));
        }
        let (start, count) = windows
            .entry(instance.to_string())
            .or_insert((Instant::now(), 0));
        if start.elapsed() >= Duration::from_secs(60) {
            *start = Instant::now();
            *count = 0;
        }
        *count += 1;
        *count <= INSTANCE_PER_MINUTE
    }
}
