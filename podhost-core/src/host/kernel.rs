//! The kernel: what every capability of the host shares. The store (timed), the clock, the
//! configuration, the public URLs, the metrics, the account catalogs open in this process and
//! the list of hooks each of them runs after a commit. A capability keeps its own caches; it
//! reaches the store and the accounts only through the kernel.

use std::sync::Arc;

use object_store::ObjectStore;

use super::catalogs;
use crate::{
    catalog::AfterCommit, clock::Clock, config::HostConfig, ids::AccountId, metrics::Metrics,
    state::Change, urls::Urls,
};

/// A capability's hook on every account catalog this process opens: made for the account when
/// its catalog opens (from the host, `H`), run after each commit of this process (see
/// [`AfterCommit`]).
pub(super) type CommitHook<H> = fn(&H, &AccountId) -> Arc<dyn AfterCommit<Change>>;

/// The shared ground of the host's capabilities; `H` is the host the commit hooks are made from
/// (the kernel knows no capability, nor the host above them).
pub(super) struct Kernel<H> {
    pub(super) config: HostConfig,
    /// Every request to it is timed ([`MeteredStore`](crate::store::metered::MeteredStore)).
    pub(super) store: Arc<dyn ObjectStore>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) urls: Urls,
    /// What this process counts and times.
    pub(super) metrics: Metrics,
    /// The account catalogs open in this process, at most a bound of bytes of them.
    pub(super) accounts: catalogs::OpenCatalogs,
    /// Which account holds each podcast id (claims never change).
    pub(super) feed_accounts: crate::cache::Cache<crate::ids::FeedId, (), FeedAccount>,
    /// The capabilities' hooks, attached to each catalog as it opens, in the order they were
    /// registered ([`Kernel::register`]).
    hooks: Vec<CommitHook<H>>,
    /// This process's name in leases and claims (jobs, passes, keyed requests).
    pub(super) owner: String,
    /// The store's format as last read (`store_format.rs`): every capability's writes depend
    /// on it.
    pub(super) format: crate::store::format::KnownFormat,
}

impl<H> Kernel<H> {
    /// See [`PodcastHost::sync_clock`](super::PodcastHost::sync_clock).
    pub(super) async fn sync_clock(&self) -> crate::error::Result<Option<jiff::SignedDuration>> {
        let Some(clock) = self.clock.store_synced() else {
            return Ok(None);
        };
        let was = clock.offset();
        let probe = crate::store::layout::clock_probe(&self.owner);
        let offset = clock.measure(self.store.as_ref(), &probe).await?;
        if offset != was {
            tracing::warn!(
                offset_ms = offset.as_millis() as i64,
                "this machine's clock is off the store's: podhost now goes by the store's time"
            );
        }
        Ok(Some(offset))
    }

    /// The kernel over `store` (timed here), with no hooks yet: each capability registers its
    /// own ([`Kernel::register`]).
    pub(super) fn new(
        config: HostConfig,
        store: Arc<dyn ObjectStore>,
        clock: Arc<dyn Clock>,
    ) -> Kernel<H> {
        let metrics = Metrics::default();
        let store: Arc<dyn ObjectStore> = Arc::new(crate::store::metered::MeteredStore::new(
            store,
            metrics.clone(),
            config.store_timeout,
        ));
        Kernel {
            urls: Urls::new(&config.public_url),
            accounts: catalogs::OpenCatalogs::new(config.catalog.cache_bytes),
            feed_accounts: crate::cache::Cache::new(FEED_ACCOUNTS_BYTES),
            config,
            store,
            clock,
            metrics,
            hooks: Vec::new(),
            owner: uuid::Uuid::new_v4().simple().to_string(),
            format: Default::default(),
        }
    }
}

impl<H> Kernel<H> {
    /// A capability's `hook`, run on every account catalog opened from now on.
    pub(super) fn register(&mut self, hook: CommitHook<H>) {
        self.hooks.push(hook);
    }

    /// `catalog` of `account`, as this process holds it: its commits counted in the metrics and
    /// followed by every registered hook, in order.
    pub(super) fn hooked(
        &self,
        host: &H,
        account: &AccountId,
        catalog: catalogs::AccountCatalog,
    ) -> catalogs::AccountCatalog {
        self.hooks
            .iter()
            .fold(catalog.counted(self.metrics.clone()), |catalog, hook| {
                catalog.after_commit(hook(host, account))
            })
    }
}

/// The bound of the cache of which account holds a podcast, in bytes (about 100,000 podcasts).
const FEED_ACCOUNTS_BYTES: usize = 8 << 20;

/// The account that holds a podcast, as [`Kernel::feed_accounts`] keeps it.
#[derive(Clone)]
pub(super) struct FeedAccount(pub(super) AccountId);

impl crate::cache::Weigh for FeedAccount {
    fn weight(&self) -> usize {
        // The account's name, the podcast's id beside it, and the map's entry.
        2 * self.0.as_str().len() + 64
    }
}
