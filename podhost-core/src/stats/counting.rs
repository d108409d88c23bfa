//! The counting rule of the IAB Podcast Measurement Technical Guidelines v2.3, as a pure function
//! over a day's delivery records: one download per listener (salted hash of IP address — an
//! IPv6 address by its /64 — and user agent) and episode in a rolling 24 hours, counted once at
//! least one minute of audio (plus the file's leading ID3 tag) has been delivered, the bytes of
//! several (range) requests summed.
//!
//! A day is counted from its own records and the `Carry` of the day before: the listeners still
//! inside a 24-hour window at midnight. Given the same inputs every process computes the same
//! answer, so any of them may close a day.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use std::ops::Range;

use crate::ids::{CampaignId, EpisodeId, FeedId, SubscriberId};

/// The 24-hour window, in milliseconds.
pub(crate) const WINDOW_MS: i64 = 24 * 60 * 60 * 1000;

/// One delivery: some bytes of an episode's audio sent to one listener.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Record {
    /// When the delivery ended, in milliseconds since the Unix epoch.
    pub t: i64,
    /// The listener and episode: a hash salted with the salt of the record's day.
    pub id: String,
    /// The same, salted with the previous day's salt: the key into that day's `Carry`.
    pub prev: String,
    pub feed: FeedId,
    pub episode: EpisodeId,
    /// The app, by the OPAWG lists.
    pub app: String,
    /// Bytes delivered.
    pub bytes: u64,
    /// Bytes that make one minute of this episode's audio (the whole file when shorter).
    pub need: u64,
    /// The subscriber whose URL it came through (a private podcast's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscriber: Option<SubscriberId>,
    /// The device it played on, by the OPAWG devices list.
    #[serde(default = "unknown")]
    pub platform: String,
    /// The listener alone (salted like `id`, without the episode): whose impressions `ads` are.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub listener: String,
    /// The bytes of ads it sent (a stitched answer's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ads: Vec<AdBytes>,
    /// The listener's country (ISO 3166-1 alpha-2), looked up when the record was made;
    /// `ZZ`: unknown.
    #[serde(default = "unknown_country")]
    pub country: String,
}

fn unknown() -> String {
    "Unknown".to_string()
}

pub(crate) fn unknown_country() -> String {
    super::geo::UNKNOWN_COUNTRY.to_string()
}

/// The bytes of one ad a delivery sent: which ad of the answer (its campaign and its place
/// among the answer's ads) and which of its bytes, counted from the ad's first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct AdBytes {
    pub campaign: CampaignId,
    /// Its place among the answer's ads.
    pub slot: u32,
    /// The bytes sent, from the ad's first byte.
    pub from: u64,
    pub to: u64,
    /// The ad's length in bytes.
    pub len: u64,
}

impl AdBytes {
    /// The bytes of each ad of `ads` (spans in the answer) within `sent` (bytes of the answer).
    pub(crate) fn sent(ads: &[crate::model::AdSpan], sent: Range<u64>) -> Vec<AdBytes> {
        ads.iter()
            .enumerate()
            .filter_map(|(slot, ad)| {
                let from = sent.start.max(ad.bytes.start);
                let to = sent.end.min(ad.bytes.end);
                (from < to).then(|| AdBytes {
                    campaign: ad.campaign.clone(),
                    slot: slot as u32,
                    from: from - ad.bytes.start,
                    to: to - ad.bytes.start,
                    len: ad.bytes.end - ad.bytes.start,
                })
            })
            .collect()
    }
}

/// A listener's progress toward (or since) a counted download.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Progress {
    /// When the last download was counted; nothing more counts for 24 hours after it.
    pub counted_at: Option<i64>,
    /// When the bytes being summed started arriving.
    pub window_start: i64,
    /// Bytes delivered since `window_start` and not yet counted.
    pub sum: u64,
}

impl Progress {
    /// Adds `record`'s bytes by the rule: whether they make a download counted now.
    fn add(&mut self, record: &Record) -> bool {
        if self.counted_at.is_some_and(|at| record.t < at + WINDOW_MS) {
            return false;
        }
        if self.sum > 0 && record.t >= self.window_start + WINDOW_MS {
            self.sum = 0;
        }
        if self.sum == 0 {
            self.window_start = record.t;
        }
        self.sum = self.sum.saturating_add(record.bytes);
        if self.sum >= record.need {
            self.counted_at = Some(record.t);
            self.sum = 0;
            return true;
        }
        false
    }
}

/// The downloads this process's records make, counted by [`count_day`]'s rule as the records
/// are stored (the metric `podhost_downloads_counted_total`): each day's listeners, the day
/// before's carried into it. It keeps the two newest days.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    days: BTreeMap<jiff::civil::Date, HashMap<String, Progress>>,
}

impl Tally {
    /// Adds the records of `day` (stored just now, in the order [`count_day`] sorts them):
    /// how many downloads they made counted.
    pub(crate) fn add(&mut self, day: jiff::civil::Date, mut records: Vec<&Record>) -> u64 {
        records.sort_by(|a, b| {
            (a.t, &a.id, a.bytes, a.need, &a.app).cmp(&(b.t, &b.id, b.bytes, b.need, &b.app))
        });
        let mut listeners = self.days.remove(&day).unwrap_or_default();
        let before = day.yesterday().ok().and_then(|d| self.days.get(&d));
        let mut counted = 0;
        for record in records {
            let progress = listeners.entry(record.id.clone()).or_insert_with(|| {
                // A listener of the day before, as its carry holds them (one whose window has
                // closed counts as a new one either way).
                before
                    .and_then(|before| before.get(&record.prev))
                    .copied()
                    .unwrap_or_default()
            });
            if progress.add(record) {
                counted += 1;
            }
        }
        self.days.insert(day, listeners);
        while self.days.len() > 2 {
            self.days.pop_first();
        }
        counted
    }
}

/// The listeners still inside a window at the end of a day, keyed by that day's `id`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Carry {
    pub listeners: BTreeMap<String, Progress>,
}

/// Downloads counted in a day for one episode and app.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Row {
    pub feed: FeedId,
    pub episode: EpisodeId,
    pub app: String,
    pub downloads: u64,
    /// The subscriber the downloads came through (a private podcast's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscriber: Option<SubscriberId>,
    /// The UTC hour of the day they were counted in (0 to 23).
    #[serde(default)]
    pub hour: u8,
    /// The device, by the OPAWG devices list.
    #[serde(default = "unknown")]
    pub platform: String,
    /// The listeners' country (ISO 3166-1 alpha-2; `ZZ` unknown).
    #[serde(default = "unknown_country")]
    pub country: String,
}

/// Counts the downloads of the day ending at `day_end` (milliseconds) from its `records` and
/// the previous day's carry. Returns the day's rows (sorted) and the carry into the next day.
pub(crate) fn count_day(
    day_end: i64,
    carry_in: &Carry,
    mut records: Vec<Record>,
) -> (Vec<Row>, Carry) {
    // Records come from several processes in any order: sort them into one deterministic order.
    records.sort_by(|a, b| {
        (a.t, &a.id, a.bytes, a.need, &a.app).cmp(&(b.t, &b.id, b.bytes, b.need, &b.app))
    });
    let mut listeners: HashMap<String, Progress> = HashMap::new();
    type Key = (
        FeedId,
        EpisodeId,
        String,
        Option<SubscriberId>,
        u8,
        String,
        String,
    );
    let mut counts: BTreeMap<Key, u64> = BTreeMap::new();
    for record in records {
        let progress = listeners.entry(record.id.clone()).or_insert_with(|| {
            carry_in
                .listeners
                .get(&record.prev)
                .copied()
                .unwrap_or_default()
        });
        if progress.add(&record) {
            let hour = (record.t.rem_euclid(WINDOW_MS) / 3_600_000) as u8;
            *counts
                .entry((
                    record.feed,
                    record.episode,
                    record.app,
                    record.subscriber,
                    hour,
                    record.platform,
                    record.country,
                ))
                .or_default() += 1;
        }
    }
    let still_open = |p: &Progress| {
        p.counted_at.is_some_and(|at| at + WINDOW_MS > day_end)
            || (p.sum > 0 && p.window_start + WINDOW_MS > day_end)
    };
    let carry = Carry {
        listeners: listeners
            .into_iter()
            .filter(|(_, p)| still_open(p))
            .collect(),
    };
    let rows = counts
        .into_iter()
        .map(
            |((feed, episode, app, subscriber, hour, platform, country), downloads)| Row {
                subscriber,
                hour,
                platform,
                country,
                feed,
                episode,
                app,
                downloads,
            },
        )
        .collect();
    (rows, carry)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tally_counts_what_the_days_count() {
        // Ranges of one listener summed to one download, more of it within 24 hours (nothing),
        // a second listener's short answer (nothing), and the first listener again on day two
        // after 24 hours (one more).
        let day_one = vec![
            rec(HOUR, "a", 1, 400),
            rec(HOUR + MIN, "a", 1, 400),
            rec(HOUR + 2 * MIN, "a", 1, 400),
            rec(2 * HOUR, "a", 1, 1_000),
            rec(3 * HOUR, "b", 1, 10),
        ];
        let day_two = vec![
            rec(DAY + 2 * HOUR, "a", 1, 1_000),
            rec(DAY + 3 * HOUR, "a", 1, 1_000),
        ];
        let (one, carry) = count_day(DAY, &Carry::default(), day_one.clone());
        let (two, _) = count_day(2 * DAY, &carry, day_two.clone());
        let (first, second): (jiff::civil::Date, jiff::civil::Date) =
            ("2026-01-01".parse().unwrap(), "2026-01-02".parse().unwrap());
        let mut tally = Tally::default();
        let (early, late) = day_one.split_at(2);
        let counted = [
            tally.add(first, early.iter().collect()),
            tally.add(first, late.iter().collect()),
            tally.add(second, day_two.iter().collect()),
        ];
        assert_eq!((total(&one), total(&two)), (1, 1));
        assert_eq!(counted, [0, 1, 1]);
    }

    const MIN: i64 = 60 * 1000;
    const HOUR: i64 = 60 * MIN;
    /// Two days: day one ends at `DAY`, day two at `2 * DAY`.
    const DAY: i64 = 24 * HOUR;

    /// A record at `t` for listener `who` (the same on both days: the test's salts are
    /// "day-independent", so `prev` equals `id`), episode 1 unless `episode` says otherwise.
    fn rec(t: i64, who: &str, episode: u64, bytes: u64) -> Record {
        Record {
            t,
            id: format!("{who}-{episode}"),
            prev: format!("{who}-{episode}"),
            feed: FeedId::new("show").unwrap(),
            episode: EpisodeId::new(episode).unwrap(),
            app: if who.starts_with("web") {
                "Browser"
            } else {
                "App"
            }
            .into(),
            bytes,
            need: 1_000,
            subscriber: None,
            platform: unknown(),
            listener: String::new(),
            ads: Vec::new(),
            country: unknown_country(),
        }
    }

    fn total(rows: &[Row]) -> u64 {
        rows.iter().map(|r| r.downloads).sum()
    }

    /// Counts day one then day two (with day one's carry); returns the two totals.
    fn two_days(records: Vec<Record>) -> (u64, u64) {
        let (one, two): (Vec<_>, Vec<_>) = records.into_iter().partition(|r| r.t < DAY);
        let (rows1, carry) = count_day(DAY, &Carry::default(), one);
        let (rows2, _) = count_day(2 * DAY, &carry, two);
        (total(&rows1), total(&rows2))
    }

    #[test]
    fn the_counting_rules() {
        let cases: Vec<(&str, Vec<Record>, (u64, u64))> = vec![
            ("one full download", vec![rec(HOUR, "a", 1, 5_000)], (1, 0)),
            (
                "less than a minute of audio",
                vec![rec(HOUR, "a", 1, 999)],
                (0, 0),
            ),
            (
                "range requests summed to a minute",
                vec![
                    rec(HOUR, "a", 1, 400),
                    rec(HOUR + MIN, "a", 1, 400),
                    rec(HOUR + 2 * MIN, "a", 1, 400),
                ],
                (1, 0),
            ),
            (
                "the same listener again within 24 hours",
                vec![rec(HOUR, "a", 1, 5_000), rec(5 * HOUR, "a", 1, 5_000)],
                (1, 0),
            ),
            (
                "two listeners",
                vec![rec(HOUR, "a", 1, 5_000), rec(HOUR, "b", 1, 5_000)],
                (2, 0),
            ),
            (
                "one listener, two episodes",
                vec![rec(HOUR, "a", 1, 5_000), rec(HOUR, "a", 2, 5_000)],
                (2, 0),
            ),
            (
                "across midnight within 24 hours: still one",
                vec![
                    rec(DAY - 10 * MIN, "a", 1, 5_000),
                    rec(DAY + 30 * MIN, "a", 1, 5_000),
                ],
                (1, 0),
            ),
            (
                "24 hours later: a new download",
                vec![
                    rec(10 * HOUR, "a", 1, 5_000),
                    rec(DAY + 10 * HOUR, "a", 1, 5_000),
                ],
                (1, 1),
            ),
            (
                "a minute summed across midnight counts on the day it completes",
                vec![rec(DAY - MIN, "a", 1, 600), rec(DAY + MIN, "a", 1, 600)],
                (0, 1),
            ),
            (
                "partial bytes more than 24 hours apart are not summed",
                vec![rec(HOUR, "a", 1, 600), rec(DAY + 2 * HOUR, "a", 1, 600)],
                (0, 0),
            ),
        ];
        for (name, records, expected) in cases {
            assert_eq!(two_days(records), expected, "{name}");
        }
    }

    #[test]
    fn the_order_of_records_does_not_matter() {
        let records = vec![
            rec(HOUR + 2 * MIN, "a", 1, 400),
            rec(HOUR, "b", 1, 5_000),
            rec(HOUR, "a", 1, 400),
            rec(HOUR + MIN, "a", 1, 400),
            rec(2 * HOUR, "b", 1, 5_000),
        ];
        let mut reversed = records.clone();
        reversed.reverse();
        let one = count_day(DAY, &Carry::default(), records);
        let two = count_day(DAY, &Carry::default(), reversed);
        assert_eq!(one, two);
        assert_eq!(total(&one.0), 2);
    }

    #[test]
    fn the_carry_keeps_only_open_windows() {
        let records = vec![
            rec(HOUR, "early", 1, 5_000),
            rec(DAY - HOUR, "late", 1, 5_000),
        ];
        let (_, carry) = count_day(DAY, &Carry::default(), records);
        assert_eq!(
            carry.listeners.keys().collect::<Vec<_>>(),
            vec!["early-1", "late-1"],
            "both counted within the last 24 hours"
        );
        let (_, next) = count_day(2 * DAY, &carry, Vec::new());
        assert!(next.listeners.is_empty(), "{next:?}");
    }

    #[test]
    fn rows_are_per_episode_and_app() {
        let records = vec![
            rec(HOUR, "a", 1, 5_000),
            rec(HOUR, "web", 1, 5_000),
            rec(HOUR, "b", 2, 5_000),
        ];
        let (rows, _) = count_day(DAY, &Carry::default(), records);
        let got: Vec<_> = rows
            .iter()
            .map(|r| (r.episode.number(), r.app.as_str(), r.downloads))
            .collect();
        assert_eq!(got, vec![(1, "App", 1), (1, "Browser", 1), (2, "App", 1)]);
    }
}
