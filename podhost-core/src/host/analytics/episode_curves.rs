//! Episode curves of a podcast (scope `stats`): read from the counted days, to the hour.

use jiff::{Timestamp, tz::TimeZone};

use super::{Analytics, downloads::day_of};
use crate::host::refs::feed_not_found;
use crate::{
    authorization::Action,
    error::{Error, Result},
    ids::{EpisodeId, FeedId},
    principal::Principal,
    stats::curves::{CURVE_DAYS, Curves, EpisodeCurve, age_day, days_lived, median},
};

/// Episodes published longer ago than this have no curve (their first days are a year old).
const CURVE_YEARS: jiff::SignedDuration = jiff::SignedDuration::from_hours(365 * 24);

impl Analytics<'_> {
    /// The curves of a podcast's episodes published in the last year: each one's downloads on
    /// each day of its first 30 after publication (day 1 = its first 24 hours; downloads are
    /// known to the hour, and the hour it came out in counts as day 1), and the median of
    /// the episodes that lived each whole day (scope `stats`). `NotFound` for a podcast that is
    /// not the caller's.
    pub async fn episode_curves(&self, who: &Principal, feed: &FeedId) -> Result<Curves> {
        who.authorize(Action::ReadStatistics)?;
        who.require_feed(feed)?;
        let catalog = self.host.catalog(who.account()).await?;
        let now = self.host.now();
        let since = now - CURVE_YEARS;
        let mut episodes: Vec<(EpisodeId, String, Timestamp)> = catalog
            .read_found(|state| {
                let entry = state.feeds.get(feed).ok_or_else(|| feed_not_found(feed))?;
                Ok(entry
                    .episodes
                    .values()
                    .filter(|e| e.is_published(now) && e.publish_at >= since)
                    .map(|e| (e.id, e.title.clone(), e.publish_at))
                    .collect())
            })
            .await?;
        episodes.sort_by(|a, b| b.2.cmp(&a.2).then(b.0.cmp(&a.0)));
        let mut curves: Vec<EpisodeCurve> = episodes
            .iter()
            .map(|(id, title, published)| EpisodeCurve {
                episode: *id,
                title: title.clone(),
                published: *published,
                downloads: vec![0; days_lived(*published, now).0],
            })
            .collect();
        // Each row finds its episode's curve by id (a podcast may have thousands of episodes).
        let index: std::collections::HashMap<EpisodeId, usize> = curves
            .iter()
            .enumerate()
            .map(|(i, c)| (c.episode, i))
            .collect();
        if let Some(oldest) = episodes.iter().map(|e| e.2).min() {
            let days = self
                .counted_days(who.account(), day_of(oldest), day_of(now))
                .await?;
            for (date, counts) in &days {
                for row in counts.rows.iter().filter(|r| &r.feed == feed) {
                    let Some(curve) = index.get(&row.episode).map(|i| &mut curves[*i]) else {
                        continue;
                    };
                    let hour_start = date
                        .at(i8::try_from(row.hour).unwrap_or(0), 0, 0, 0)
                        .to_zoned(TimeZone::UTC)
                        .map_err(|e| Error::storage(e.to_string()))?
                        .timestamp();
                    if let Some(day) = age_day(curve.published, hour_start)
                        && let Some(slot) = curve.downloads.get_mut(day - 1)
                    {
                        *slot += row.downloads;
                    }
                }
            }
        }
        let median = (1..=CURVE_DAYS)
            .map(|day| {
                let mut lived: Vec<u64> = curves
                    .iter()
                    .filter(|c| days_lived(c.published, now).1 >= day)
                    .map(|c| c.downloads[day - 1])
                    .collect();
                median(&mut lived)
            })
            .collect();
        Ok(Curves {
            feed: feed.clone(),
            episodes: curves,
            median,
        })
    }
}
