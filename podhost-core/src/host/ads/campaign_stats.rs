//! Ad impressions: a campaign's statistics, the impressions beside each campaign, the CSV rows,
//! and the goal that stops a campaign on every server. Counted by the rules of
//! [`crate::stats`] (IAB v2.3), from the same daily records as downloads.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use jiff::civil::Date;

use super::Ads;
use crate::host::analytics::{day_of, period};
use crate::{
    authorization::Action,
    error::{Error, Result},
    ids::{AccountId, CampaignId, EpisodeId, FeedId},
    model::Campaign,
    principal::Principal,
    state::Change,
    stats::{
        CampaignStats, ClosedDay, ImpressionDay, ImpressionEpisode, ImpressionRow, StatsQuery,
    },
};

impl Ads<'_> {
    /// The impressions each of `campaigns` (of `account`) made since it was created.
    pub(super) async fn campaign_impressions(
        &self,
        account: &AccountId,
        campaigns: &[Campaign],
    ) -> Result<HashMap<CampaignId, u64>> {
        let Some(from) = campaigns.iter().map(|c| day_of(c.created)).min() else {
            return Ok(HashMap::new());
        };
        let days = self
            .host
            .analytics()
            .counted_days(account, from, day_of(self.host.now()))
            .await?;
        let mut totals = HashMap::new();
        for (_, counts) in &days {
            for row in &counts.ads {
                *totals.entry(row.campaign.clone()).or_default() += row.impressions;
            }
        }
        Ok(totals)
    }

    /// A campaign's impressions, in total, per day since it was created and per episode (scope
    /// `ads-read-only`).
    pub async fn campaign_stats(&self, who: &Principal, id: &CampaignId) -> Result<CampaignStats> {
        who.authorize(Action::ReadAds)?;
        let catalog = self.host.catalog(who.account()).await?;
        let campaign = catalog
            .read(|state| state.campaigns.get(id).cloned())
            .await
            .ok_or_else(|| Error::not_found("campaign", id))?;
        let today = day_of(self.host.now());
        let days = self
            .host
            .analytics()
            .counted_days(who.account(), day_of(campaign.created), today)
            .await?;
        Ok(stats_of(id, &days))
    }

    /// The impressions of the caller's campaigns over a statistics query's period, one row per
    /// day, campaign and episode: the campaign rows of the CSV export. Empty unless the caller
    /// may see campaigns (scope `ads-read-only`); checked as
    /// [`Analytics::download_stats`](crate::Analytics::download_stats).
    pub async fn impression_rows(
        &self,
        who: &Principal,
        query: &StatsQuery,
    ) -> Result<Vec<ImpressionRow>> {
        who.authorize(Action::ReadStatistics)?;
        if who.authorize(Action::ReadAds).is_err() {
            return Ok(Vec::new());
        }
        let (from, to) = period(query, day_of(self.host.now()))?;
        let days = self
            .host
            .analytics()
            .counted_days(who.account(), from, to)
            .await?;
        let mut rows = Vec::new();
        for (date, counts) in days {
            for row in &counts.ads {
                let wanted = who.sees(&row.feed)
                    && query.feed.as_ref().is_none_or(|f| *f == row.feed)
                    && query.episode.is_none_or(|e| e == row.episode);
                if wanted {
                    rows.push(ImpressionRow {
                        date,
                        campaign_id: row.campaign.clone(),
                        feed_id: row.feed.clone(),
                        episode_id: row.episode,
                        impressions: row.impressions,
                    });
                }
            }
        }
        Ok(rows)
    }

    /// Stops the campaigns that reached their goal, in the accounts whose ads this process
    /// delivered since the last call: their impressions are counted (every server's flushed
    /// records) and each campaign at its goal is marked, so every server stops placing it at
    /// its next catalog refresh. Servers call it after each statistics flush. Returns the
    /// campaigns stopped.
    pub async fn check_campaign_goals(&self) -> Result<usize> {
        self.host.analytics().flush_stats().await?;
        let accounts: BTreeSet<String> = self.host.analytics().take_ads_delivered();
        let mut stopped = 0;
        let mut failure = None;
        for name in accounts {
            let Ok(account) = AccountId::new(&name) else {
                continue;
            };
            match self.check_goals(&account).await {
                Ok(n) => stopped += n,
                Err(e) => {
                    // Checked again after the next flush.
                    self.host.analytics().ads_delivered_again(name);
                    failure = Some(e);
                }
            }
        }
        match failure {
            Some(e) => Err(e),
            None => Ok(stopped),
        }
    }

    async fn check_goals(&self, account: &AccountId) -> Result<usize> {
        let catalog = self.host.catalog(account).await?;
        let now = self.host.now();
        let open: Vec<Campaign> = catalog
            .read(|state| {
                state
                    .campaigns
                    .values()
                    .filter(|c| c.impressions_goal.is_some() && c.goal_reached.is_none())
                    .cloned()
                    .collect()
            })
            .await;
        if open.is_empty() {
            return Ok(0);
        }
        let counted = self.campaign_impressions(account, &open).await?;
        let reached: Vec<(CampaignId, u64)> = open
            .iter()
            .filter_map(|c| {
                let made = counted.get(&c.id).copied().unwrap_or(0);
                c.impressions_goal
                    .is_some_and(|goal| made >= goal)
                    .then(|| (c.id.clone(), made))
            })
            .collect();
        if reached.is_empty() {
            return Ok(0);
        }
        catalog
            .commit(now, &crate::model::Actor::podhost(), |state| {
                let mut changes = Vec::new();
                for (id, made) in &reached {
                    // The goal as it is now: one raised meanwhile is measured again.
                    let Some(campaign) = state.campaigns.get(id) else {
                        continue;
                    };
                    let still = campaign.goal_reached.is_none()
                        && campaign.impressions_goal.is_some_and(|g| *made >= g);
                    if still {
                        let mut campaign = campaign.clone();
                        campaign.goal_reached = Some(now);
                        tracing::info!(%account, campaign = %id, impressions = made, "campaign reached its goal");
                        changes.push(Change::CampaignPut(Box::new(campaign)));
                    }
                }
                let n = changes.len();
                Ok((changes, n))
            })
            .await
    }
}

/// Campaign `id`'s statistics from the counts of `days`.
fn stats_of(id: &CampaignId, days: &[(Date, ClosedDay)]) -> CampaignStats {
    let mut total = 0;
    let mut per_day = Vec::with_capacity(days.len());
    let mut episodes: BTreeMap<(FeedId, EpisodeId), u64> = BTreeMap::new();
    for (date, counts) in days {
        let mut impressions = 0;
        for row in counts.ads.iter().filter(|r| r.campaign == *id) {
            impressions += row.impressions;
            *episodes.entry((row.feed.clone(), row.episode)).or_default() += row.impressions;
        }
        total += impressions;
        per_day.push(ImpressionDay {
            date: *date,
            impressions,
        });
    }
    let mut episodes: Vec<ImpressionEpisode> = episodes
        .into_iter()
        .map(|((feed_id, episode_id), impressions)| ImpressionEpisode {
            feed_id,
            episode_id,
            impressions,
        })
        .collect();
    episodes.sort_by_key(|e| std::cmp::Reverse(e.impressions));
    CampaignStats {
        impressions: total,
        days: per_day,
        episodes,
    }
}
