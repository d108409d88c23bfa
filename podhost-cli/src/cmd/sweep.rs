//! `podhost sweep`: removes what failed uploads left behind.

use std::time::Duration;

use clap::Args;
use serde_json::json;

use crate::context::Env;

/// Sweep options.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Only blobs older than this many hours (younger ones may be uploads in progress).
    #[arg(long, default_value_t = 24)]
    pub older_than_hours: u64,
}

impl super::Run for SweepArgs {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        let grace = Duration::from_secs(self.older_than_hours.saturating_mul(3600));
        let mut rows = Vec::new();
        for account in host.access().list_accounts().await? {
            let report = host.work().sweep(&account.id, grace).await?;
            rows.push((
                json!({"user": account.id.as_str(), "orphan_blobs": report.orphan_blobs, "staging_files": report.staging_files}),
                vec![account.id.to_string(), report.orphan_blobs.to_string(), report.staging_files.to_string()],
            ));
        }
        env.out()
            .table(&["USER", "ORPHAN_BLOBS", "STAGING_FILES"], rows)?;
        Ok(())
    }
}
