//! The two stitchers behind one face, for ad insertion: MP3 frames after the episode's ID3 tag
//! (its chapters moved), or AAC frames behind a new `moov` (chapters moved in `chpl` and the
//! chapter track). Each type matches on the codec exhaustively: a third codec is a compile
//! error here, not a file served wrong.

use bytes::Bytes;

use super::{
    AdPart, Arrangement, Cuts, Insert, M4aAd, M4aCuts, M4aFile, M4aStitched, Mp3File, Mp3Layout,
    Piece, Slot, Stitched,
};
use crate::model::{AdCodec, BlobKey};
use crate::tags::Chapter;

/// Why an episode or an ad cannot be stitched (the episode is then served as stored).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StitchFailure(String);

fn failure(what: &str, e: impl std::fmt::Display) -> StitchFailure {
    StitchFailure(format!("{what}: {e}"))
}

/// An episode cut for its slots, in its codec, prepared once per process.
#[derive(Debug)]
pub enum EpisodeCuts {
    /// MP3: the cuts, and the episode's leading ID3 tag.
    Mp3 {
        /// Where the episode is cut.
        cuts: Cuts,
        /// Its leading tag, as stored.
        tag: Bytes,
    },
    /// AAC in M4A.
    M4a(M4aCuts),
}

impl EpisodeCuts {
    /// The stored episode `bytes` (blob `blob`, in `codec`) cut at `slots`.
    pub fn new(
        codec: AdCodec,
        blob: &BlobKey,
        bytes: &[u8],
        slots: &[Slot],
    ) -> Result<EpisodeCuts, StitchFailure> {
        match codec {
            AdCodec::Mp3 => {
                let layout = Mp3Layout::read(bytes).map_err(|e| failure("not stitchable", e))?;
                let file = Mp3File {
                    blob,
                    bytes,
                    layout: &layout,
                };
                let tag_len = crate::probe::id3::tag_len(bytes).unwrap_or(0) as usize;
                Ok(EpisodeCuts::Mp3 {
                    cuts: Cuts::new(file, slots),
                    tag: Bytes::copy_from_slice(&bytes[..tag_len.min(bytes.len())]),
                })
            }
            AdCodec::Aac => M4aCuts::new(M4aFile { blob, bytes }, slots)
                .map(EpisodeCuts::M4a)
                .map_err(|e| failure("not stitchable", e)),
        }
    }

    /// The bytes it keeps, for a cache's bound.
    pub fn weight(&self) -> usize {
        match self {
            EpisodeCuts::Mp3 { cuts, tag } => cuts.weight() + tag.len(),
            EpisodeCuts::M4a(cuts) => cuts.weight(),
        }
    }

    /// The episode with `ads` in its slots (each by the slot's index), its `chapters` moved by
    /// them: the answer's pieces, its timeline and the bytes before its first frame.
    pub fn stitch(
        &self,
        ads: &[(usize, &AdFrames)],
        chapters: &[Chapter],
    ) -> Result<Heard, StitchFailure> {
        match self {
            EpisodeCuts::Mp3 { cuts, tag } => {
                let parts = all(ads, |ad| match ad {
                    AdFrames::Mp3(part) => Some(part),
                    AdFrames::M4a(_) => None,
                })?;
                let stitched = cuts
                    .stitch(&parts)
                    .map_err(|e| failure("the ads cannot be stitched", e))?;
                let chapters = stitched.chapters(chapters);
                let tag = match (tag.is_empty(), chapters.is_empty()) {
                    (true, _) => None,
                    (false, true) => Some(tag.clone()),
                    (false, false) => Some(Bytes::from(
                        crate::tags::id3_with_chapters(
                            tag,
                            &chapters,
                            Some(stitched.duration_ms()),
                        )
                        .map_err(|e| failure("the episode's tag", e))?,
                    )),
                };
                let head_bytes = tag.as_ref().map_or(0, |t| t.len() as u64);
                Ok(Heard {
                    arrangement: stitched.arrangement(tag),
                    timeline: Timeline::Mp3(stitched),
                    head_bytes,
                    chapters,
                })
            }
            EpisodeCuts::M4a(cuts) => {
                let parts = all(ads, |ad| match ad {
                    AdFrames::M4a(part) => Some(part),
                    AdFrames::Mp3(_) => None,
                })?;
                let stitched = cuts
                    .stitch(&parts)
                    .map_err(|e| failure("the ads cannot be stitched", e))?;
                let chapters = stitched.chapters(chapters);
                let arrangement = stitched
                    .arrangement(&chapters)
                    .map_err(|e| failure("the answer's moov", e))?;
                // The `ftyp`, `moov` and `mdat` header before the first frame.
                let head_bytes = match arrangement.pieces().first() {
                    Some(Piece::Bytes(head)) => head.len() as u64,
                    _ => 0,
                };
                Ok(Heard {
                    arrangement,
                    timeline: Timeline::M4a(stitched),
                    head_bytes,
                    chapters,
                })
            }
        }
    }
}

/// Each ad's frames in the episode's codec (`pick` gives them), by its slot; an ad in another
/// codec fails the whole arrangement.
fn all<'a, T>(
    ads: &[(usize, &'a AdFrames)],
    pick: impl Fn(&'a AdFrames) -> Option<&'a T>,
) -> Result<Vec<(usize, &'a T)>, StitchFailure> {
    ads.iter()
        .map(|(i, ad)| {
            pick(ad)
                .map(|part| (*i, part))
                .ok_or_else(|| StitchFailure("an ad is not encoded in the episode's codec".into()))
        })
        .collect()
}

/// An encoded ad's frames, in the codec of the episodes it goes into.
#[derive(Debug)]
pub enum AdFrames {
    /// MP3 frames.
    Mp3(AdPart),
    /// AAC frames of an M4A.
    M4a(M4aAd),
}

impl AdFrames {
    /// The frames of the stored ad `bytes` (blob `blob`), encoded in `codec`.
    pub fn read(codec: AdCodec, blob: &BlobKey, bytes: &[u8]) -> Result<AdFrames, StitchFailure> {
        let unfit = |e: &dyn std::fmt::Display| failure("an encoded ad is not stitchable", e);
        match codec {
            AdCodec::Mp3 => {
                let layout = Mp3Layout::read(bytes).map_err(|e| unfit(&e))?;
                Ok(AdFrames::Mp3(AdPart::of(Mp3File {
                    blob,
                    bytes,
                    layout: &layout,
                })))
            }
            AdCodec::Aac => M4aAd::of(M4aFile { blob, bytes })
                .map(AdFrames::M4a)
                .map_err(|e| unfit(&e)),
        }
    }
}

/// A listener's answer: its pieces, its timeline, and its chapters.
#[derive(Debug)]
pub struct Heard {
    /// The answer's bytes, piece by piece.
    pub arrangement: Arrangement,
    /// Where audio went in: what moves chapters and transcripts.
    pub timeline: Timeline,
    /// The bytes before its first audio frame (an ID3 tag; `ftyp`, `moov` and `mdat` header).
    pub head_bytes: u64,
    /// The episode's chapters as the answer plays them.
    pub chapters: Vec<Chapter>,
}

/// Where audio went into an episode, in its codec.
#[derive(Debug)]
pub enum Timeline {
    /// An MP3 answer.
    Mp3(Stitched),
    /// An M4A answer.
    M4a(M4aStitched),
}

impl Timeline {
    /// The answer's length in milliseconds.
    pub fn duration_ms(&self) -> u64 {
        match self {
            Timeline::Mp3(s) => s.duration_ms(),
            Timeline::M4a(s) => s.duration_ms(),
        }
    }

    /// Where episode time `ms` is in the answer (see [`Stitched::retime`]).
    pub fn retime(&self, ms: u64, start: bool) -> u64 {
        match self {
            Timeline::Mp3(s) => s.retime(ms, start),
            Timeline::M4a(s) => s.retime(ms, start),
        }
    }

    /// Where audio was inserted, in order.
    pub fn inserts(&self) -> &[Insert] {
        match self {
            Timeline::Mp3(s) => s.inserts(),
            Timeline::M4a(s) => s.inserts(),
        }
    }
}
