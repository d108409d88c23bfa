//! Background jobs: asking for one, reading it, and the worker loop that runs them.
//!
//! A job is recorded in the account's catalog (so asking for the same media and kind twice
//! while one is waiting or running returns that one: the decision is serial) and marked in the
//! store's queue (see [`crate::jobs`]). Every process runs a worker; a worker claims an attempt
//! with put-if-absent, renews its lease while it works, and commits the result only while its
//! attempt is still the newest, so a job taken over after a crash is never finished twice.

use super::Work;
use crate::lock::Locked;
use std::sync::Arc;

use object_store::{ObjectStoreExt, PutPayload};
use serde_json::Value;

mod decoding;
mod kinds;
mod mastering;
mod output;
pub(crate) mod packaging;
pub(crate) mod records;
pub(crate) mod workers;

pub use kinds::WaveformFormat;
pub(crate) use mastering::AdAudioParams;

use crate::host::PodcastHost;
use crate::webhooks::event::{EventKind as K, Subject};
use crate::{
    authorization::Action,
    error::{Error, Result},
    ids::{AccountId, JobId, MediaId},
    jobs::{self, Lease},
    model::{Job, JobKind, JobStatus},
    principal::Principal,
    request::RequestContext,
    state::Change,
    store::delete_quietly,
};
use output::JobOutput;

/// Attempts a job gets before it fails for good (each one ended by a crash or a store error).
const MAX_ATTEMPTS: u32 = 5;

impl PodcastHost {
    /// A new job id with its queue marker written, for a commit that may record the job. The
    /// marker comes first: a crash after it leaves a marker without a job (removed by the
    /// workers), never a job that no worker will find. Call [`settle_job`](Self::settle_job)
    /// after the commit.
    pub(crate) async fn reserve_job(&self, account: &AccountId) -> Result<JobId> {
        let id = JobId::random();
        jobs::enqueue(self.store(), account, &id).await?;
        Ok(id)
    }

    /// After the commit of a reserved job: wakes the workers when the job recorded is the
    /// reserved one, else removes the reserved marker.
    pub(crate) async fn settle_job(
        &self,
        account: &AccountId,
        reserved: &JobId,
        recorded: Option<&JobId>,
    ) {
        if recorded == Some(reserved) {
            self.inner.work.wake.notify_one();
        } else {
            let _ = jobs::forget(self.store(), account, reserved).await;
        }
    }

    /// [`settle_job`](Self::settle_job) for each of the jobs `reserved` for one commit, of
    /// which the commit recorded `recorded`.
    pub(crate) async fn settle_jobs(
        &self,
        account: &AccountId,
        reserved: &[JobId],
        recorded: &[JobId],
    ) {
        for id in reserved {
            let used = recorded.contains(id).then_some(id);
            self.settle_job(account, id, used).await;
        }
    }

    /// Runs the queued jobs that this process can start now; returns when they are started.
    async fn start_queued(&self, permits: &Arc<tokio::sync::Semaphore>) -> Result<()> {
        let now = self.now();
        for (account, id, queued_at) in jobs::queued(self.store()).await? {
            let Ok(permit) = permits.clone().try_acquire_owned() else {
                return Ok(());
            };
            if self.is_running(&id) {
                continue;
            }
            let job = match self.existing_catalog(&account).await? {
                Some(catalog) => catalog.read(|state| state.jobs.get(&id).cloned()).await,
                None => None,
            };
            let Some(job) = job else {
                // A marker whose job was never committed: gone after a minute.
                if now.duration_since(queued_at) > jiff::SignedDuration::from_mins(1) {
                    jobs::forget(self.store(), &account, &id).await?;
                }
                continue;
            };
            if job.status.is_final() {
                jobs::forget(self.store(), &account, &id).await?;
                continue;
            }
            let lease_for = self.config().jobs.lease;
            let owner = &self.inner.kernel.owner;
            let Some(lease) =
                jobs::claim(self.store(), &account, &id, owner, now, lease_for).await?
            else {
                continue;
            };
            self.inner.work.running.locked().insert(id.clone());
            let host = self.clone();
            tokio::spawn(async move {
                let _permit = permit;
                if let Err(e) = host.run_attempt(&account, job, lease).await {
                    tracing::warn!(%account, job = %id, error = %e, "a job attempt could not be recorded; it will be taken over");
                }
                host.inner.work.running.locked().remove(&id);
                host.inner.work.wake.notify_one();
            });
        }
        Ok(())
    }

    fn is_running(&self, id: &JobId) -> bool {
        self.inner.work.running.locked().contains(id)
    }

    /// One attempt, as work of the request that asked for the job: its log lines carry that
    /// request's id, and so do the events it records.
    async fn run_attempt(&self, account: &AccountId, job: Job, lease: Lease) -> Result<()> {
        use tracing::Instrument;
        let span = tracing::info_span!(
            "job",
            request_id = job.request_id.as_deref().unwrap_or("-"),
            job = %job.id,
            kind = job.kind.as_str(),
            %account,
        );
        let request = RequestContext::new(job.request_id.as_deref());
        request
            .run(self.job_attempt(account, job, lease))
            .instrument(span)
            .await
    }

    /// One attempt: record it as running, do the work while renewing the lease, record the end.
    async fn job_attempt(&self, account: &AccountId, job: Job, mut lease: Lease) -> Result<()> {
        let catalog = self.catalog(account).await?;
        let id = job.id.clone();
        let attempt = lease.attempt;
        let started = self.now();
        let running = catalog
            .commit(started, &crate::model::Actor::podhost(), |state| {
                let Some(current) = state.jobs.get(&id) else {
                    return Ok((Vec::new(), None));
                };
                if current.status.is_final() {
                    return Ok((Vec::new(), None));
                }
                let job = Job {
                    status: JobStatus::Running,
                    started: Some(started),
                    attempts: attempt,
                    ..current.clone()
                };
                Ok((vec![Change::JobPut(job.clone())], Some(job)))
            })
            .await?;
        let Some(job) = running else {
            return jobs::forget(self.store(), account, &id).await;
        };
        tracing::info!(attempt, "job started");
        let _running = self.metrics().job_started(job.kind.as_str());
        let lease_for = self.config().jobs.lease;
        let work = async {
            if attempt > MAX_ATTEMPTS {
                return Err(Error::invalid(
                    "job",
                    format!("gave up after {MAX_ATTEMPTS} attempts that did not finish"),
                ));
            }
            kinds::execute(self, account, &job).await
        };
        let mut work = std::pin::pin!(work);
        let mut renew = tokio::time::interval(lease_for / 4);
        renew.tick().await;
        let cancel = Arc::new(tokio::sync::Notify::new());
        self.inner
            .work
            .cancels
            .locked()
            .insert(id.clone(), cancel.clone());
        let _attempt = AttemptHere {
            host: self,
            job: &id,
        };
        // Dropping the work stops it (a packaging's ffmpeg is killed with it).
        let outcome = loop {
            tokio::select! {
                outcome = &mut work => break outcome,
                () = cancel.notified() => {
                    tracing::info!("job cancelled");
                    return jobs::forget(self.store(), account, &id).await;
                }
                _ = renew.tick() => {
                    let now = self.now();
                    lease.progress = self.inner.work.progress.locked().get(&id).copied();
                    match jobs::renew(self.store(), account, &id, &mut lease, now, lease_for).await {
                        Ok(true) => {}
                        Ok(false) => return Ok(()), // taken over: write nothing
                        Err(e) => tracing::warn!(job = %id, error = %e, "renewing a job lease failed"),
                    }
                    // Cancelled in another process (or ended there): stop, write nothing.
                    if catalog.read(|state| state.jobs.get(&id).is_none_or(|j| j.status.is_final())).await {
                        tracing::info!("job cancelled");
                        return jobs::forget(self.store(), account, &id).await;
                    }
                }
            }
        };
        if let Err(e @ (Error::Storage { .. } | Error::Unavailable { .. })) = &outcome {
            // The store failed, not the job: leave it to the lease, the next attempt retries.
            return Err(Error::storage(format!("job {id}, attempt {attempt}: {e}")));
        }
        let finished = self.now();
        // The job's output is applied to the media record as it is now, so changes made while
        // the job ran are kept; an output that no longer applies fails the job with the reason.
        let (applied, ended) = catalog
            .commit(finished, &crate::model::Actor::podhost(), |state| {
                let Some(current) = state.jobs.get(&id) else {
                    return Ok((Vec::new(), (false, None)));
                };
                // Only the newest attempt may finish the job, once.
                if current.status.is_final() || current.attempts != attempt {
                    return Ok((Vec::new(), (false, None)));
                }
                let mut changes = Vec::new();
                let mut events = Vec::new();
                let result = match (&outcome, current.media) {
                    (Ok(JobOutput::Import(_)), _) => Ok(None),
                    (Ok(output), Some(media)) => match state.media.get(&media) {
                        None => Err(format!("media {media} was deleted while the job ran")),
                        Some(record) => output
                            .apply(record, finished)
                            .map(|updated| Some((record, updated))),
                    },
                    (Ok(_), None) => Err("the job names no media file".to_string()),
                    (Err(e), _) => Err(e.to_string()),
                };
                let applied = result.is_ok();
                let mut report = match &outcome {
                    Ok(JobOutput::Import(report)) => serde_json::to_value(report).ok(),
                    _ => None,
                };
                let (status, error) = match result {
                    Ok(mut applied_to) => {
                        if let (Ok(output), Some((original, updated))) = (&outcome, &mut applied_to)
                            && let Some(made) =
                                output.made(state, original, updated, &id, finished)?
                        {
                            report = Some(made.report);
                            changes.extend(made.changes);
                            events.extend(made.events);
                        }
                        // Written only when the job changed it; a new file of its own (a tag
                        // write) is what `media.updated` announces.
                        if let Some((record, updated)) = applied_to
                            && updated != *record
                        {
                            if updated.blob != record.blob {
                                events.push((
                                    K::MediaUpdated,
                                    Subject::Media(Box::new(updated.clone())),
                                ));
                            }
                            changes.push(Change::MediaPut(Box::new(updated)));
                        }
                        (JobStatus::Succeeded, None)
                    }
                    Err(reason) => (JobStatus::Failed, Some(reason)),
                };
                let ended = Job {
                    status,
                    error,
                    finished: Some(finished),
                    report,
                    ..current.clone()
                };
                let ended_log = (status, ended.error.clone());
                changes.push(Change::JobPut(ended.clone()));
                let kind = if status == JobStatus::Succeeded {
                    K::JobSucceeded
                } else {
                    K::JobFailed
                };
                events.push((kind, Subject::Job(Box::new(ended))));
                changes.extend(state.record(finished, events));
                Ok((changes, (applied, Some(ended_log))))
            })
            .await?;
        if let Some((status, _)) = &ended {
            self.metrics().job_ended(job.kind.as_str(), status.as_str());
        }
        match ended {
            Some((status, error)) => tracing::info!(status = status.as_str(), error, "job ended"),
            None => tracing::info!("job ended elsewhere (a newer attempt, or gone)"),
        }
        if !applied && let Ok(output) = &outcome {
            // Written by this attempt and referenced by nothing: the job failed, or a newer
            // attempt finishes it.
            for blob in output.new_blobs() {
                let path = crate::store::layout::blob(account, blob);
                let _ = delete_quietly(self.store(), &path).await;
            }
        }
        jobs::forget(self.store(), account, &id).await
    }

    /// Says how much of job `job`, running in this process, is done (0 to 1): its lease carries
    /// it from the next renewal, and `get_job` reads it there.
    pub(crate) fn report_progress(&self, job: &JobId, done: f64) {
        self.inner
            .work
            .progress
            .locked()
            .insert(job.clone(), done.clamp(0.0, 1.0));
    }

    /// A working folder of one job's own, made now: `{purpose}-{job}` in the scratch folder
    /// (`HostConfig::scratch_dir`), or in the system's temporary folder when none is set. The
    /// job removes it when it ends.
    pub(crate) async fn job_folder(
        &self,
        purpose: &str,
        job: &JobId,
    ) -> Result<std::path::PathBuf> {
        let scratch = self
            .config()
            .scratch_dir
            .clone()
            .unwrap_or_else(|| std::env::temp_dir().join("podhost"));
        let dir = scratch.join(format!("{purpose}-{job}"));
        tokio::fs::create_dir_all(&dir)
            .await
            .map_err(|e| Error::storage(format!("a working folder for {purpose}: {e}")))?;
        Ok(dir)
    }

    /// Copies the bytes of `media` into the file `to` (a job's working copy).
    pub(crate) async fn copy_to_file(
        &self,
        account: &AccountId,
        media: &crate::model::Media,
        to: &std::path::Path,
    ) -> std::io::Result<()> {
        use futures::StreamExt;
        let mut file = tokio::fs::File::create(to).await?;
        let mut stream = self
            .store()
            .get(&crate::store::layout::blob(account, &media.blob))
            .await
            .map_err(std::io::Error::other)?
            .into_stream();
        while let Some(chunk) = stream.next().await {
            tokio::io::AsyncWriteExt::write_all(&mut file, &chunk.map_err(std::io::Error::other)?)
                .await?;
        }
        tokio::io::AsyncWriteExt::flush(&mut file).await
    }

    /// Stores one output file of a job.
    pub(crate) async fn put_result(
        &self,
        account: &AccountId,
        job: &JobId,
        file: &str,
        bytes: Vec<u8>,
    ) -> Result<()> {
        self.store()
            .put(
                &jobs::result_path(account, job, file),
                PutPayload::from(bytes),
            )
            .await?;
        Ok(())
    }

    /// Reads one output file of a job.
    pub(crate) async fn read_result(
        &self,
        account: &AccountId,
        job: &JobId,
        file: &str,
    ) -> Result<bytes::Bytes> {
        use object_store::ObjectStoreExt;
        let got = self
            .store()
            .get(&jobs::result_path(account, job, file))
            .await?;
        Ok(got.bytes().await?)
    }
}

/// While an attempt runs in this process: what it is stopped by and its progress, forgotten
/// when it ends however it ends.
struct AttemptHere<'a> {
    host: &'a PodcastHost,
    job: &'a JobId,
}

impl Drop for AttemptHere<'_> {
    fn drop(&mut self) {
        self.host.inner.work.cancels.locked().remove(self.job);
        self.host.inner.work.progress.locked().remove(self.job);
    }
}

impl Work<'_> {
    /// Asks for a job on one of the caller's media files (scope `media`). Returns the job,
    /// queued; or the one already queued or running for the same media and kind. `Invalid`
    /// when the file is not audio or the options are wrong.
    pub async fn submit_job(
        self,
        who: &Principal,
        media: MediaId,
        kind: JobKind,
        params: Value,
    ) -> Result<Job> {
        who.authorize(Action::EditMedia)?;
        kinds::check_params(kind, &params)?;
        let catalog = self.host.catalog(who.account()).await?;
        let id = self.host.reserve_job(who.account()).await?;
        let now = self.host.now();
        let committed = catalog
            .commit(now, &who.actor(), |state| {
                let (job, new) = records::job_for(state, &id, media, kind, &params, now)?;
                let changes = if new {
                    vec![Change::JobPut(job.clone())]
                } else {
                    Vec::new()
                };
                Ok((changes, job))
            })
            .await;
        self.host
            .settle_job(who.account(), &id, committed.as_ref().ok().map(|j| &j.id))
            .await;
        committed
    }

    /// Asks for a podcast to be imported from its RSS feed at `url` (scope `feeds`), by a
    /// background job ([`import_feed`](crate::Podcasts::import_feed) through `HostConfig::fetcher`); the
    /// podcast gets the id `feed_id`, or one made from its title. Returns the job, queued; or
    /// the one already waiting or running for the same feed.
    pub async fn submit_import(
        self,
        who: &Principal,
        url: &str,
        feed_id: Option<&str>,
    ) -> Result<Job> {
        who.authorize(Action::EditPodcasts)?;
        let params = serde_json::json!({ "url": url.trim(), "feed_id": feed_id });
        kinds::check_params(JobKind::Import, &params)?;
        crate::webhooks::target::check_fetch_url(url, self.host.config().allow_private_webhooks)
            .map_err(|why| Error::invalid("url", why))?;
        let catalog = self.host.catalog(who.account()).await?;
        let id = self.host.reserve_job(who.account()).await?;
        let now = self.host.now();
        let committed = catalog
            .commit(now, &who.actor(), |state| {
                if let Some(running) = state.jobs.values().find(|j| {
                    j.kind == JobKind::Import && !j.status.is_final() && j.params == params
                }) {
                    return Ok((Vec::new(), running.clone()));
                }
                let job = Job::queued(
                    id.clone(),
                    JobKind::Import,
                    None,
                    params.clone(),
                    now,
                    RequestContext::current_id(),
                );
                Ok((vec![Change::JobPut(job.clone())], job))
            })
            .await;
        self.host
            .settle_job(who.account(), &id, committed.as_ref().ok().map(|j| &j.id))
            .await;
        committed
    }

    /// One of the caller's jobs (scope `media` or `media-read-only`); while it runs, with its
    /// progress when it reports one (read from its worker's lease).
    pub async fn get_job(self, who: &Principal, id: &JobId) -> Result<Job> {
        who.authorize(Action::ReadMedia)?;
        let catalog = self.host.catalog(who.account()).await?;
        let mut job = catalog
            .read_found(|state| {
                state
                    .jobs
                    .get(id)
                    .cloned()
                    .ok_or_else(|| Error::not_found("job", id))
            })
            .await?;
        if job.status == JobStatus::Running {
            job.progress = jobs::progress(self.host.store(), who.account(), id).await?;
        }
        Ok(job)
    }

    /// The caller's jobs on one media file that wait or run (scope `media` or
    /// `media-read-only`), oldest first, each with its progress when it reports one: how a
    /// frontend follows the packaging a video upload asked for. Walks the account's jobs.
    pub async fn jobs_of_media(self, who: &Principal, media: MediaId) -> Result<Vec<Job>> {
        who.authorize(Action::ReadMedia)?;
        let catalog = self.host.catalog(who.account()).await?;
        let mut jobs: Vec<Job> = catalog
            .read(|state| {
                state
                    .jobs
                    .values()
                    .filter(|j| j.media == Some(media) && !j.status.is_final())
                    .cloned()
                    .collect()
            })
            .await;
        jobs.sort_by_key(|j| j.created);
        for job in &mut jobs {
            if job.status == JobStatus::Running {
                job.progress = jobs::progress(self.host.store(), who.account(), &job.id).await?;
            }
        }
        Ok(jobs)
    }

    /// Cancels one of the caller's jobs (scope `media`): a waiting job never runs, a running
    /// one is stopped (at once in this process, at its next lease renewal in another; a
    /// packaging's ffmpeg is killed) and nothing it made is kept. It ends `failed`, its error
    /// saying it was cancelled, with its `job.failed` event. A job that has ended is left as it
    /// is. Returns the job.
    pub async fn cancel_job(self, who: &Principal, id: &JobId) -> Result<Job> {
        who.authorize(Action::EditMedia)?;
        let catalog = self.host.catalog(who.account()).await?;
        let now = self.host.now();
        let actor = who.actor();
        let why = match &actor.login {
            Some(login) => format!("cancelled by {login}"),
            None => "cancelled".to_string(),
        };
        let job = catalog
            .commit(now, &actor, |state| {
                let current = state
                    .jobs
                    .get(id)
                    .ok_or_else(|| Error::not_found("job", id))?;
                if current.status.is_final() {
                    return Ok((Vec::new(), current.clone()));
                }
                let ended = Job {
                    status: JobStatus::Failed,
                    error: Some(why.clone()),
                    finished: Some(now),
                    ..current.clone()
                };
                let mut changes = vec![Change::JobPut(ended.clone())];
                changes.extend(state.record(
                    now,
                    vec![(K::JobFailed, Subject::Job(Box::new(ended.clone())))],
                ));
                Ok((changes, ended))
            })
            .await?;
        if let Some(cancel) = self.host.inner.work.cancels.locked().get(id) {
            cancel.notify_one();
        }
        Ok(job)
    }

    /// Runs one of the caller's jobs in this process until it ends (scope `media`), for a
    /// frontend with no server beside it (`podhost waveform --wait`): claims the job's next
    /// attempt like a worker when it waits or its worker died (its lease expired), else waits
    /// while another process runs it. Returns the job as it ended. Other queued jobs are left to
    /// the workers.
    pub async fn run_job(self, who: &Principal, id: &JobId) -> Result<Job> {
        who.authorize(Action::EditMedia)?;
        let account = who.account();
        let catalog = self.host.catalog(account).await?;
        loop {
            let job = catalog
                .read(|state| state.jobs.get(id).cloned())
                .await
                .ok_or_else(|| Error::not_found("job", id))?;
            if job.status.is_final() {
                return Ok(job);
            }
            if !self.host.is_running(id) {
                let lease_for = self.host.config().jobs.lease;
                let owner = &self.host.inner.kernel.owner;
                let claimed = jobs::claim(
                    self.host.store(),
                    account,
                    id,
                    owner,
                    self.host.now(),
                    lease_for,
                )
                .await?;
                if let Some(lease) = claimed {
                    self.host.inner.work.running.locked().insert(id.clone());
                    let ran = self.host.run_attempt(account, job, lease).await;
                    self.host.inner.work.running.locked().remove(id);
                    if let Err(e) = ran {
                        // The store failed; the next attempt is claimed once the lease expired.
                        tracing::warn!(job = %id, error = %e, "a job attempt could not be recorded; it will be taken over");
                    }
                    continue;
                }
            }
            tokio::time::sleep(self.host.config().jobs.poll).await;
        }
    }

    /// Runs queued jobs until `stop` completes: at most `JobsConfig::workers` at once in this
    /// process, any account's, taking over those whose worker died. Jobs in progress at the stop
    /// are abandoned to their lease (another process, or this one restarted, takes them over).
    pub async fn run_jobs(self, stop: impl std::future::Future<Output = ()>) {
        let mut stop = std::pin::pin!(stop);
        let config = self.host.config().jobs.clone();
        let permits = Arc::new(tokio::sync::Semaphore::new(config.workers.max(1)));
        loop {
            if let Err(e) = self.host.start_queued(&permits).await {
                tracing::warn!(error = %e, "looking for jobs failed; will retry");
            }
            tokio::select! {
                () = &mut stop => break,
                () = self.host.inner.work.wake.notified() => {}
                () = tokio::time::sleep(config.poll) => {}
            }
        }
    }
}
