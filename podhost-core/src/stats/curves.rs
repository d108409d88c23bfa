//! Episode curves: each episode's downloads on each of its first days after publication, and
//! the podcast's median at each age, so one episode is compared with the others at the same age.

use jiff::{SignedDuration, Timestamp};

use crate::ids::{EpisodeId, FeedId};

/// The days of a curve: day 1 is an episode's first 24 hours.
pub const CURVE_DAYS: usize = 30;

/// One episode's curve.
#[derive(Clone, Debug, PartialEq)]
pub struct EpisodeCurve {
    /// The episode.
    pub episode: EpisodeId,
    /// Its title.
    pub title: String,
    /// When it was published.
    pub published: Timestamp,
    /// Downloads on each day of its age that has begun, day 1 first (at most [`CURVE_DAYS`]).
    pub downloads: Vec<u64>,
}

/// A podcast's episode curves.
#[derive(Clone, Debug, PartialEq)]
pub struct Curves {
    /// The podcast.
    pub feed: FeedId,
    /// Its published episodes of the last year, newest first.
    pub episodes: Vec<EpisodeCurve>,
    /// For each day of age, the median of the episodes that have lived that whole day (none
    /// when no episode has yet).
    pub median: Vec<Option<f64>>,
}

/// The day of age (1 for the first 24 hours) of downloads counted in the hour beginning at
/// `hour_start`, for an episode published at `published`; none outside the curve's days. A
/// download is known to the hour: the hour the episode came out in counts as day 1.
pub(crate) fn age_day(published: Timestamp, hour_start: Timestamp) -> Option<usize> {
    let age = hour_start
        .duration_since(published)
        .max(SignedDuration::ZERO);
    let day = usize::try_from(age.as_secs() / 86_400).ok()? + 1;
    (day <= CURVE_DAYS).then_some(day)
}

/// The days of age of an episode that have begun at `now`, at most [`CURVE_DAYS`], and how many
/// of them are whole.
pub(crate) fn days_lived(published: Timestamp, now: Timestamp) -> (usize, usize) {
    // Day k is [published + k - 1 days, published + k days): the first has begun at the
    // publication itself, so a download the report counts has its day in the curve at once.
    if now < published {
        return (0, 0);
    }
    let secs = now.duration_since(published).as_secs();
    let whole = usize::try_from(secs / 86_400).unwrap_or(usize::MAX);
    let begun = whole.saturating_add(1);
    (begun.min(CURVE_DAYS), whole.min(CURVE_DAYS))
}

/// The median of `values` (the mean of the two middle ones for an even count); none for none.
pub(crate) fn median(values: &mut [u64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_unstable();
    let mid = values.len() / 2;
    Some(if values.len() % 2 == 1 {
        values[mid] as f64
    } else {
        (values[mid - 1] + values[mid]) as f64 / 2.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn ages_and_medians() {
        let published = at("2026-01-01T10:30:00Z");
        let cases = [
            ("2026-01-01T10:00:00Z", Some(1)),
            ("2026-01-02T10:00:00Z", Some(1)),
            ("2026-01-02T11:00:00Z", Some(2)),
            ("2026-01-30T11:00:00Z", Some(30)),
            ("2026-01-31T11:00:00Z", None),
        ];
        for (hour, day) in cases {
            assert_eq!(age_day(published, at(hour)), day, "{hour}");
        }
        assert_eq!(days_lived(published, at("2026-01-01T10:29:59Z")), (0, 0));
        assert_eq!(days_lived(published, at("2026-01-01T10:30:00Z")), (1, 0));
        assert_eq!(days_lived(published, at("2026-01-01T10:30:00.5Z")), (1, 0));
        assert_eq!(days_lived(published, at("2026-01-02T09:00:00Z")), (1, 0));
        assert_eq!(days_lived(published, at("2026-01-02T10:30:00Z")), (2, 1));
        assert_eq!(days_lived(published, at("2026-03-01T00:00:00Z")), (30, 30));
        assert_eq!(median(&mut []), None);
        assert_eq!(median(&mut [3, 1, 2]), Some(2.0));
        assert_eq!(median(&mut [4, 1, 2, 3]), Some(2.5));
    }
}
