//! AAC in M4A (MP4) stitched with ads, without re-encoding: the episode's AAC frames and the
//! ads' (encoded once to the episode's exact AAC configuration) behind a new `moov` made for
//! the arrangement.
//!
//! An M4A keeps its frames in `mdat` and says where each is in its `moov` (sizes, durations,
//! chunk offsets, the edit list that trims the encoder's priming). [`M4aCuts`] reads that once
//! per episode and finds the frame each slot cuts before; [`M4aCuts::stitch`] lays out a
//! listener's frames (the episode's between the cuts, each ad's whole) and
//! [`M4aStitched::arrangement`] writes the answer: the episode's `ftyp`, a `moov` with the
//! arrangement's sample tables, durations, edit list and chapters (Nero `chpl` and a QuickTime
//! chapter track), the `mdat` header, then the frames as ranges of the stored files. The
//! answer is progressive (`moov` first, never fragmented) and no byte of it is stored.
//!
//! AAC frames overlap by half a frame (the MDCT): at a seam the frame after it is decoded
//! against the one before it from the other file. Ads end in silence (their encoding pads
//! them), so what is heard at a seam is the episode's frame fading into or out of silence,
//! about 21 ms, as in every frame-cut AAC insertion.

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use mp4_atom::{
    Chpl, ChplEntry, Co64, Codec, Decode, Edts, Elst, ElstEntry, Encode, FixedPoint, FourCC, Hdlr,
    Mvhd, Nmhd, Stco, Stsc, StscEntry, Stsd, Stsz, StszSamples, Stts, SttsEntry,
    TrackReferenceTypeBox, Trak, Tref, Tx3g,
};

use super::{
    arrangement::{Arrangement, Piece},
    plan::{Insert, Slot},
};
use crate::{
    model::BlobKey,
    probe::bmff::{BoxAt, boxes},
    tags::Chapter,
};

/// Samples (AAC frames) per chunk of an answer's audio track (about 1.4 s at 48 kHz): the
/// answer's frames are one run in its `mdat`, so any chunking is right; this one keeps the
/// chunk offset table small.
const SAMPLES_PER_CHUNK: usize = 64;

/// Largest `moov` read (a 60-minute episode's is under 1 MiB, with a cover a few more).
const MAX_MOOV: usize = 64 << 20;

/// Why an M4A cannot be stitched.
#[derive(Debug, thiserror::Error)]
pub enum M4aError {
    /// It is not a progressive MP4 with one AAC track podhost can read.
    #[error("not a stitchable M4A: {0}")]
    NotM4a(String),
    /// An ad's AAC is not the episode's (object type, sample rate, channels).
    #[error("the ad's AAC configuration is not the episode's")]
    Mixed,
    /// An ad was given for a slot the episode was not cut for.
    #[error("the episode has no slot {0}")]
    NoSlot(usize),
}

fn not_m4a(reason: impl Into<String>) -> M4aError {
    M4aError::NotM4a(reason.into())
}

/// A stored M4A file: its blob and its bytes (read once, when it is prepared).
#[derive(Clone, Copy, Debug)]
pub struct M4aFile<'a> {
    /// Where its bytes are stored.
    pub blob: &'a BlobKey,
    /// Its bytes.
    pub bytes: &'a [u8],
}

/// The AAC track of an M4A: its frames, where they are stored and how long each is.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Track {
    blob: BlobKey,
    /// Each frame's size.
    sizes: Vec<u32>,
    /// Runs of frames stored one after another: (first frame, its offset in the file).
    runs: Vec<(usize, u64)>,
    /// Frame durations in the media time scale, as `stts` keeps them: (frames, duration).
    durations: Vec<(u32, u32)>,
    /// The media time scale (`mdhd`).
    timescale: u32,
    /// Decoded time the edit list skips at the start (the encoder's priming), media scale.
    skip: u64,
    /// Decoded time presented, media scale.
    presented: u64,
    /// What an ad must match of the AAC decoder configuration (AudioSpecificConfig): the audio
    /// object type, the sample rate's index and the channel configuration (an encoder may add
    /// signalling that changes no decoding, so the bytes themselves may differ).
    config: (u8, u8, u8),
}

impl Track {
    /// Decoded time of all frames, media scale.
    fn decoded(&self) -> u64 {
        self.durations
            .iter()
            .map(|(n, d)| u64::from(*n) * u64::from(*d))
            .sum()
    }

    /// How long a frame decodes: the duration most of its frames say (1,024 samples for
    /// AAC-LC).
    fn frame_len(&self) -> u32 {
        self.durations
            .iter()
            .max_by_key(|(n, _)| *n)
            .map_or(1024, |(_, d)| *d)
    }

    /// The first frame that starts at or after decoded time `t` (the frame count when none).
    fn frame_at(&self, t: u64) -> usize {
        let (mut frame, mut at) = (0usize, 0u64);
        for (n, d) in &self.durations {
            let (n, d) = (u64::from(*n), u64::from((*d).max(1)));
            if at + n * d > t {
                return frame + (t - at).div_ceil(d) as usize;
            }
            frame += n as usize;
            at += n * d;
        }
        frame
    }

    /// Decoded time of frames `range`, media scale.
    fn time_of(&self, range: Range<usize>) -> u64 {
        let mut total = 0u64;
        self.each_duration(range, |n, d| total += u64::from(n) * u64::from(d));
        total
    }

    /// Calls `f(count, duration)` for the duration runs of frames `range`, in order.
    fn each_duration(&self, range: Range<usize>, mut f: impl FnMut(u32, u32)) {
        let mut first = 0usize;
        for (n, d) in &self.durations {
            let run = first..first + *n as usize;
            let (from, to) = (range.start.max(run.start), range.end.min(run.end));
            if from < to {
                f((to - from) as u32, *d);
            }
            first = run.end;
        }
    }

    /// The stored bytes of frames `range`, as few ranges as they are stored in.
    fn bytes_of(&self, range: Range<usize>) -> Vec<Range<u64>> {
        let mut out: Vec<Range<u64>> = Vec::new();
        for (i, (first, offset)) in self.runs.iter().enumerate() {
            let end = self.runs.get(i + 1).map_or(self.sizes.len(), |r| r.0);
            let (from, to) = (range.start.max(*first), range.end.min(end));
            if from >= to {
                continue;
            }
            let before: u64 = self.sizes[*first..from].iter().map(|s| u64::from(*s)).sum();
            let len: u64 = self.sizes[from..to].iter().map(|s| u64::from(*s)).sum();
            let start = offset + before;
            match out.last_mut() {
                Some(last) if last.end == start => last.end += len,
                _ => out.push(start..start + len),
            }
        }
        out
    }
}

/// What of the episode's `moov` the answer keeps besides the audio track's tables.
#[derive(Clone, Debug)]
struct Movie {
    /// The `ftyp` box, as stored.
    ftyp: Bytes,
    mvhd: Mvhd,
    /// The audio track, its sample tables left empty (the answer writes its own).
    trak: Trak,
    /// The `moov`'s other boxes (`iods`, `meta`), as stored, in order.
    kept: Vec<Bytes>,
    /// The `udta`'s boxes but `chpl` (tags and cover in `meta`, its `iTunSMPB` left out:
    /// the answer's length is not the episode's; the edit list says it), as stored.
    udta: Vec<Bytes>,
}

/// Reads the AAC track of `file` and what of its `moov` an answer keeps.
fn read(file: M4aFile<'_>) -> Result<(Track, Movie), M4aError> {
    let top: Vec<BoxAt> = boxes(file.bytes).collect();
    let find = |kind: &[u8; 4]| top.iter().find(|b| &b.kind == kind);
    let ftyp = find(b"ftyp").ok_or_else(|| not_m4a("no ftyp box"))?;
    let moov = find(b"moov").ok_or_else(|| not_m4a("no moov box"))?;
    if moov.len > MAX_MOOV {
        return Err(not_m4a("its moov box is too large"));
    }
    let body = moov.body(file.bytes);
    let children: Vec<BoxAt> = boxes(body).collect();
    let mut mvhd = None;
    let mut audio: Option<Trak> = None;
    let mut kept = Vec::new();
    let mut udta = Vec::new();
    for child in &children {
        let bytes = child.bytes(body);
        match &child.kind {
            b"mvhd" => {
                mvhd =
                    Some(Mvhd::decode(&mut &bytes[..]).map_err(|e| not_m4a(format!("mvhd: {e}")))?);
            }
            b"trak" => {
                let trak =
                    Trak::decode(&mut &bytes[..]).map_err(|e| not_m4a(format!("trak: {e}")))?;
                if trak.mdia.hdlr.handler == FourCC::new(b"soun") {
                    if audio.is_some() {
                        return Err(not_m4a("more than one audio track"));
                    }
                    audio = Some(trak);
                }
                // Other tracks (a chapter track, a cover as video) are left out: the answer
                // writes its own chapter track.
            }
            b"mvex" | b"moof" => return Err(not_m4a("fragmented MP4")),
            b"udta" => {
                for inner in boxes(child.body(body)) {
                    match &inner.kind {
                        b"chpl" => {}
                        b"meta" => udta.push(without_smpb(inner.bytes(child.body(body)))),
                        _ => udta.push(Bytes::copy_from_slice(inner.bytes(child.body(body)))),
                    }
                }
            }
            _ => kept.push(Bytes::copy_from_slice(bytes)),
        }
    }
    let mvhd = mvhd.ok_or_else(|| not_m4a("no mvhd box"))?;
    let mut trak = audio.ok_or_else(|| not_m4a("no audio track"))?;
    if top.iter().any(|b| &b.kind == b"moof") {
        return Err(not_m4a("fragmented MP4"));
    }
    let track = track_of(file, &trak, mvhd.timescale)?;
    let stbl = &mut trak.mdia.minf.stbl;
    stbl.stts = Stts::default();
    stbl.stsz = Stsz::default();
    stbl.stsc = Stsc::default();
    stbl.stco = None;
    stbl.co64 = None;
    Ok((
        track,
        Movie {
            ftyp: Bytes::copy_from_slice(ftyp.bytes(file.bytes)),
            mvhd,
            trak,
            kept,
            udta,
        },
    ))
}

/// The frames of the AAC track `trak` of `file`.
fn track_of(file: M4aFile<'_>, trak: &Trak, movie_scale: u32) -> Result<Track, M4aError> {
    let stbl = &trak.mdia.minf.stbl;
    let config = match stbl.stsd.codecs.as_slice() {
        [Codec::Mp4a(mp4a)] => {
            let config = &mp4a.esds.es_desc.dec_config;
            // 0x40: MPEG-4 audio (AAC and its extensions).
            if config.object_type_indication != 0x40 {
                return Err(not_m4a("its audio is not MPEG-4 AAC"));
            }
            match &config.dec_specific {
                Some(s) => (s.profile, s.freq_index, s.chan_conf),
                None => return Err(not_m4a("its AAC has no decoder configuration")),
            }
        }
        [_] => return Err(not_m4a("its audio is not AAC")),
        _ => return Err(not_m4a("its audio track has not one sample description")),
    };
    let sizes: Vec<u32> = match &stbl.stsz.samples {
        StszSamples::Different { sizes } => sizes.clone(),
        StszSamples::Identical { count, size } => vec![*size; *count as usize],
    };
    let chunks: Vec<u64> = match (&stbl.stco, &stbl.co64) {
        (Some(stco), _) => stco.entries.iter().map(|o| u64::from(*o)).collect(),
        (None, Some(co64)) => co64.entries.clone(),
        (None, None) => return Err(not_m4a("no chunk offsets")),
    };
    let durations: Vec<(u32, u32)> = stbl
        .stts
        .entries
        .iter()
        .map(|e| (e.sample_count, e.sample_delta))
        .filter(|(n, _)| *n > 0)
        .collect();
    let timed: u64 = durations.iter().map(|(n, _)| u64::from(*n)).sum();
    if timed != sizes.len() as u64 || sizes.is_empty() {
        return Err(not_m4a("its sample tables disagree"));
    }
    // Where each frame is: the chunks' frames (stsc) one after another from each chunk's offset.
    let mut runs: Vec<(usize, u64)> = Vec::new();
    let mut frame = 0usize;
    let mut next = u64::MAX;
    let entries = &stbl.stsc.entries;
    for (c, offset) in chunks.iter().enumerate() {
        let chunk = c as u32 + 1;
        let per = entries
            .iter()
            .take_while(|e| e.first_chunk <= chunk)
            .last()
            .map_or(0, |e| e.samples_per_chunk) as usize;
        let mut at = *offset;
        for _ in 0..per {
            let Some(size) = sizes.get(frame) else {
                break;
            };
            if at != next {
                runs.push((frame, at));
            }
            at += u64::from(*size);
            next = at;
            frame += 1;
        }
    }
    if frame != sizes.len() {
        return Err(not_m4a("its chunks do not hold every frame"));
    }
    if next > file.bytes.len() as u64 {
        return Err(not_m4a("its frames run past the end of the file"));
    }
    let timescale = trak.mdia.mdhd.timescale.max(1);
    let decoded: u64 = durations
        .iter()
        .map(|(n, d)| u64::from(*n) * u64::from(*d))
        .sum();
    // The edit list: the first edit with media (an empty edit before it is a delay podhost
    // does not keep).
    let edit = trak
        .edts
        .as_ref()
        .and_then(|e| e.elst.as_ref())
        .and_then(|l| l.entries.iter().find(|e| e.media_time.is_some()));
    let (skip, presented) = match edit {
        Some(edit) => {
            let skip = edit.media_time.unwrap_or(0).min(decoded);
            let kept = match edit.segment_duration {
                0 => decoded - skip,
                d => {
                    (u128::from(d) * u128::from(timescale) / u128::from(movie_scale.max(1))) as u64
                }
            };
            (skip, kept.min(decoded - skip))
        }
        None => (0, decoded),
    };
    Ok(Track {
        blob: file.blob.clone(),
        sizes,
        runs,
        durations,
        timescale,
        skip,
        presented,
        config,
    })
}

/// A `meta` box (`udta/meta`) without the `iTunSMPB` item of its `ilst`: the gapless
/// information of the episode alone, wrong for an answer with ads (its edit list says the
/// answer's own).
fn without_smpb(meta: &[u8]) -> Bytes {
    // meta is a full box: 4 bytes of version and flags before its children.
    let Some(body) = boxes(meta).next().map(|b| b.body(meta)) else {
        return Bytes::copy_from_slice(meta);
    };
    if body.len() < 4 {
        return Bytes::copy_from_slice(meta);
    }
    let mut out = body[..4].to_vec();
    for child in boxes(&body[4..]) {
        let bytes = child.bytes(&body[4..]);
        if &child.kind != b"ilst" {
            out.extend_from_slice(bytes);
            continue;
        }
        let mut items = Vec::new();
        for item in boxes(child.body(&body[4..])) {
            let item_bytes = item.bytes(child.body(&body[4..]));
            let smpb = &item.kind == b"----"
                && boxes(item.body(child.body(&body[4..])))
                    .any(|b| &b.kind == b"name" && b.body(item_bytes).ends_with(b"iTunSMPB"));
            if !smpb {
                items.extend_from_slice(item_bytes);
            }
        }
        out.extend_from_slice(&boxed(b"ilst", &items));
    }
    Bytes::from(boxed(b"meta", &out))
}

/// Appends `n` frames of duration `d` to the run-length durations `stts`.
fn push_duration(stts: &mut Vec<(u32, u32)>, n: u32, d: u32) {
    match stts.last_mut() {
        Some((count, delta)) if *delta == d => *count += n,
        _ => stts.push((n, d)),
    }
}

/// A box of `kind` around `body`.
fn boxed(kind: &[u8; 4], body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 8);
    out.extend_from_slice(&((body.len() + 8) as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(body);
    out
}

/// An ad's frames, as stitching takes them: every frame of its encoded file.
#[derive(Clone, Debug)]
pub struct M4aAd {
    track: Arc<Track>,
}

impl M4aAd {
    /// The ad encoded in `file`.
    pub fn of(file: M4aFile<'_>) -> Result<M4aAd, M4aError> {
        let (track, _) = read(file)?;
        Ok(M4aAd {
            track: Arc::new(track),
        })
    }

    /// Its length in bytes (its frames).
    pub fn len(&self) -> u64 {
        self.track.sizes.iter().map(|s| u64::from(*s)).sum()
    }

    /// Its frames.
    pub fn frames(&self) -> usize {
        self.track.sizes.len()
    }

    /// Whether it has no frames.
    pub fn is_empty(&self) -> bool {
        self.track.sizes.is_empty()
    }
}

/// An episode cut for its slots, prepared once (the only step that reads the episode's bytes):
/// its frames, the frame each slot goes before, and what of its `moov` an answer keeps.
#[derive(Clone, Debug)]
pub struct M4aCuts {
    track: Arc<Track>,
    movie: Arc<Movie>,
    /// The frame each slot goes before (the frame count: after the last).
    cuts: Vec<usize>,
}

impl M4aCuts {
    /// The cuts of `episode` at `slots` (a midroll's sample counts in the track's media time
    /// scale, its sample rate; a midroll never cuts before the slot before it).
    pub fn new(episode: M4aFile<'_>, slots: &[Slot]) -> Result<M4aCuts, M4aError> {
        let (track, movie) = read(episode)?;
        let frames = track.sizes.len();
        let mut from = 0;
        let cuts = slots
            .iter()
            .map(|slot| {
                let frame = match slot {
                    Slot::Preroll => 0,
                    Slot::Midroll(t) => track.frame_at(t + track.skip).min(frames).max(from),
                    Slot::Postroll => frames,
                };
                from = frame;
                frame
            })
            .collect();
        Ok(M4aCuts {
            track: Arc::new(track),
            movie: Arc::new(movie),
            cuts,
        })
    }

    /// The bytes it keeps (the sample tables and the `moov`'s boxes), for a cache's bound.
    pub fn weight(&self) -> usize {
        let track = &self.track;
        let kept: usize = self
            .movie
            .kept
            .iter()
            .chain(&self.movie.udta)
            .map(Bytes::len)
            .sum();
        track.sizes.len() * 4 + track.runs.len() * 16 + track.durations.len() * 8 + kept + 4096
    }

    /// The episode with `ads` in its slots, each given by the slot's index in the slots the
    /// cuts were made for (several in one slot play in the order given). The ads must have the
    /// episode's AAC configuration.
    pub fn stitch(&self, ads: &[(usize, &M4aAd)]) -> Result<M4aStitched, M4aError> {
        for (slot, ad) in ads {
            if *slot >= self.cuts.len() {
                return Err(M4aError::NoSlot(*slot));
            }
            if ad.track.config != self.track.config || ad.track.timescale != self.track.timescale {
                return Err(M4aError::Mixed);
            }
        }
        let mut order: Vec<(usize, usize)> = ads
            .iter()
            .enumerate()
            .map(|(i, (slot, _))| (*slot, i))
            .collect();
        order.sort();
        let episode = &self.track;
        let mut tracks = vec![episode.clone()];
        let mut parts: Vec<(usize, Range<usize>)> = Vec::new();
        let mut from = 0usize;
        for (slot, i) in order {
            let cut = self.cuts[slot];
            if cut > from {
                parts.push((0, from..cut));
                from = cut;
            }
            tracks.push(ads[i].1.track.clone());
            parts.push((tracks.len() - 1, 0..ads[i].1.track.sizes.len()));
        }
        if from < episode.sizes.len() {
            parts.push((0, from..episode.sizes.len()));
        }
        // The answer's frame durations. A file's last frame may say it lasts less than it
        // decodes (the encoder's padding after the end); inside the answer it plays whole.
        let last = parts.len().saturating_sub(1);
        let mut stts: Vec<(u32, u32)> = Vec::new();
        let mut lens = Vec::with_capacity(parts.len());
        for (k, (t, r)) in parts.iter().enumerate() {
            let track = &tracks[*t];
            let mut len = 0u64;
            track.each_duration(r.clone(), |n, d| {
                push_duration(&mut stts, n, d);
                len += u64::from(n) * u64::from(d);
            });
            let frame = track.frame_len();
            if k != last
                && r.end == track.sizes.len()
                && let Some((n, d)) = stts.last_mut()
                && *d != frame
            {
                len = len - u64::from(*d) + u64::from(frame);
                *n -= 1;
                if *n == 0 {
                    stts.pop();
                }
                push_duration(&mut stts, 1, frame);
            }
            lens.push(len);
        }
        // The answer's edit list trims its first part's priming and its last part's padding.
        let decoded: u64 = lens.iter().sum();
        let skip = parts.first().map_or(0, |(t, r)| match r.start {
            0 => tracks[*t].skip,
            _ => 0,
        });
        let padding = parts.last().map_or(0, |(t, r)| {
            let track = &tracks[*t];
            match r.end == track.sizes.len() {
                true => track.decoded() - track.skip - track.presented,
                false => 0,
            }
        });
        let presented = decoded.saturating_sub(skip + padding);
        // Where audio went in: the episode's presented time at each of its parts, against its
        // place in the answer.
        let mut inserts = Vec::new();
        let (mut out, mut shift) = (0u64, 0u64);
        for ((t, r), len) in parts.iter().zip(&lens) {
            if *t == 0 {
                let decoded_at = episode.time_of(0..r.start);
                let at = decoded_at.saturating_sub(episode.skip);
                let now = (out + episode.skip).saturating_sub(skip + decoded_at);
                if now > shift {
                    inserts.push(Insert {
                        at,
                        samples: now - shift,
                    });
                    shift = now;
                }
            }
            out += len;
        }
        // Ads after the episode's last frame (postrolls): what they add.
        let tail = presented.saturating_sub(episode.presented + shift);
        if tail > 0 {
            inserts.push(Insert {
                at: episode.presented,
                samples: tail,
            });
        }
        Ok(M4aStitched {
            movie: self.movie.clone(),
            tracks,
            parts,
            inserts,
            stts,
            timescale: episode.timescale,
            skip,
            presented,
            decoded,
        })
    }
}

/// A listener's arrangement of an M4A episode with ads: its frames in order, and where audio
/// went in (what retimes the chapters and transcripts).
#[derive(Clone, Debug)]
pub struct M4aStitched {
    movie: Arc<Movie>,
    /// The episode, then each ad in the order it plays.
    tracks: Vec<Arc<Track>>,
    /// The answer's frames: (track, its frames), in order.
    parts: Vec<(usize, Range<usize>)>,
    inserts: Vec<Insert>,
    /// The answer's frame durations: (frames, duration), as `stts` keeps them.
    stts: Vec<(u32, u32)>,
    timescale: u32,
    /// Decoded time the answer's edit list skips.
    skip: u64,
    /// The answer's presented time.
    presented: u64,
    /// The answer's decoded time.
    decoded: u64,
}

impl M4aStitched {
    /// Where audio was inserted (in the episode's presented time, media scale), in order.
    pub fn inserts(&self) -> &[Insert] {
        &self.inserts
    }

    /// The answer's media time scale (its sample rate).
    pub fn timescale(&self) -> u32 {
        self.timescale
    }

    /// The answer's presented length in its media time scale.
    pub fn presented(&self) -> u64 {
        self.presented
    }

    /// The answer's length in milliseconds.
    pub fn duration_ms(&self) -> u64 {
        self.presented * 1000 / u64::from(self.timescale)
    }

    /// Where episode time `ms` is in the answer: after every insert before it, and after one
    /// within a frame after it when `start` (a chapter that starts at a break starts after the
    /// ad the break got).
    pub fn retime(&self, ms: u64, start: bool) -> u64 {
        let frame = u64::from(self.tracks[0].frame_len());
        super::plan::retime(&self.inserts, u64::from(self.timescale), frame, ms, start)
    }

    /// The episode's chapters as the answer plays them: each moved by the ads before it.
    pub fn chapters(&self, chapters: &[Chapter]) -> Vec<Chapter> {
        super::plan::moved(chapters, |ms, start| self.retime(ms, start))
    }

    /// The answer: the episode's `ftyp`, a `moov` for this arrangement with `chapters` (the
    /// answer's, see [`chapters`](Self::chapters)) as a Nero `chpl` and a QuickTime chapter
    /// track, the `mdat` header, the frames as ranges of the stored files, then the chapter
    /// track's samples.
    pub fn arrangement(&self, chapters: &[Chapter]) -> Result<Arrangement, M4aError> {
        let sizes: Vec<u32> = self
            .parts
            .iter()
            .flat_map(|(t, r)| self.tracks[*t].sizes[r.clone()].iter().copied())
            .collect();
        let audio_bytes: u64 = sizes.iter().map(|s| u64::from(*s)).sum();
        let titles = ChapterTrack::of(chapters, self.duration_ms());
        let payload = audio_bytes + titles.bytes.len() as u64;
        let mdat_header: u64 = if payload + 8 > u64::from(u32::MAX) {
            16
        } else {
            8
        };
        // 64-bit chunk offsets once the file may pass 4 GiB (the moov is far under 64 MiB).
        let wide = payload + (MAX_MOOV as u64) > u64::from(u32::MAX);
        let placeholder = self.moov(&sizes, &titles, 0, wide)?;
        let data_start = self.movie.ftyp.len() as u64 + placeholder.len() as u64 + mdat_header;
        let moov = self.moov(&sizes, &titles, data_start, wide)?;
        debug_assert_eq!(moov.len(), placeholder.len());
        let mut head = Vec::with_capacity(self.movie.ftyp.len() + moov.len() + 16);
        head.extend_from_slice(&self.movie.ftyp);
        head.extend_from_slice(&moov);
        match mdat_header {
            8 => {
                head.extend_from_slice(&((payload + 8) as u32).to_be_bytes());
                head.extend_from_slice(b"mdat");
            }
            _ => {
                head.extend_from_slice(&1u32.to_be_bytes());
                head.extend_from_slice(b"mdat");
                head.extend_from_slice(&(payload + 16).to_be_bytes());
            }
        }
        let mut pieces = vec![Piece::Bytes(Bytes::from(head))];
        for (t, r) in &self.parts {
            let track = &self.tracks[*t];
            pieces.extend(
                track
                    .bytes_of(r.clone())
                    .into_iter()
                    .map(|range| Piece::Blob {
                        blob: track.blob.clone(),
                        range,
                    }),
            );
        }
        pieces.push(Piece::Bytes(titles.bytes.clone()));
        Ok(Arrangement::new(pieces))
    }

    /// The answer's `moov`: its frames at `sizes` from `data_start` on, the chapter track's
    /// samples after them.
    fn moov(
        &self,
        sizes: &[u32],
        titles: &ChapterTrack,
        data_start: u64,
        wide: bool,
    ) -> Result<Vec<u8>, M4aError> {
        let movie = &self.movie;
        // The movie's time scale is the audio's: the edit list says the answer's length to the
        // sample (in milliseconds it would round it).
        let presented_movie = self.presented;
        let audio_id = movie.trak.tkhd.track_id;
        let chapter_id = (movie.mvhd.next_track_id.max(audio_id + 1)).max(2);
        let has_chapters = !titles.durations.is_empty();

        // The audio track's sample tables.
        let stts: Vec<SttsEntry> = self
            .stts
            .iter()
            .map(|(n, d)| SttsEntry {
                sample_count: *n,
                sample_delta: *d,
            })
            .collect();
        let chunks = sizes.len().div_ceil(SAMPLES_PER_CHUNK);
        let mut stsc = vec![StscEntry {
            first_chunk: 1,
            samples_per_chunk: SAMPLES_PER_CHUNK.min(sizes.len()) as u32,
            sample_description_index: 1,
        }];
        let rest = sizes.len() % SAMPLES_PER_CHUNK;
        if chunks > 1 && rest > 0 {
            stsc.push(StscEntry {
                first_chunk: chunks as u32,
                samples_per_chunk: rest as u32,
                sample_description_index: 1,
            });
        }
        let mut offsets = Vec::with_capacity(chunks);
        let mut at = data_start;
        for chunk in sizes.chunks(SAMPLES_PER_CHUNK) {
            offsets.push(at);
            at += chunk.iter().map(|s| u64::from(*s)).sum::<u64>();
        }
        let titles_at = at;

        let mut trak = movie.trak.clone();
        trak.tkhd.duration = presented_movie;
        trak.edts = Some(Edts {
            elst: Some(Elst {
                entries: vec![ElstEntry {
                    segment_duration: presented_movie,
                    media_time: Some(self.skip),
                    media_rate: FixedPoint::new(1, 0),
                }],
            }),
        });
        trak.tref = has_chapters.then(|| Tref {
            track_reference_type_boxes: vec![TrackReferenceTypeBox {
                reference_type: FourCC::new(b"chap"),
                track_ids: vec![chapter_id],
            }],
        });
        trak.mdia.mdhd.duration = self.decoded;
        let stbl = &mut trak.mdia.minf.stbl;
        stbl.stts = Stts { entries: stts };
        stbl.stsz = Stsz {
            samples: StszSamples::Different {
                sizes: sizes.to_vec(),
            },
        };
        stbl.stsc = Stsc { entries: stsc };
        set_offsets(stbl, offsets, wide);
        stbl.ctts = None;
        stbl.stss = None;
        stbl.sbgp.clear();
        stbl.sgpd.clear();
        stbl.subs.clear();
        stbl.saiz.clear();
        stbl.saio.clear();
        stbl.cslg = None;

        let mut mvhd = movie.mvhd.clone();
        mvhd.timescale = self.timescale;
        mvhd.duration = presented_movie;
        if has_chapters {
            mvhd.next_track_id = chapter_id + 1;
        }

        let mut body = Vec::new();
        let encoding = |e: mp4_atom::Error| not_m4a(format!("writing the moov: {e}"));
        mvhd.encode(&mut body).map_err(encoding)?;
        for kept in &movie.kept {
            body.extend_from_slice(kept);
        }
        trak.encode(&mut body).map_err(encoding)?;
        if has_chapters {
            titles
                .trak(&movie.trak, chapter_id, presented_movie, titles_at, wide)
                .encode(&mut body)
                .map_err(encoding)?;
        }
        let mut udta: Vec<u8> = movie.udta.iter().flat_map(|b| b.iter().copied()).collect();
        if has_chapters {
            Chpl {
                entries: titles
                    .chapters
                    .iter()
                    .map(|c| ChplEntry {
                        // 100-nanosecond units.
                        start: c.start_ms * 10_000,
                        title: c.title.clone(),
                    })
                    .collect(),
            }
            .encode(&mut udta)
            .map_err(encoding)?;
        }
        if !udta.is_empty() {
            body.extend_from_slice(&boxed(b"udta", &udta));
        }
        Ok(boxed(b"moov", &body))
    }
}

/// Sets `stbl`'s chunk offsets: 64-bit (`co64`) when `wide`, else 32-bit (`stco`).
fn set_offsets(stbl: &mut mp4_atom::Stbl, offsets: Vec<u64>, wide: bool) {
    match wide {
        true => {
            stbl.stco = None;
            stbl.co64 = Some(Co64 { entries: offsets });
        }
        false => {
            stbl.co64 = None;
            stbl.stco = Some(Stco {
                entries: offsets.into_iter().map(|o| o as u32).collect(),
            });
        }
    }
}

/// The QuickTime chapter track of an answer: a text track whose samples are the chapters'
/// titles, each lasting until the next chapter (one without a title before the first when it
/// starts later), as Apple's players and ffmpeg read them; the Nero list says the same.
#[derive(Clone, Debug, Default)]
struct ChapterTrack {
    /// The chapters, by start, without repeats of one start.
    chapters: Vec<Chapter>,
    /// Each sample's duration in milliseconds.
    durations: Vec<u32>,
    /// Each sample's size.
    sizes: Vec<u32>,
    /// The samples, one after another.
    bytes: Bytes,
}

impl ChapterTrack {
    fn of(chapters: &[Chapter], total_ms: u64) -> ChapterTrack {
        let mut sorted: Vec<Chapter> = chapters
            .iter()
            .filter(|c| c.start_ms < total_ms)
            .cloned()
            .collect();
        sorted.sort_by_key(|c| c.start_ms);
        sorted.dedup_by_key(|c| c.start_ms);
        // A chapter track plays from the start: what comes before the first chapter (a
        // preroll) is a chapter without a title.
        if sorted.first().is_some_and(|c| c.start_ms > 0) {
            sorted.insert(
                0,
                Chapter {
                    start_ms: 0,
                    end_ms: None,
                    title: String::new(),
                    url: None,
                },
            );
        }
        let mut track = ChapterTrack::default();
        let mut bytes = Vec::new();
        for (i, chapter) in sorted.iter().enumerate() {
            let start = chapter.start_ms;
            let end = sorted.get(i + 1).map_or(total_ms, |c| c.start_ms);
            track
                .durations
                .push(u32::try_from(end.saturating_sub(start)).unwrap_or(u32::MAX));
            let title = chapter.title.as_bytes();
            let title = &title[..title.len().min(u16::MAX as usize)];
            let before = bytes.len();
            bytes.extend_from_slice(&(title.len() as u16).to_be_bytes());
            bytes.extend_from_slice(title);
            // The text is UTF-8 (QuickTime's `encd` atom, 0x100).
            bytes.extend_from_slice(&[0, 0, 0, 12, b'e', b'n', b'c', b'd', 0, 0, 1, 0]);
            track.sizes.push((bytes.len() - before) as u32);
        }
        track.chapters = sorted;
        track.bytes = Bytes::from(bytes);
        track
    }

    /// The track (`audio` is the audio track it is modelled on), its samples at `at`.
    fn trak(&self, audio: &Trak, id: u32, duration: u64, at: u64, wide: bool) -> Trak {
        let mut trak = audio.clone();
        trak.tkhd.track_id = id;
        trak.tkhd.duration = duration;
        trak.tkhd.enabled = false;
        trak.tkhd.volume = FixedPoint::new(0, 0);
        trak.tkhd.alternate_group = 0;
        trak.edts = None;
        trak.tref = None;
        trak.udta = None;
        trak.meta = None;
        trak.mdia.mdhd.timescale = 1000;
        trak.mdia.mdhd.duration = self.durations.iter().map(|d| u64::from(*d)).sum();
        trak.mdia.hdlr = Hdlr {
            handler: FourCC::new(b"text"),
            name: "Chapters".into(),
        };
        let minf = &mut trak.mdia.minf;
        minf.smhd = None;
        minf.vmhd = None;
        minf.sthd = None;
        minf.hmhd = None;
        minf.nmhd = Some(Nmhd {});
        let stbl = &mut minf.stbl;
        *stbl = mp4_atom::Stbl {
            stsd: Stsd {
                codecs: vec![Codec::Tx3g(Tx3g {
                    data_reference_index: 1,
                    ..Default::default()
                })],
            },
            stts: Stts {
                entries: self
                    .durations
                    .iter()
                    .map(|d| SttsEntry {
                        sample_count: 1,
                        sample_delta: *d,
                    })
                    .collect(),
            },
            stsc: Stsc {
                entries: vec![StscEntry {
                    first_chunk: 1,
                    samples_per_chunk: self.sizes.len() as u32,
                    sample_description_index: 1,
                }],
            },
            stsz: Stsz {
                samples: StszSamples::Different {
                    sizes: self.sizes.clone(),
                },
            },
            ..Default::default()
        };
        set_offsets(stbl, vec![at], wide);
        trak
    }
}
