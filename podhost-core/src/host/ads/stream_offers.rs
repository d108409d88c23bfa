//! Ads in a video's HLS stream: which ads a listener sees, by the rules of the audio path
//! (`offers.rs`: the campaigns that run in the episode's slots, one ad per slot chosen by a
//! hash of listener, file and UTC day, the same all day on every server). An ad is offered in a
//! stream once it is packaged like the video (its renditions' names and sizes, its frame rate,
//! and for an audio ad the podcast's cover: a [`StreamShape`]); until every offered ad is, the
//! stream is answered without ads. Delivery splices the chosen ads' packages into the
//! listener's playlists; nothing is stored per listener.

use std::sync::Arc;

use jiff::Timestamp;

use super::offers::{Listener, choose_in, job_failed, next_change, running};
use crate::{
    cache::Weigh,
    ids::{CampaignId, JobId, MediaId},
    model::{BlobKey, Episode, Media, Position, StreamShape},
    probe::MediaKind,
    state::AccountState,
};

/// An ad a listener sees in a stream: its campaign, its package (the packaging job) and
/// where it goes.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamAd {
    /// The campaign.
    pub campaign: CampaignId,
    /// The job whose package it is.
    pub job: JobId,
    /// Seconds of the episode where it goes (0: before it; infinity: after it).
    pub at: f64,
}

/// The ads one listener sees in a stream today, and a key naming that arrangement.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamChoice {
    /// Names the video and the ads in it: part of the listener's playlists' ETags.
    pub key: String,
    /// The ads, in order.
    pub ads: Vec<StreamAd>,
}

/// What a video's stream offers at one version of its account.
#[derive(Debug)]
pub(crate) struct StreamOffer {
    blob: BlobKey,
    /// Where each slot is, in seconds of the episode.
    at: Vec<f64>,
    /// The ads that may go in each slot.
    slots: Vec<Vec<(CampaignId, JobId)>>,
}

impl Weigh for Option<Arc<StreamOffer>> {
    fn weight(&self) -> usize {
        self.as_ref().map_or(16, |o| {
            128 + o.slots.iter().map(|ads| 64 + 96 * ads.len()).sum::<usize>()
        })
    }
}

/// The shape ad `ad` is packaged to for the stream of `video` in a podcast whose cover is
/// `cover`: the video's renditions and frame rate, and the cover for an audio ad. `None` when
/// `video` is not a video.
pub(crate) fn stream_shape(
    video: &Media,
    cover: Option<MediaId>,
    ad: &Media,
) -> Option<StreamShape> {
    let facts = video.facts.video.as_deref()?;
    let renditions = crate::hls::ladder::plan(facts)
        .into_iter()
        .map(|r| (r.name, r.width, r.height))
        .collect();
    Some(StreamShape {
        renditions,
        frame_rate_milli: (facts.frame_rate * 1000.0).round() as u32,
        cover: match ad.kind() {
            MediaKind::Video => None,
            _ => cover,
        },
    })
}

/// The slots of a stream: the video's own ad breaks, else its episode's audio's; each with its
/// position and its place in seconds.
pub(crate) fn stream_slots(
    state: &AccountState,
    video: &Media,
    episode: &Episode,
) -> Vec<(Position, f64)> {
    let audio = episode.media.and_then(|m| state.media.get(&m));
    let Some(adbreak) = video
        .adbreak
        .as_ref()
        .or_else(|| audio.and_then(|a| a.adbreak.as_ref()))
    else {
        return Vec::new();
    };
    let mut slots = Vec::new();
    if adbreak.preroll {
        slots.push((Position::Preroll, 0.0));
    }
    let mut midrolls: Vec<f64> = adbreak
        .midrolls
        .iter()
        .copied()
        .filter(|s| s.is_finite() && *s > 0.0)
        .collect();
    midrolls.sort_by(f64::total_cmp);
    midrolls.dedup();
    slots.extend(midrolls.into_iter().map(|s| (Position::Midroll, s)));
    if adbreak.postroll {
        slots.push((Position::Postroll, f64::INFINITY));
    }
    slots
}

/// What the stream of the video stored as `blob` offers at `now`, and when that changes by
/// itself; `None`: it is answered without ads (no breaks, no campaign, an episode not
/// published, or an offered ad not packaged yet).
pub(super) fn stream_offer(
    state: &AccountState,
    blob: &str,
    now: Timestamp,
) -> (Option<Arc<StreamOffer>>, Option<Timestamp>) {
    let changes_at = Some(next_change(state, now));
    let Some(video) = state.media_by_blob(blob) else {
        return (None, changes_at);
    };
    if video.results.hls.is_none() || state.campaigns.is_empty() {
        return (None, changes_at);
    }
    let Some((feed, episode)) = state.heard_or_seen(video.id, now) else {
        return (None, changes_at);
    };
    if !episode.is_published(now) {
        let first = changes_at.into_iter().chain([episode.publish_at]).min();
        return (None, first);
    }
    let slots = stream_slots(state, video, episode);
    let positions: Vec<Position> = slots.iter().map(|(p, _)| *p).collect();
    let Some(running) = running(state, feed, episode, &positions, |_| true, now) else {
        return (None, changes_at);
    };
    let cover = state.feeds.get(feed).and_then(|e| e.feed.logo);
    let mut offered = vec![Vec::new(); slots.len()];
    for (i, campaign) in running {
        let Some(ad) = state.media.get(&campaign.media) else {
            continue;
        };
        let Some(shape) = stream_shape(video, cover, ad) else {
            return (None, changes_at);
        };
        match state.ad_stream(ad.id, &shape) {
            Some(stream) if stream.ready => {
                offered[i].push((campaign.id.clone(), stream.job.clone()));
            }
            Some(stream) if job_failed(state, &stream.job) => {}
            // Not ready: the stream is answered without ads until it is.
            _ => return (None, changes_at),
        }
    }
    if offered.iter().all(Vec::is_empty) {
        return (None, changes_at);
    }
    let offer = StreamOffer {
        blob: video.blob.clone(),
        at: slots.iter().map(|(_, at)| *at).collect(),
        slots: offered,
    };
    (Some(Arc::new(offer)), changes_at)
}

/// The ads `listener` gets from `offer` at `now` (one per slot, by [`choose_in`]'s hash), and
/// the key naming them; `None` when no slot has one.
pub(super) fn choice(
    offer: &StreamOffer,
    listener: &Listener,
    now: Timestamp,
) -> Option<StreamChoice> {
    let chosen = choose_in(offer.blob.as_str(), &offer.slots, listener, now);
    if chosen.is_empty() {
        return None;
    }
    let named: Vec<String> = chosen
        .iter()
        .map(|(i, (_, job))| format!("{i}:{job}"))
        .collect();
    let parts: Vec<&[u8]> = named.iter().map(|n| n.as_bytes()).collect();
    let hash = crate::stats::parts_digest(offer.blob.as_str().as_bytes(), &parts);
    Some(StreamChoice {
        key: hex::encode(&hash[..8]),
        ads: chosen
            .into_iter()
            .map(|(i, (campaign, job))| StreamAd {
                campaign,
                job,
                at: offer.at[i],
            })
            .collect(),
    })
}
