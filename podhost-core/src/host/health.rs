//! Whether this process can serve, for a load balancer or an orchestrator: ready once the store
//! was seen to honour conditional writes, and while it answers reads.

use std::time::{Duration, Instant};

use object_store::ObjectStoreExt;

use crate::{
    error::Result,
    store::{check_conditional_writes, layout},
};

use super::PodcastHost;

/// A read of the store at most this old counts as the store answering.
const FRESH_READ: Duration = Duration::from_secs(2);

/// How long a readiness check waits for the store.
const READ_TIMEOUT: Duration = Duration::from_secs(2);

/// What this process knows of the store's health.
#[derive(Default)]
pub(super) struct Health {
    /// The store honours conditional writes (checked by [`PodcastHost::check_store`]).
    checked: std::sync::atomic::AtomicBool,
    /// When a read of the store last succeeded; one probe at a time reads it.
    last_read: tokio::sync::Mutex<Option<Instant>>,
}

impl PodcastHost {
    /// Checks that the store honours conditional writes (create-if-absent), which every commit
    /// relies on; a server calls it before it serves. Refuses a store that does not.
    pub async fn check_store(&self) -> Result<()> {
        check_conditional_writes(self.store()).await?;
        self.inner
            .health
            .checked
            .store(true, std::sync::atomic::Ordering::Release);
        Ok(())
    }

    /// Whether this process can serve requests: the store was checked ([`check_store`]) and
    /// answered a read within the last two seconds (read now, waiting at most two seconds,
    /// when the last read is older). `Err` says why not.
    ///
    /// [`check_store`]: PodcastHost::check_store
    pub async fn readiness(&self) -> std::result::Result<(), String> {
        let health = &self.inner.health;
        if !health.checked.load(std::sync::atomic::Ordering::Acquire) {
            return Err("the store's conditional writes have not been checked yet".into());
        }
        // Concurrent probes wait for one read rather than each making their own.
        let mut last_read = health.last_read.lock().await;
        if last_read.is_some_and(|at| at.elapsed() < FRESH_READ) {
            return Ok(());
        }
        let path = layout::probe("ready");
        match tokio::time::timeout(READ_TIMEOUT, self.store().head(&path)).await {
            Ok(Ok(_) | Err(object_store::Error::NotFound { .. })) => {
                *last_read = Some(Instant::now());
                Ok(())
            }
            Ok(Err(e)) => Err(format!("the store failed a read: {e}")),
            Err(_) => Err(format!(
                "the store did not answer a read within {} s",
                READ_TIMEOUT.as_secs()
            )),
        }
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
