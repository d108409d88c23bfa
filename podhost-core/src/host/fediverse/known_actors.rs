//! What this process remembers for the fediverse: remote actors fetched (their keys, inboxes
//! and names), for an hour, and each remote instance's recent requests to the inbox.

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

use crate::{activitypub::inbound::RemoteActor, lock::Locked};

/// How long a fetched actor is believed (a key that fails to verify is fetched again sooner:
/// the actor may have rotated it).
pub(super) const ACTOR_TTL: Duration = Duration::from_secs(3600);

/// Actors remembered at most (the oldest go first).
const ACTORS_KEPT: usize = 10_000;

/// Activities one remote instance may post to this process's inboxes per minute.
pub(crate) const INSTANCE_PER_MINUTE: u32 = 600;

/// This process's memory of the fediverse.
#[derive(Default)]
pub(crate) struct KnownActors {
    /// Fetched actors by the id of the key or actor they were fetched for, with when.
    actors: Mutex<HashMap<String, (RemoteActor, Instant)>>,
    /// Each instance's requests in the current minute.
    windows: Mutex<HashMap<String, (Instant, u32)>>,
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
