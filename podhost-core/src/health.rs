//! Whether this process can serve, for a load balancer or an orchestrator: ready once the store
//! was seen to honour conditional writes, and while it answers reads.

use std::{
    sync::Arc,
    sync::atomic::{AtomicBool, Ordering},
    time::{Duration, Instant},
};

use object_store::{ObjectStore, ObjectStoreExt};

use crate::{
    error::Result,
    store::{check_conditional_writes, layout},
};

/// A read of the store at most this old counts as the store answering.
const FRESH_READ: Duration = Duration::from_secs(2);

/// How long a readiness check waits for the store.
const READ_TIMEOUT: Duration = Duration::from_secs(2);

/// What this process knows of the store's health.
#[derive(Default)]
pub(crate) struct Health {
    /// The store honours conditional writes (checked by [`Health::check`]).
    checked: AtomicBool,
    /// When a read of the store last succeeded; one probe at a time reads it.
    last_read: tokio::sync::Mutex<Option<Instant>>,
}

impl Health {
    /// Checks that `store` honours conditional writes (create-if-absent), which every commit
    /// relies on. Refuses a store that does not.
    pub(crate) async fn check(&self, store: &Arc<dyn ObjectStore>) -> Result<()> {
        check_conditional_writes(store).await?;
        self.checked.store(true, Ordering::Release);
        Ok(())
    }

    /// Whether the process can serve: `store` was checked and answered a read within the last
    /// two seconds (read now, waiting at most two seconds, when the last read is older). `Err`
    /// says why not.
    pub(crate) async fn readiness(
        &self,
        store: &dyn ObjectStore,
    ) -> std::result::Result<(), String> {
        if !self.checked.load(Ordering::Acquire) {
            return Err("the store's conditional writes have not been checked yet".into());
        }
        // Concurrent probes wait for one read rather than each making their own.
        let mut last_read = self.last_read.lock().await;
        if last_read.is_some_and(|at| at.elapsed() < FRESH_READ) {
            return Ok(());
        }
        let path = layout::probe("ready");
        match tokio::time::timeout(READ_TIMEOUT, store.head(&path)).await {
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
