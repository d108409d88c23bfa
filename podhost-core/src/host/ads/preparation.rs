//! Ads prepared before the first listen: when what an ad in an episode depends on changes (a
//! campaign is created, resumed or re-targeted; an episode of a podcast a campaign runs in is
//! published or given new audio; a loudness is measured), the episode's loudness is measured
//! and each ad encoded to the episode's shape at that loudness, as background jobs. A request
//! never asks for either: an episode whose ads are not all ready is answered as stored
//! (`offers.rs`). The periodic repair of the work index prepares every account again, for what
//! a process killed between a change and its preparation left unasked.

use std::{
    collections::{BTreeSet, HashMap},
    sync::{Arc, Weak},
};

use jiff::Timestamp;

use super::{
    Ads,
    offers::{RETRY_FAILED_AFTER, episode_loudness, is_video_ad, position_of, retry_due, slots_of},
    stream_offers::{stream_shape, stream_slots},
};
use crate::host::{Inner, PodcastHost};
use crate::{
    catalog::AfterCommit,
    error::Result,
    ids::{AccountId, EpisodeId, FeedId, MediaId},
    model::{AdShape, Campaign, CampaignStatus, Job, JobKind, JobStatus, StreamShape},
    state::{AccountState, Change},
};

/// The jobs recorded by one commit of a preparation (a campaign over a large back catalogue
/// asks for its jobs in several).
const NEEDS_PER_COMMIT: usize = 100;

/// What an ad in an episode waits for.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Need {
    /// The loudness of the episode's audio, measured.
    Loudness(MediaId),
    /// The ad (its media) encoded to an episode's shape.
    AdAudio(MediaId, AdShape),
    /// The ad (its media) packaged like an episode's video stream.
    AdStream(MediaId, StreamShape),
}

/// Which episodes a preparation looks at.
#[derive(Clone, Debug)]
pub(in crate::host) enum Scope {
    /// Every published or scheduled episode of the podcasts campaigns run in.
    All,
    /// These episodes, and those that play these files.
    These {
        episodes: Vec<(FeedId, EpisodeId)>,
        media: Vec<MediaId>,
    },
}

/// What the ads of the episodes in `scope` wait for at `now`, and is not asked for yet (or
/// failed long enough ago to be asked again). Campaigns that run or will (not paused, not
/// ended) count; so do scheduled episodes.
pub(super) fn needs(state: &AccountState, scope: &Scope, now: Timestamp) -> BTreeSet<Need> {
    let campaigns: Vec<&Campaign> = state
        .campaigns
        .values()
        .filter(|c| {
            matches!(
                c.status(now, 0),
                CampaignStatus::Active | CampaignStatus::Scheduled
            )
        })
        .collect();
    let mut needs = BTreeSet::new();
    if campaigns.is_empty() {
        return needs;
    }
    let episodes: Vec<(&FeedId, &crate::model::Episode)> = match scope {
        Scope::All => state
            .feeds
            .values()
            .filter(|entry| campaigns.iter().any(|c| c.targets(&entry.feed.id)))
            .flat_map(|entry| entry.episodes.values().map(|e| (&entry.feed.id, e)))
            .collect(),
        Scope::These { episodes, media } => episodes
            .iter()
            .filter_map(|(feed, id)| {
                let entry = state.feeds.get(feed)?;
                Some((&entry.feed.id, entry.episodes.get(id)?))
            })
            .chain(media.iter().flat_map(|m| state.episodes_using(*m)))
            .collect(),
    };
    let measuring = loudness_jobs(state);
    for (feed, episode) in episodes {
        if !episode.is_public {
            continue;
        }
        stream_needs(state, &campaigns, feed, episode, now, &mut needs);
        let Some(media) = episode.media.and_then(|m| state.media.get(&m)) else {
            continue;
        };
        let positions: Vec<_> = slots_of(media).into_iter().map(position_of).collect();
        let ads: Vec<MediaId> = campaigns
            .iter()
            .filter(|c| c.targets(feed) && c.positions.iter().any(|p| positions.contains(p)))
            .filter(|c| !is_video_ad(state, c))
            .map(|c| c.media)
            .collect();
        // Not a file ads go in (no breaks, no campaign there, not MP3).
        if ads.is_empty() || AdShape::of(media, 0.0).is_none() {
            continue;
        }
        match episode_loudness(state, media, feed).and_then(|l| AdShape::of(media, l)) {
            None => {
                let due = measuring.get(&media.id).is_none_or(|job| {
                    job.status == JobStatus::Failed
                        && job.finished.is_some_and(|f| f + RETRY_FAILED_AFTER <= now)
                });
                if due {
                    needs.insert(Need::Loudness(media.id));
                }
            }
            Some(shape) => {
                for ad in ads {
                    let due = state
                        .ad_audio(ad, &shape)
                        .is_none_or(|a| a.blob.is_none() && retry_due(state, &a.job, now));
                    if due {
                        needs.insert(Need::AdAudio(ad, shape));
                    }
                }
            }
        }
    }
    needs
}

/// What the ads of `episode`'s video stream wait for: each ad of `campaigns` that runs in its
/// slots, packaged like it (once the video is packaged itself).
fn stream_needs(
    state: &AccountState,
    campaigns: &[&Campaign],
    feed: &FeedId,
    episode: &crate::model::Episode,
    now: Timestamp,
    needs: &mut BTreeSet<Need>,
) {
    let Some(video) = episode.video.and_then(|m| state.media.get(&m)) else {
        return;
    };
    if video.results.hls.is_none() {
        return;
    }
    let positions: Vec<_> = stream_slots(state, video, episode)
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    let cover = state.feeds.get(feed).and_then(|e| e.feed.logo);
    for c in campaigns {
        if !c.targets(feed) || !c.positions.iter().any(|p| positions.contains(p)) {
            continue;
        }
        let Some(ad) = state.media.get(&c.media) else {
            continue;
        };
        let Some(shape) = stream_shape(video, cover, ad) else {
            continue;
        };
        let due = state
            .ad_stream(ad.id, &shape)
            .is_none_or(|a| !a.ready && retry_due(state, &a.job, now));
        if due {
            needs.insert(Need::AdStream(ad.id, shape));
        }
    }
}

/// The latest loudness job of each file.
fn loudness_jobs(state: &AccountState) -> HashMap<MediaId, &Job> {
    let mut latest: HashMap<MediaId, &Job> = HashMap::new();
    for job in state.jobs.values() {
        let Some(media) = job.media.filter(|_| job.kind == JobKind::Loudness) else {
            continue;
        };
        let slot = latest.entry(media).or_insert(job);
        if job.created > slot.created {
            *slot = job;
        }
    }
    latest
}

impl Ads<'_> {
    /// Asks for what the ads of every episode of the account wait for (the repair after a
    /// process was killed between a change and its preparation); how many jobs it asked for.
    pub(crate) async fn prepare_all_ads(&self, account: &AccountId) -> Result<usize> {
        self.prepare_ads(account, &Scope::All).await
    }

    /// Asks for what the ads of the episodes in `scope` wait for: a loudness job per episode
    /// file never measured, then (when it is measured: the job's result comes back here) an
    /// encoding job per ad and shape. Background work; a request never calls it.
    pub(in crate::host) async fn prepare_ads(
        &self,
        account: &AccountId,
        scope: &Scope,
    ) -> Result<usize> {
        let Some(catalog) = self.host.existing_catalog(account).await? else {
            return Ok(0);
        };
        let mut asked = 0;
        loop {
            let now = self.host.now();
            let wanted: Vec<Need> = catalog
                .read(|state| needs(state, scope, now))
                .await
                .into_iter()
                .take(NEEDS_PER_COMMIT)
                .collect();
            if wanted.is_empty() {
                return Ok(asked);
            }
            let mut reserved = Vec::new();
            for _ in &wanted {
                reserved.push(self.host.reserve_job(account).await?);
            }
            let recorded = catalog
                .commit(now, &crate::model::Actor::podhost(), |state| {
                    record(state, &wanted, &reserved, now)
                })
                .await?;
            self.host.settle_jobs(account, &reserved, &recorded).await;
            if recorded.is_empty() {
                // Asked for meanwhile by another process (or nothing left to ask).
                return Ok(asked);
            }
            asked += recorded.len();
        }
    }
}

impl PodcastHost {
    /// The hook that prepares `account`'s ads after the commits that change what they depend
    /// on (registered with the kernel).
    pub(in crate::host) fn ad_preparation(&self, account: &AccountId) -> Arc<AdPrep> {
        Arc::new(AdPrep {
            host: Arc::downgrade(&self.inner),
            account: account.clone(),
        })
    }
}

/// The changes and jobs asking for `wanted` (each with its reserved job id), computed from the
/// state the commit is given: what was asked for meanwhile is left out.
fn record(
    state: &AccountState,
    wanted: &[Need],
    reserved: &[crate::ids::JobId],
    now: Timestamp,
) -> Result<(Vec<Change>, Vec<crate::ids::JobId>)> {
    let mut changes = Vec::new();
    let mut recorded = Vec::new();
    let measuring = loudness_jobs(state);
    for (need, id) in wanted.iter().zip(reserved) {
        match need {
            &Need::Loudness(media) => {
                let running = measuring.get(&media).is_some_and(|j| !j.status.is_final());
                if running || !state.media.contains_key(&media) {
                    continue;
                }
                let (job, new) = crate::host::work::job_runs::records::job_for(
                    state,
                    id,
                    media,
                    JobKind::Loudness,
                    &serde_json::Value::Null,
                    now,
                )?;
                if new {
                    recorded.push(job.id.clone());
                    changes.push(Change::JobPut(job));
                }
            }
            &Need::AdAudio(media, shape) => {
                let asked = state
                    .ad_audio(media, &shape)
                    .is_some_and(|a| a.blob.is_some() || !retry_due(state, &a.job, now));
                if asked || !state.media.contains_key(&media) {
                    continue;
                }
                let params = crate::host::work::job_runs::AdAudioParams::value(shape);
                let (job, new) = crate::host::work::job_runs::records::job_for(
                    state,
                    id,
                    media,
                    JobKind::AdAudio,
                    &params,
                    now,
                )?;
                changes.push(Change::AdAudioPut {
                    media,
                    audio: crate::model::AdAudio {
                        shape,
                        job: job.id.clone(),
                        blob: None,
                        size: 0,
                    },
                });
                if new {
                    recorded.push(job.id.clone());
                    changes.push(Change::JobPut(job));
                }
            }
            Need::AdStream(media, shape) => {
                let asked = state
                    .ad_stream(*media, shape)
                    .is_some_and(|a| a.ready || !retry_due(state, &a.job, now));
                if asked || !state.media.contains_key(media) {
                    continue;
                }
                let params = serde_json::to_value(shape)
                    .map_err(|e| crate::error::Error::storage(e.to_string()))?;
                let (job, new) = crate::host::work::job_runs::records::job_for(
                    state,
                    id,
                    *media,
                    JobKind::AdStream,
                    &params,
                    now,
                )?;
                changes.push(Change::AdStreamPut {
                    media: *media,
                    stream: crate::model::AdStream {
                        shape: shape.clone(),
                        job: job.id.clone(),
                        ready: false,
                    },
                });
                if new {
                    recorded.push(job.id.clone());
                    changes.push(Change::JobPut(job));
                }
            }
        }
    }
    Ok((changes, recorded))
}

/// Prepares an account's ads after each of its commits that changes what they depend on: a
/// campaign or a podcast (every episode looked at), an episode (that one), a media file (the
/// episodes that play it: its loudness measured, its breaks set).
pub(crate) struct AdPrep {
    host: Weak<Inner>,
    account: AccountId,
}

#[async_trait::async_trait]
impl AfterCommit<Change> for AdPrep {
    async fn committed(&self, _at: Timestamp, changes: &[Change]) {
        let mut all = false;
        let mut episodes = Vec::new();
        let mut media = Vec::new();
        for change in changes {
            match change {
                Change::CampaignPut(_) | Change::FeedPut(_) => all = true,
                Change::EpisodePut(e)
                    if e.is_public && (e.media.is_some() || e.video.is_some()) =>
                {
                    episodes.push((e.feed.clone(), e.id));
                }
                Change::MediaPut(m) => media.push(m.id),
                _ => {}
            }
        }
        let scope = match all {
            true => Scope::All,
            false if episodes.is_empty() && media.is_empty() => return,
            false => Scope::These { episodes, media },
        };
        let Some(inner) = self.host.upgrade() else {
            return;
        };
        let host = PodcastHost { inner };
        let account = self.account.clone();
        tokio::spawn(async move {
            if let Err(e) = host.ads().prepare_ads(&account, &scope).await {
                tracing::warn!(%account, error = %e, "preparing ads failed; the episodes are answered without them until the next change");
            }
        });
    }
}
