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
    /// The pages' and the player's Content-Security-Policy, made on first use (they depend on
    /// the deployment's settings only, and are sent with every page).
    pub(crate) page_policy: std::sync::OnceLock<String>,
    pub(crate) player_policy: std::sync::OnceLock<String>,
    /// The public podcasts of the deployment, as this process knows them.
    pub(crate) directory: Arc<Directory>,
    /// The HLS packages of videos read for serving.
    pub(crate) packages: Packages,
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
            page_policy: Default::default(),
            player_policy: Default::default(),
        }
    }
}

/// Packages kept in memory at most (a few KiB each).
const PACKAGES_KEPT: usize = 1024;

/// The packages this process read for serving, by `{account}/{job}` (part of delivery's
/// state): a package never changes once stored.
#[derive(Default)]
pub(crate) struct Packages(
    std::sync::Mutex<std::collections::HashMap<String, Arc<crate::hls::Package>>>,
);

impl Packages {
    pub(crate) fn get(&self, key: &str) -> Option<Arc<crate::hls::Package>> {
        crate::lock::Locked::locked(&self.0).get(key).cloned()
    }

    pub(crate) fn insert(&self, key: String, package: Arc<crate::hls::Package>) {
        let mut map = crate::lock::Locked::locked(&self.0);
        if map.len() >= PACKAGES_KEPT {
            map.clear();
        }
        map.insert(key, package);
    }
}
