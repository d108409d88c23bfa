//! What this process keeps to answer listeners with ads: the offers of files and streams at a
//! catalog version, the prepared episodes and ads, and the arrangements.

use std::sync::Arc;

use super::{
    offers::{Arranged, Offer},
    stream_offers::StreamOffer,
};
use crate::{
    cache::Cache,
    ids::AccountId,
    stitch::{AdFrames, EpisodeCuts, Slot},
};

/// The bytes of prepared episodes and ads this process keeps.
const PREPARED_BYTES: usize = 64 << 20;
/// The bytes of arrangements (their pieces and tags) this process keeps.
const ARRANGEMENT_BYTES: usize = 32 << 20;

/// This process's caches of ad insertion.
pub(crate) struct Caches {
    pub(super) offers: Cache<(AccountId, String), u64, Option<Arc<Offer>>>,
    pub(super) prepared: Cache<(AccountId, String, Vec<Slot>), (), Arc<EpisodeCuts>>,
    pub(super) ad_parts: Cache<(AccountId, String), (), Arc<AdFrames>>,
    pub(super) arranged: Cache<(AccountId, String), (), Arc<Arranged>>,
    /// What each video's stream offers, at a catalog version.
    pub(super) stream_offers: Cache<(AccountId, String), u64, Option<Arc<StreamOffer>>>,
    /// One episode prepared at a time (each reads its whole file once).
    pub(super) preparing: tokio::sync::Mutex<()>,
}

impl Default for Caches {
    fn default() -> Self {
        Caches {
            offers: Cache::new(ARRANGEMENT_BYTES),
            prepared: Cache::new(PREPARED_BYTES),
            ad_parts: Cache::new(PREPARED_BYTES / 16),
            arranged: Cache::new(ARRANGEMENT_BYTES),
            stream_offers: Cache::new(ARRANGEMENT_BYTES),
            preparing: Default::default(),
        }
    }
}
