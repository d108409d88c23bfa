//! Where jobs wait and who runs them, in the store, so that several processes share the work and
//! a crashed worker's job is taken over.
//!
//! ```text
//! jobs/queue/{account}/{job}               a job waiting or running (written before the job's
//!                                          catalog entry; removed when it ends)
//! jobs/lease/{account}/{job}/{attempt:04}  the worker running an attempt and until when; the
//!                                          worker renews it; an expired lease lets the next
//!                                          attempt be claimed (put-if-absent: one winner)
//! accounts/{a}/results/{job}/{file}        a job's outputs, written once
//! ```
//!
//! The job's record (status, attempts, error) lives in the account's catalog; this module only
//! decides who may run it.

use std::sync::Arc;

use futures::TryStreamExt;
use jiff::Timestamp;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload, path::Path};
use serde::{Deserialize, Serialize};

use crate::{
    error::{Error, Result},
    ids::{AccountId, JobId},
    store::{delete_quietly, get_json, layout, put_if_absent},
};

fn queue_path(account: &AccountId, job: &JobId) -> Path {
    layout::queued_job(account, job)
}

fn lease_dir(account: &AccountId, job: &JobId) -> Path {
    layout::job_leases(account, job)
}

/// Where a job's output `file` is stored.
pub(crate) fn result_path(account: &AccountId, job: &JobId, file: &str) -> Path {
    layout::job_result(account, job, file)
}

/// A claim on one attempt of a job.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Lease {
    /// The process holding it.
    pub owner: String,
    /// The attempt number (1 for the first run).
    pub attempt: u32,
    /// Until when it holds unless renewed, in milliseconds since the epoch.
    pub expires_ms: i64,
    /// How much of the work is done (0 to 1) when it was last renewed, for a job that says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<f64>,
}

/// Marks a job as waiting (before its catalog entry is written: a crash in between leaves a
/// marker without a job, which `forget` removes, never a job nobody will find).
pub(crate) async fn enqueue(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
    job: &JobId,
) -> Result<()> {
    store
        .put(&queue_path(account, job), PutPayload::default())
        .await?;
    Ok(())
}

/// The waiting or running jobs of every account, with when they were queued.
pub(crate) async fn queued(
    store: &Arc<dyn ObjectStore>,
) -> Result<Vec<(AccountId, JobId, Timestamp)>> {
    let listed: Vec<_> = store.list(Some(&layout::job_queue())).try_collect().await?;
    let mut out = Vec::new();
    for meta in listed {
        if let Some((account, job)) = layout::queued_job_of(&meta.location) {
            let at = Timestamp::from_millisecond(meta.last_modified.timestamp_millis())
                .unwrap_or(Timestamp::UNIX_EPOCH);
            out.push((account, job, at));
        }
    }
    out.sort_by_key(|(_, _, at)| *at);
    Ok(out)
}

/// Removes a job's marker and leases (it ended, or it never existed).
pub(crate) async fn forget(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
    job: &JobId,
) -> Result<()> {
    let leases: Vec<_> = store
        .list(Some(&lease_dir(account, job)))
        .try_collect()
        .await?;
    for meta in leases {
        delete_quietly(store, &meta.location).await?;
    }
    delete_quietly(store, &queue_path(account, job)).await
}

/// How much of a running job is done (0 to 1), as its worker last said when it renewed its
/// lease; `None` when it says nothing (or no worker holds it).
pub(crate) async fn progress(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
    job: &JobId,
) -> Result<Option<f64>> {
    Ok(newest(store, account, job).await?.and_then(|l| l.progress))
}

/// The newest lease of a job.
async fn newest(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
    job: &JobId,
) -> Result<Option<Lease>> {
    let leases: Vec<_> = store
        .list(Some(&lease_dir(account, job)))
        .try_collect()
        .await?;
    let Some(meta) = leases
        .iter()
        .max_by_key(|m| layout::lease_attempt(&m.location))
    else {
        return Ok(None);
    };
    get_json(store, &meta.location).await
}

/// Claims the next attempt of a job for `owner` when nobody holds a live lease. Returns the
/// lease won, or `None` when another worker runs it (or won the race for it).
pub(crate) async fn claim(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
    job: &JobId,
    owner: &str,
    now: Timestamp,
    lease_for: std::time::Duration,
) -> Result<Option<Lease>> {
    let attempt = match newest(store, account, job).await? {
        Some(lease) if lease.expires_ms > now.as_millisecond() => return Ok(None),
        Some(lease) => lease.attempt + 1,
        None => 1,
    };
    let lease = Lease {
        owner: owner.to_string(),
        attempt,
        expires_ms: now.as_millisecond() + lease_ms(lease_for),
        progress: None,
    };
    let path = layout::job_lease(account, job, attempt);
    let body = serde_json::to_vec(&lease).map_err(|e| Error::storage(e.to_string()))?;
    let won = put_if_absent(store, &path, PutPayload::from(body)).await?;
    Ok(won.then_some(lease))
}

fn lease_ms(lease_for: std::time::Duration) -> i64 {
    i64::try_from(lease_for.as_millis()).unwrap_or(i64::MAX / 2)
}

/// Renews a lease. `false` when a newer attempt exists: the job was taken over and this worker
/// must stop and write nothing.
pub(crate) async fn renew(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
    job: &JobId,
    lease: &mut Lease,
    now: Timestamp,
    lease_for: std::time::Duration,
) -> Result<bool> {
    if newest(store, account, job)
        .await?
        .is_some_and(|newest| newest.attempt != lease.attempt)
    {
        return Ok(false);
    }
    lease.expires_ms = now.as_millisecond() + lease_ms(lease_for);
    let path = layout::job_lease(account, job, lease.attempt);
    let body = serde_json::to_vec(&*lease).map_err(|e| Error::storage(e.to_string()))?;
    store.put(&path, PutPayload::from(body)).await?;
    Ok(true)
}
