//! The rate limit of a caller's requests, shared by every process on the store (the leases are
//! explained in [`crate::ratelimit`]).

use super::PodcastHost;
use crate::{principal::Principal, ratelimit};

impl PodcastHost {
    /// Counts one request of `who` against [`HostConfig::rate_limit`](crate::HostConfig): per
    /// token (per account for its owner), per fixed 60-second window of the host's clock,
    /// across every process on the store. Never fails: when the store cannot be reached, this
    /// process counts on its own for a while (and logs it).
    pub async fn rate_check(&self, who: &Principal) -> ratelimit::Verdict {
        self.inner
            .ratelimit
            .check(
                &self.inner.kernel.store,
                self.now(),
                &ratelimit::key_of(who),
                self.inner.kernel.config.rate_limit,
            )
            .await
    }
}
