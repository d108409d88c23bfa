//! Dynamic ad insertion at the enclosure URL: which ads a listener hears in an episode, and the
//! stitched answer they get.
//!
//! An episode file (MP3, or AAC in M4A) with ad breaks, used as the audio of a published
//! episode, **offers**
//! each of its slots (preroll, each midroll, postroll) to the active campaigns that run in its
//! podcast at that position and whose ad is encoded like the episode (see
//! [`AdShape`]). A listener (IAB: the address, an IPv6 one by its /64, and the user agent) gets
//! one of the offered ads per slot, chosen by a hash of the listener, the file and the UTC day:
//! every range of one listen, and a download resumed the same day, read the same arrangement,
//! on any server. The arrangement is stitched from stored parts ([`crate::stitch`]) and never
//! stored; its ETag names the ads in it.
//!
//! The ads are prepared before the first listen (`ad_prep.rs`: the episode's loudness
//! measured, each ad encoded to its shape, as background jobs, when what they depend on
//! changes); an episode whose ads are not all ready is answered as stored, and so is a file
//! without breaks or without a campaign to put in them. No request writes to the store.

use std::{ops::Range, sync::Arc};

use bytes::Bytes;
use futures::{StreamExt, stream::BoxStream};

use super::{
    Ads,
    offers::{Arranged, Listener, Offer, OfferedAd, arrangement_key, choose, offer},
};
use crate::{
    error::{Error, Result},
    ids::AccountId,
    model::{AdCodec, AdSpan, BlobKey},
    publish::PublicMedia,
    stitch::{AdFrames, EpisodeCuts, Piece, Slot},
};

/// The largest transcript moved by ads (a bigger one is served as stored).
const MAX_TRANSCRIPT_BYTES: u64 = 8 << 20;

/// What an enclosure URL answers one listener.
#[derive(Clone, Debug)]
pub enum Enclosure {
    /// The stored file, as it is.
    File(PublicMedia),
    /// The episode with ads at its breaks.
    Stitched(Box<StitchedEnclosure>),
    /// The episode's transcript, its times moved by those ads.
    Retimed(Box<RetimedText>),
}

/// A transcript moved by the ads of the listener's answer for the episode.
#[derive(Clone, Debug)]
pub struct RetimedText {
    /// The transcript's stored file (its type).
    pub media: PublicMedia,
    /// A strong validator: the file and the arrangement it follows.
    pub etag: String,
    /// The transcript with its times moved.
    pub bytes: Bytes,
}

/// A stitched answer: the episode's file (its type and date) with ads at its breaks.
#[derive(Clone, Debug)]
pub struct StitchedEnclosure {
    /// The episode's stored file.
    pub media: PublicMedia,
    /// A strong validator naming the arrangement (the file and the ads in it).
    pub etag: String,
    /// The ads in it, in order.
    pub ads: Vec<AdSpan>,
    account: AccountId,
    arrangement: Arc<Arranged>,
}

impl StitchedEnclosure {
    /// Its length in bytes.
    pub fn len(&self) -> u64 {
        self.arrangement.heard.arrangement.len()
    }

    /// Its length in milliseconds.
    pub fn duration_ms(&self) -> u64 {
        self.arrangement.heard.timeline.duration_ms()
    }

    /// Whether it has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes before its first audio frame: an MP3's leading ID3 tag, an M4A's `ftyp`,
    /// `moov` and `mdat` header (what a download's first minute adds to the audio).
    pub fn tag_bytes(&self) -> u64 {
        self.arrangement.heard.head_bytes
    }

    /// What a download of it counts by in the statistics.
    pub fn delivery(&self) -> crate::stats::StitchedDelivery {
        crate::stats::StitchedDelivery {
            len: self.len(),
            tag_bytes: self.tag_bytes(),
            duration_ms: self.duration_ms(),
            ads: self.ads.clone(),
        }
    }
}

impl Ads<'_> {
    /// What the enclosure URL of `media` (a public file of `account`) answers `listener`: the
    /// file as stored, or the episode with ads at its breaks (once every ad is ready).
    pub async fn enclosure_for(
        &self,
        account: &AccountId,
        media: PublicMedia,
        listener: &Listener,
    ) -> Result<Enclosure> {
        match self.with_ads(account, media, listener).await? {
            Ok(answer) => Ok(Enclosure::Stitched(answer)),
            Err(media) if crate::stitch::Timed::of(&media.mime).is_some() => {
                self.transcript_for(account, media, listener).await
            }
            Err(media) => Ok(Enclosure::File(media)),
        }
    }

    /// The episode with ads `listener` gets for the file `media`, or the file back when it
    /// takes none.
    async fn with_ads(
        &self,
        account: &AccountId,
        media: PublicMedia,
        listener: &Listener,
    ) -> Result<std::result::Result<Box<StitchedEnclosure>, PublicMedia>> {
        let Some(catalog) = self.host.existing_catalog(account).await? else {
            return Ok(Err(media));
        };
        let now = self.host.now();
        let caches = &self.state();
        let key = (account.clone(), media.etag.clone());
        let version = catalog.fresh_seq().await;
        let offer = match caches.offers.get(&key, &version, now) {
            Some(offer) => offer,
            None => {
                let (offer, changes_at) =
                    catalog.read(|state| offer(state, &media.etag, now)).await;
                caches.offers.put(key, version, changes_at, offer.clone());
                offer
            }
        };
        let Some(offer) = offer else {
            return Ok(Err(media));
        };
        let chosen = choose(&offer, listener, now);
        if chosen.is_empty() {
            return Ok(Err(media));
        }
        let etag = arrangement_key(&offer, &chosen);
        let arranged = match caches
            .arranged
            .get(&(account.clone(), etag.clone()), &(), now)
        {
            Some(arranged) => arranged,
            None => {
                let arranged = match self.arrange(account, &media, &offer, &chosen).await {
                    Ok(arranged) => Arc::new(arranged),
                    // A file that cannot take ads (a damaged frame, CRC-protected frames), or an
                    // ad that cannot go in, is answered as it is: the download matters more.
                    Err(e @ Error::Invalid(_)) => {
                        tracing::warn!(%account, blob = media.etag, error = %e, "served without ads");
                        return Ok(Err(media));
                    }
                    Err(e) => return Err(e),
                };
                caches
                    .arranged
                    .put((account.clone(), etag.clone()), (), None, arranged.clone());
                arranged
            }
        };
        let ads = chosen
            .iter()
            .zip(&arranged.ads)
            .map(|((_, ad), bytes)| AdSpan {
                campaign: ad.campaign.clone(),
                bytes: bytes.clone(),
            })
            .collect();
        Ok(Ok(Box::new(StitchedEnclosure {
            media,
            etag,
            ads,
            account: account.clone(),
            arrangement: arranged,
        })))
    }

    /// A transcript (`media`) of a published episode as `listener` gets it: its times moved by
    /// the ads of the answer the same listener gets for the episode's audio; the file as stored
    /// when that answer has no ads, or the format has no times.
    async fn transcript_for(
        &self,
        account: &AccountId,
        media: PublicMedia,
        listener: &Listener,
    ) -> Result<Enclosure> {
        let Some(catalog) = self.host.existing_catalog(account).await? else {
            return Ok(Enclosure::File(media));
        };
        let now = self.host.now();
        let audio = catalog
            .read(|state| {
                let transcript = state.media_by_blob(&media.etag)?.id;
                let audio = state
                    .episodes_using(transcript)
                    .map(|(_, e)| e)
                    .filter(|e| e.transcript == Some(transcript) && e.is_published(now))
                    .find_map(|e| e.media)?;
                Some(state.media.get(&audio)?.blob.as_str().to_string())
            })
            .await;
        let audio = match audio {
            Some(blob) if media.size <= MAX_TRANSCRIPT_BYTES => self
                .host
                .delivery()
                .public_media(account.as_str(), &blob)
                .await
                .ok(),
            _ => None,
        };
        let Some(audio) = audio else {
            return Ok(Enclosure::File(media));
        };
        let Ok(answer) = self.with_ads(account, audio, listener).await? else {
            return Ok(Enclosure::File(media));
        };
        let text = self.whole_blob(&media.location).await?;
        let timeline = &answer.arrangement.heard.timeline;
        let moved = crate::stitch::retime_transcript(&media.mime, &text, |ms, start| {
            timeline.retime(ms, start)
        });
        match moved {
            Some(bytes) => Ok(Enclosure::Retimed(Box::new(RetimedText {
                etag: format!("{}-{}", media.etag, answer.etag),
                media,
                bytes: Bytes::from(bytes),
            }))),
            None => Ok(Enclosure::File(media)),
        }
    }

    /// The bytes `range` of a stitched answer, read piece by piece from the store as the body
    /// is sent (memory stays bounded whatever the length).
    pub fn stitched_bytes(
        &self,
        answer: &StitchedEnclosure,
        range: Range<u64>,
    ) -> BoxStream<'static, Result<Bytes>> {
        // 'static: the stream owns a host, not this borrowed handle.
        let host = self.host.clone();
        let account = answer.account.clone();
        let slices: Vec<(Piece, Range<u64>)> = answer
            .arrangement
            .heard
            .arrangement
            .slices(range)
            .map(|(piece, within)| (piece.clone(), within))
            .collect();
        futures::stream::iter(slices)
            .then(move |(piece, within)| {
                let (host, account) = (host.clone(), account.clone());
                async move {
                    match piece {
                        Piece::Bytes(bytes) => Ok(futures::stream::once(async move {
                            Ok(bytes.slice(within.start as usize..within.end as usize))
                        })
                        .boxed()),
                        Piece::Blob { blob, .. } => {
                            let path = crate::store::layout::blob(&account, &blob);
                            host.read_range(&path, within).await
                        }
                    }
                }
            })
            .map(|read| match read {
                Ok(stream) => stream,
                Err(e) => futures::stream::once(async move { Err(e) }).boxed(),
            })
            .flatten()
            .boxed()
    }

    /// The JSON chapters of a public file (`/chapters/{account}/{blob}.json`) as `listener`
    /// hears them: moved by the ads their enclosure answer carries (`true`), else as stored.
    /// `NotFound` as [`Delivery::public_chapters`](crate::Delivery::public_chapters) answers it.
    pub async fn listener_chapters(
        &self,
        account: &str,
        blob: &str,
        listener: &Listener,
    ) -> Result<(Bytes, bool)> {
        let (account, media) = self.host.public_file(account, blob).await?;
        if media.chapters.is_empty() {
            return Err(crate::error::Error::not_found("chapters", blob));
        }
        self.chapters_heard(&account, &media, listener).await
    }

    /// `media`'s chapters as `listener` hears them: moved by the ads of their answer for the
    /// file (`true`), else as stored.
    pub(in crate::host) async fn chapters_heard(
        &self,
        account: &AccountId,
        media: &crate::model::Media,
        listener: &Listener,
    ) -> Result<(Bytes, bool)> {
        let file = crate::host::rendering::public_media_of(account, media);
        Ok(match self.with_ads(account, file, listener).await? {
            Ok(answer) => (
                crate::publish::chapters::render(&answer.arrangement.heard.chapters).into(),
                true,
            ),
            Err(_) => (
                crate::publish::chapters::render(&media.chapters).into(),
                false,
            ),
        })
    }

    /// The arrangement of `chosen` ads in `offer`'s file: the file's cuts (prepared once per
    /// process), the ads' frames, the chapters moved (in the ID3 tag, or the `moov`).
    async fn arrange(
        &self,
        account: &AccountId,
        media: &PublicMedia,
        offer: &Offer,
        chosen: &[(usize, OfferedAd)],
    ) -> Result<Arranged> {
        let cuts = self
            .prepared(account, media, offer.codec, &offer.breaks)
            .await?;
        let mut parts = Vec::new();
        for (_, ad) in chosen {
            parts.push(self.ad_frames(account, offer.codec, &ad.blob).await?);
        }
        let refs: Vec<(usize, &AdFrames)> = chosen
            .iter()
            .zip(&parts)
            .map(|((i, _), part)| (*i, part.as_ref()))
            .collect();
        let heard = cuts
            .stitch(&refs, &offer.chapters)
            .map_err(|e| Error::invalid("media", e.to_string()))?;
        let ads = ad_spans(heard.arrangement.pieces(), &offer.blob, chosen);
        Ok(Arranged { heard, ads })
    }

    /// The episode file cut at `breaks`, read once per process.
    async fn prepared(
        &self,
        account: &AccountId,
        media: &PublicMedia,
        codec: AdCodec,
        breaks: &[Slot],
    ) -> Result<Arc<EpisodeCuts>> {
        let key = (account.clone(), media.etag.clone(), breaks.to_vec());
        let caches = &self.state();
        if let Some(prepared) = caches.prepared.get(&key, &(), self.host.now()) {
            return Ok(prepared);
        }
        // One at a time: a burst of first listens of many episodes holds one file in memory,
        // and listens of one episode wait for its preparation instead of repeating it.
        let _one = caches.preparing.lock().await;
        if let Some(prepared) = caches.prepared.get(&key, &(), self.host.now()) {
            return Ok(prepared);
        }
        let bytes = self.whole_blob(&media.location).await?;
        let (blob, breaks) = (BlobKey(media.etag.clone()), breaks.to_vec());
        let prepared = tokio::task::spawn_blocking(move || {
            EpisodeCuts::new(codec, &blob, &bytes, &breaks)
                .map_err(|e| Error::invalid("media", e.to_string()))
        })
        .await
        .map_err(|e| Error::storage(format!("preparing the episode stopped: {e}")))??;
        let prepared = Arc::new(prepared);
        caches.prepared.put(key, (), None, prepared.clone());
        Ok(prepared)
    }

    /// An encoded ad's frames, read once per process.
    async fn ad_frames(
        &self,
        account: &AccountId,
        codec: AdCodec,
        blob: &BlobKey,
    ) -> Result<Arc<AdFrames>> {
        let key = (account.clone(), blob.as_str().to_string());
        let caches = &self.state();
        if let Some(part) = caches.ad_parts.get(&key, &(), self.host.now()) {
            return Ok(part);
        }
        let bytes = self
            .whole_blob(&crate::store::layout::blob(account, blob))
            .await?;
        let part = AdFrames::read(codec, blob, &bytes)
            .map_err(|e| Error::invalid("media", e.to_string()))?;
        let part = Arc::new(part);
        caches.ad_parts.put(key, (), None, part.clone());
        Ok(part)
    }

    async fn whole_blob(&self, location: &object_store::path::Path) -> Result<Bytes> {
        use object_store::ObjectStoreExt;
        Ok(self.host.store().get(location).await?.bytes().await?)
    }
}

/// Where each of the `chosen` ads is in an answer of `pieces` (of the episode `episode`): the
/// pieces of its blob, in order, a run of them continuous in the blob counted as one ad.
fn ad_spans(pieces: &[Piece], episode: &BlobKey, chosen: &[(usize, OfferedAd)]) -> Vec<Range<u64>> {
    let mut ads: Vec<Range<u64>> = Vec::new();
    let mut at = 0;
    let mut next = 0;
    // The blob and where in it the last ad piece ended.
    let mut last: Option<(&BlobKey, u64)> = None;
    for piece in pieces {
        let len = piece.len();
        match piece {
            Piece::Blob { blob, range } if blob != episode => {
                let continues = last.is_some_and(|(b, end)| b == blob && end == range.start);
                match ads.last_mut() {
                    Some(span) if continues && span.end == at => span.end += len,
                    _ if chosen.get(next).is_some_and(|(_, ad)| ad.blob == *blob) => {
                        ads.push(at..at + len);
                        next += 1;
                    }
                    _ => {}
                }
                last = Some((blob, range.end));
            }
            _ => last = None,
        }
        at += len;
    }
    ads
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_chosen_ad_is_found_whole_in_the_answer() {
        let (episode, ad) = (BlobKey("episode".into()), BlobKey("ad".into()));
        let blob = |b: &BlobKey, range: Range<u64>| Piece::Blob {
            blob: b.clone(),
            range,
        };
        let chosen: Vec<(usize, OfferedAd)> = (0..4)
            .map(|i| {
                let ad = OfferedAd {
                    campaign: crate::ids::CampaignId::random(),
                    blob: ad.clone(),
                };
                (i, ad)
            })
            .collect();
        let pieces = [
            Piece::Bytes(Bytes::from_static(b"head")),
            // An ad in two runs of its file, continuous: one ad.
            blob(&ad, 100..150),
            blob(&ad, 150..200),
            blob(&episode, 0..1000),
            // The same ad twice with nothing between: two ads.
            blob(&ad, 100..200),
            blob(&ad, 100..200),
            Piece::Bytes(Bytes::from_static(b"carrier")),
            blob(&episode, 1000..2000),
            blob(&ad, 100..200),
        ];
        let spans = ad_spans(&pieces, &episode, &chosen);
        assert_eq!(spans, [4..104, 1104..1204, 1204..1304, 2311..2411]);
    }
}
