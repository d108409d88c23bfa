//! What this process remembers for the fediverse: remote actors fetched (their keys, inboxes
//! and names), for an hour, each remote instance's recent verified requests to the inbox, each
//! address's recent requests whose signature could not be verified, and how many posts each
//! podcast's outbox holds (counted once per version of its account).

use std::{
    collections::HashMap,
    hash::Hash,
    net::IpAddr,
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

/// Activities one remote instance may post to this process's inboxes per minute, counted once
/// their signature verified with a key of their actor.
pub(crate) const INSTANCE_PER_MINUTE: u32 = 600;

/// Requests whose signature could not be verified (the key not fetched, the signature wrong,
/// the signer not the actor) one address may send to this process's inboxes per minute before
/// no more keys are fetched for it in that minute.
pub(crate) const UNVERIFIED_PER_SOURCE: u32 = 120;

/// Keys counted at most before the counts of past minutes are dropped.
const COUNTED_KEPT: usize = 100_000;

/// Counts per key in fixed one-minute windows (each key's window starts with its first count).
struct MinuteCounts<K> {
    windows: Mutex<HashMap<K, (Instant, u32)>>,
}

impl<K> Default for MinuteCounts<K> {
    fn default() -> Self {
        MinuteCounts {
            windows: Mutex::default(),
        }
    }
}

impl<K: Hash + Eq> MinuteCounts<K> {
    /// Counts one for `key`: its count in its current minute, this one included.
    fn add(&self, key: K) -> u32 {
        let mut windows = self.windows.locked();
        if windows.len() > COUNTED_KEPT {
            windows.retain(|_, (start, _)| start.elapsed() < Duration::from_secs(60));
        }
        let (start, count) = windows.entry(key).or_insert((Instant::now(), 0));
        if start.elapsed() >= Duration::from_secs(60) {
            *start = Instant::now();
            *count = 0;
        }
        *count += 1;
        *count
    }

    /// The count of `key` in its current minute.
    fn get(&self, key: &K) -> u32 {
        let windows = self.windows.locked();
        match windows.get(key) {
            Some((start, count)) if start.elapsed() < Duration::from_secs(60) => *count,
            _ => 0,
        }
    }
}

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
    /// Each instance's verified requests in the current minute.
    instances: MinuteCounts<String>,
    /// Each address's requests whose signature could not be verified, in the current minute.
    unverified: MinuteCounts<IpAddr>,
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
            instances: MinuteCounts::default(),
            unverified: MinuteCounts::default(),
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

    /// Counts a verified request of `instance`: false when it is past
    /// [`INSTANCE_PER_MINUTE`]. Only a request whose signature verified with a key of an
    /// actor of `instance` may be counted here.
    pub(super) fn admit(&self, instance: &str) -> bool {
        self.instances.add(instance.to_string()) <= INSTANCE_PER_MINUTE
    }

    /// Counts a request from `source` whose signature could not be verified.
    pub(super) fn unverified(&self, source: IpAddr) {
        self.unverified.add(source);
    }

    /// Whether a key may be fetched to verify a request from `source`: false once it sent
    /// [`UNVERIFIED_PER_SOURCE`] requests this minute that could not be verified.
    pub(super) fn may_fetch_for(&self, source: IpAddr) -> bool {
        self.unverified.get(&source) < UNVERIFIED_PER_SOURCE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instances_and_sources_are_counted_apart() {
        let known = KnownActors::default();
        for _ in 0..INSTANCE_PER_MINUTE {
            assert!(known.admit("social.example"));
        }
        assert!(!known.admit("social.example"), "past its share");
        assert!(
            known.admit("other.example"),
            "another instance's share is its own"
        );

        let (junk, real): (IpAddr, IpAddr) = (
            "203.0.113.7".parse().unwrap(),
            "198.51.100.1".parse().unwrap(),
        );
        for _ in 0..UNVERIFIED_PER_SOURCE {
            assert!(known.may_fetch_for(junk));
            known.unverified(junk);
        }
        assert!(!known.may_fetch_for(junk), "past its failures");
        assert!(
            known.may_fetch_for(real),
            "another address is not held back"
        );
        assert!(known.admit("other.example"), "nor is any instance");
    }
}
