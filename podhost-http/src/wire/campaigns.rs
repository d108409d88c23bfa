//! Ad campaigns on the wire: `{id, name, media_id, positions, feeds, starts, ends,
//! impressions_goal, impressions, status}`, and what `POST` and `PUT /api/campaigns` read.

use podhost_core::{
    FieldErrors, MediaId,
    model::{CampaignPatch, CampaignStatus, CampaignView, NewCampaign, Position},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{Example, schema::Clearable};

/// Where in an episode an ad goes.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PositionName {
    /// Before the episode.
    Preroll,
    /// At the episode's midroll breaks.
    Midroll,
    /// After the episode.
    Postroll,
}

impl From<PositionName> for Position {
    fn from(p: PositionName) -> Self {
        match p {
            PositionName::Preroll => Position::Preroll,
            PositionName::Midroll => Position::Midroll,
            PositionName::Postroll => Position::Postroll,
        }
    }
}

impl From<Position> for PositionName {
    fn from(p: Position) -> Self {
        match p {
            Position::Preroll => PositionName::Preroll,
            Position::Midroll => PositionName::Midroll,
            Position::Postroll => PositionName::Postroll,
        }
    }
}

/// Where a campaign is in its life.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CampaignStatusName {
    /// Its start has not come.
    Scheduled,
    /// It runs.
    Active,
    /// Paused.
    Paused,
    /// Its end has come, or it reached its goal.
    Ended,
}

impl From<CampaignStatus> for CampaignStatusName {
    fn from(s: CampaignStatus) -> Self {
        match s {
            CampaignStatus::Scheduled => CampaignStatusName::Scheduled,
            CampaignStatus::Active => CampaignStatusName::Active,
            CampaignStatus::Paused => CampaignStatusName::Paused,
            CampaignStatus::Ended => CampaignStatusName::Ended,
        }
    }
}

impl From<CampaignStatusName> for CampaignStatus {
    fn from(s: CampaignStatusName) -> Self {
        match s {
            CampaignStatusName::Scheduled => CampaignStatus::Scheduled,
            CampaignStatusName::Active => CampaignStatus::Active,
            CampaignStatusName::Paused => CampaignStatus::Paused,
            CampaignStatusName::Ended => CampaignStatus::Ended,
        }
    }
}

/// An ad campaign.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Campaign")]
pub struct CampaignRecord {
    /// Its id (`cmp_…`).
    pub id: String,
    /// What its owner calls it.
    pub name: String,
    /// The ad: an audio or video file's media id (a video ad goes into video streams only).
    pub media_id: u64,
    /// Where it goes.
    pub positions: Vec<PositionName>,
    /// The podcasts it runs in; empty: all of the account's.
    pub feeds: Vec<String>,
    /// When it starts (RFC 3339); null: at once.
    pub starts: Option<String>,
    /// When it ends (RFC 3339); null: never.
    pub ends: Option<String>,
    /// The impressions after which it stops; null: no goal.
    pub impressions_goal: Option<u64>,
    /// The impressions it made (IAB v2.3: every byte of the ad reached the listener).
    pub impressions: u64,
    /// `scheduled`, `active`, `paused` or `ended`.
    pub status: CampaignStatusName,
}

/// A campaign as the API shows it.
pub fn campaign(v: &CampaignView) -> CampaignRecord {
    let c = &v.campaign;
    CampaignRecord {
        id: c.id.to_string(),
        name: c.name.clone(),
        media_id: c.media.get(),
        positions: c.positions.iter().map(|&p| p.into()).collect(),
        feeds: c.feeds.iter().map(|f| f.to_string()).collect(),
        starts: c.starts.map(|t| t.to_string()),
        ends: c.ends.map(|t| t.to_string()),
        impressions_goal: c.impressions_goal,
        impressions: v.impressions,
        status: v.status.into(),
    }
}

/// A new campaign.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CampaignCreate {
    /// What its owner calls it.
    #[schemars(length(min = 1, max = 255))]
    pub name: String,
    /// The ad: an audio or video file's media id (a video ad goes into video streams only).
    pub media_id: u64,
    /// Where it goes: a non-empty subset of `preroll`, `midroll`, `postroll`.
    #[schemars(length(min = 1))]
    pub positions: Vec<PositionName>,
    /// The podcasts it runs in (absent or empty: all of the account's).
    #[serde(default)]
    pub feeds: Vec<String>,
    /// When it starts (RFC 3339; default: at once).
    #[schemars(extend("format" = "date-time"))]
    pub starts: Option<String>,
    /// When it ends (RFC 3339; default: never); after `starts`.
    #[schemars(extend("format" = "date-time"))]
    pub ends: Option<String>,
    /// The impressions after which it stops (default: no goal).
    #[schemars(range(min = 1))]
    pub impressions_goal: Option<u64>,
}

impl Example for CampaignCreate {
    fn example() -> Value {
        json!({"name": "Spring sale", "media_id": 1, "positions": ["preroll", "midroll"],
               "feeds": [], "starts": "2026-03-01T00:00:00Z",
               "ends": "2026-06-01T00:00:00Z", "impressions_goal": 10000})
    }
}

/// A change of a campaign: a field left out stays as it is; `status` `paused` pauses it and
/// `active` resumes it.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct CampaignUpdate {
    /// What its owner calls it.
    #[schemars(length(min = 1, max = 255))]
    pub name: Option<String>,
    /// The ad: an audio or video file's media id (a video ad goes into video streams only).
    pub media_id: Option<u64>,
    /// Where it goes.
    #[schemars(length(min = 1))]
    pub positions: Option<Vec<PositionName>>,
    /// The podcasts it runs in (empty: all).
    pub feeds: Option<Vec<String>>,
    /// When it starts (null: at once).
    #[serde(default)]
    #[schemars(extend("format" = "date-time"))]
    pub starts: Clearable<String>,
    /// When it ends (null: never).
    #[serde(default)]
    #[schemars(extend("format" = "date-time"))]
    pub ends: Clearable<String>,
    /// The impressions after which it stops (null: no goal).
    #[serde(default)]
    pub impressions_goal: Clearable<u64>,
    /// `paused` or `active` (the other two follow from the dates and the goal).
    pub status: Option<CampaignStatusName>,
}

impl Example for CampaignUpdate {
    fn example() -> Value {
        json!({"status": "paused"})
    }
}

fn time(field: &str, value: &str, errors: &mut FieldErrors) -> Option<jiff::Timestamp> {
    match value.parse::<jiff::Timestamp>() {
        Ok(t) => Some(t),
        Err(_) => {
            errors.add(
                field,
                "an RFC 3339 date and time, e.g. 2026-03-01T00:00:00Z",
            );
            None
        }
    }
}

fn media(value: u64, errors: &mut FieldErrors) -> Option<MediaId> {
    match MediaId::new(value) {
        Ok(id) => Some(id),
        Err(_) => {
            errors.add("media_id", "a media id");
            None
        }
    }
}

fn feeds(list: Vec<String>, errors: &mut FieldErrors) -> Vec<podhost_core::FeedId> {
    list.into_iter()
        .filter_map(|f| match f.parse() {
            Ok(id) => Some(id),
            Err(_) => {
                errors.add("feeds", format!("\"{f}\" is not a podcast id"));
                None
            }
        })
        .collect()
}

impl CampaignCreate {
    /// The core's new campaign.
    pub fn new_campaign(self) -> podhost_core::Result<NewCampaign> {
        let mut errors = FieldErrors::default();
        let new = NewCampaign {
            name: self.name,
            media: media(self.media_id, &mut errors),
            positions: self.positions.into_iter().map(Into::into).collect(),
            feeds: feeds(self.feeds, &mut errors),
            starts: self.starts.and_then(|s| time("starts", &s, &mut errors)),
            ends: self.ends.and_then(|s| time("ends", &s, &mut errors)),
            impressions_goal: self.impressions_goal,
        };
        errors.into_result()?;
        Ok(new)
    }
}

impl CampaignUpdate {
    /// The core's change of a campaign.
    pub fn patch(self) -> podhost_core::Result<CampaignPatch> {
        let mut errors = FieldErrors::default();
        let mut when = |field: &str, value: Clearable<String>| {
            value
                .patch()
                .map(|t| t.and_then(|s| time(field, &s, &mut errors)))
        };
        let starts = when("starts", self.starts);
        let ends = when("ends", self.ends);
        let patch = CampaignPatch {
            name: self.name,
            media: self.media_id.and_then(|m| media(m, &mut errors)),
            positions: self
                .positions
                .map(|list| list.into_iter().map(Into::into).collect()),
            feeds: self.feeds.map(|list| feeds(list, &mut errors)),
            starts,
            ends,
            impressions_goal: self.impressions_goal.patch(),
            status: self.status.map(Into::into),
        };
        errors.into_result()?;
        Ok(patch)
    }
}

/// Impressions of a day.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DayImpressions {
    /// The UTC day, `YYYY-MM-DD`.
    #[schemars(extend("format" = "date"))]
    pub date: String,
    /// Impressions.
    pub impressions: u64,
}

/// Impressions in an episode.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EpisodeImpressions {
    /// The podcast's id.
    pub feed_id: String,
    /// The episode's id.
    pub show_id: String,
    /// Impressions.
    pub impressions: u64,
}

/// A campaign's impressions (IAB v2.3: every byte of the ad reached the listener, counted once
/// per listener, ad and day): in total, per day since the campaign was made, per episode.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CampaignStatsRecord {
    /// All impressions.
    pub impressions: u64,
    /// Every day since the campaign was made, oldest first.
    pub days: Vec<DayImpressions>,
    /// Per episode, most first.
    pub episodes: Vec<EpisodeImpressions>,
}

/// The wire form of a campaign's statistics.
pub fn campaign_stats(s: &podhost_core::stats::CampaignStats) -> CampaignStatsRecord {
    CampaignStatsRecord {
        impressions: s.impressions,
        days: s
            .days
            .iter()
            .map(|d| DayImpressions {
                date: d.date.to_string(),
                impressions: d.impressions,
            })
            .collect(),
        episodes: s
            .episodes
            .iter()
            .map(|e| EpisodeImpressions {
                feed_id: e.feed_id.as_str().to_string(),
                show_id: e.episode_id.to_string(),
                impressions: e.impressions,
            })
            .collect(),
    }
}
