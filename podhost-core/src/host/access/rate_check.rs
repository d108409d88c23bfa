//! The rate limit of a caller's requests, shared by every process on the store (the leases are
//! explained in [`crate::ratelimit`]).

use super::Access;
use crate::{principal::Principal, ratelimit};

impl Access<'_> {
    /// Counts one request of `who` against [`HostConfig::rate_limit`](crate::HostConfig): per
    /// token (per account for its owner), per fixed 60-second window of the host's clock,
    /// across every process on the store. Never fails: when the store cannot be reached, this
    /// process counts on its own for a while (and logs it).
    pub async fn rate_check(self, who: &Principal) -> ratelimit::Verdict {
        self.host
            .inner
            .access
            .ratelimit
            .check(
                &self.host.inner.kernel.store,
                self.host.now(),
                &ratelimit::key_of(who),
                self.host.inner.kernel.config.rate_limit,
            )
            .await
    }
}
