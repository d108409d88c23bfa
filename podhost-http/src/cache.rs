//! Rendered answers of list endpoints, reused while they cannot have changed: same account,
//! same request, same account version, and before the moment the answer changes by itself (a
//! scheduled episode publishing). A write anywhere in the account changes its version, so a
//! cached answer is never staler than the core's own reads.

use std::{collections::HashMap, sync::Mutex};

use bytes::Bytes;
use jiff::Timestamp;
use podhost_core::{EpisodeId, model::EpisodeRef};

/// At most this many bytes of answers (and as many of items) are kept; past it a cache starts
/// over.
const CAPACITY_BYTES: usize = 64 << 20;

#[derive(Clone)]
struct Cached {
    version: u64,
    changes_at: Option<Timestamp>,
    body: Bytes,
}

/// Rendered answers by account and request line.
#[derive(Default)]
pub(crate) struct ResponseCache {
    entries: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    map: HashMap<(String, String), Cached>,
    bytes: usize,
}

impl ResponseCache {
    /// The answer for `request` of `account` rendered at `version`, unless it changed by itself
    /// before `now`.
    pub(crate) fn get(
        &self,
        account: &str,
        request: &str,
        version: u64,
        now: Timestamp,
    ) -> Option<Bytes> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let cached = entries
            .map
            .get(&(account.to_string(), request.to_string()))?;
        let fresh = cached.version == version && cached.changes_at.is_none_or(|at| now < at);
        fresh.then(|| cached.body.clone())
    }

    /// Keeps an answer rendered at `version`.
    pub(crate) fn put(
        &self,
        account: &str,
        request: &str,
        version: u64,
        changes_at: Option<Timestamp>,
        body: Bytes,
    ) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.bytes + body.len() > CAPACITY_BYTES {
            entries.map.clear();
            entries.bytes = 0;
        }
        entries.bytes += body.len();
        let key = (account.to_string(), request.to_string());
        let cached = Cached {
            version,
            changes_at,
            body,
        };
        if let Some(old) = entries.map.insert(key, cached) {
            entries.bytes -= old.body.len();
        }
    }
}

/// What an episode list item shows, as of one rendering: the episode's version (every change
/// to an episode bumps it), whether it is published (a scheduled episode publishes with no
/// write), and what the item shows of its audio and cover. A change to any of them makes the
/// rendering stale. Media records carry no version, and their update time may not move between
/// two changes (a coarse clock): their shown fields are hashed.
#[derive(Clone, Copy, PartialEq, Eq)]
struct ItemStamp {
    version: u64,
    updated: Timestamp,
    is_published: bool,
    media: u64,
    logo: u64,
}

impl ItemStamp {
    fn of(e: &EpisodeRef<'_>) -> Self {
        ItemStamp {
            version: e.episode.version,
            updated: e.episode.updated,
            is_published: e.is_published,
            media: shown(e.media),
            logo: shown(e.logo),
        }
    }
}

/// A hash of what an item shows of a media record: its URL's parts, its name, type and length.
fn shown(media: Option<&podhost_core::model::Media>) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    if let Some(m) = media {
        m.id.get().hash(&mut h);
        m.updated.hash(&mut h);
        m.name.hash(&mut h);
        m.url_name.hash(&mut h);
        m.blob.as_str().hash(&mut h);
        m.facts.mime.hash(&mut h);
        (m.facts.kind as u8).hash(&mut h);
        m.facts.audio.as_ref().map(|a| a.duration_ms).hash(&mut h);
    }
    h.finish()
}

/// The JSON of each episode as an item of the episode list, by account and episode: a page of
/// a large podcast that no cached answer covers (another page number or size, a crawler) is
/// put together from the items' JSON instead of serialized anew. Only a rendering whose stamp
/// matches the episode as it is now is used.
#[derive(Default)]
pub(crate) struct ItemCache {
    entries: Mutex<Items>,
}

#[derive(Default)]
struct Items {
    /// By account, then episode.
    map: HashMap<String, HashMap<EpisodeId, (ItemStamp, Bytes)>>,
    bytes: usize,
}

impl ItemCache {
    /// The JSON of `episodes` as a list answer (in a buffer of `capacity`): for each, the kept
    /// rendering when it is current, else `render`'s (which is then kept). The cache is locked
    /// once for the page.
    pub(crate) fn data_array(
        &self,
        account: &str,
        episodes: &[EpisodeRef<'_>],
        capacity: usize,
        render: impl Fn(&EpisodeRef<'_>) -> Vec<u8>,
    ) -> Vec<u8> {
        let mut items = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        crate::wire::data_array(episodes.len(), capacity, |i, out| {
            let episode = &episodes[i];
            let stamp = ItemStamp::of(episode);
            let id = episode.episode.id;
            if let Some((kept, json)) = items.map.get(account).and_then(|m| m.get(&id))
                && *kept == stamp
            {
                out.extend_from_slice(json);
                return;
            }
            let json = Bytes::from(render(episode));
            out.extend_from_slice(&json);
            if items.bytes + json.len() > CAPACITY_BYTES {
                items.map.clear();
                items.bytes = 0;
            }
            items.bytes += json.len();
            let old = items
                .map
                .entry(account.to_string())
                .or_default()
                .insert(id, (stamp, json));
            if let Some((_, old)) = old {
                items.bytes -= old.len();
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_reused_only_at_its_version_and_before_it_changes() {
        let cache = ResponseCache::default();
        let t0: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let later: Timestamp = "2026-01-02T00:00:00Z".parse().unwrap();
        cache.put("a", "/api/media", 5, None, Bytes::from_static(b"x"));
        cache.put(
            "a",
            "/api/feed/f/shows",
            5,
            Some(later),
            Bytes::from_static(b"y"),
        );
        assert_eq!(
            cache.get("a", "/api/media", 5, t0).as_deref(),
            Some(&b"x"[..])
        );
        assert!(
            cache.get("a", "/api/media", 6, t0).is_none(),
            "a write changed the account"
        );
        assert!(
            cache.get("b", "/api/media", 5, t0).is_none(),
            "another account"
        );
        assert!(
            cache
                .get("a", "/api/media?page%5Bsize%5D=1", 5, t0)
                .is_none(),
            "another request"
        );
        assert!(cache.get("a", "/api/feed/f/shows", 5, t0).is_some());
        assert!(
            cache.get("a", "/api/feed/f/shows", 5, later).is_none(),
            "a scheduled episode published"
        );
    }
}
