//! What analytics keeps in this process (a leaf: the host holds it, the service reads it).

use crate::host::render_cache::{PUBLIC_STATS_BYTES, RENDER_CACHE_BYTES, RenderCache};

/// What analytics keeps in this process.
pub(crate) struct AnalyticsState {
    /// Download reports waiting for the store, salts, closed statistics days.
    pub(super) recorder: crate::stats::Recorder,
    /// Counted public statistics by feed id, for a few minutes (until the moment beside them).
    pub(super) public_stats: crate::cache::Cache<
        crate::ids::FeedId,
        (),
        (crate::publish::page::PublicStats, jiff::Timestamp),
    >,
    /// Held while public statistics are counted: one count at a time, the others wait for it
    /// and find its counts (a count reads a year of days).
    pub(super) public_counting: tokio::sync::Mutex<()>,
    /// Rendered public statistics pages by feed id.
    pub(super) stats_pages: RenderCache<crate::ids::FeedId, crate::publish::RenderedPage>,
}

impl AnalyticsState {
    /// Empty, its caches counted in `metrics`.
    pub(crate) fn new(metrics: &crate::metrics::Metrics) -> Self {
        AnalyticsState {
            recorder: Default::default(),
            public_stats: crate::cache::Cache::counted(
                PUBLIC_STATS_BYTES,
                metrics.cache_counts("public_stats"),
            ),
            public_counting: Default::default(),
            stats_pages: RenderCache::counted(
                RENDER_CACHE_BYTES,
                metrics.cache_counts("stats_pages"),
            ),
        }
    }
}
