//! Delivery: what listeners and apps fetch, the public and private feeds, the site's pages'
//! renderings, enclosures and their downloads, and the render caches that hold them.
//!
//! Its boundary is [`Delivery`], reached through [`PodcastHost::delivery`]. It reaches ads
//! (an enclosure with ads) and analytics (a counted download) through their handles.
//!
//! **Invariant:** a read only reads: nothing here writes the store; a rendering is keyed by
//! the account's version, so a write is seen at once by this process and within the catalog's
//! refresh by the others.

pub(crate) mod download;
pub(crate) mod published;
pub(crate) mod renderings;
pub(crate) mod streams;
pub(crate) mod subscribers;

use super::PodcastHost;

/// The feeds, pages and downloads of a host (see the module's docs). A borrowed handle, cheap to make and
/// `Copy`; its methods take it by value, so a future they return borrows only the host:
/// `host.delivery().public_feed("daily")`.
#[derive(Clone, Copy)]
pub struct Delivery<'h> {
    pub(crate) host: &'h PodcastHost,
}

impl PodcastHost {
    /// The feeds, pages and downloads service.
    pub fn delivery(&self) -> Delivery<'_> {
        Delivery { host: self }
    }
}

impl<'h> Delivery<'h> {
    /// The public podcasts of the deployment as this process knows them; the work index keeps
    /// it current as commits change what is public.
    pub(crate) fn directory(self) -> &'h std::sync::Arc<crate::directory::Directory> {
        &self.host.inner.delivery.directory
    }
}
