//! Analytics: downloads recorded, stored as salted records, counted by the IAB rule and
//! reported (the API's report and CSV, episode curves, the site's pages, a podcast's public
//! statistics page). The rules are in [`crate::stats`]; this service holds this process's
//! side of them: the reports not stored yet, the day salts and closed days it read, the public
//! pages' counts.
//!
//! Its boundary is [`Analytics`], reached through [`PodcastHost::analytics`]. It reaches the
//! store and the accounts through the host's kernel; no other service reaches its state.
//!
//! **Invariant:** a statistics read only reads. Every count goes through `counted_days`, which
//! merges this process's unstored reports into the stored records and writes nothing; the
//! flush and the closing of days run in [`Analytics::run_stats`], apart from requests.

mod downloads;
mod episode_curves;
mod public_page;
pub(super) mod state;

use std::sync::Arc;

use object_store::ObjectStore;

use super::{PodcastHost, catalogs::AccountCatalog};
use crate::{error::Result, ids::AccountId};

pub(super) use downloads::{day_of, period};

/// The analytics of a host: recording, counting and reporting downloads (see the module's
/// docs). A borrowed handle, cheap to make: `host.analytics().download_stats(&who, &query)`.
#[derive(Clone, Copy)]
pub struct Analytics<'h> {
    host: &'h PodcastHost,
}

impl PodcastHost {
    /// The analytics service: downloads recorded, counted and reported.
    pub fn analytics(&self) -> Analytics<'_> {
        Analytics { host: self }
    }
}

/// The kernel as analytics reaches it.
impl Analytics<'_> {
    fn state(&self) -> &state::AnalyticsState {
        &self.host.inner.analytics
    }

    fn store(&self) -> &Arc<dyn ObjectStore> {
        self.host.store()
    }

    fn now(&self) -> jiff::Timestamp {
        self.host.now()
    }

    fn config(&self) -> &crate::config::HostConfig {
        self.host.config()
    }

    async fn catalog(&self, account: &AccountId) -> Result<Arc<AccountCatalog>> {
        self.host.catalog(account).await
    }

    async fn existing_catalog(&self, account: &AccountId) -> Result<Option<Arc<AccountCatalog>>> {
        self.host.existing_catalog(account).await
    }
}
