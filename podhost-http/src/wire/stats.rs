//! Download statistics on the wire.

use podhost_core::stats::{Count, GUIDELINE, StatsReport, WINDOW};
use schemars::JsonSchema;
use serde::Serialize;

/// Declares the wire shape of downloads by one key: the key's field (its name, type, docs and
/// schema attributes) and `downloads`, written here once for every breakdown of a report.
macro_rules! downloads_by {
    ($(
        $(#[$doc:meta])*
        $name:ident { $(#[$key_doc:meta])* $key:ident: $ty:ty }
    )*) => {$(
        $(#[$doc])*
        #[derive(Debug, Serialize, JsonSchema)]
        pub struct $name {
            $(#[$key_doc])*
            pub $key: $ty,
            /// Downloads.
            pub downloads: u64,
        }
    )*};
}

downloads_by! {
    /// Downloads of a day.
    DayDownloads {
        /// The UTC day, `YYYY-MM-DD`.
        #[schemars(extend("format" = "date"))]
        date: String
    }
    /// Downloads of a podcast.
    FeedDownloads {
        /// The podcast's id.
        feed_id: String
    }
    /// Downloads by an app.
    AppDownloads {
        /// The app, by the OPAWG lists.
        app: String
    }
    /// Downloads in an hour of the day.
    HourDownloads {
        /// The UTC hour, 0 to 23.
        #[schemars(range(max = 23))]
        hour: u8
    }
    /// Downloads on a device.
    PlatformDownloads {
        /// The device, by the OPAWG devices list.
        platform: String
    }
    /// Downloads from a country.
    CountryDownloads {
        /// ISO 3166-1 alpha-2, or `ZZ` when unknown (no database, or an address it does not place).
        #[schemars(regex(pattern = "^[A-Z]{2}$"))]
        country: String
    }
    /// Downloads through a private podcast's subscriber URL.
    SubscriberDownloads {
        /// The subscriber's id.
        subscriber_id: String
    }
}

// Two keys (its podcast and its id): not of `downloads_by!`'s shape.
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

/// The counts of one breakdown on the wire, in the report's order.
fn each<K, T>(counts: &[Count<K>], make: impl Fn(&K, u64) -> T) -> Vec<T> {
    counts.iter().map(|c| make(&c.of, c.downloads)).collect()
}

/// A download statistics report.
pub fn stats_report(r: &StatsReport) -> Stats {
    Stats {
        from: r.from.to_string(),
        to: r.to.to_string(),
        total: r.total,
        days: each(&r.days, |date, downloads| DayDownloads {
            date: date.to_string(),
            downloads,
        }),
        feeds: each(&r.feeds, |feed, downloads| FeedDownloads {
            feed_id: feed.as_str().to_string(),
            downloads,
        }),
        episodes: each(&r.episodes, |(feed, episode), downloads| EpisodeDownloads {
            feed_id: feed.as_str().to_string(),
            show_id: episode.to_string(),
            downloads,
        }),
        apps: each(&r.apps, |app, downloads| AppDownloads {
            app: app.clone(),
            downloads,
        }),
        hours: r
            .hours
            .iter()
            .enumerate()
            .map(|(hour, n)| HourDownloads {
                hour: hour as u8,
                downloads: *n,
            })
            .collect(),
        platforms: each(&r.platforms, |platform, downloads| PlatformDownloads {
            platform: platform.clone(),
            downloads,
        }),
        countries: each(&r.countries, |country, downloads| CountryDownloads {
            country: country.clone(),
            downloads,
        }),
        method: Method {
            guideline: GUIDELINE,
            window: WINDOW,
        },
        subscribers: each(&r.subscribers, |subscriber, downloads| {
            SubscriberDownloads {
                subscriber_id: subscriber.as_str().to_string(),
                downloads,
            }
        }),
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
