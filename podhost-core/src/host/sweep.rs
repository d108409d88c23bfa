//! The sweep: removes blobs that no record references (failed or cut-off uploads).

use std::time::{Duration, SystemTime};

use futures::TryStreamExt;
use object_store::{ObjectStoreExt, path::Path};

use super::PodcastHost;
use crate::{error::Result, ids::AccountId};

/// What a sweep removed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SweepReport {
    /// Blobs that no media record referenced.
    pub orphan_blobs: usize,
    /// Staging files of uploads cut off by a crash (local folder only).
    pub staging_files: usize,
}

impl PodcastHost {
    /// Removes an account's blobs that no media record references and that are older than
    /// `grace` (younger ones may belong to an upload in progress, here or in another process).
    /// Operator-level.
    pub async fn sweep(&self, account: &AccountId, grace: Duration) -> Result<SweepReport> {
        let catalog = self.catalog(account).await?;
        catalog.catch_up().await?;
        let prefix = Path::from_iter(["accounts", account.as_str(), "blobs"]);
        let cutoff_time = SystemTime::now()
            .checked_sub(grace)
            .unwrap_or(SystemTime::UNIX_EPOCH);
        let cutoff: jiff::Timestamp = cutoff_time
            .try_into()
            .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
        let blobs: Vec<_> = self.store().list(Some(&prefix)).try_collect().await?;
        let mut report = SweepReport::default();
        for meta in blobs {
            let Some(key) = meta.location.filename() else {
                continue;
            };
            let modified =
                jiff::Timestamp::from_second(meta.last_modified.timestamp()).unwrap_or(cutoff);
            if modified >= cutoff || catalog.read(|s| s.blob_in_use(key)).await {
                continue;
            }
            self.store().delete(&meta.location).await?;
            report.orphan_blobs += 1;
        }
        if let Some(root) = &self.config().local_root {
            let folder = root.join("accounts").join(account.as_str()).join("blobs");
            report.staging_files = sweep_staging_files(&folder, cutoff_time);
        }
        Ok(report)
    }
}

/// Removes `<blob>#<digits>` staging files older than `cutoff` in a local folder.
fn sweep_staging_files(folder: &std::path::Path, cutoff: SystemTime) -> usize {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let is_staging = name
            .rsplit_once('#')
            .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|m| m < cutoff);
        if is_staging && old && std::fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}
