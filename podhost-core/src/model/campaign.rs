//! Ad campaigns: an ad's audio, where it goes (preroll, midroll, postroll), which podcasts it
//! runs in, when, and until how many impressions.

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
    /// When it was created.
    pub created: Timestamp,
    /// When it last changed.
    pub updated: Timestamp,
}

impl Campaign {
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
}
