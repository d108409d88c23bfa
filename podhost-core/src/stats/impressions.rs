//! Ad impressions by the IAB Podcast Measurement Technical Guidelines v2.3: an ad counts when
//! every byte of it in the listener's answer was sent (the bytes of several range requests
//! together), at most once per listener, campaign and day. A pure function of a day's records,
//! like the downloads: any process counts the same.

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    ops::Range,
};

use serde::{Deserialize, Serialize};

#[cfg(test)]
use super::counting::AdBytes;
use super::counting::Record;
use crate::ids::{CampaignId, EpisodeId, FeedId};

/// Impressions of a campaign in an episode on a day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct AdRow {
    pub campaign: CampaignId,
    pub feed: FeedId,
    pub episode: EpisodeId,
    pub impressions: u64,
}

/// Counts the impressions of a day's `records`.
pub(crate) fn count_impressions(records: &[Record]) -> Vec<AdRow> {
    let mut sorted: Vec<&Record> = records.iter().filter(|r| !r.ads.is_empty()).collect();
    sorted.sort_by(|a, b| (a.t, &a.id, a.bytes).cmp(&(b.t, &b.id, b.bytes)));
    // The bytes sent of each ad heard: by listener, campaign, episode and place.
    type Heard<'a> = (&'a str, &'a CampaignId, &'a FeedId, EpisodeId, u32);
    let mut sent: HashMap<Heard<'_>, Vec<Range<u64>>> = HashMap::new();
    let mut counted: HashSet<(&str, &CampaignId)> = HashSet::new();
    let mut rows: BTreeMap<(CampaignId, FeedId, EpisodeId), u64> = BTreeMap::new();
    for record in sorted {
        for ad in &record.ads {
            let who = (record.listener.as_str(), &ad.campaign);
            if counted.contains(&who) {
                continue;
            }
            let key = (who.0, who.1, &record.feed, record.episode, ad.slot);
            let ranges = sent.entry(key).or_default();
            ranges.push(ad.from..ad.to);
            if covers(ranges, ad.len) {
                counted.insert(who);
                *rows
                    .entry((ad.campaign.clone(), record.feed.clone(), record.episode))
                    .or_default() += 1;
            }
        }
    }
    rows.into_iter()
        .map(|((campaign, feed, episode), impressions)| AdRow {
            campaign,
            feed,
            episode,
            impressions,
        })
        .collect()
}

/// Whether `ranges` together cover `0..len` (merged in place).
fn covers(ranges: &mut Vec<Range<u64>>, len: u64) -> bool {
    ranges.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<u64>> = Vec::new();
    for r in ranges.drain(..) {
        match merged.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    *ranges = merged;
    ranges.first().is_some_and(|r| r.start == 0 && r.end >= len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(t: i64, listener: &str, ads: Vec<AdBytes>) -> Record {
        Record {
            t,
            id: format!("{listener}-ep"),
            prev: String::new(),
            feed: "show".parse().unwrap(),
            episode: EpisodeId::new(1).unwrap(),
            app: "App".into(),
            bytes: 1,
            need: 1,
            subscriber: None,
            platform: "Unknown".into(),
            listener: listener.into(),
            ads,
            country: "ZZ".into(),
        }
    }

    fn ad(campaign: &str, slot: u32, from: u64, to: u64) -> AdBytes {
        AdBytes {
            campaign: campaign.parse().unwrap(),
            slot,
            from,
            to,
            len: 100,
        }
    }

    fn total(rows: &[AdRow]) -> u64 {
        rows.iter().map(|r| r.impressions).sum()
    }

    const A: &str = "cmp_aaaaaaaaaaaaaaaa";
    const B: &str = "cmp_bbbbbbbbbbbbbbbb";

    #[test]
    fn the_impression_rules() {
        for (case, records, want) in [
            (
                "a whole ad",
                vec![record(1, "x", vec![ad(A, 0, 0, 100)])],
                1,
            ),
            (
                "an ad cut off before its end",
                vec![record(1, "x", vec![ad(A, 0, 0, 99)])],
                0,
            ),
            (
                "ranges summed, in any order",
                vec![
                    record(2, "x", vec![ad(A, 0, 50, 100)]),
                    record(1, "x", vec![ad(A, 0, 0, 60)]),
                ],
                1,
            ),
            (
                "a gap in the ranges",
                vec![
                    record(1, "x", vec![ad(A, 0, 0, 40)]),
                    record(2, "x", vec![ad(A, 0, 41, 100)]),
                ],
                0,
            ),
            (
                "heard twice the same day: once",
                vec![
                    record(1, "x", vec![ad(A, 0, 0, 100)]),
                    record(2, "x", vec![ad(A, 0, 0, 100)]),
                ],
                1,
            ),
            (
                "the same campaign in two slots: once",
                vec![record(1, "x", vec![ad(A, 0, 0, 100), ad(A, 1, 0, 100)])],
                1,
            ),
            (
                "halves of two slots are not one ad",
                vec![record(1, "x", vec![ad(A, 0, 0, 50), ad(A, 1, 50, 100)])],
                0,
            ),
            (
                "two listeners, two campaigns",
                vec![
                    record(1, "x", vec![ad(A, 0, 0, 100), ad(B, 1, 0, 100)]),
                    record(1, "y", vec![ad(A, 0, 0, 100)]),
                ],
                3,
            ),
        ] {
            assert_eq!(total(&count_impressions(&records)), want, "{case}");
        }
    }

    #[test]
    fn an_ads_bytes_are_found_in_a_sent_range() {
        let spans = [
            crate::model::AdSpan {
                campaign: A.parse().unwrap(),
                bytes: 100..200,
            },
            crate::model::AdSpan {
                campaign: B.parse().unwrap(),
                bytes: 500..600,
            },
        ];
        let got = AdBytes::sent(&spans, 150..550);
        assert_eq!(got.len(), 2);
        assert_eq!((got[0].from, got[0].to, got[0].len), (50, 100, 100));
        assert_eq!((got[1].slot, got[1].from, got[1].to), (1, 0, 50));
        assert!(AdBytes::sent(&spans, 200..500).is_empty());
    }
}
