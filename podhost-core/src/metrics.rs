//! What a server does, as numbers an operator graphs and alerts on: the core's side of the
//! Prometheus metrics (commits, store requests, jobs, deliveries, caches, media answers, counted
//! downloads). A frontend
//! adds its own (the HTTP server: requests by route) to the same [`Registry`] and serves the
//! text exposition format.
//!
//! The families are kept by [`PodcastHost`](crate::PodcastHost) and cost an atomic add where
//! they count; they are per process, as Prometheus expects (it sums servers itself).

use prometheus_client::{
    encoding::EncodeLabelSet,
    metrics::{
        counter::Counter,
        family::Family,
        gauge::Gauge,
        histogram::{Histogram, exponential_buckets},
    },
    registry::Registry,
};

/// A family of histograms made with one set of buckets.
pub type Histograms<L> = Family<L, Histogram, fn() -> Histogram>;

/// Buckets for durations of requests: 0.5 ms to 16 s, doubling.
pub fn request_buckets() -> Histogram {
    Histogram::new(exponential_buckets(0.0005, 2.0, 16))
}

/// Buckets for durations of jobs: 10 ms to about 11 minutes, doubling.
fn job_buckets() -> Histogram {
    Histogram::new(exponential_buckets(0.01, 2.0, 17))
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct OutcomeLabel {
    pub(crate) outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct OperationLabel {
    pub(crate) operation: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct JobLabels {
    pub(crate) kind: &'static str,
    pub(crate) state: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct KindLabel {
    pub(crate) kind: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct DeliveryLabels {
    pub(crate) channel: &'static str,
    pub(crate) outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct ChannelLabel {
    pub(crate) channel: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct WorkLabels {
    kind: &'static str,
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CacheLabels {
    cache: &'static str,
    result: &'static str,
}

/// The core's metric families (cheap to clone: each is shared).
#[derive(Clone, Debug)]
pub struct Metrics {
    /// Catalog commits: `committed`, `conflict` (another writer came first: decided again on
    /// the newer state), `failed`.
    pub(crate) commits: Family<OutcomeLabel, Counter>,
    /// Store requests by operation.
    pub(crate) store_seconds: Histograms<OperationLabel>,
    /// Store requests that failed, by operation.
    pub(crate) store_errors: Family<OperationLabel, Counter>,
    /// Job attempts by kind and state: `started`, `succeeded`, `failed`.
    pub(crate) jobs: Family<JobLabels, Counter>,
    /// Job attempts running in this process, by kind.
    pub(crate) jobs_running: Family<KindLabel, Gauge>,
    /// How long job attempts took, by kind.
    pub(crate) job_seconds: Histograms<KindLabel>,
    /// Delivery attempts by channel (`webhook`, `websub`, `podping`) and outcome (`delivered`,
    /// `failed`).
    pub(crate) deliveries: Family<DeliveryLabels, Counter>,
    /// Deliveries waiting (a retry not yet due, or held by another server), by channel, as the
    /// last delivery pass of this process found them.
    pub(crate) deliveries_pending: Family<ChannelLabel, Gauge>,
    cache: Family<CacheLabels, Counter>,
    /// Account catalogs open in this process, and their estimated bytes.
    catalogs_open: Gauge,
    catalogs_open_bytes: Gauge,
    /// Units of background work (`due`: an account's publications that came due; `deliver`:
    /// an account's deliveries) by outcome (`done`, `held_elsewhere`, `failed`, `lost`).
    work: Family<WorkLabels, Counter>,
    /// Answers of media URLs whose body ended, reported to the statistics (probes excluded):
    /// one a response, a range request being one. Not downloads: see `downloads_counted`.
    pub(crate) media_responses: Counter,
    /// Downloads the statistics count, as this process's records make them once stored: one
    /// per listener and episode when a minute of audio was sent, at most one in 24 hours.
    pub(crate) downloads_counted: Counter,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            commits: Family::default(),
            store_seconds: Family::new_with_constructor(request_buckets),
            store_errors: Family::default(),
            jobs: Family::default(),
            jobs_running: Family::default(),
            job_seconds: Family::new_with_constructor(job_buckets),
            deliveries: Family::default(),
            deliveries_pending: Family::default(),
            cache: Family::default(),
            catalogs_open: Gauge::default(),
            catalogs_open_bytes: Gauge::default(),
            work: Family::default(),
            media_responses: Counter::default(),
            downloads_counted: Counter::default(),
        }
    }
}

impl Metrics {
    /// Registers the families in `registry` (under `podhost_`). Each one's help says what one
    /// increment (a counter's) or one observation (a histogram's) is, or what a gauge holds;
    /// docs/configuration.md lists them.
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "podhost_catalogs_open",
            "Account catalogs this process holds open now (at most --catalog-cache-mb of them)",
            self.catalogs_open.clone(),
        );
        registry.register(
            "podhost_catalogs_open_bytes",
            "Estimated bytes of the account catalogs this process holds open now",
            self.catalogs_open_bytes.clone(),
        );
        registry.register(
            "podhost_work_units",
            "One unit of background work this process took up and ended, by kind (due: an account's scheduled publications that came due; deliver: an account's event deliveries) and outcome (done; held_elsewhere: another server held it; failed; lost: its lease ran out under the work)",
            self.work.clone(),
        );
        registry.register(
            "podhost_catalog_commits",
            "One attempt of this process to commit a change to an account's log, by outcome (committed; conflict: another writer came first and the change is decided again, a new attempt; failed)",
            self.commits.clone(),
        );
        registry.register(
            "podhost_store_request_duration_seconds",
            "One request of this process to the object store, observed as its duration in seconds, by operation",
            self.store_seconds.clone(),
        );
        registry.register(
            "podhost_store_errors",
            "One request of this process to the object store that failed or ran out of time (a get of a missing object is an answer, no failure), by operation",
            self.store_errors.clone(),
        );
        registry.register(
            "podhost_jobs",
            "One attempt of a background job run by this process reaching a state, by kind and state (started; succeeded; failed)",
            self.jobs.clone(),
        );
        registry.register(
            "podhost_jobs_running",
            "Attempts of background jobs running in this process now, by kind",
            self.jobs_running.clone(),
        );
        registry.register(
            "podhost_job_duration_seconds",
            "One attempt of a background job run by this process, observed as its duration in seconds when it ends, by kind",
            self.job_seconds.clone(),
        );
        registry.register(
            "podhost_deliveries",
            "One attempt of this process to deliver an event (one HTTP request), by channel (webhook, websub, podping, activitypub) and outcome (delivered; failed)",
            self.deliveries.clone(),
        );
        registry.register(
            "podhost_deliveries_pending",
            "Deliveries waiting (a retry not due yet, or held by another server) as this process's last delivery pass found them, by channel",
            self.deliveries_pending.clone(),
        );
        registry.register(
            "podhost_cache_requests",
            "One lookup in one of this process's caches, by cache and result (hit; miss)",
            self.cache.clone(),
        );
        registry.register(
            "podhost_media_responses",
            "One answer of a media URL (an enclosure, a private podcast's file) whose body ended, as reported to the statistics: a range request is one, a probe (bytes=0-1, an empty answer) none; not a download (see podhost_downloads_counted_total)",
            self.media_responses.clone(),
        );
        registry.register(
            "podhost_downloads",
            "Deprecated name of podhost_media_responses_total (the same count): one answer of a media URL whose body ended, not a download",
            self.media_responses.clone(),
        );
        registry.register(
            "podhost_downloads_counted",
            "One download as the statistics count it, made by this process's records once stored (flushed every few seconds): a listener and episode reaching a minute of audio sent, summed over range requests, at most once in a rolling 24 hours, bots excluded (IAB v2.3)",
            self.downloads_counted.clone(),
        );
    }

    /// The hit and miss counters of the cache `name`.
    pub fn cache_counts(&self, name: &'static str) -> CacheCounts {
        let count = |result| {
            self.cache
                .get_or_create(&CacheLabels {
                    cache: name,
                    result,
                })
                .clone()
        };
        CacheCounts {
            hits: count("hit"),
            misses: count("miss"),
        }
    }

    /// Counts a job attempt that starts; the guard counts it running until dropped, and its
    /// duration then.
    pub(crate) fn job_started(&self, kind: &'static str) -> JobRunning {
        self.jobs
            .get_or_create(&JobLabels {
                kind,
                state: "started",
            })
            .inc();
        self.jobs_running.get_or_create(&KindLabel { kind }).inc();
        JobRunning {
            metrics: self.clone(),
            kind,
            started: std::time::Instant::now(),
        }
    }

    /// Counts a job attempt that ended with `state` (`succeeded`, `failed`).
    pub(crate) fn job_ended(&self, kind: &'static str, state: &'static str) {
        self.jobs.get_or_create(&JobLabels { kind, state }).inc();
    }

    /// Counts a delivery attempt on `channel`.
    pub(crate) fn delivered(&self, channel: &'static str, success: bool) {
        let outcome = if success { "delivered" } else { "failed" };
        self.deliveries
            .get_or_create(&DeliveryLabels { channel, outcome })
            .inc();
    }

    /// Sets the deliveries a pass found waiting on `channel`.
    /// The open catalogs now: how many, and their estimated bytes.
    pub(crate) fn catalogs(&self, (open, bytes): (usize, usize)) {
        self.catalogs_open
            .set(i64::try_from(open).unwrap_or(i64::MAX));
        self.catalogs_open_bytes
            .set(i64::try_from(bytes).unwrap_or(i64::MAX));
    }

    /// A unit of background work of `kind` ended with `outcome`.
    pub(crate) fn work(&self, kind: &'static str, outcome: &'static str) {
        self.work.get_or_create(&WorkLabels { kind, outcome }).inc();
    }

    pub(crate) fn pending(&self, channel: &'static str, pending: usize) {
        self.deliveries_pending
            .get_or_create(&ChannelLabel { channel })
            .set(i64::try_from(pending).unwrap_or(i64::MAX));
    }

    /// Counts a catalog commit's outcome.
    pub(crate) fn commit(&self, outcome: &'static str) {
        self.commits.get_or_create(&OutcomeLabel { outcome }).inc();
    }
}

/// A job attempt counted as running (see [`Metrics::job_started`]).
pub(crate) struct JobRunning {
    metrics: Metrics,
    kind: &'static str,
    started: std::time::Instant,
}

impl Drop for JobRunning {
    fn drop(&mut self) {
        let kind = KindLabel { kind: self.kind };
        self.metrics.jobs_running.get_or_create(&kind).dec();
        self.metrics
            .job_seconds
            .get_or_create(&kind)
            .observe(self.started.elapsed().as_secs_f64());
    }
}

/// A cache's hit and miss counters (counting nowhere until made by
/// [`Metrics::cache_counts`]).
#[derive(Clone, Debug, Default)]
pub struct CacheCounts {
    hits: Counter,
    misses: Counter,
}

impl CacheCounts {
    /// Counts one lookup.
    pub fn count(&self, hit: bool) {
        match hit {
            true => self.hits.inc(),
            false => self.misses.inc(),
        };
    }
}
