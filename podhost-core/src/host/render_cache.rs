//! Rendered public documents (feeds, pages) kept per account version: a document is rendered
//! once and reused until the account changes or its own time comes (a scheduled episode).

use std::{collections::HashMap, hash::Hash, sync::Mutex};

use jiff::Timestamp;

use crate::{
    ids::{EpisodeId, FeedId},
    publish::{RenderedFeed, RenderedPage},
};

/// The bound of each cache of rendered documents (feeds, pages), in bytes.
pub(super) const RENDER_CACHE_BYTES: usize = 64 << 20;

/// A page's key: its feed, and its episode (none for the podcast page).
pub(super) type PageKey = (FeedId, Option<EpisodeId>);

/// A rendered document as the cache sees it.
pub(super) trait Rendition: Clone {
    /// When the document changes by itself.
    fn changes_at(&self) -> Option<Timestamp>;
    /// Its size in bytes, counted against the cache's bound.
    fn size(&self) -> usize;
}

impl Rendition for RenderedFeed {
    fn changes_at(&self) -> Option<Timestamp> {
        self.changes_at
    }

    fn size(&self) -> usize {
        self.xml.len()
    }
}

impl Rendition for RenderedPage {
    fn changes_at(&self) -> Option<Timestamp> {
        self.changes_at
    }

    fn size(&self) -> usize {
        self.html.len()
    }
}

/// Documents by key with the account version they were rendered at, at most `limit` bytes in
/// all (past that the cache starts over: rendering again is cheap next to holding a stale heap).
pub(super) struct RenderCache<K, V> {
    entries: Mutex<Entries<K, V>>,
    limit: usize,
}

struct Entries<K, V> {
    map: HashMap<K, (u64, V)>,
    bytes: usize,
}

impl<K: Eq + Hash, V: Rendition> RenderCache<K, V> {
    /// A cache of at most `limit` bytes of documents.
    pub(super) fn new(limit: usize) -> Self {
        RenderCache {
            entries: Mutex::new(Entries {
                map: HashMap::new(),
                bytes: 0,
            }),
            limit,
        }
    }

    /// The document rendered at `version`, unless its time to change has come by `now`.
    pub(super) fn get(&self, key: &K, version: u64, now: Timestamp) -> Option<V> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let (at, doc) = entries.map.get(key)?;
        (*at == version && doc.changes_at().is_none_or(|t| now < t)).then(|| doc.clone())
    }

    /// Keeps `doc`, rendered at `version`.
    pub(super) fn put(&self, key: K, version: u64, doc: V) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, old)) = entries.map.remove(&key) {
            entries.bytes -= old.size();
        }
        if entries.bytes + doc.size() > self.limit {
            entries.map.clear();
            entries.bytes = 0;
        }
        entries.bytes += doc.size();
        entries.map.insert(key, (version, doc));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(bytes: usize, changes_at: Option<Timestamp>) -> RenderedPage {
        RenderedPage {
            html: vec![b'x'; bytes].into(),
            etag: String::new(),
            last_modified: Timestamp::UNIX_EPOCH,
            changes_at,
        }
    }

    #[test]
    fn a_document_serves_its_version_until_its_time_comes() {
        let cache = RenderCache::new(1000);
        let t0 = Timestamp::UNIX_EPOCH;
        let later = Timestamp::from_second(60).unwrap();
        cache.put("a", 7, page(10, Some(later)));
        assert!(cache.get(&"a", 7, t0).is_some());
        assert!(cache.get(&"a", 8, t0).is_none(), "the account changed");
        assert!(
            cache.get(&"a", 7, later).is_none(),
            "a scheduled episode is due"
        );
    }

    #[test]
    fn the_cache_stays_within_its_bound() {
        let cache = RenderCache::new(100);
        let t0 = Timestamp::UNIX_EPOCH;
        cache.put("a", 1, page(60, None));
        cache.put("a", 2, page(60, None));
        assert!(
            cache.get(&"a", 2, t0).is_some(),
            "a replaced entry is not counted twice"
        );
        cache.put("b", 1, page(60, None));
        assert!(cache.get(&"a", 2, t0).is_none());
        assert!(cache.get(&"b", 1, t0).is_some());
    }
}
