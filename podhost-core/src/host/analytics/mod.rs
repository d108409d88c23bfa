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
pub(super) mod in_memory;
mod public_page;

use super::PodcastHost;

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

/// What this process keeps for analytics (the kernel is reached through `host`).
impl Analytics<'_> {
    fn state(&self) -> &in_memory::AnalyticsState {
        &self.host.inner.analytics
    }
}
