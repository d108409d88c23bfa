//! What analytics keeps in this process (a leaf: the host holds it, the service reads it).

use crate::{
    cache::Weigh,
    host::render_cache::{PUBLIC_STATS_BYTES, RenderCache},
};

/// What analytics keeps in this process.
pub(crate) struct AnalyticsState {
    /// Download reports waiting for the store, salts, closed statistics days.
    pub(super) recorder: crate::stats::Recorder,
    /// The last count of each public statistics page by feed id, stamped with the account's
    /// version: it answers the requests that arrived before it began.
    pub(super) public_stats: RenderCache<(crate::ids::FeedId, crate::Locale), PublicCounts>,
    /// Held while public statistics are counted: one count at a time, the requests that arrive
    /// meanwhile wait for the next one and share it (a count reads a year of days).
    pub(super) public_counting: tokio::sync::Mutex<()>,
    /// The counts of public statistics begun so far: a request takes a count whose number is
    /// above the one it saw when it arrived.
    pub(super) public_counts_begun: std::sync::atomic::AtomicU64,
}

/// A public statistics page as counted: when the count began, what it found, the page of it.
#[derive(Clone)]
pub(crate) struct PublicCounts {
    /// The count's number ([`AnalyticsState::public_counts_begun`] when it began).
    pub(super) begun: u64,
    /// What it counted.
    pub(super) stats: crate::publish::page::PublicStats,
    /// The page drawn of it.
    pub(super) page: crate::publish::RenderedPage,
}

impl Weigh for PublicCounts {
    fn weight(&self) -> usize {
        let stats = &self.stats;
        64 + stats.months.len() * 16
            + stats.apps.iter().map(|(a, _)| a.len() + 32).sum::<usize>()
            + self.page.weight()
    }
}

impl AnalyticsState {
    /// Empty, its caches counted in `metrics`.
    pub(crate) fn new(metrics: &crate::metrics::Metrics) -> Self {
        AnalyticsState {
            recorder: Default::default(),
            public_stats: RenderCache::counted(
                PUBLIC_STATS_BYTES,
                metrics.cache_counts("public_stats"),
            ),
            public_counting: Default::default(),
            public_counts_begun: Default::default(),
        }
    }
}
