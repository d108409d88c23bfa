//! An episode with ads at its breaks, as an [`Arrangement`] of stored parts: the episode's
//! frames cut on frame boundaries at the breaks, the ads' frames between them, and the seams made
//! clean (see [`Mp3Layout::carriers`]).

use bytes::Bytes;

use super::{
    arrangement::{Arrangement, Piece},
    mp3::{Mp3Layout, SilentFrames, StitchError},
};
use crate::{model::BlobKey, probe::frame::FrameHeader, tags::Chapter};

/// Where an ad goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
    /// The pieces of audio, each with its number of frames.
    audio: Vec<(Piece, u64)>,
    /// Silent frames of the episode's stream (for the Xing frame).
    silent: SilentFrames,
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
                .chain(self.xing().map(Piece::Bytes))
                .chain(self.audio.iter().map(|(piece, _)| piece.clone())),
        )
    }

    /// A Xing frame for the answer's audio (frames, bytes with its own, and a table of where
    /// each percent of the time begins), so players know its duration and seek in it though
    /// its bitrate changes (at the ads and the seams).
    fn xing(&self) -> Option<Bytes> {
        const TAG: usize = 4 + 4 + 4 + 4 + 100;
        let mut frame = self.silent.with_room(TAG)?;
        let frames: u64 = self.audio.iter().map(|(_, n)| n).sum();
        let audio: u64 = self.audio.iter().map(|(p, _)| p.len()).sum();
        let own = frame.len() as u64;
        let bytes = own + audio;
        // Where frame `f` begins, counted from the Xing frame: pieces are taken as even inside.
        let offset = |f: u64| {
            let (mut frame_at, mut byte_at) = (0u64, own);
            for (piece, n) in &self.audio {
                if f < frame_at + n {
                    return byte_at + piece.len() * (f - frame_at) / n;
                }
                frame_at += n;
                byte_at += piece.len();
            }
            bytes
        };
        let mut toc = [0u8; 100];
        for (i, entry) in toc.iter_mut().enumerate() {
            let at = offset(frames * i as u64 / 100);
            *entry = (at * 256 / bytes).min(255) as u8;
        }
        let at = self.silent.main_data();
        let mut tag = Vec::with_capacity(TAG);
        tag.extend_from_slice(b"Xing");
        tag.extend_from_slice(&7u32.to_be_bytes()); // frames, bytes, TOC
        tag.extend_from_slice(&u32::try_from(frames).ok()?.to_be_bytes());
        tag.extend_from_slice(&u32::try_from(bytes).ok()?.to_be_bytes());
        tag.extend_from_slice(&toc);
        frame[at..at + tag.len()].copy_from_slice(&tag);
        Some(Bytes::from(frame))
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
    pub fn retime(&self, ms: u64, start: bool) -> u64 {
        retime(&self.inserts, self.rate, self.samples_per_frame, ms, start)
    }

    /// The episode's chapters as the answer plays them: each moved by the ads before it.
    pub fn chapters(&self, chapters: &[Chapter]) -> Vec<Chapter> {
        moved(chapters, |ms, start| self.retime(ms, start))
    }
}

/// Where episode time `ms` is in an answer with audio inserted at `inserts` (`rate` samples a
/// second, frames of `frame` samples): after every insert before it, and after one within a
/// frame after it when `start` (a chapter that starts at a break starts after the ad the break
/// got, not a frame before it).
pub(super) fn retime(inserts: &[Insert], rate: u64, frame: u64, ms: u64, start: bool) -> u64 {
    let sample = ms * rate / 1000;
    let reach = if start { sample + frame } else { sample };
    let shift: u64 = inserts
        .iter()
        .filter(|i| i.at < reach)
        .map(|i| i.samples)
        .sum();
    ms + shift * 1000 / rate
}

/// `chapters` moved by `retime` (their starts as starts, their ends as ends).
pub(super) fn moved(chapters: &[Chapter], retime: impl Fn(u64, bool) -> u64) -> Vec<Chapter> {
    chapters
        .iter()
        .map(|c| Chapter {
            start_ms: retime(c.start_ms, true),
            end_ms: c.end_ms.map(|end| retime(end, false)),
            ..c.clone()
        })
        .collect()
}

/// An ad's frames, as stitching takes them: where they are stored, how many, their format.
#[derive(Clone, Debug)]
pub struct AdPart {
    blob: BlobKey,
    range: std::ops::Range<u64>,
    frames: u64,
    /// The length of its last frame (which a seam's carrier takes the place of).
    last: u64,
    header: FrameHeader,
}

impl AdPart {
    /// Every audio frame of `file`.
    pub fn of(file: Mp3File<'_>) -> AdPart {
        AdPart {
            blob: file.blob.clone(),
            range: file.layout.bytes(0..file.layout.frames.len()),
            frames: file.layout.frames.len() as u64,
            last: file.layout.frames.last().map_or(0, |f| u64::from(f.len)),
            header: file.layout.header,
        }
    }

    /// Its length in bytes.
    pub fn len(&self) -> u64 {
        self.range.end - self.range.start
    }

    /// Whether it has no frames.
    pub fn is_empty(&self) -> bool {
        self.frames == 0
    }
}

/// Where an episode is cut for its slots, prepared once (the only step that reads the episode's
/// bytes) and kept: each cut's byte offset and the carriers that make its seam clean. Any choice
/// of ads for those slots is then stitched from it without reading the episode again.
#[derive(Clone, Debug)]
pub struct Cuts {
    blob: BlobKey,
    header: FrameHeader,
    silent: SilentFrames,
    samples_per_frame: u64,
    samples: u64,
    /// The bytes of the episode's audio frames.
    audio: std::ops::Range<u64>,
    cuts: Vec<Cut>,
}

#[derive(Clone, Debug)]
struct Cut {
    /// The episode's frame the ad goes before (the frame count: after the last).
    frame: u64,
    /// Where that frame starts in the file (the audio's end after the last).
    offset: u64,
    /// The frame that brings the reservoir the frame after the ad reads.
    carrier: Option<Bytes>,
}

impl Cuts {
    /// The cuts of `episode` at `slots` (in the order given; a midroll never cuts before the
    /// slot before it).
    pub fn new(episode: Mp3File<'_>, slots: &[Slot]) -> Cuts {
        let layout = episode.layout;
        let frames = layout.frames.len();
        let audio = layout.bytes(0..frames);
        let mut from = 0;
        let cuts = slots
            .iter()
            .map(|slot| {
                let frame = match slot {
                    Slot::Preroll => 0,
                    Slot::Midroll(sample) => layout.frame_at(*sample).max(from),
                    Slot::Postroll => frames,
                };
                from = frame;
                Cut {
                    frame: frame as u64,
                    offset: layout.frames.get(frame).map_or(audio.end, |f| f.offset),
                    carrier: match slot {
                        Slot::Postroll => None,
                        _ => layout.carrier(episode.bytes, frame),
                    },
                }
            })
            .collect();
        Cuts {
            blob: episode.blob.clone(),
            header: layout.header,
            silent: layout.silent,
            samples_per_frame: u64::from(layout.samples_per_frame),
            samples: layout.samples(),
            audio,
            cuts,
        }
    }

    /// The episode with `ads` in its slots, each given by the slot's index in the slots the
    /// cuts were made for (several in one slot play in the order given). The ads must have the
    /// episode's format (layer, version, sample rate, channels).
    pub fn stitch(&self, ads: &[(usize, &AdPart)]) -> Result<Stitched, StitchError> {
        for (slot, ad) in ads {
            if *slot >= self.cuts.len() {
                return Err(StitchError::NoSlot(*slot));
            }
            let h = &ad.header;
            if !(h.same_stream(&self.header) && h.channels == self.header.channels) {
                return Err(StitchError::Mixed(0));
            }
        }
        let mut order: Vec<(usize, usize)> = ads
            .iter()
            .enumerate()
            .map(|(i, (slot, _))| (*slot, i))
            .collect();
        order.sort();
        let spf = self.samples_per_frame;
        let mut audio: Vec<(Piece, u64)> = Vec::new();
        let frames_in = |bytes: std::ops::Range<u64>| self.frames_between(bytes);
        let mut inserts = Vec::new();
        let mut from = self.audio.start; // the episode's next byte
        let mut last = None;
        for (slot, i) in order {
            let cut = &self.cuts[slot];
            if cut.offset > from {
                let frames = frames_in(from..cut.offset);
                let range = from..cut.offset;
                audio.push((
                    Piece::Blob {
                        blob: self.blob.clone(),
                        range,
                    },
                    frames,
                ));
                from = cut.offset;
            }
            let ad = ads[i].1;
            let inserted = ad.frames;
            // The episode goes on after the ad (after the last ad of the slot): a carrier in
            // place of the ad's last frame brings the reservoir its next frame reads.
            let next_in_slot = ads
                .iter()
                .enumerate()
                .any(|(j, (s, _))| *s == slot && j > i);
            match (&cut.carrier, next_in_slot) {
                (Some(carrier), false) if ad.frames > 0 => {
                    let range = ad.range.start..ad.range.end - ad.last;
                    let blob = ad.blob.clone();
                    audio.push((Piece::Blob { blob, range }, ad.frames - 1));
                    audio.push((Piece::Bytes(carrier.clone()), 1));
                }
                _ => {
                    let range = ad.range.clone();
                    let blob = ad.blob.clone();
                    audio.push((Piece::Blob { blob, range }, ad.frames));
                }
            }
            match &mut last {
                Some((at, insert)) if *at == slot => {
                    let insert: &mut Insert = insert;
                    insert.samples += inserted * spf;
                }
                _ => {
                    if let Some((_, insert)) = last.take() {
                        inserts.push(insert);
                    }
                    last = Some((
                        slot,
                        Insert {
                            at: cut.frame * spf,
                            samples: inserted * spf,
                        },
                    ));
                }
            }
        }
        if let Some((_, insert)) = last {
            inserts.push(insert);
        }
        if from < self.audio.end {
            let frames = frames_in(from..self.audio.end);
            let range = from..self.audio.end;
            audio.push((
                Piece::Blob {
                    blob: self.blob.clone(),
                    range,
                },
                frames,
            ));
        }
        let samples = self.samples + inserts.iter().map(|i| i.samples).sum::<u64>();
        Ok(Stitched {
            audio,
            silent: self.silent,
            inserts,
            samples_per_frame: spf,
            rate: u64::from(self.header.sample_rate),
            samples,
        })
    }

    /// The episode's frames in its bytes `range` (which begins and ends at cuts or at the
    /// audio's ends).
    fn frames_between(&self, range: std::ops::Range<u64>) -> u64 {
        let frame_at = |offset: u64| {
            if offset == self.audio.start {
                Some(0)
            } else if offset == self.audio.end {
                Some(self.samples / self.samples_per_frame)
            } else {
                self.cuts
                    .iter()
                    .find(|c| c.offset == offset)
                    .map(|c| c.frame)
            }
        };
        match (frame_at(range.start), frame_at(range.end)) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => 0,
        }
    }

    /// The bytes it keeps (the carriers), for a cache's bound.
    pub fn weight(&self) -> usize {
        self.cuts
            .iter()
            .filter_map(|c| c.carrier.as_ref())
            .map(Bytes::len)
            .sum::<usize>()
            + std::mem::size_of::<Self>()
    }
}

/// The episode with `ads` at their slots (several in one slot play in the order given). The
/// ads must have the episode's format (layer, version, sample rate, channels).
pub fn stitch(episode: Mp3File<'_>, ads: &[(Slot, Mp3File<'_>)]) -> Result<Stitched, StitchError> {
    let mut slots: Vec<Slot> = ads.iter().map(|(slot, _)| *slot).collect();
    slots.sort();
    slots.dedup();
    let cuts = Cuts::new(episode, &slots);
    let parts: Vec<(usize, AdPart)> = ads
        .iter()
        .map(|(slot, file)| {
            let index = slots.iter().position(|s| s == slot).unwrap_or(0);
            (index, AdPart::of(*file))
        })
        .collect();
    let refs: Vec<(usize, &AdPart)> = parts.iter().map(|(i, p)| (*i, p)).collect();
    cuts.stitch(&refs)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// An MP3 stream of `frames` MPEG-1 Layer III frames (44.1 kHz mono, 64 kbit/s: 208 bytes,
    /// 17 of side information), each borrowing a random share of the reservoir the frames
    /// before it hold, the rest random bytes.
    fn synthetic(frames: usize, seed: u64) -> Vec<u8> {
        let mut state = seed | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut file = Vec::new();
        let mut held = 0usize; // reservoir bytes before the frame
        for i in 0..frames {
            let mut frame = vec![0u8; 208];
            frame[..4].copy_from_slice(&[0xFF, 0xFB, 0x50, 0xC0]);
            for byte in &mut frame[4 + 17..] {
                *byte = next() as u8;
            }
            let borrow = if i == 0 {
                0
            } else {
                (next() as usize) % (held.min(511) + 1)
            };
            frame[4] = (borrow >> 1) as u8;
            frame[5] = ((borrow & 1) << 7) as u8 | (next() as u8 & 0x7F);
            held = (held + 208 - 4 - 17).min(511);
            file.extend_from_slice(&frame);
        }
        file
    }

    fn read(arrangement: &Arrangement, files: &[(&BlobKey, &[u8])], range: Range) -> Vec<u8> {
        arrangement
            .slices(range)
            .flat_map(|(piece, within)| {
                let bytes = match piece {
                    Piece::Blob { blob, .. } => files.iter().find(|(b, _)| *b == blob).unwrap().1,
                    Piece::Bytes(bytes) => &bytes[..],
                };
                bytes[within.start as usize..within.end as usize].to_vec()
            })
            .collect()
    }

    type Range = std::ops::Range<u64>;

    fn frame_bytes<'a>(
        file: &'a [u8],
        layout: &Mp3Layout,
        frames: std::ops::Range<usize>,
    ) -> &'a [u8] {
        let r = layout.bytes(frames);
        &file[r.start as usize..r.end as usize]
    }

    proptest! {
        /// For random breaks, ads and ranges: every range of the stitched answer is the same
        /// bytes of the whole answer, and the whole is the parts in order (the episode's frames
        /// between the cuts, each ad's frames, a seam's carrier in place of the last frame of
        /// the ad before it), behind the Xing frame.
        #[test]
        fn the_stitched_answer_is_its_parts_in_order_under_any_range(
            frames in 3usize..60,
            ad_frames in (1usize..8, 1usize..8),
            seed in any::<u64>(),
            preroll in any::<bool>(),
            midrolls in proptest::collection::vec(0u64..70, 0..4),
            postroll in any::<bool>(),
            ranges in proptest::collection::vec((0u64..30_000, 0u64..30_000), 1..6),
        ) {
            let episode = synthetic(frames, seed);
            let ads = [synthetic(ad_frames.0, seed ^ 1), synthetic(ad_frames.1, seed ^ 2)];
            let layouts = [
                Mp3Layout::read(&episode).unwrap(),
                Mp3Layout::read(&ads[0]).unwrap(),
                Mp3Layout::read(&ads[1]).unwrap(),
            ];
            prop_assert_eq!(layouts[0].frames.len(), frames);
            let blobs = [BlobKey("e".into()), BlobKey("a".into()), BlobKey("b".into())];
            let file = |i: usize| Mp3File { blob: &blobs[i], bytes: if i == 0 { &episode } else { &ads[i - 1] }, layout: &layouts[i] };
            let mut slots: Vec<Slot> = midrolls.iter().map(|f| Slot::Midroll(f * 1152)).collect();
            if preroll { slots.push(Slot::Preroll); }
            if postroll { slots.push(Slot::Postroll); }
            let wanted: Vec<(Slot, Mp3File<'_>)> = slots
                .iter()
                .enumerate()
                .map(|(i, slot)| (*slot, file(1 + i % 2)))
                .collect();
            let stitched = stitch(file(0), &wanted).unwrap();
            let arrangement = stitched.arrangement(None);
            let files = [(&blobs[0], &episode[..]), (&blobs[1], &ads[0][..]), (&blobs[2], &ads[1][..])];
            let whole = read(&arrangement, &files, 0..arrangement.len());
            prop_assert_eq!(whole.len() as u64, arrangement.len());
            for (a, b) in ranges {
                let (start, end) = (a.min(b), a.max(b));
                let got = read(&arrangement, &files, start..end);
                let s = (start as usize).min(whole.len());
                let e = (end as usize).min(whole.len());
                prop_assert_eq!(&got[..], &whole[s..e.max(s)]);
            }

            // The parts in order, as the rules say.
            let mut order: Vec<(Slot, usize)> = wanted.iter().enumerate().map(|(i, (s, _))| (*s, i)).collect();
            order.sort();
            let mut expected = Vec::new();
            let mut from = 0;
            let mut at = 0;
            while at < order.len() {
                let slot = order[at].0;
                let cut = match slot {
                    Slot::Preroll => 0,
                    Slot::Midroll(s) => layouts[0].frame_at(s).max(from),
                    Slot::Postroll => frames,
                };
                expected.extend_from_slice(frame_bytes(&episode, &layouts[0], from..cut));
                from = cut;
                let in_slot: Vec<usize> = order.iter().filter(|(s, _)| *s == slot).map(|(_, i)| *i).collect();
                let carrier = match slot {
                    Slot::Postroll => None,
                    _ => layouts[0].carrier(&episode, cut),
                };
                for (k, i) in in_slot.iter().enumerate() {
                    let ad = 1 + i % 2;
                    let n = layouts[ad].frames.len();
                    let last = k + 1 == in_slot.len();
                    let take = if last && carrier.is_some() { n - 1 } else { n };
                    expected.extend_from_slice(frame_bytes(files[ad].1, &layouts[ad], 0..take));
                    if last && let Some(carrier) = &carrier {
                        expected.extend_from_slice(carrier);
                    }
                }
                at += in_slot.len();
            }
            expected.extend_from_slice(frame_bytes(&episode, &layouts[0], from..frames));
            let layout = Mp3Layout::read(&whole).unwrap();
            let audio = layout.bytes(0..layout.frames.len());
            prop_assert_eq!(&whole[audio.start as usize..audio.end as usize], &expected[..]);
            // The Xing frame counts every frame: the episode's and the ads'.
            let total = frames + wanted.iter().map(|(_, f)| f.layout.frames.len()).sum::<usize>();
            prop_assert_eq!(layout.frames.len(), total);
        }
    }
}
