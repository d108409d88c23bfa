//! The deployment's configuration of a [`PodcastHost`](crate::PodcastHost).

use std::{path::PathBuf, time::Duration};

use jiff::tz::TimeZone;

use crate::{
    catalog::CatalogConfig,
    error::{Error, Result},
};

/// How a deployment runs. Build it with [`HostConfig::new`] and adjust fields.
#[derive(Clone, Debug)]
pub struct HostConfig {
    /// The public base URL every public link starts with (no trailing slash), e.g.
    /// `https://pod.example.com`.
    pub public_url: String,
    /// Uploads larger than this are refused (default 2 GiB).
    pub max_upload_bytes: u64,
    /// The time zone timestamps are shown in (default UTC).
    pub display_time_zone: TimeZone,
    /// Freshness, snapshot interval and retries of the per-account catalogs.
    pub catalog: CatalogConfig,
    /// For a local-folder store: its root folder, so that the sweep can also remove the staging
    /// files of uploads cut off by a crash (they are invisible through the object store API).
    pub local_root: Option<PathBuf>,
    /// Serve enclosure downloads by redirecting to the store's own presigned URLs (S3) instead
    /// of streaming them (default: stream). See [`OpenedStore::presigner`](crate::OpenedStore).
    pub presigned_downloads: Option<std::sync::Arc<dyn crate::store::Presigner>>,
    /// A folder of this machine where jobs keep working files (tag writing rewrites a copy of
    /// the audio there). The core touches no other file outside its store. [`open_store`]
    /// suggests one under a local-folder store ([`OpenedStore::scratch_dir`]); for other stores
    /// the frontend chooses (the CLI: the system's temporary folder). `None`: tag writing
    /// fails with a message saying so.
    ///
    /// [`open_store`]: crate::open_store
    /// [`OpenedStore::scratch_dir`]: crate::OpenedStore
    pub scratch_dir: Option<PathBuf>,
    /// How this process runs background jobs.
    pub jobs: JobsConfig,
    /// How long sessions of the key-management site last.
    pub sessions: SessionConfig,
    /// How long OAuth access tokens last.
    pub oauth: OAuthConfig,
    /// How imports fetch feeds and files (podhost-http's `HttpFetcher`); `None`: import jobs
    /// fail saying so.
    pub fetcher: Option<std::sync::Arc<dyn crate::import::Fetcher>>,
    /// Whether webhook targets may be on loopback, private, link-local or metadata addresses
    /// (default false; tests and closed networks turn it on).
    pub allow_private_webhooks: bool,
    /// Who is told when a feed changes: WebSub hubs and Podping (default none). Each becomes a
    /// subscription of every account, delivered by the webhook machinery.
    pub notify: crate::webhooks::notify::Notifiers,
    /// Addresses whose failed sign-ins and bearer tokens are never throttled (a health checker,
    /// a test client on a trusted network; default none). The rate limit and the throttling of
    /// failed sign-ins per account still apply to them.
    pub throttle_exempt: Vec<ipnet::IpNet>,
    /// The IP-to-country database the statistics' countries come from (`--geoip-db`); none:
    /// every download's country is `ZZ`.
    pub countries: Option<crate::stats::geo::Countries>,
    /// Requests per token per 60-second window, counted across every process on the store
    /// (default 180; see [`ratelimit`](crate::ratelimit)). Every process on one store should
    /// use the same value: they share the numbered leases of each window.
    pub rate_limit: u32,
    /// How often the index of background work (scheduled publications, accounts with events
    /// to deliver) is repaired from the accounts themselves, by one server of the deployment
    /// (default 6 hours; see [`Work::repair_work`](crate::Work::repair_work)).
    pub work_repair_every: std::time::Duration,
    /// The longest a request to the store may take before the operation is refused as
    /// [`Error::Unavailable`](crate::Error::Unavailable) (HTTP 503 with `Retry-After`), a
    /// second more per MiB it moves (default 10 s): a stalled store, or a server cut off from
    /// it, answers its callers instead of holding them until it returns. An API request's store
    /// requests share it ([`RequestContext::giving_up_after_a_stall`](crate::RequestContext::giving_up_after_a_stall)).
    pub store_timeout: std::time::Duration,
    /// How the servers hold units of work: the lease's length (default 15 s) and who is told
    /// of each holding ([`LeaseConfig`](crate::LeaseConfig)).
    pub leases: crate::LeaseConfig,
}

impl HostConfig {
    /// The default period of the work index's repair: 6 hours.
    pub const DEFAULT_WORK_REPAIR_EVERY: std::time::Duration =
        std::time::Duration::from_secs(6 * 3600);

    /// The default deadline of a request to the store: 10 s.
    pub const DEFAULT_STORE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

    /// The default upload limit: 2 GiB.
    pub const DEFAULT_MAX_UPLOAD: u64 = 2 << 30;

    /// The default rate limit: 180 requests per token per minute.
    pub const DEFAULT_RATE_LIMIT: u32 = 180;

    /// A configuration with defaults and the given public URL.
    pub fn new(public_url: &str) -> Result<Self> {
        Ok(HostConfig {
            public_url: normalize_public_url(public_url)?,
            max_upload_bytes: Self::DEFAULT_MAX_UPLOAD,
            display_time_zone: TimeZone::UTC,
            catalog: CatalogConfig::default(),
            local_root: None,
            presigned_downloads: None,
            scratch_dir: None,
            jobs: Default::default(),
            sessions: Default::default(),
            oauth: Default::default(),
            fetcher: None,
            allow_private_webhooks: false,
            notify: Default::default(),
            throttle_exempt: Vec::new(),
            countries: None,
            rate_limit: Self::DEFAULT_RATE_LIMIT,
            work_repair_every: Self::DEFAULT_WORK_REPAIR_EVERY,
            store_timeout: Self::DEFAULT_STORE_TIMEOUT,
            leases: Default::default(),
        })
    }
}

fn normalize_public_url(url: &str) -> Result<String> {
    let trimmed = url.trim().trim_end_matches('/');
    let rest = trimmed
        .strip_prefix("https://")
        .or_else(|| trimmed.strip_prefix("http://"));
    match rest {
        Some(host) if !host.is_empty() && !host.contains(char::is_whitespace) => {
            Ok(trimmed.to_string())
        }
        _ => Err(Error::invalid(
            "public_url",
            "the public URL starts with http:// or https:// and names a host",
        )),
    }
}

/// How the workers of a process run (part of [`HostConfig`]).
#[derive(Clone, Debug)]
pub struct JobsConfig {
    /// Jobs one process runs at once (default: the machine's cores).
    pub workers: usize,
    /// How long a claimed attempt holds without renewal; a crashed worker's job is taken over
    /// after it (default 60 s; renewed every quarter of it).
    pub lease: Duration,
    /// How often an idle worker looks for queued jobs (default 1 s; a job asked for in this
    /// process starts at once).
    pub poll: Duration,
    /// How video is encoded for HLS: the ffmpeg program and its threads.
    pub ffmpeg: crate::ffmpeg::Ffmpeg,
}

impl Default for JobsConfig {
    fn default() -> Self {
        JobsConfig {
            workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
            lease: Duration::from_secs(60),
            poll: Duration::from_secs(1),
            ffmpeg: Default::default(),
        }
    }
}

/// How long sessions last (part of [`HostConfig`]).
#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// A session not used for this long ends (default 1 hour).
    pub idle: Duration,
    /// A session ends this long after signing in, used or not (default 12 hours).
    pub absolute: Duration,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            idle: Duration::from_secs(3600),
            absolute: Duration::from_secs(12 * 3600),
        }
    }
}

/// How OAuth access tokens last (part of [`HostConfig`]).
#[derive(Clone, Debug)]
pub struct OAuthConfig {
    /// An access token works this long (default 1 hour).
    pub access_token_lifetime: Duration,
}

impl Default for OAuthConfig {
    fn default() -> Self {
        OAuthConfig {
            access_token_lifetime: Duration::from_secs(3600),
        }
    }
}
