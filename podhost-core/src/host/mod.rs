//! [`PodcastHost`]: the service handle every frontend drives.

mod access;
mod ads;
mod analytics;
mod catalogs;
mod claims;
mod delivery;
mod fediverse;
mod file_tags;
mod kernel;
mod keyed;
mod podcasts;
mod refs;
mod render_cache;
mod rendering;
mod secrets;
mod store_format;
mod store_health;
mod user_text;
mod views;
mod work;

use std::sync::Arc;

use object_store::{ObjectStore, path::Path};

pub use access::Access;
pub use access::members::{ActivityQuery, INVITATION_LIFETIME, InvitationView};
pub use access::oauth::{
    Authorization, AuthorizeError, AuthorizeRequest, OAuthError, TokenRequest, TokenResponse,
};
pub use access::signin::LoginHolder;
pub use ads::{Ads, Enclosure, Listener, RetimedText, StitchedEnclosure, StreamAd, StreamChoice};
pub use analytics::Analytics;
pub use delivery::Delivery;
pub use delivery::download::{Caching, Download, DownloadAnswer, DownloadRedirect, DownloadUrl};
pub use delivery::streams::StreamFile;
pub use delivery::subscribers::Private;
pub use fediverse::{Fediverse, FediverseDocument, Inbound, InboxError, Received, Refusal};
pub use podcasts::Podcasts;
pub use podcasts::episode_files::EpisodeFiles;
pub use podcasts::export::FeedExport;
pub use podcasts::uploads::{StagedUpload, UploadTarget};
pub use secrets::random_secret;
pub use store_format::{ServerState, StoreStatus, StoreUpgrade};
pub use work::Work;
pub use work::job_runs::WaveformFormat;
pub use work::passes::WorkPass;
pub use work::sweep::SweepReport;
pub use work::webhook_rounds::WebhookRun;

use crate::{
    catalog::{Catalog, OpenStats},
    clock::Clock,
    config::HostConfig,
    error::{Error, Result},
    ids::AccountId,
    state::AccountState,
    urls::Urls,
};

use catalogs::AccountCatalog;

/// The podcast host: one cloneable handle over a store, the one entry point embedders and
/// frontends hold. Every operation takes the caller ([`Principal`](crate::Principal)) and
/// enforces scopes and ownership itself.
///
/// The host is a kernel (store, clock, configuration, URLs, metrics, the open catalogs and
/// their commit hooks) and seven services, each a borrowed handle reached through one method:
///
/// | handle | reached by | holds |
/// |---|---|---|
/// | [`Fediverse`] | [`fediverse()`](Self::fediverse) | ActivityPub actors, the inbox, comments, blocks |
/// | [`Access`] | [`access()`](Self::access) | accounts, people, sign-in, members, tokens, OAuth, rate limits |
/// | [`Podcasts`] | [`podcasts()`](Self::podcasts) | feeds, episodes, media, uploads, metadata, import, export |
/// | [`Delivery`] | [`delivery()`](Self::delivery) | public and private feeds, pages, downloads, their caches |
/// | [`Ads`] | [`ads()`](Self::ads) | campaigns, offers, preparation, insertion, impressions |
/// | [`Analytics`] | [`analytics()`](Self::analytics) | counting, reports, curves, countries, public statistics |
/// | [`Work`] | [`work()`](Self::work) | jobs, schedules, webhooks, WebSub, Podping, sweeps |
///
/// A service reaches another only through that service's handle, and their imports point one
/// way, down the table's order with work last (the layering test keeps it so: fediverse →
/// delivery, podcasts → work, delivery → ads → analytics, ads → work).
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use podhost_core::{HostConfig, PodcastHost, model::{NewFeed, FeedPatch}};
/// let store = podhost_core::open_store("memory://").unwrap().store;
/// let host = PodcastHost::new(HostConfig::new("https://pod.example").unwrap(), store);
/// host.access().create_account("alice").await.unwrap();
/// let alice = host.access().owner(&"alice".parse().unwrap()).await.unwrap();
/// let feed = host
///     .podcasts()
///     .create_feed(&alice, NewFeed { id: "daily".into(), fields: FeedPatch { title: Some("Daily".into()), ..Default::default() } })
///     .await
///     .unwrap();
/// assert_eq!(feed.feed.title, "Daily");
/// # });
/// ```
#[derive(Clone)]
pub struct PodcastHost {
    inner: Arc<Inner>,
}

struct Inner {
    /// What every capability shares: store, clock, configuration, URLs, metrics, the open
    /// catalogs and their commit hooks.
    kernel: kernel::Kernel<PodcastHost>,
    /// What access remembers: tokens' accounts, sessions, throttles, last uses, rate limits.
    access: access::remembered::Remembered,
    /// What delivery keeps: rendered feeds and pages, the directory.
    delivery: delivery::renderings::Renderings,
    /// What ads keep to answer episodes with ads.
    ads: ads::caches::Caches,
    /// Downloads recorded, counted and reported.
    analytics: analytics::in_memory::AnalyticsState,
    /// This process's job workers.
    work: work::job_runs::workers::Workers,
    /// What this process knows of the store's health.
    health: crate::health::Health,
    /// Remote actors' keys fetched, and each instance's recent requests.
    fediverse: fediverse::known_actors::KnownActors,
}

impl std::fmt::Debug for PodcastHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PodcastHost")
            .field("public_url", &self.inner.kernel.config.public_url)
            .field("store", &self.inner.kernel.store.to_string())
            .finish()
    }
}

impl PodcastHost {
    /// A host over `store`, on the system clock corrected to the store's once
    /// [`sync_clock`](Self::sync_clock) measured it ([`StoreClock`](crate::StoreClock)).
    pub fn new(config: HostConfig, store: Arc<dyn ObjectStore>) -> Self {
        Self::with_clock(config, store, Arc::new(crate::StoreClock::default()))
    }

    /// Sets the host's clock to the store's time, when it is a [`StoreClock`](crate::StoreClock)
    /// (a server runs this at start and every minute; see its documentation): the correction
    /// now applied, `None` for another clock. A correction is logged as a warning, since it
    /// means this machine's clock is off.
    pub async fn sync_clock(&self) -> Result<Option<jiff::SignedDuration>> {
        self.inner.kernel.sync_clock().await
    }

    /// A host with an injected clock (tests move time with [`ManualClock`](crate::ManualClock)).
    pub fn with_clock(
        config: HostConfig,
        store: Arc<dyn ObjectStore>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        let mut kernel = kernel::Kernel::new(config, store, clock);
        // The capabilities with a hook on every account catalog register it.
        Self::register_work(&mut kernel);
        Self::register_ads(&mut kernel);
        PodcastHost {
            inner: Arc::new(Inner {
                access: Default::default(),
                delivery: delivery::renderings::Renderings::new(&kernel.metrics),
                ads: Default::default(),
                analytics: analytics::in_memory::AnalyticsState::new(&kernel.metrics),
                work: Default::default(),
                health: Default::default(),
                fediverse: Default::default(),
                kernel,
            }),
        }
    }

    /// What this process counts and times, for a frontend to register and serve
    /// ([`Metrics::register`](crate::metrics::Metrics::register)).
    pub fn metrics(&self) -> &crate::metrics::Metrics {
        &self.inner.kernel.metrics
    }

    /// The configuration.
    pub fn config(&self) -> &HostConfig {
        &self.inner.kernel.config
    }

    /// The public URL builder.
    pub fn urls(&self) -> &Urls {
        &self.inner.kernel.urls
    }

    /// The current time of the host's clock.
    pub fn now(&self) -> jiff::Timestamp {
        self.inner.kernel.clock.now()
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn ObjectStore> {
        &self.inner.kernel.store
    }

    fn account_root(account: &AccountId) -> Path {
        crate::store::layout::account(account)
    }

    /// The account's catalog, or `None` when no such account exists (a public URL or a queue
    /// entry that names nothing).
    async fn existing_catalog(&self, account: &AccountId) -> Result<Option<Arc<AccountCatalog>>> {
        match self.catalog(account).await {
            Ok(catalog) => Ok(Some(catalog)),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The account's catalog, opened on first use; `NotFound` for an unknown account.
    async fn catalog(&self, account: &AccountId) -> Result<Arc<AccountCatalog>> {
        let cell = self.inner.kernel.accounts.cell(account);
        let opened = cell
            .get_or_try_init(|| async {
                // Nothing of a store of a newer format than this build reads is read (and
                // then rewritten without what this build does not understand), by any
                // frontend: a server, or a one-shot command.
                self.store_format().await?;
                let opened = Catalog::open(
                    self.inner.kernel.store.clone(),
                    Self::account_root(account),
                    self.inner.kernel.config.catalog.clone(),
                )
                .await?;
                match opened {
                    Some((catalog, _)) => {
                        Ok(Arc::new(self.inner.kernel.hooked(self, account, catalog)))
                    }
                    None => Err(Error::not_found("account", account)),
                }
            })
            .await
            .cloned();
        match &opened {
            Ok(catalog) => {
                // The gauges change only with what is held.
                if self
                    .inner
                    .kernel
                    .accounts
                    .weighed(account, &cell, catalog.weight())
                {
                    self.metrics().catalogs(self.inner.kernel.accounts.held());
                }
            }
            // An unknown account (or a failed open) leaves nothing behind: anyone can ask for
            // any name on the public routes.
            Err(_) => self.inner.kernel.accounts.forget_unopened(account, &cell),
        }
        opened
    }

    /// How many account catalogs this process holds open, and their estimated bytes (at most
    /// [`CatalogConfig::cache_bytes`](crate::catalog::CatalogConfig::cache_bytes) of them).
    pub fn open_catalogs(&self) -> (usize, usize) {
        self.inner.kernel.accounts.held()
    }

    /// The version of the caller's account: it changes with every write to the account (seen
    /// within the refresh interval for other processes' writes, at once for this one's). A
    /// frontend may reuse an answer computed at the same version.
    pub async fn account_version(&self, who: &crate::Principal) -> Result<u64> {
        let catalog = self.catalog(who.account()).await?;
        Ok(catalog.fresh_seq().await)
    }

    /// Waits until the account's background compaction (packing its log into segments and
    /// writing a snapshot, which writes start when one is due) has finished; for benchmarks,
    /// tests and a graceful shutdown.
    pub async fn settle(&self, account: &AccountId) -> Result<()> {
        self.catalog(account).await?.settle().await;
        Ok(())
    }

    /// Opens an account's catalog afresh (not from this handle's cache) and tells what opening
    /// read; for benchmarks and operators.
    pub async fn open_stats(&self, account: &AccountId) -> Result<OpenStats> {
        let opened = Catalog::<AccountState>::open(
            self.inner.kernel.store.clone(),
            Self::account_root(account),
            self.inner.kernel.config.catalog.clone(),
        )
        .await?;
        opened
            .map(|(_, stats)| stats)
            .ok_or_else(|| Error::not_found("account", account))
    }
}
