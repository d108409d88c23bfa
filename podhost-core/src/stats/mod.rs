//! Download statistics by the IAB Podcast Measurement Technical Guidelines v2.3.
//!
//! The frontend that serves the public media URLs reports each finished response body with
//! [`Analytics::record_download`](crate::Analytics::record_download): that only appends to
//! memory, so it never slows or fails a download. Every few seconds
//! [`Analytics::flush_stats`](crate::Analytics::flush_stats) turns the reports into records
//! (episode, app by the OPAWG lists, bytes, and a salted daily hash in place of the address and
//! user agent; bots and `bytes=0-1` probes are dropped) and stores them as one batch per account
//! and day. Counting (`counting.rs`) is a pure function of a day's records and the listeners still
//! in a window at the previous midnight, so any process may close a day and all get the same
//! answer. [`Analytics::download_stats`](crate::Analytics::download_stats) reads closed days
//! and counts open ones with this process's reports not stored yet; it writes nothing. The store layout is in `ledger.rs`.

pub mod agents;
pub(crate) mod counting;
pub mod curves;
pub mod geo;
pub(crate) mod impressions;
pub(crate) mod ledger;

use std::{collections::HashMap, net::IpAddr, ops::Range, sync::Mutex, time::Duration};

use crate::ids::{EpisodeId, FeedId};
use jiff::{Timestamp, civil::Date};

/// How often a server should call [`Analytics::flush_stats`](crate::Analytics::flush_stats):
/// what a `kill -9` may lose at most.
pub const FLUSH_EVERY: Duration = Duration::from_secs(5);

/// How long after midnight (UTC) a day stays open for late batches before it is closed.
pub const CLOSE_GRACE: Duration = Duration::from_secs(10 * 60);

/// Reports kept in memory between flushes at most; more are dropped (and logged) while the
/// store is unreachable.
pub const MAX_PENDING: usize = 200_000;

/// The longest period one statistics query covers, in days.
pub const MAX_DAYS: i32 = 366;

/// The period a query covers when it names none: the last 30 days, today included.
pub const DEFAULT_DAYS: i32 = 30;

/// One response body of a public media URL, reported when it ended (completed or cut off).
#[derive(Debug, Clone)]
pub struct Delivery {
    /// The account segment of the URL.
    pub account: String,
    /// The blob segment of the URL.
    pub blob: String,
    /// The client's address (hashed with the day's salt, never stored).
    pub client: IpAddr,
    /// The `User-Agent` header (hashed, and matched against the OPAWG lists).
    pub user_agent: String,
    /// The bytes asked for: the range of a 206, the whole file for a 200.
    pub range: Range<u64>,
    /// The bytes actually sent before the body ended.
    pub delivered: u64,
    /// The subscriber whose URL it was (a private podcast's), by id.
    pub subscriber: Option<String>,
    /// The answer was the episode with ads (`Enclosure::Stitched`): its length, its
    /// leading tag, its duration and where its ads are. `None`: the stored file.
    pub stitched: Option<StitchedDelivery>,
}

/// What a download of a stitched answer counts by: the answer's own length and duration (a
/// download's minute is a minute of it), and the ads whose bytes it sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StitchedDelivery {
    /// The answer's length in bytes.
    pub len: u64,
    /// Its leading ID3 tag's bytes.
    pub tag_bytes: u64,
    /// Its duration in milliseconds.
    pub duration_ms: u64,
    /// Its ads and where their bytes are.
    pub ads: Vec<crate::model::AdSpan>,
}

impl Delivery {
    /// A `bytes=0-1` probe (apps ask it to learn the size) or an empty answer: never a download.
    pub fn is_probe(&self) -> bool {
        self.delivered == 0 || (self.range.start == 0 && self.range.end <= 2)
    }
}

/// The address a listener is known by: an IPv6 address by its first 64 bits (a household's
/// devices share a /64 and change the rest often; IAB v2.1 on), an IPv4 one whole (also when
/// written inside IPv6).
pub(crate) fn listener_address(client: std::net::IpAddr) -> std::net::IpAddr {
    use std::net::{IpAddr, Ipv6Addr};
    match client {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
        v4 => v4,
    }
}

/// The SHA-256 of `salt` and `parts`, each part ended by a 0 byte: how listeners are hashed
/// (with the day's salt) and how their ads are chosen (without).
pub(crate) fn parts_digest(salt: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    use sha2::Digest;
    let mut hasher = sha2::Sha256::new();
    hasher.update(salt);
    for part in parts {
        hasher.update(part);
        hasher.update([0]);
    }
    hasher.finalize().into()
}

/// What a statistics query covers. `from` and `to` are UTC days, both included.
#[derive(Debug, Clone, Default)]
pub struct StatsQuery {
    /// Only this podcast (one of the caller's, or one they deleted).
    pub feed: Option<FeedId>,
    /// Only this episode.
    pub episode: Option<EpisodeId>,
    /// The first day (default: `DEFAULT_DAYS` before `to`).
    pub from: Option<Date>,
    /// The last day (default: today).
    pub to: Option<Date>,
}

/// Downloads over a period, by feed, episode, day and app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatsReport {
    /// The first day counted.
    pub from: Date,
    /// The last day counted.
    pub to: Date,
    /// All downloads in the period.
    pub total: u64,
    /// Every UTC day of the period, with its downloads (zero included), oldest first.
    pub days: Vec<Count<Date>>,
    /// Downloads per podcast, most first.
    pub feeds: Vec<Count<FeedId>>,
    /// Downloads per episode (its podcast and its id), most first.
    pub episodes: Vec<Count<(FeedId, EpisodeId)>>,
    /// Downloads per app (its name in the OPAWG lists, or `Unknown`), most first.
    pub apps: Vec<Count<String>>,
    /// Downloads through subscribers' URLs (private podcasts), per subscriber, most first.
    pub subscribers: Vec<Count<crate::ids::SubscriberId>>,
    /// Downloads per UTC hour of the day over the period: 24 numbers, hour 0 first.
    pub hours: Vec<u64>,
    /// Downloads per device (its name in the OPAWG devices list, or `Unknown`), most first.
    pub platforms: Vec<Count<String>>,
    /// Downloads per listeners' country (ISO 3166-1 alpha-2, `ZZ` unknown), most first.
    pub countries: Vec<Count<String>>,
}

/// The downloads of one thing a report counts by (a day, a podcast, an episode, an app, a
/// device, a country, a subscriber) in its period: one shape for every breakdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Count<K> {
    /// What was counted.
    pub of: K,
    /// Its downloads in the period.
    pub downloads: u64,
}

/// The titles behind a report's ids ([`Analytics::stats_names`](crate::Analytics::stats_names)).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatsNames {
    /// Podcast titles by id.
    pub feeds: HashMap<FeedId, String>,
    /// Episode titles by id (of the podcast asked about).
    pub episodes: HashMap<EpisodeId, String>,
}

/// A campaign's ad impressions (IAB v2.3: every byte of the ad sent, once per listener, ad
/// and day), in total, per day and per episode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CampaignStats {
    /// All impressions.
    pub impressions: u64,
    /// Every day since the campaign was made, with its impressions (zero included), oldest
    /// first.
    pub days: Vec<ImpressionDay>,
    /// Impressions per episode, most first.
    pub episodes: Vec<ImpressionEpisode>,
}

/// Impressions of a day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImpressionDay {
    /// The UTC day.
    pub date: Date,
    /// Impressions.
    pub impressions: u64,
}

/// Impressions in an episode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImpressionEpisode {
    /// The podcast.
    pub feed_id: FeedId,
    /// The episode.
    pub episode_id: EpisodeId,
    /// Impressions.
    pub impressions: u64,
}

/// Impressions of a campaign in an episode on a day: a line of the CSV export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImpressionRow {
    /// The UTC day.
    pub date: Date,
    /// The campaign.
    pub campaign_id: crate::ids::CampaignId,
    /// The podcast.
    pub feed_id: FeedId,
    /// The episode.
    pub episode_id: EpisodeId,
    /// Impressions.
    pub impressions: u64,
}

/// The guidelines the counting follows, as its reports state them.
pub const GUIDELINE: &str = "IAB Podcast Measurement Technical Guidelines v2.3";
/// The window one download per listener and episode is counted in, as reports state it.
pub const WINDOW: &str = "rolling 24 hours";

/// Downloads counted in one hour of one day, for one episode, app, device and subscriber: a
/// line of the CSV export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatsRow {
    /// The UTC day.
    pub date: Date,
    /// The UTC hour (0 to 23).
    pub hour: u8,
    /// The podcast.
    pub feed_id: FeedId,
    /// The episode.
    pub episode_id: EpisodeId,
    /// The app (OPAWG), or `Unknown`.
    pub app: String,
    /// The device (OPAWG), or `Unknown`.
    pub platform: String,
    /// The listeners' country (ISO 3166-1 alpha-2), or `ZZ`.
    pub country: String,
    /// The subscriber whose URL it came through (private podcasts).
    pub subscriber_id: Option<crate::ids::SubscriberId>,
    /// Downloads.
    pub downloads: u64,
}

/// A reported delivery waiting for the next flush.
#[derive(Debug, Clone)]
pub(crate) struct Pending {
    pub at: Timestamp,
    pub delivery: Delivery,
}

/// What a day counted: downloads, and ad impressions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct DayCounts {
    pub rows: Vec<counting::Row>,
    pub ads: Vec<impressions::AdRow>,
}

/// The counts of a closed day, shared (closed days never change).
pub(crate) type ClosedDay = std::sync::Arc<DayCounts>;

/// A process's statistics memory: reports not yet flushed, day salts, closed days read.
/// What an open day's counts were counted from: for the day and the two before it, whether it
/// was closed, its stored batches, and how many records of it were not stored yet.
pub(crate) type OpenRead = Vec<(Date, bool, Vec<object_store::path::Path>, usize)>;

pub(crate) struct Recorder {
    /// This process's name in batch file names (batches of different writers never collide).
    pub writer: String,
    pub pending: Mutex<Vec<Pending>>,
    pub dropped: std::sync::atomic::AtomicU64,
    pub batches: std::sync::atomic::AtomicU64,
    /// One flush at a time per process (batches keep their order), written by a flush and
    /// read by a statistics read, which must not see reports a flush has taken but not stored.
    pub flushing: tokio::sync::RwLock<()>,
    pub salts: Mutex<HashMap<Date, Vec<u8>>>,
    pub closed: Mutex<HashMap<(crate::ids::AccountId, Date), ClosedDay>>,
    /// The last counts of open days, with what they were counted from (see
    /// `Analytics::open_counts`).
    pub open: Mutex<HashMap<(crate::ids::AccountId, Date), (OpenRead, ClosedDay)>>,
    /// Accounts whose ads this process delivered since their goals were last checked.
    pub ads_delivered: Mutex<std::collections::BTreeSet<String>>,
    /// The downloads this process's stored records made, by the counting rule (the metric
    /// `podhost_downloads_counted_total`).
    pub tally: Mutex<counting::Tally>,
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder {
            writer: uuid::Uuid::new_v4().simple().to_string(),
            pending: Mutex::default(),
            dropped: Default::default(),
            batches: Default::default(),
            flushing: Default::default(),
            salts: Mutex::default(),
            closed: Mutex::default(),
            open: Mutex::default(),
            ads_delivered: Mutex::default(),
            tally: Mutex::default(),
        }
    }
}
