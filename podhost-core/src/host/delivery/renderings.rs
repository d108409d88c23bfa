//! What delivery keeps in this process (a leaf: the host holds it, the service reads it): the
//! rendered feeds and pages, keyed by the version they were rendered at, and the deployment's
//! directory of public podcasts.

use std::sync::Arc;

use crate::{
    directory::Directory,
    host::render_cache::{PageKey, RENDER_CACHE_BYTES, RenderCache},
    ids::FeedId,
    metrics::Metrics,
    publish::{RenderedFeed, RenderedPage},
};

/// What delivery keeps in this process.
pub(crate) struct Renderings {
    /// Rendered feeds by feed id.
    pub(crate) rendered: RenderCache<FeedId, RenderedFeed>,
    /// Subscribers' copies of private feeds, by feed and key.
    pub(crate) private_rendered: RenderCache<(FeedId, String), RenderedFeed>,
    /// Rendered public pages by feed id and episode (none for the podcast page).
    pub(crate) pages: RenderCache<PageKey, RenderedPage>,
    /// The public podcasts of the deployment, as this process knows them.
    pub(crate) directory: Arc<Directory>,
    /// The HLS packages of videos read for serving.
    pub(crate) packages: super::streams::Packages,
}

impl Renderings {
    /// Empty caches, each counted in `metrics` under its name.
    pub(crate) fn new(metrics: &Metrics) -> Renderings {
        Renderings {
            rendered: RenderCache::counted(RENDER_CACHE_BYTES, metrics.cache_counts("feeds")),
            private_rendered: RenderCache::counted(
                RENDER_CACHE_BYTES,
                metrics.cache_counts("private_feeds"),
            ),
            pages: RenderCache::counted(RENDER_CACHE_BYTES, metrics.cache_counts("pages")),
            directory: Default::default(),
            packages: Default::default(),
        }
    }
}
