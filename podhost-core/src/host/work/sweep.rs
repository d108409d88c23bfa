//! The sweep: removes blobs that no record references (failed or cut-off uploads).

use super::Work;
use std::time::{Duration, SystemTime};

use futures::TryStreamExt;
use object_store::ObjectStoreExt;

use crate::{
    error::Result,
    ids::AccountId,
    store::{layout, local},
};

/// What a sweep removed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SweepReport {
    /// Blobs that no media record referenced.
    pub orphan_blobs: usize,
    /// Staged uploads cut off by a crash (local folder only; S3 keeps incomplete multipart
    /// uploads out of sight, to be expired by a lifecycle rule of the bucket).
    pub staging_files: usize,
}

impl Work<'_> {
    /// Removes an account's blobs that no media record references and that are older than
    /// `grace` (younger ones may belong to an upload in progress, here or in another process).
    /// Operator-level.
    pub async fn sweep(self, account: &AccountId, grace: Duration) -> Result<SweepReport> {
        let catalog = self.host.catalog(account).await?;
        catalog.catch_up().await?;
        let prefix = layout::blobs(account);
        let cutoff_time = SystemTime::now()
            .checked_sub(grace)
            .unwrap_or(SystemTime::UNIX_EPOCH);
        let cutoff: jiff::Timestamp = cutoff_time
            .try_into()
            .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
        let blobs: Vec<_> = self.host.store().list(Some(&prefix)).try_collect().await?;
        let mut report = SweepReport::default();
        for meta in blobs {
            let Some(key) = layout::blob_key(&meta.location) else {
                continue;
            };
            let modified =
                jiff::Timestamp::from_second(meta.last_modified.timestamp()).unwrap_or(cutoff);
            if modified >= cutoff || catalog.read(|s| s.blob_in_use(key)).await {
                continue;
            }
            self.host.store().delete(&meta.location).await?;
            report.orphan_blobs += 1;
        }
        if let Some(root) = &self.host.config().local_root {
            report.staging_files = local::sweep_staging(root, cutoff_time).await?;
        }
        Ok(report)
    }
}
