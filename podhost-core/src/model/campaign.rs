//! Ad campaigns: an ad's audio, where it goes (preroll, midroll, postroll), which podcasts it
//! runs in, when, and until how many impressions.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::ids::{CampaignId, FeedId, MediaId};

/// Where in an episode an ad goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Position {
    /// Before the episode.
    Preroll,
    /// At the episode's midroll breaks.
    Midroll,
    /// After the episode.
    Postroll,
}

impl Position {
    /// Every position, in order.
    pub const ALL: [Position; 3] = [Position::Preroll, Position::Midroll, Position::Postroll];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Position::Preroll => "preroll",
            Position::Midroll => "midroll",
            Position::Postroll => "postroll",
        }
    }
}

impl std::str::FromStr for Position {
    type Err = crate::Error;

    fn from_str(s: &str) -> crate::Result<Self> {
        Position::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| crate::Error::invalid("positions", "preroll, midroll or postroll"))
    }
}

/// Where a campaign is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CampaignStatus {
    /// Its start has not come.
    Scheduled,
    /// It runs.
    Active,
    /// Its owner paused it.
    Paused,
    /// Its end has come, or it reached its goal.
    Ended,
}

impl CampaignStatus {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            CampaignStatus::Scheduled => "scheduled",
            CampaignStatus::Active => "active",
            CampaignStatus::Paused => "paused",
            CampaignStatus::Ended => "ended",
        }
    }
}

/// An ad campaign.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Campaign {
    /// Its id.
    pub id: CampaignId,
    /// What its owner calls it.
    pub name: String,
    /// The ad: an audio file of the account.
    pub media: MediaId,
    /// Where it goes (at least one, each once, in order).
    pub positions: Vec<Position>,
    /// The podcasts it runs in; empty: all of the account's.
    pub feeds: Vec<FeedId>,
    /// When it starts; `None`: at once.
    pub starts: Option<Timestamp>,
    /// When it ends; `None`: never.
    pub ends: Option<Timestamp>,
    /// The impressions after which it stops; `None`: no goal.
    pub impressions_goal: Option<u64>,
    /// Paused by its owner.
    pub paused: bool,
    /// When its impressions were found to reach its goal (it stops everywhere then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal_reached: Option<Timestamp>,
    /// Since when it runs where it runs (kept by podhost): a listener's ads in an episode do
    /// not change during a UTC day, so a campaign that begins to run in an episode that already
    /// played ads that day joins it the next day.
    #[serde(default, skip_serializing_if = "Runs::is_empty")]
    pub runs: Runs,
    /// When it was created.
    pub created: Timestamp,
    /// When it last changed.
    pub updated: Timestamp,
}

/// Since when a campaign runs in each podcast and position it targets.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Runs {
    /// Since when it runs in the podcasts without an entry in `feeds`; `None`: since it was
    /// created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<Timestamp>,
    /// The podcasts it runs in since another time (those added by a change of its podcasts).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub feeds: BTreeMap<FeedId, Timestamp>,
    /// The positions added by a change of its positions, since when.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub positions: BTreeMap<Position, Timestamp>,
}

impl Runs {
    /// Whether nothing is kept (it runs everywhere it targets since it was created).
    pub fn is_empty(&self) -> bool {
        self.since.is_none() && self.feeds.is_empty() && self.positions.is_empty()
    }
}

impl Campaign {
    /// Since when it runs in podcast `feed` at `position` (when it targets them): its start,
    /// its creation or last resumption, and when that podcast and position were added.
    pub fn runs_since(&self, feed: &FeedId, position: Position) -> Timestamp {
        let since = self
            .runs
            .feeds
            .get(feed)
            .copied()
            .or(self.runs.since)
            .unwrap_or(self.created);
        [
            Some(since),
            self.runs.positions.get(&position).copied(),
            self.starts,
        ]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(since)
    }

    /// Records what `before` (this campaign before a change, at `now`) did not run: a campaign
    /// that comes to run (resumed, its start moved up) runs since `now` everywhere; podcasts and
    /// positions added run since `now`; those it ran in keep their time.
    pub fn runs_after(&mut self, before: &Campaign, now: Timestamp) {
        let ran = before.status(now, 0) == CampaignStatus::Active;
        if !ran {
            self.runs = Runs {
                since: Some(now),
                ..Runs::default()
            };
            return;
        }
        let old = |feed: &FeedId| {
            before
                .runs
                .feeds
                .get(feed)
                .copied()
                .or(before.runs.since)
                .unwrap_or(before.created)
        };
        if self.feeds != before.feeds {
            let mut runs = Runs {
                since: before.runs.since,
                feeds: BTreeMap::new(),
                positions: before.runs.positions.clone(),
            };
            if self.feeds.is_empty() {
                // All podcasts now: the others run since now, the ones it ran in keep theirs.
                runs.since = Some(now);
                for feed in &before.feeds {
                    runs.feeds.insert(feed.clone(), old(feed));
                }
            } else {
                for feed in &self.feeds {
                    let since = if before.targets(feed) { old(feed) } else { now };
                    runs.feeds.insert(feed.clone(), since);
                }
            }
            self.runs = runs;
        }
        self.runs
            .positions
            .retain(|position, _| self.positions.contains(position));
        for position in &self.positions {
            if !before.positions.contains(position) {
                self.runs.positions.insert(*position, now);
            }
        }
    }

    /// Its status at `now`, having made `impressions` impressions.
    pub fn status(&self, now: Timestamp, impressions: u64) -> CampaignStatus {
        let ended = self.ends.is_some_and(|end| end <= now)
            || self.goal_reached.is_some()
            || self
                .impressions_goal
                .is_some_and(|goal| impressions >= goal);
        if ended {
            CampaignStatus::Ended
        } else if self.paused {
            CampaignStatus::Paused
        } else if self.starts.is_some_and(|start| start > now) {
            CampaignStatus::Scheduled
        } else {
            CampaignStatus::Active
        }
    }

    /// Whether it runs in podcast `feed`.
    pub fn targets(&self, feed: &FeedId) -> bool {
        self.feeds.is_empty() || self.feeds.contains(feed)
    }
}

/// A new campaign (`POST /api/campaigns`): every field but `name`, `media` and `positions` may
/// be left out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NewCampaign {
    /// What its owner calls it.
    pub name: String,
    /// The ad's media id.
    pub media: Option<MediaId>,
    /// Where it goes.
    pub positions: Vec<Position>,
    /// The podcasts it runs in (empty: all).
    pub feeds: Vec<FeedId>,
    /// When it starts.
    pub starts: Option<Timestamp>,
    /// When it ends.
    pub ends: Option<Timestamp>,
    /// The impressions after which it stops.
    pub impressions_goal: Option<u64>,
}

/// A change of a campaign: `None` leaves a field as it is; `Some(None)` clears an optional one.
#[derive(Clone, Debug, Default, PartialEq)]
#[allow(missing_docs)]
pub struct CampaignPatch {
    pub name: Option<String>,
    pub media: Option<MediaId>,
    pub positions: Option<Vec<Position>>,
    pub feeds: Option<Vec<FeedId>>,
    pub starts: Option<Option<Timestamp>>,
    pub ends: Option<Option<Timestamp>>,
    pub impressions_goal: Option<Option<u64>>,
    /// `paused` pauses it, `active` resumes it; `scheduled` and `ended` follow from its dates
    /// and goal and cannot be set.
    pub status: Option<CampaignStatus>,
}

/// A campaign with what its owner sees beside it, read at one moment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CampaignView {
    /// The campaign.
    pub campaign: Campaign,
    /// The impressions it made (IAB v2.3: every byte of the ad reached the listener).
    pub impressions: u64,
    /// Its status at the moment of reading.
    pub status: CampaignStatus,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_follows_dates_goal_and_pause() {
        let at = |s: i64| Timestamp::from_second(s).unwrap();
        let campaign = Campaign {
            id: "cmp_0000000000000001".parse().unwrap(),
            name: "Spring".into(),
            media: MediaId::new(1).unwrap(),
            positions: vec![Position::Preroll],
            feeds: Vec::new(),
            starts: Some(at(100)),
            ends: Some(at(200)),
            impressions_goal: Some(10),
            paused: false,
            goal_reached: None,
            runs: Runs::default(),
            created: at(0),
            updated: at(0),
        };
        let paused = Campaign {
            paused: true,
            ..campaign.clone()
        };
        for (c, now, impressions, want) in [
            (&campaign, 50, 0, CampaignStatus::Scheduled),
            (&campaign, 100, 0, CampaignStatus::Active),
            (&campaign, 150, 9, CampaignStatus::Active),
            (&campaign, 150, 10, CampaignStatus::Ended),
            (&campaign, 200, 0, CampaignStatus::Ended),
            (&paused, 150, 0, CampaignStatus::Paused),
            (&paused, 50, 0, CampaignStatus::Paused),
            (&paused, 250, 0, CampaignStatus::Ended),
        ] {
            assert_eq!(
                c.status(at(now), impressions),
                want,
                "at {now}, {impressions}"
            );
        }
        assert!(campaign.targets(&"any".parse().unwrap()));
    }

    #[test]
    fn a_campaign_runs_where_it_ran_since_then_and_where_it_was_added_since_the_change() {
        let at = |s: i64| Timestamp::from_second(s).unwrap();
        let feed = |f: &str| -> FeedId { f.parse().unwrap() };
        let campaign = Campaign {
            id: "cmp_0000000000000001".parse().unwrap(),
            name: "Spring".into(),
            media: MediaId::new(1).unwrap(),
            positions: vec![Position::Preroll],
            feeds: vec![feed("a")],
            starts: None,
            ends: None,
            impressions_goal: None,
            paused: false,
            goal_reached: None,
            runs: Runs::default(),
            created: at(10),
            updated: at(10),
        };
        let changed = |change: &dyn Fn(&mut Campaign), now: i64| {
            let mut after = campaign.clone();
            change(&mut after);
            after.runs_after(&campaign, at(now));
            after
        };
        let more_feeds = changed(&|c| c.feeds = vec![feed("a"), feed("b")], 50);
        let all_feeds = changed(&|c| c.feeds.clear(), 50);
        let midroll = changed(&|c| c.positions.push(Position::Midroll), 50);
        let renamed = changed(&|c| c.name = "Summer".into(), 50);
        let paused = changed(&|c| c.paused = true, 50);
        let mut resumed = paused.clone();
        resumed.paused = false;
        resumed.runs_after(&paused, at(90));
        let pre = Position::Preroll;
        for (name, c, podcast, position, since) in [
            ("new", &campaign, "a", pre, 10),
            ("podcast added: the old one", &more_feeds, "a", pre, 10),
            ("podcast added: the new one", &more_feeds, "b", pre, 50),
            ("all podcasts: the old one", &all_feeds, "a", pre, 10),
            ("all podcasts: another", &all_feeds, "c", pre, 50),
            ("position added: the old one", &midroll, "a", pre, 10),
            (
                "position added: the new one",
                &midroll,
                "a",
                Position::Midroll,
                50,
            ),
            ("renamed", &renamed, "a", pre, 10),
            ("resumed", &resumed, "a", pre, 90),
        ] {
            assert_eq!(c.runs_since(&feed(podcast), position), at(since), "{name}");
        }
    }
}
