//! An episode with ads at its breaks, as an [`Arrangement`] of stored parts: the episode's
//! frames cut on frame boundaries at the breaks, the ads' frames between them, and the seams made
//! clean (see [`Mp3Layout::carriers`]).

use bytes::Bytes;

use super::{
    arrangement::{Arrangement, Piece},
    mp3::{Mp3Layout, StitchError},
};
use crate::model::BlobKey;

/// Where an ad goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Slot {
    /// Before the episode.
    Preroll,
    /// At this sample (per channel) of the episode: cut at the first frame that starts there or
    /// after.
    Midroll(u64),
    /// After the episode.
    Postroll,
}

/// A stored MP3 file: its blob, its bytes and its layout.
#[derive(Clone, Copy, Debug)]
pub struct Mp3File<'a> {
    /// Where its bytes are stored.
    pub blob: &'a BlobKey,
    /// Its bytes (read once, when the plan is made).
    pub bytes: &'a [u8],
    /// Its frames.
    pub layout: &'a Mp3Layout,
}

/// The episode with `ads` at their slots (several in one slot play in the order given), after
/// `tag` (an ID3v2 tag for the answer, or nothing). The ads must have the episode's format
/// (layer, version, sample rate, channels).
pub fn stitch(
    episode: Mp3File<'_>,
    tag: Option<Bytes>,
    ads: &[(Slot, Mp3File<'_>)],
) -> Result<Arrangement, StitchError> {
    let format = &episode.layout.header;
    for (_, ad) in ads {
        let h = &ad.layout.header;
        if !(h.same_stream(format) && h.channels == format.channels) {
            return Err(StitchError::Mixed(0));
        }
    }
    let mut ads: Vec<(Slot, usize, Mp3File<'_>)> = ads
        .iter()
        .enumerate()
        .map(|(i, (slot, file))| (*slot, i, *file))
        .collect();
    ads.sort_by_key(|(slot, i, _)| (*slot, *i));

    let mut pieces: Vec<Piece> = tag.into_iter().map(Piece::Bytes).collect();
    let frames = episode.layout.frames.len();
    let mut from = 0; // the episode's next frame
    let whole = |file: &Mp3File<'_>| Piece::Blob {
        blob: file.blob.clone(),
        range: file.layout.bytes(0..file.layout.frames.len()),
    };
    for (slot, _, ad) in &ads {
        let cut = match slot {
            Slot::Preroll => 0,
            Slot::Midroll(sample) => episode.layout.frame_at(*sample).max(from),
            Slot::Postroll => frames,
        };
        if cut > from {
            pieces.push(Piece::Blob {
                blob: episode.blob.clone(),
                range: episode.layout.bytes(from..cut),
            });
            from = cut;
        }
        pieces.push(whole(ad));
        // The episode goes on after the ad: bring the reservoir its next frame reads.
        if from < frames && !matches!(slot, Slot::Postroll) {
            let carriers = episode.layout.carriers(episode.bytes, from);
            pieces.extend(carriers.into_iter().map(Piece::Bytes));
        }
    }
    if from < frames {
        pieces.push(Piece::Blob {
            blob: episode.blob.clone(),
            range: episode.layout.bytes(from..frames),
        });
    }
    Ok(Arrangement::new(pieces))
}
