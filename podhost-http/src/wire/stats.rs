//! Download statistics on the wire.

use podhost_core::stats::{GUIDELINE, StatsReport, WINDOW};
use schemars::JsonSchema;
use serde::Serialize;

/// Downloads of a day.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DayDownloads {
    /// The UTC day, `YYYY-MM-DD`.
    #[schemars(extend("format" = "date"))]
    pub date: String,
    /// Downloads.
    pub downloads: u64,
}

/// Downloads of a podcast.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FeedDownloads {
    /// The podcast's id.
    pub feed_id: String,
    /// Downloads.
    pub downloads: u64,
}

/// Downloads of an episode.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EpisodeDownloads {
    /// The podcast's id.
    pub feed_id: String,
    /// The episode's id.
    pub show_id: String,
    /// Downloads.
    pub downloads: u64,
}

/// Downloads by an app.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AppDownloads {
    /// The app, by the OPAWG lists.
    pub app: String,
    /// Downloads.
    pub downloads: u64,
}

/// Downloads in an hour of the day.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HourDownloads {
    /// The UTC hour, 0 to 23.
    #[schemars(range(max = 23))]
    pub hour: u8,
    /// Downloads.
    pub downloads: u64,
}

/// Downloads on a device.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PlatformDownloads {
    /// The device, by the OPAWG devices list.
    pub platform: String,
    /// Downloads.
    pub downloads: u64,
}

/// Downloads from a country.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CountryDownloads {
    /// ISO 3166-1 alpha-2, or `ZZ` when unknown (no database, or an address it does not place).
    #[schemars(regex(pattern = "^[A-Z]{2}$"))]
    pub country: String,
    /// Downloads.
    pub downloads: u64,
}

/// Downloads through a private podcast's subscriber URL.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SubscriberDownloads {
    /// The subscriber's id.
    pub subscriber_id: String,
    /// Downloads.
    pub downloads: u64,
}

/// How downloads are counted.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Method {
    /// The guideline followed.
    pub guideline: &'static str,
    /// The window one listener's downloads are counted once in.
    pub window: &'static str,
}

/// A download statistics report.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "StatsReport")]
pub struct Stats {
    /// The first UTC day.
    #[schemars(extend("format" = "date"))]
    pub from: String,
    /// The last UTC day, included.
    #[schemars(extend("format" = "date"))]
    pub to: String,
    /// Downloads in all.
    pub total: u64,
    /// By day.
    pub days: Vec<DayDownloads>,
    /// By podcast.
    pub feeds: Vec<FeedDownloads>,
    /// By episode.
    pub episodes: Vec<EpisodeDownloads>,
    /// By app.
    pub apps: Vec<AppDownloads>,
    /// By UTC hour of the day, hour 0 first.
    pub hours: Vec<HourDownloads>,
    /// By device.
    pub platforms: Vec<PlatformDownloads>,
    /// Addition: by the listeners' country, most first.
    pub countries: Vec<CountryDownloads>,
    /// How they are counted.
    pub method: Method,
    /// Addition: through private podcasts' subscriber URLs.
    pub subscribers: Vec<SubscriberDownloads>,
}

/// A download statistics report.
pub fn stats_report(r: &StatsReport) -> Stats {
    Stats {
        from: r.from.to_string(),
        to: r.to.to_string(),
        total: r.total,
        days: r
            .days
            .iter()
            .map(|d| DayDownloads {
                date: d.date.to_string(),
                downloads: d.downloads,
            })
            .collect(),
        feeds: r
            .feeds
            .iter()
            .map(|f| FeedDownloads {
                feed_id: f.feed_id.as_str().to_string(),
                downloads: f.downloads,
            })
            .collect(),
        episodes: r
            .episodes
            .iter()
            .map(|e| EpisodeDownloads {
                feed_id: e.feed_id.as_str().to_string(),
                show_id: e.episode_id.to_string(),
                downloads: e.downloads,
            })
            .collect(),
        apps: r
            .apps
            .iter()
            .map(|a| AppDownloads {
                app: a.app.clone(),
                downloads: a.downloads,
            })
            .collect(),
        hours: r
            .hours
            .iter()
            .enumerate()
            .map(|(hour, n)| HourDownloads {
                hour: hour as u8,
                downloads: *n,
            })
            .collect(),
        platforms: r
            .platforms
            .iter()
            .map(|p| PlatformDownloads {
                platform: p.platform.clone(),
                downloads: p.downloads,
            })
            .collect(),
        countries: r
            .countries
            .iter()
            .map(|c| CountryDownloads {
                country: c.country.clone(),
                downloads: c.downloads,
            })
            .collect(),
        method: Method {
            guideline: GUIDELINE,
            window: WINDOW,
        },
        subscribers: r
            .subscribers
            .iter()
            .map(|s| SubscriberDownloads {
                subscriber_id: s.subscriber_id.as_str().to_string(),
                downloads: s.downloads,
            })
            .collect(),
    }
}

/// A podcast's episode curves.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "EpisodeCurves")]
pub struct CurvesRecord {
    /// The podcast.
    pub feed_id: String,
    /// The days of a curve (30): day 1 is an episode's first 24 hours.
    pub days: usize,
    /// Its episodes published in the last year, newest first.
    pub episodes: Vec<EpisodeCurveRecord>,
    /// For each day of age, the median of the episodes that lived that whole day (null when
    /// none has yet).
    pub median: Vec<Option<f64>>,
}

/// One episode's curve.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EpisodeCurveRecord {
    /// The episode.
    pub show_id: String,
    /// Its title.
    pub title: String,
    /// When it was published.
    #[schemars(extend("format" = "date-time"))]
    pub published: String,
    /// Downloads on each day of its age that has begun, day 1 first (at most 30).
    pub downloads: Vec<u64>,
}

/// Curves as the API shows them.
pub fn curves(c: &podhost_core::stats::curves::Curves) -> CurvesRecord {
    CurvesRecord {
        feed_id: c.feed.to_string(),
        days: podhost_core::stats::curves::CURVE_DAYS,
        episodes: c
            .episodes
            .iter()
            .map(|e| EpisodeCurveRecord {
                show_id: e.episode.to_string(),
                title: e.title.clone(),
                published: e.published.to_string(),
                downloads: e.downloads.clone(),
            })
            .collect(),
        median: c.median.clone(),
    }
}
