//! The caches of rendered public documents (feeds, private feeds, pages): [`Cache`]s stamped
//! with the account's version, so a document is rendered once and reused until the account
//! changes or its own time comes (a scheduled episode).

use crate::{
    cache::{Cache, Weigh},
    ids::{EpisodeId, FeedId},
    locale::Locale,
    publish::{RenderedFeed, RenderedPage},
};

/// The bound of each cache of rendered documents, in bytes.
pub(crate) const RENDER_CACHE_BYTES: usize = 64 << 20;

/// A page's key: its feed, which of its pages, and the language of its own words.
pub(crate) type PageKey = (FeedId, PageOf, Locale);

/// Which public page of a podcast.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum PageOf {
    /// The podcast page: the `n`th page (from 1) of its list of episodes.
    Podcast(usize),
    /// A published episode's page.
    Episode(EpisodeId),
    /// The embeddable player of an episode, or of the newest one (none).
    Player(Option<EpisodeId>),
}

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
