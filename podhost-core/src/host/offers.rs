//! Which ads an episode file offers a listener, and what this process keeps to answer them:
//! the offer of a file at a catalog version (the active campaigns of its podcast whose ad is
//! encoded like it), the listener's choice by a hash of listener, file and UTC day, and the
//! caches of prepared episodes, ads and arrangements. Pure functions of the state; the host's
//! side is `insertion.rs`.

use std::{net::IpAddr, ops::Range, sync::Arc};

use bytes::Bytes;
use jiff::Timestamp;

use crate::{
    cache::{Cache, Weigh},
    ids::{AccountId, CampaignId, FeedId, MediaId},
    model::{AdShape, BlobKey, CampaignStatus, Media, Position},
    state::AccountState,
    stitch::{AdPart, Arrangement, Cuts, Piece, Slot, Stitched},
    tags::Chapter,
};

/// The bytes of prepared episodes and ads this process keeps.
const PREPARED_BYTES: usize = 64 << 20;
/// The bytes of arrangements (their pieces and tags) this process keeps.
const ARRANGEMENT_BYTES: usize = 32 << 20;
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
    pub(super) breaks: Vec<Slot>,
    /// The ads that may go in each of the breaks.
    pub(super) slots: Vec<Vec<OfferedAd>>,
    /// The episode's chapters (moved by the ads for each listener).
    pub(super) chapters: Vec<Chapter>,
    /// Ads to encode to the file's shape, by ad media id.
    pub(super) missing: Vec<(MediaId, AdShape)>,
}

impl Weigh for Option<Arc<Offer>> {
    fn weight(&self) -> usize {
        self.as_ref().map_or(16, |o| {
            256 + o.slots.iter().map(|ads| 64 + 96 * ads.len()).sum::<usize>()
                + o.chapters.len() * 128
        })
    }
}

/// An episode file cut at its breaks, with its leading tag.
pub(super) struct Prepared {
    pub(super) cuts: Cuts,
    pub(super) tag: Bytes,
}

impl Weigh for Arc<Prepared> {
    fn weight(&self) -> usize {
        self.cuts.weight() + self.tag.len()
    }
}

impl Weigh for Arc<AdPart> {
    fn weight(&self) -> usize {
        256
    }
}

/// An arrangement as served: its pieces, where its ads are, its chapters.
#[derive(Debug)]
pub(super) struct Arranged {
    pub(super) arrangement: Arrangement,
    pub(super) stitched: Stitched,
    pub(super) tag_bytes: u64,
    /// Per ad in order: its slot's position in the arrangement.
    pub(super) ads: Vec<Range<u64>>,
    pub(super) chapters: Vec<Chapter>,
}

impl Weigh for Arc<Arranged> {
    fn weight(&self) -> usize {
        let bytes: usize = self
            .arrangement
            .pieces()
            .iter()
            .map(|p| match p {
                Piece::Bytes(b) => b.len() + 64,
                Piece::Blob { .. } => 96,
            })
            .sum();
        bytes + self.chapters.len() * 128 + 256
    }
}

/// This process's caches of ad insertion.
pub(super) struct Caches {
    pub(super) offers: Cache<(AccountId, String), u64, Option<Arc<Offer>>>,
    pub(super) prepared: Cache<(AccountId, String, Vec<Slot>), (), Arc<Prepared>>,
    pub(super) ad_parts: Cache<(AccountId, String), (), Arc<AdPart>>,
    pub(super) arranged: Cache<(AccountId, String), (), Arc<Arranged>>,
    /// Encodings asked for by this process and when (so a busy episode asks once, and again
    /// only after a failed encoding may be retried).
    pub(super) asked:
        std::sync::Mutex<std::collections::HashMap<(AccountId, MediaId, AdShape), Timestamp>>,
    /// One episode prepared at a time (each reads its whole file once).
    pub(super) preparing: tokio::sync::Mutex<()>,
}

impl Default for Caches {
    fn default() -> Self {
        Caches {
            offers: Cache::new(ARRANGEMENT_BYTES),
            prepared: Cache::new(PREPARED_BYTES),
            ad_parts: Cache::new(PREPARED_BYTES / 16),
            arranged: Cache::new(ARRANGEMENT_BYTES),
            asked: Default::default(),
            preparing: Default::default(),
        }
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

/// The podcast of the published episode that plays `media` as its audio (of several, the one
/// its downloads count for: [`Episode::playing_rank`](crate::model::Episode::playing_rank)).
pub(super) fn episode_playing(
    state: &AccountState,
    media: MediaId,
    now: Timestamp,
) -> Option<FeedId> {
    state
        .playing(media, now)
        .filter(|(_, e)| e.is_published(now))
        .map(|(feed, _)| feed.clone())
}

/// The loudness an ad is mastered to when the episode's was never measured: the podcast's
/// mastering target, else the usual target for its channels.
pub(super) fn fallback_loudness(state: &AccountState, feed: &FeedId, channels: u16) -> f64 {
    state
        .feeds
        .get(feed)
        .filter(|e| e.feed.audio.master)
        .and_then(|e| e.feed.audio.target)
        .unwrap_or(if channels == 1 { -19.0 } else { -16.0 })
}

/// What `media` (a file of the account, by its blob) offers at `now`, and when that changes by
/// itself (a campaign starts or ends). `None`: no ad goes in it.
pub(super) fn offer(
    state: &AccountState,
    blob: &str,
    now: Timestamp,
) -> (Option<Arc<Offer>>, Option<Timestamp>) {
    let mut changes_at: Option<Timestamp> = None;
    for c in state.campaigns.values() {
        for at in [c.starts, c.ends].into_iter().flatten() {
            if at > now && changes_at.is_none_or(|t| at < t) {
                changes_at = Some(at);
            }
        }
    }
    let Some(media) = state.media_by_blob(blob) else {
        return (None, changes_at);
    };
    let breaks = slots_of(media);
    if breaks.is_empty() || state.campaigns.is_empty() {
        return (None, changes_at);
    }
    let Some(feed) = episode_playing(state, media.id, now) else {
        // Until an episode that plays it is published (then the offer is made again).
        let publishes = state
            .episodes_using(media.id)
            .map(|(_, e)| e)
            .filter(|e| e.media == Some(media.id) && e.publish_at > now)
            .map(|e| e.publish_at)
            .min();
        let first = [changes_at, publishes].into_iter().flatten().min();
        return (None, first);
    };
    let channels = media.facts.audio.as_ref().map_or(2, |a| a.channels);
    let Some(shape) = AdShape::of(media, fallback_loudness(state, &feed, channels)) else {
        return (None, changes_at);
    };
    let mut missing = Vec::new();
    let mut slots = Vec::new();
    let mut any = false;
    for slot in &breaks {
        let mut ads = Vec::new();
        for c in state.campaigns.values() {
            if c.status(now, 0) != CampaignStatus::Active
                || !c.targets(&feed)
                || !c.positions.contains(&position_of(*slot))
            {
                continue;
            }
            match state.ad_audio(c.media, &shape) {
                Some(audio) if audio.blob.is_some() => ads.push(OfferedAd {
                    campaign: c.id.clone(),
                    blob: audio.blob.clone().unwrap_or_else(|| media.blob.clone()),
                }),
                Some(audio) if !retry_due(state, &audio.job, now) => {}
                _ => {
                    if !missing.contains(&(c.media, shape)) {
                        missing.push((c.media, shape));
                    }
                }
            }
        }
        any |= !ads.is_empty();
        slots.push(ads);
    }
    let offer = Offer {
        blob: media.blob.clone(),
        breaks,
        slots,
        chapters: media.chapters.clone(),
        missing,
    };
    // An offer with no ad ready still carries what to encode.
    match any || !offer.missing.is_empty() {
        true => (Some(Arc::new(offer)), changes_at),
        false => (None, changes_at),
    }
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
    let day = now.to_zoned(jiff::tz::TimeZone::UTC).date();
    let address = crate::stats::listener_address(listener.address);
    let (address, day) = (address.to_string(), day.to_string());
    let mut chosen = Vec::new();
    for (i, ads) in offer.slots.iter().enumerate() {
        if ads.is_empty() {
            continue;
        }
        let slot = i.to_string();
        let parts = [
            address.as_bytes(),
            listener.user_agent.as_bytes(),
            offer.blob.as_str().as_bytes(),
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
