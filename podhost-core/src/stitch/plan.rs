//! An episode with ads at its breaks, as an [`Arrangement`] of stored parts: the episode's
//! frames cut on frame boundaries at the breaks, the ads' frames between them, and the seams made
//! clean (see [`Mp3Layout::carriers`]).

use bytes::Bytes;

use super::{
    arrangement::{Arrangement, Piece},
    mp3::{Mp3Layout, StitchError},
};
use crate::{model::BlobKey, tags::Chapter};

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

/// Audio inserted into the episode: where (the episode's sample at the cut) and how much.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Insert {
    /// The episode's sample (per channel) where it goes.
    pub at: u64,
    /// Its samples per channel (the ad's frames and the seam's carriers).
    pub samples: u64,
}

/// An episode with ads stitched in: the answer's audio, and where audio was inserted (what
/// retimes the episode's chapters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stitched {
    audio: Vec<Piece>,
    inserts: Vec<Insert>,
    samples_per_frame: u64,
    rate: u64,
    samples: u64,
}

impl Stitched {
    /// The answer: `tag` (an ID3v2 tag, see [`crate::tags::id3_with_chapters`]) and the audio.
    pub fn arrangement(&self, tag: Option<Bytes>) -> Arrangement {
        Arrangement::new(
            tag.map(Piece::Bytes)
                .into_iter()
                .chain(self.audio.iter().cloned()),
        )
    }

    /// Where audio was inserted, in order.
    pub fn inserts(&self) -> &[Insert] {
        &self.inserts
    }

    /// The answer's length in milliseconds (every frame, as decoders without a Xing/Info frame
    /// play them).
    pub fn duration_ms(&self) -> u64 {
        self.samples * 1000 / self.rate
    }

    /// Where episode time `ms` is in the answer: after every insert before it, and after one
    /// within a frame after it when `start` (a chapter that starts at a break starts after the
    /// ad the break got, not a frame before it).
    fn retime(&self, ms: u64, start: bool) -> u64 {
        let sample = ms * self.rate / 1000;
        let reach = if start {
            sample + self.samples_per_frame
        } else {
            sample
        };
        let shift: u64 = self
            .inserts
            .iter()
            .filter(|i| i.at < reach)
            .map(|i| i.samples)
            .sum();
        ms + shift * 1000 / self.rate
    }

    /// The episode's chapters as the answer plays them: each moved by the ads before it.
    pub fn chapters(&self, chapters: &[Chapter]) -> Vec<Chapter> {
        chapters
            .iter()
            .map(|c| Chapter {
                start_ms: self.retime(c.start_ms, true),
                end_ms: c.end_ms.map(|end| self.retime(end, false)),
                ..c.clone()
            })
            .collect()
    }
}

/// The episode with `ads` at their slots (several in one slot play in the order given). The
/// ads must have the episode's format (layer, version, sample rate, channels).
pub fn stitch(episode: Mp3File<'_>, ads: &[(Slot, Mp3File<'_>)]) -> Result<Stitched, StitchError> {
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

    let spf = u64::from(episode.layout.samples_per_frame);
    let mut audio: Vec<Piece> = Vec::new();
    let mut inserts = Vec::new();
    let frames = episode.layout.frames.len();
    let mut from = 0; // the episode's next frame
    for (slot, _, ad) in &ads {
        let cut = match slot {
            Slot::Preroll => 0,
            Slot::Midroll(sample) => episode.layout.frame_at(*sample).max(from),
            Slot::Postroll => frames,
        };
        if cut > from {
            audio.push(Piece::Blob {
                blob: episode.blob.clone(),
                range: episode.layout.bytes(from..cut),
            });
            from = cut;
        }
        audio.push(Piece::Blob {
            blob: ad.blob.clone(),
            range: ad.layout.bytes(0..ad.layout.frames.len()),
        });
        let mut inserted = ad.layout.frames.len() as u64;
        // The episode goes on after the ad: bring the reservoir its next frame reads.
        if from < frames && !matches!(slot, Slot::Postroll) {
            let carriers = episode.layout.carriers(episode.bytes, from);
            inserted += carriers.len() as u64;
            audio.extend(carriers.into_iter().map(Piece::Bytes));
        }
        inserts.push(Insert {
            at: cut as u64 * spf,
            samples: inserted * spf,
        });
    }
    if from < frames {
        audio.push(Piece::Blob {
            blob: episode.blob.clone(),
            range: episode.layout.bytes(from..frames),
        });
    }
    let samples = episode.layout.samples() + inserts.iter().map(|i| i.samples).sum::<u64>();
    Ok(Stitched {
        audio,
        inserts,
        samples_per_frame: spf,
        rate: u64::from(format.sample_rate),
        samples,
    })
}
