//! How an account's state is split into snapshot parts: the episodes, media records and events
//! in chunks by id (ids only grow, so new records land in the last chunk and an edit touches
//! one chunk), everything else in one part. A snapshot writes only the parts that changed.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::AccountState;
use crate::{
    ids::{EpisodeId, FeedId},
    model::{Episode, Job, Media},
    publish::notes,
    webhooks::event::Event,
};

/// Records per chunk of episodes, media records and events.
const CHUNK: u64 = 256;

/// Announcements (an id and a time each) per chunk.
const ANNOUNCED_CHUNK: u64 = 4096;

/// One part of an account's snapshot.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Part {
    /// The account with everything not in the parts below: its credentials, OAuth clients and
    /// grants, subscribers, podcasts (without their episodes), webhooks and counters.
    Account(Box<AccountState>),
    /// A chunk of one podcast's episodes, with their show notes as the feed carries them.
    Episodes {
        feed: FeedId,
        episodes: Vec<Episode>,
        #[serde(default)]
        notes: Option<FeedNotes>,
    },
    /// A chunk of media records.
    Media(Vec<Media>),
    /// A chunk of the outbox.
    Events(Vec<Event>),
    /// A chunk of the publication times announced.
    Announced(Vec<(EpisodeId, Timestamp)>),
    /// The recent jobs.
    Jobs(Vec<Job>),
    /// The Idempotency-Keys of the last 24 hours.
    Keys(Vec<(String, crate::idempotency::KeyRecord)>),
    /// A chunk of the record of who did what.
    Activity(Vec<crate::model::Activity>),
}

/// Show notes as the feed carries them, one per episode of the part, in its order; cleaned
/// with the policy of version `policy` (others are cleaned again on load).
#[derive(Serialize, Deserialize)]
pub(crate) struct FeedNotes {
    policy: u32,
    feed: Vec<String>,
}

/// The values of `map` in chunks of keys with the same `chunk(key)`, in key order.
fn chunked<K, V>(map: impl IntoIterator<Item = (K, V)>, chunk: impl Fn(&K) -> u64) -> Vec<Vec<V>> {
    let mut chunks: Vec<Vec<V>> = Vec::new();
    let mut current = None;
    for (key, value) in map {
        let c = chunk(&key);
        if current != Some(c) {
            chunks.push(Vec::new());
            current = Some(c);
        }
        if let Some(last) = chunks.last_mut() {
            last.push(value);
        }
    }
    chunks
}

pub(super) fn split(mut state: AccountState) -> Vec<Part> {
    let mut parts = Vec::new();
    for (feed, entry) in state.feeds.iter_mut() {
        let episodes = std::mem::take(&mut entry.episodes);
        let mut cleaned = std::mem::take(&mut entry.feed_notes);
        entry.order = Default::default();
        for episodes in chunked(episodes, |id| id.number() / CHUNK) {
            let notes = episodes
                .iter()
                .map(|e| cleaned.remove(&e.id))
                .collect::<Option<Vec<String>>>()
                .map(|feed| FeedNotes {
                    policy: notes::POLICY_VERSION,
                    feed,
                });
            parts.push(Part::Episodes {
                feed: feed.clone(),
                episodes,
                notes,
            });
        }
    }
    let media = std::mem::take(&mut state.media);
    parts.extend(
        chunked(media, |id| id.get() / CHUNK)
            .into_iter()
            .map(Part::Media),
    );
    let events = std::mem::take(&mut state.events);
    parts.extend(
        chunked(events, |seq| seq / CHUNK)
            .into_iter()
            .map(Part::Events),
    );
    let activity = std::mem::take(&mut state.activity);
    parts.extend(
        chunked(activity, |seq| seq / CHUNK)
            .into_iter()
            .map(Part::Activity),
    );
    let announced: BTreeMap<EpisodeId, (EpisodeId, Timestamp)> =
        std::mem::take(&mut state.announced)
            .into_iter()
            .map(|(id, at)| (id, (id, at)))
            .collect();
    parts.extend(
        chunked(announced, |id| id.number() / ANNOUNCED_CHUNK)
            .into_iter()
            .map(Part::Announced),
    );
    let jobs = std::mem::take(&mut state.jobs);
    if !jobs.is_empty() {
        parts.push(Part::Jobs(jobs.into_values().collect()));
    }
    let keys = std::mem::take(&mut state.keys);
    if !keys.is_empty() {
        parts.push(Part::Keys(keys.into_iter().collect()));
    }
    state.blobs.clear();
    parts.push(Part::Account(Box::new(state)));
    parts
}

pub(super) fn join(parts: Vec<Part>) -> Result<AccountState, String> {
    let mut account = None;
    let mut rest = Vec::new();
    for part in parts {
        match part {
            Part::Account(state) if account.is_none() => account = Some(*state),
            Part::Account(_) => return Err("two account parts".into()),
            other => rest.push(other),
        }
    }
    let mut state = account.ok_or("no account part")?;
    for part in rest {
        match part {
            Part::Account(_) => unreachable!("taken above"),
            Part::Episodes {
                feed,
                episodes,
                notes,
            } => {
                let entry = state
                    .feeds
                    .get_mut(&feed)
                    .ok_or_else(|| format!("episodes of podcast {feed}, which is not there"))?;
                if let Some(notes) = notes
                    .filter(|n| n.policy == notes::POLICY_VERSION && n.feed.len() == episodes.len())
                {
                    entry
                        .feed_notes
                        .extend(episodes.iter().map(|e| e.id).zip(notes.feed));
                }
                entry
                    .episodes
                    .extend(episodes.into_iter().map(|e| (e.id, e)));
            }
            Part::Media(media) => state.media.extend(media.into_iter().map(|m| (m.id, m))),
            Part::Events(events) => state.events.extend(events.into_iter().map(|e| (e.seq, e))),
            Part::Announced(announced) => state.announced.extend(announced),
            Part::Jobs(jobs) => state
                .jobs
                .extend(jobs.into_iter().map(|j| (j.id.clone(), j))),
            Part::Keys(keys) => state.keys.extend(keys),
            Part::Activity(activity) => state
                .activity
                .extend(activity.into_iter().map(|a| (a.seq, a))),
        }
    }
    Ok(state)
}
