//! Which ads an episode file offers a listener, and what this process keeps to answer them:
//! the offer of a file at a catalog version (the active campaigns of its podcast whose ad is
//! encoded like it), the listener's choice by a hash of listener, file and UTC day, and the
//! caches of prepared episodes, ads and arrangements. Pure functions of the state; the host's
//! side is `insertion.rs`.

use std::{net::IpAddr, ops::Range, sync::Arc};

use jiff::Timestamp;

use crate::{
    cache::Weigh,
    ids::{CampaignId, FeedId},
    model::{AdCodec, AdShape, BlobKey, CampaignStatus, Media, Position},
    state::AccountState,
    stitch::{AdFrames, EpisodeCuts, Heard, Piece, Slot},
    tags::Chapter,
};

/// How long after a failed encoding of an ad it is tried again.
pub(super) const RETRY_FAILED_AFTER: jiff::SignedDuration = jiff::SignedDuration::from_hours(1);

/// A listener by IAB's rule: the client's address and user agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listener {
    /// The client's address (an IPv6 address counts by its /64).
    pub address: IpAddr,
    /// The `User-Agent` header.
    pub user_agent: String,
}

/// An ad that may go in a slot: its campaign and its encoding for the file.
#[derive(Clone, Debug)]
pub(super) struct OfferedAd {
    pub(super) campaign: CampaignId,
    pub(super) blob: BlobKey,
}

/// What an episode file offers listeners at one version of its account.
#[derive(Clone, Debug)]
pub(super) struct Offer {
    /// The file.
    pub(super) blob: BlobKey,
    /// Its codec (and its ads').
    pub(super) codec: AdCodec,
    pub(super) breaks: Vec<Slot>,
    /// The ads that may go in each of the breaks.
    pub(super) slots: Vec<Vec<OfferedAd>>,
    /// The episode's chapters (moved by the ads for each listener).
    pub(super) chapters: Vec<Chapter>,
}

impl Weigh for Option<Arc<Offer>> {
    fn weight(&self) -> usize {
        self.as_ref().map_or(16, |o| {
            256 + o.slots.iter().map(|ads| 64 + 96 * ads.len()).sum::<usize>()
                + o.chapters.len() * 128
        })
    }
}

impl Weigh for Arc<EpisodeCuts> {
    fn weight(&self) -> usize {
        EpisodeCuts::weight(self)
    }
}

impl Weigh for Arc<AdFrames> {
    fn weight(&self) -> usize {
        match &**self {
            AdFrames::Mp3(_) => 256,
            // Its frames' sizes and the runs they are stored in.
            AdFrames::M4a(ad) => 256 + ad.frames() * 4,
        }
    }
}

/// An arrangement as served: the answer, and where its ads are.
#[derive(Debug)]
pub(super) struct Arranged {
    pub(super) heard: Heard,
    /// Per ad in order: its bytes in the answer.
    pub(super) ads: Vec<Range<u64>>,
}

impl Weigh for Arc<Arranged> {
    fn weight(&self) -> usize {
        let bytes: usize = self
            .heard
            .arrangement
            .pieces()
            .iter()
            .map(|p| match p {
                Piece::Bytes(b) => b.len() + 64,
                Piece::Blob { .. } => 96,
            })
            .sum();
        bytes + self.heard.chapters.len() * 128 + 256
    }
}

/// The slots of a file's ad breaks, in order: preroll, the midrolls at their samples, postroll.
pub(super) fn slots_of(media: &Media) -> Vec<Slot> {
    let (Some(adbreak), Some(audio)) = (&media.adbreak, &media.facts.audio) else {
        return Vec::new();
    };
    let rate = f64::from(audio.sample_rate);
    let mut slots = Vec::new();
    if adbreak.preroll {
        slots.push(Slot::Preroll);
    }
    let mut midrolls: Vec<u64> = adbreak
        .midrolls
        .iter()
        .filter(|s| s.is_finite() && **s > 0.0)
        .map(|s| (s * rate) as u64)
        .collect();
    midrolls.sort_unstable();
    midrolls.dedup();
    slots.extend(midrolls.into_iter().map(Slot::Midroll));
    if adbreak.postroll {
        slots.push(Slot::Postroll);
    }
    slots
}

pub(super) fn position_of(slot: Slot) -> Position {
    match slot {
        Slot::Preroll => Position::Preroll,
        Slot::Midroll(_) => Position::Midroll,
        Slot::Postroll => Position::Postroll,
    }
}

/// The loudness ads are encoded to for episode audio `media` in podcast `feed`: the
/// episode's own, measured; in a podcast that masters, its target (the audio is mastered to
/// it). `None` until measured: an ad is never encoded to a guess.
pub(super) fn episode_loudness(state: &AccountState, media: &Media, feed: &FeedId) -> Option<f64> {
    if let Some(measured) = media.results.loudness.as_ref().and_then(|l| l.integrated) {
        return Some(measured);
    }
    let entry = state.feeds.get(feed)?;
    let channels = media.facts.audio.as_ref().map_or(2, |a| a.channels);
    entry.feed.audio.master.then(|| {
        entry
            .feed
            .audio
            .target
            .unwrap_or(if channels == 1 { -19.0 } else { -16.0 })
    })
}

/// The start of the UTC day of `now`, and of the next.
pub(super) fn day_bounds(now: Timestamp) -> (Timestamp, Timestamp) {
    let day = now.to_zoned(jiff::tz::TimeZone::UTC).date();
    let start = |d: jiff::civil::Date| {
        d.to_zoned(jiff::tz::TimeZone::UTC)
            .map(|z| z.timestamp())
            .unwrap_or(now)
    };
    (start(day), day.tomorrow().map_or(now, start))
}

/// When what a file offers changes by itself after `now`: a campaign starts or ends, or the
/// UTC day turns.
pub(super) fn next_change(state: &AccountState, now: Timestamp) -> Timestamp {
    let (_, tomorrow) = day_bounds(now);
    let mut changes_at = tomorrow;
    for c in state.campaigns.values() {
        for at in [c.starts, c.ends].into_iter().flatten() {
            if at > now && at < changes_at {
                changes_at = at;
            }
        }
    }
    changes_at
}

/// What `media` (a file of the account, by its blob) offers at `now`, and when that changes by
/// itself (a campaign starts or ends, the UTC day turns). `None`: it is answered as stored.
///
/// The rule that keeps a listener's ads for an episode the same all day on every server: of
/// the active campaigns that run in its slots, those that already ran there when the day (or
/// the episode) began are offered, and a campaign that began to run later joins only an
/// episode that had no ad before it (the first to begin that day; others the next day). The
/// file is offered only once every offered ad is encoded to its shape, at its loudness (an ad
/// whose encoding failed is left out): until then it is answered as stored.
pub(super) fn offer(
    state: &AccountState,
    blob: &str,
    now: Timestamp,
) -> (Option<Arc<Offer>>, Option<Timestamp>) {
    let changes_at = Some(next_change(state, now));
    let Some(media) = state.media_by_blob(blob) else {
        return (None, changes_at);
    };
    let breaks = slots_of(media);
    if breaks.is_empty() || state.campaigns.is_empty() {
        return (None, changes_at);
    }
    let Some((feed, episode)) = state.playing(media.id, now) else {
        return (None, changes_at);
    };
    if !episode.is_published(now) {
        // Until it is published (then the offer is made again).
        let first = changes_at.into_iter().chain([episode.publish_at]).min();
        return (None, first);
    }
    let Some(shape) = episode_loudness(state, media, feed).and_then(|l| AdShape::of(media, l))
    else {
        return (None, changes_at);
    };
    let positions: Vec<Position> = breaks.iter().map(|slot| position_of(*slot)).collect();
    // A video ad goes into video streams only.
    let audio_ad = |c: &crate::model::Campaign| !is_video_ad(state, c);
    let Some(running) = running(state, feed, episode, &positions, audio_ad, now) else {
        return (None, changes_at);
    };
    let mut slots = vec![Vec::new(); breaks.len()];
    for (i, c) in running {
        match state.ad_audio(c.media, &shape) {
            Some(audio) if audio.blob.is_some() => slots[i].push(OfferedAd {
                campaign: c.id.clone(),
                blob: audio.blob.clone().unwrap_or_else(|| media.blob.clone()),
            }),
            Some(audio) if job_failed(state, &audio.job) => {}
            // Not ready: the file is answered as stored until it is.
            _ => return (None, changes_at),
        }
    }
    if slots.iter().all(Vec::is_empty) {
        return (None, changes_at);
    }
    let offer = Offer {
        blob: media.blob.clone(),
        codec: shape.codec,
        breaks,
        slots,
        chapters: media.chapters.clone(),
    };
    (Some(Arc::new(offer)), changes_at)
}

/// The campaigns offered in each of an episode's slots (at `positions`) at `now`, as (slot,
/// campaign): the active campaigns that run there and whose ad `admits`, by the rule of
/// [`offer`] (those that ran there when the day or the episode began; one that began later
/// only in an episode that had none). `None`: no campaign runs there.
pub(super) fn running<'s>(
    state: &'s AccountState,
    feed: &FeedId,
    episode: &crate::model::Episode,
    positions: &[Position],
    admits: impl Fn(&crate::model::Campaign) -> bool,
    now: Timestamp,
) -> Option<Vec<(usize, &'s crate::model::Campaign)>> {
    let (today, _) = day_bounds(now);
    // The campaigns that run in each slot, and since when in this episode today.
    let began = today.max(episode.publish_at);
    let mut runs = Vec::new();
    for (i, position) in positions.iter().enumerate() {
        for c in state.campaigns.values() {
            if c.status(now, 0) == CampaignStatus::Active
                && c.targets(feed)
                && c.positions.contains(position)
                && admits(c)
            {
                runs.push((i, c, began.max(c.runs_since(feed, *position))));
            }
        }
    }
    let first = runs.iter().map(|(_, _, since)| *since).min()?;
    // A campaign that began to run later than the first waits for the next day.
    Some(
        runs.into_iter()
            .filter(|(_, _, since)| *since <= first)
            .map(|(i, c, _)| (i, c))
            .collect(),
    )
}

/// Whether campaign `c`'s ad is a video: it goes into video streams only, never into audio.
pub(super) fn is_video_ad(state: &AccountState, c: &crate::model::Campaign) -> bool {
    state
        .media
        .get(&c.media)
        .is_some_and(|m| m.kind() == crate::probe::MediaKind::Video)
}

/// Whether the job `job` that prepares an ad (an encoding, a packaging) failed or is gone: its
/// ad is left out until prepared again.
pub(super) fn job_failed(state: &AccountState, job: &crate::ids::JobId) -> bool {
    state
        .jobs
        .get(job)
        .is_none_or(|j| j.status == crate::model::JobStatus::Failed)
}

/// Whether the encoding job `job` failed (or is gone) long enough ago to be tried again.
pub(super) fn retry_due(state: &AccountState, job: &crate::ids::JobId, now: Timestamp) -> bool {
    match state.jobs.get(job) {
        None => true,
        Some(j) => {
            j.status == crate::model::JobStatus::Failed
                && j.finished.is_some_and(|f| f + RETRY_FAILED_AFTER <= now)
        }
    }
}

/// The ad a listener gets in each slot: an index into the slot's offered ads, by a hash of the
/// listener, the file, the UTC day and the slot.
pub(super) fn choose(
    offer: &Offer,
    listener: &Listener,
    now: Timestamp,
) -> Vec<(usize, OfferedAd)> {
    choose_in(offer.blob.as_str(), &offer.slots, listener, now)
}

/// The ad `listener` gets in each of `slots` of file `blob` at `now` (see [`choose`]): the
/// same all day, on every server.
pub(super) fn choose_in<T: Clone>(
    blob: &str,
    slots: &[Vec<T>],
    listener: &Listener,
    now: Timestamp,
) -> Vec<(usize, T)> {
    let day = now.to_zoned(jiff::tz::TimeZone::UTC).date();
    let address = crate::stats::listener_address(listener.address);
    let (address, day) = (address.to_string(), day.to_string());
    let mut chosen = Vec::new();
    for (i, ads) in slots.iter().enumerate() {
        if ads.is_empty() {
            continue;
        }
        let slot = i.to_string();
        let parts = [
            address.as_bytes(),
            listener.user_agent.as_bytes(),
            blob.as_bytes(),
            day.as_bytes(),
            slot.as_bytes(),
        ];
        let hash = crate::stats::parts_digest(&[], &parts);
        let n = u64::from_be_bytes(hash[..8].try_into().unwrap_or_default());
        let pick = (n % ads.len() as u64) as usize;
        chosen.push((i, ads[pick].clone()));
    }
    chosen
}

/// The key of an arrangement: the file, its breaks and the ad in each slot. Also its ETag.
pub(super) fn arrangement_key(offer: &Offer, chosen: &[(usize, OfferedAd)]) -> String {
    let named: Vec<String> = offer
        .breaks
        .iter()
        .map(|slot| format!("{slot:?}"))
        .chain(
            chosen
                .iter()
                .map(|(i, ad)| format!("{i}:{}", ad.blob.as_str())),
        )
        .collect();
    let parts: Vec<&[u8]> = named.iter().map(|n| n.as_bytes()).collect();
    let hash = crate::stats::parts_digest(offer.blob.as_str().as_bytes(), &parts);
    format!("{}-{}", offer.blob.as_str(), hex::encode(&hash[..8]))
}
