//! Ad campaigns: create, list, read, change (pause and resume included) and delete them, with
//! every rule checked here: the ad is an audio file of the account, the positions a non-empty
//! set, the podcasts the account's, the dates in order, the goal positive.

use super::Ads;
use crate::host::user_text;
use crate::{
    authorization::Action,
    error::{Error, FieldErrors, Result},
    ids::CampaignId,
    model::{Campaign, CampaignPatch, CampaignStatus, CampaignView, NewCampaign, Position},
    principal::Principal,
    probe::MediaKind,
    state::{AccountState, Change},
};

fn not_found(id: &CampaignId) -> Error {
    Error::not_found("campaign", id)
}

/// The rules of a campaign as it is about to be stored, every problem collected.
/// Whether `who` may see `campaign`: a member restricted to some podcasts sees the campaigns
/// that run in theirs alone (a campaign of every podcast is not one of them).
fn visible(who: &Principal, campaign: &Campaign) -> bool {
    who.sees_all() || (!campaign.feeds.is_empty() && campaign.feeds.iter().all(|f| who.sees(f)))
}

fn check(state: &AccountState, campaign: &Campaign) -> Result<()> {
    let mut errors = FieldErrors::default();
    if campaign.name.trim().is_empty() {
        errors.add("name", "a name is required");
    }
    user_text::check_line(&mut errors, "name", &campaign.name);
    match state.media.get(&campaign.media) {
        None => errors.add("media_id", format!("no media file {}", campaign.media)),
        // A video ad goes into video streams only; an audio ad into both.
        Some(m) if !matches!(m.kind(), MediaKind::Audio | MediaKind::Video) => errors.add(
            "media_id",
            format!(
                "{} is not an audio or video file ({})",
                m.name, m.facts.mime
            ),
        ),
        Some(_) => {}
    }
    if campaign.positions.is_empty() {
        errors.add("positions", "at least one of preroll, midroll, postroll");
    }
    for feed in &campaign.feeds {
        if !state.feeds.contains_key(feed) {
            errors.add("feeds", format!("there is no podcast {feed}"));
        }
    }
    if let (Some(starts), Some(ends)) = (campaign.starts, campaign.ends)
        && ends <= starts
    {
        errors.add("ends", "after starts");
    }
    if campaign.impressions_goal == Some(0) {
        errors.add("impressions_goal", "at least 1 (or none: no goal)");
    }
    errors.into_result()
}

/// Positions in order, each once.
fn positions(mut list: Vec<Position>) -> Vec<Position> {
    list.sort();
    list.dedup();
    list
}

/// The feeds each once, in the order given.
fn feeds(list: Vec<crate::ids::FeedId>) -> Vec<crate::ids::FeedId> {
    let mut out: Vec<crate::ids::FeedId> = Vec::new();
    for feed in list {
        if !out.contains(&feed) {
            out.push(feed);
        }
    }
    out
}

/// `campaign` as its owner sees it, having made `impressions` (see
/// [`PodcastHost::campaign_impressions`]). Its status is what every server does: a goal ends it
/// once its mark (`goal_reached`, which servers stop placing it at) is older than `settled`,
/// the time within which every server reads the account's new entries; counted impressions
/// alone never show it ended while servers may still place it.
fn view(
    campaign: Campaign,
    impressions: u64,
    now: jiff::Timestamp,
    settled: std::time::Duration,
) -> CampaignView {
    let seen = |at: jiff::Timestamp| {
        jiff::SignedDuration::try_from(settled).is_ok_and(|settled| at + settled <= now)
    };
    let status = match campaign.goal_reached {
        Some(at) if !seen(at) => Campaign {
            goal_reached: None,
            ..campaign.clone()
        }
        .status(now, 0),
        _ => campaign.status(now, 0),
    };
    CampaignView {
        status,
        impressions,
        campaign,
    }
}

impl Ads<'_> {
    /// Creates an ad campaign (scope `ads`).
    pub async fn create_campaign(&self, who: &Principal, new: NewCampaign) -> Result<CampaignView> {
        who.authorize(Action::ManageAds)?;
        let media = new
            .media
            .ok_or_else(|| Error::invalid("media_id", "the ad's audio file is required"))?;
        let catalog = self.host.catalog(who.account()).await?;
        let now = self.host.now();
        let settled = self.host.config().catalog.refresh_interval;
        catalog
            .commit(now, &who.actor(), |state| {
                let mut id = CampaignId::random();
                while state.campaigns.contains_key(&id) {
                    id = CampaignId::random();
                }
                let campaign = Campaign {
                    id,
                    name: new.name.trim().to_string(),
                    media,
                    positions: positions(new.positions.clone()),
                    feeds: feeds(new.feeds.clone()),
                    starts: new.starts,
                    ends: new.ends,
                    impressions_goal: new.impressions_goal,
                    paused: false,
                    goal_reached: None,
                    runs: Default::default(),
                    created: now,
                    updated: now,
                };
                check(state, &campaign)?;
                if !visible(who, &campaign) {
                    return Err(Error::Forbidden {
                        message: "a member restricted to some podcasts runs campaigns in theirs alone: name them in feeds".into(),
                    });
                }
                let view = view(campaign.clone(), 0, now, settled);
                Ok((vec![Change::CampaignPut(Box::new(campaign))], view))
            })
            .await
    }

    /// The caller's campaigns, oldest first (scope `ads-read-only`).
    pub async fn list_campaigns(&self, who: &Principal) -> Result<Vec<CampaignView>> {
        who.authorize(Action::ReadAds)?;
        let catalog = self.host.catalog(who.account()).await?;
        let mut campaigns: Vec<Campaign> = catalog
            .read(|state| {
                state
                    .campaigns
                    .values()
                    .filter(|c| visible(who, c))
                    .cloned()
                    .collect()
            })
            .await;
        campaigns.sort_by(|a, b| (a.created, &a.id).cmp(&(b.created, &b.id)));
        let counted = self.campaign_impressions(who.account(), &campaigns).await?;
        let now = self.host.now();
        let settled = self.host.config().catalog.refresh_interval;
        Ok(campaigns
            .into_iter()
            .map(|c| {
                let impressions = counted.get(&c.id).copied().unwrap_or(0);
                view(c, impressions, now, settled)
            })
            .collect())
    }

    /// One of the caller's campaigns (scope `ads-read-only`).
    pub async fn get_campaign(&self, who: &Principal, id: &CampaignId) -> Result<CampaignView> {
        who.authorize(Action::ReadAds)?;
        let (campaign, impressions) = self.campaign_and_impressions(who, id).await?;
        let settled = self.host.config().catalog.refresh_interval;
        Ok(view(campaign, impressions, self.host.now(), settled))
    }

    /// Changes one of the caller's campaigns (scope `ads`): the fields the patch names, and
    /// `status` `paused` or `active` to pause or resume it.
    pub async fn update_campaign(
        &self,
        who: &Principal,
        id: &CampaignId,
        patch: &CampaignPatch,
    ) -> Result<CampaignView> {
        who.authorize(Action::ManageAds)?;
        let paused = match patch.status {
            None => None,
            Some(CampaignStatus::Paused) => Some(true),
            Some(CampaignStatus::Active) => Some(false),
            Some(other) => {
                return Err(Error::invalid(
                    "status",
                    format!(
                        "paused or active; {} follows from the dates and the goal",
                        other.as_str()
                    ),
                ));
            }
        };
        let catalog = self.host.catalog(who.account()).await?;
        let (_, impressions) = self.campaign_and_impressions(who, id).await?;
        let now = self.host.now();
        let settled = self.host.config().catalog.refresh_interval;
        let (view, stopped) = catalog
            .commit(now, &who.actor(), |state| {
                let mut campaign = state
                    .campaigns
                    .get(id)
                    .filter(|c| visible(who, c))
                    .cloned()
                    .ok_or_else(|| not_found(id))?;
                if let Some(name) = &patch.name {
                    campaign.name = name.trim().to_string();
                }
                if let Some(media) = patch.media {
                    campaign.media = media;
                }
                if let Some(list) = &patch.positions {
                    campaign.positions = positions(list.clone());
                }
                if let Some(list) = &patch.feeds {
                    campaign.feeds = feeds(list.clone());
                }
                if let Some(starts) = patch.starts {
                    campaign.starts = starts;
                }
                if let Some(ends) = patch.ends {
                    campaign.ends = ends;
                }
                if let Some(goal) = patch.impressions_goal {
                    // A new goal is measured again (the next count after impressions).
                    if goal != campaign.impressions_goal {
                        campaign.goal_reached = goal.filter(|g| impressions >= *g).map(|_| now);
                    }
                    campaign.impressions_goal = goal;
                }
                if let Some(paused) = paused {
                    campaign.paused = paused;
                }
                let mut stopped = false;
                if let Some(before) = state.campaigns.get(id) {
                    campaign.runs_after(before, now);
                    stopped = before.status(now, 0) == CampaignStatus::Active
                        && campaign.status(now, 0) != CampaignStatus::Active;
                }
                campaign.updated = now;
                check(state, &campaign)?;
                if !visible(who, &campaign) {
                    return Err(Error::Forbidden {
                        message: "a member restricted to some podcasts runs campaigns in theirs alone: name them in feeds".into(),
                    });
                }
                let view = view(campaign.clone(), impressions, now, settled);
                Ok((
                    vec![Change::CampaignPut(Box::new(campaign))],
                    (view, stopped),
                ))
            })
            .await?;
        if stopped {
            self.settle_placements().await;
        }
        Ok(view)
    }

    /// Waits until every server has read the account's last entry (the catalog's refresh
    /// interval): a campaign answered as paused, ended or deleted is placed by no server from
    /// that answer on.
    async fn settle_placements(&self) {
        tokio::time::sleep(self.host.config().catalog.refresh_interval).await;
    }

    /// One of the caller's campaigns as it is now, and the impressions it made.
    async fn campaign_and_impressions(
        &self,
        who: &Principal,
        id: &CampaignId,
    ) -> Result<(Campaign, u64)> {
        let catalog = self.host.catalog(who.account()).await?;
        let campaign = catalog
            .read_found(|state| {
                state
                    .campaigns
                    .get(id)
                    .filter(|c| visible(who, c))
                    .cloned()
                    .ok_or_else(|| not_found(id))
            })
            .await?;
        let counted = self
            .campaign_impressions(who.account(), std::slice::from_ref(&campaign))
            .await?;
        let impressions = counted.get(id).copied().unwrap_or(0);
        Ok((campaign, impressions))
    }

    /// Deletes one of the caller's campaigns (scope `ads`); its ad file stays.
    pub async fn delete_campaign(&self, who: &Principal, id: &CampaignId) -> Result<()> {
        who.authorize(Action::ManageAds)?;
        let catalog = self.host.catalog(who.account()).await?;
        let now = self.host.now();
        catalog
            .commit(now, &who.actor(), |state| {
                if !state.campaigns.get(id).is_some_and(|c| visible(who, c)) {
                    return Err(not_found(id));
                }
                Ok((vec![Change::CampaignRemoved { id: id.clone() }], ()))
            })
            .await?;
        self.settle_placements().await;
        Ok(())
    }
}
