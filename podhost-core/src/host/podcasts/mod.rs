//! Podcasts: feeds, episodes, media files, uploads, tags and metadata, import and export.
//!
//! Its boundary is [`Podcasts`], reached through [`PodcastHost::podcasts`]. It reaches the
//! background work (the jobs an upload asks for) through that service's handle.
//!
//! **Invariant:** every write is one commit of the account's catalog whose changes are computed
//! from the state the commit is given; a file named by a record is in the store before the
//! record that names it.

pub(crate) mod episode_files;
pub(crate) mod episodes;
pub(crate) mod export;
pub(crate) mod feeds;
pub(crate) mod importing;
pub(crate) mod media_files;
pub(crate) mod tagging;
pub(crate) mod uploads;

use super::PodcastHost;

/// The podcasts, episodes and media of a host (see the module's docs). A borrowed handle, cheap to make and
/// `Copy`; its methods take it by value, so a future they return borrows only the host:
/// `host.podcasts().create_feed(&who, new)`.
#[derive(Clone, Copy)]
pub struct Podcasts<'h> {
    pub(crate) host: &'h PodcastHost,
}

impl PodcastHost {
    /// The podcasts, episodes and media service.
    pub fn podcasts(&self) -> Podcasts<'_> {
        Podcasts { host: self }
    }
}
