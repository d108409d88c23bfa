//! Rendered answers of list endpoints, reused while they cannot have changed: same account,
//! same request, same account version, and before the moment the answer changes by itself (a
//! scheduled episode publishing). A write anywhere in the account changes its version, so a
//! cached answer is never staler than the core's own reads.

use bytes::Bytes;
use jiff::Timestamp;
use podhost_core::{EpisodeId, cache::Cache, model::EpisodeRef};

/// The bound of each cache of the server, in bytes.
pub(crate) const CACHE_BYTES: usize = 64 << 20;

/// Rendered answers by account and request line, stamped with the account's version.
pub(crate) type ResponseCache = Cache<(String, String), u64, Bytes>;

/// Compressed documents by their strong validator (which names their bytes: no stamp needed).
pub(crate) type GzipCache = Cache<String, (), Bytes>;

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
pub(crate) struct ItemCache(Cache<(String, EpisodeId), ItemStamp, Bytes>);

impl ItemCache {
    /// An empty cache whose lookups count in `counts`.
    pub(crate) fn new(counts: podhost_core::metrics::CacheCounts) -> Self {
        ItemCache(Cache::counted(CACHE_BYTES, counts))
    }

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
        let mut items = self.0.lock();
        // Items never change by themselves: their stamp says when they did.
        let now = jiff::Timestamp::UNIX_EPOCH;
        crate::wire::data_array(episodes.len(), capacity, |i, out| {
            let episode = &episodes[i];
            let stamp = ItemStamp::of(episode);
            let key = (account.to_string(), episode.episode.id);
            if let Some(json) = items.get(&key, &stamp, now) {
                out.extend_from_slice(json);
                return;
            }
            let json = Bytes::from(render(episode));
            out.extend_from_slice(&json);
            items.put(key, stamp, None, json);
        })
    }
}
