//! The caches of rendered public documents (feeds, private feeds, pages): [`Cache`]s stamped
//! with the account's version, so a document is rendered once and reused until the account
//! changes or its own time comes (a scheduled episode).

use crate::{
    cache::{Cache, Weigh},
    ids::{EpisodeId, FeedId},
    publish::{RenderedFeed, RenderedPage},
};

/// The bound of each cache of rendered documents, in bytes.
pub(crate) const RENDER_CACHE_BYTES: usize = 64 << 20;

/// A page's key: its feed, and its episode (none for the podcast page).
pub(crate) type PageKey = (FeedId, Option<EpisodeId>, usize);

/// Documents by key, stamped with the account version they were rendered at.
pub(crate) type RenderCache<K, V> = Cache<K, u64, V>;

impl Weigh for RenderedFeed {
    fn weight(&self) -> usize {
        self.xml.len()
    }
}

impl Weigh for RenderedPage {
    fn weight(&self) -> usize {
        self.html.len()
    }
}

/// The bound of the cache of counted public statistics pages (`analytics/in_memory.rs`), in
/// bytes.
pub(crate) const PUBLIC_STATS_BYTES: usize = 4 << 20;
