//! Whether this process can serve (see [`health`](crate::health)).

use crate::error::Result;

use super::PodcastHost;

impl PodcastHost {
    /// Checks that the store honours conditional writes (create-if-absent), which every commit
    /// relies on; a server calls it before it serves. Refuses a store that does not.
    pub async fn check_store(&self) -> Result<()> {
        self.inner.health.check(self.store()).await
    }

    /// Whether this process can serve requests: the store was checked ([`check_store`]) and
    /// answered a read within the last two seconds (read now, waiting at most two seconds,
    /// when the last read is older). `Err` says why not.
    ///
    /// [`check_store`]: PodcastHost::check_store
    pub async fn readiness(&self) -> std::result::Result<(), String> {
        self.inner.health.readiness(self.store().as_ref()).await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[tokio::test]
    async fn not_ready_until_the_store_is_checked() {
        let store = Arc::new(object_store::memory::InMemory::new());
        let host = PodcastHost::new(crate::HostConfig::new("https://pod.test").unwrap(), store);
        let refused = host.readiness().await.unwrap_err();
        assert!(refused.contains("conditional writes"), "{refused}");
        host.check_store().await.unwrap();
        assert_eq!(host.readiness().await, Ok(()));
    }
}
