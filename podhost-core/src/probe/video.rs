//! Video stream facts from a container's headers alone: the `moov` box of MP4 and QuickTime
//! files (read with `mp4-atom`), the Info and Tracks elements of Matroska and WebM (read with
//! the `matroska` crate). No frame is decoded: an MP4 whose `moov` follows its media data
//! costs one walk over the top-level box headers and one read of the `moov`; a Matroska file
//! is read through its seek head (a few hundred bytes).

use std::io::{Read, Seek, SeekFrom};

use mp4_atom::{Codec, Decode, Moov, StszSamples, Trak, Visual};

use super::container::{ContainerFacts, TrackAudio};
use super::facts::VideoFacts;

/// Most top-level boxes walked to find `moov`.
const MAX_BOXES: usize = 256;

/// Largest `moov` read: the sample tables of a three-hour 60 fps file are a few MiB.
const MAX_MOOV: u64 = 64 << 20;

/// The first moving-picture track of an MP4/QuickTime file of `size` bytes. `None` when the
/// file has no such track (an M4A with cover art has a one-frame `jpeg` track at most) or its
/// `moov` cannot be read.
pub(crate) fn mp4<R: Read + Seek>(source: &mut R, size: u64) -> Option<VideoFacts> {
    let moov = read_moov(source, size)?;
    let moov = Moov::decode(&mut moov.as_slice()).ok()?;
    moov.trak.iter().find_map(|trak| video_track(trak, &moov))
}

fn read_moov<R: Read + Seek>(source: &mut R, size: u64) -> Option<Vec<u8>> {
    let mut at = 0u64;
    for _ in 0..MAX_BOXES {
        if size.saturating_sub(at) < 8 {
            return None;
        }
        source.seek(SeekFrom::Start(at)).ok()?;
        let mut header = [0u8; 16];
        source.read_exact(&mut header[..8]).ok()?;
        let (len, header_len) = match u32::from_be_bytes(header[..4].try_into().ok()?) {
            0 => (size - at, 8),
            1 => {
                source.read_exact(&mut header[8..]).ok()?;
                (u64::from_be_bytes(header[8..].try_into().ok()?), 16)
            }
            n => (u64::from(n), 8),
        };
        if len < header_len || len > size - at {
            return None;
        }
        if &header[4..8] == b"moov" {
            if len > MAX_MOOV {
                return None;
            }
            let mut bytes = vec![0; usize::try_from(len).ok()?];
            source.seek(SeekFrom::Start(at)).ok()?;
            source.read_exact(&mut bytes).ok()?;
            return Some(bytes);
        }
        at += len;
    }
    None
}

fn video_track(trak: &Trak, moov: &Moov) -> Option<VideoFacts> {
    if trak.mdia.hdlr.handler != b"vide".into() {
        return None;
    }
    let table = &trak.mdia.minf.stbl;
    let coded = |name: &str, visual: &Visual| (name.to_owned(), visual.width, visual.height);
    let (codec, width, height) = match table.stsd.codecs.first()? {
        Codec::Avc1(c) => coded("h264", &c.visual),
        Codec::Avc3(c) => coded("h264", &c.visual),
        Codec::Hev1(c) => coded("hevc", &c.visual),
        Codec::Hvc1(c) => coded("hevc", &c.visual),
        Codec::Vp08(c) => coded("vp8", &c.visual),
        Codec::Vp09(c) => coded("vp9", &c.visual),
        Codec::Av01(c) => coded("av1", &c.visual),
        // Other video is named as ffmpeg names it, or by its four letters; its size is the
        // track header's.
        Codec::Unknown(kind, _) => (
            sample_entry_codec(&kind.to_string()),
            trak.tkhd.width.integer(),
            trak.tkhd.height.integer(),
        ),
        _ => return None,
    };
    let frames: u64 = table
        .stts
        .entries
        .iter()
        .map(|e| u64::from(e.sample_count))
        .sum();
    if frames < 2 {
        return None;
    }
    let timescale = u64::from(trak.mdia.mdhd.timescale);
    let duration_ms = match (trak.mdia.mdhd.duration, timescale) {
        (0, _) | (_, 0) => movie_duration_ms(moov),
        (units, scale) => units.saturating_mul(1000) / scale,
    };
    let frame_rate = match (trak.mdia.mdhd.duration, timescale) {
        (0, _) | (_, 0) => 0.0,
        (units, scale) => round3(frames as f64 * scale as f64 / units as f64),
    };
    let bytes: u64 = match &table.stsz.samples {
        StszSamples::Identical { count, size } => u64::from(*count) * u64::from(*size),
        StszSamples::Different { sizes } => sizes.iter().map(|s| u64::from(*s)).sum(),
    };
    Some(VideoFacts {
        codec,
        width: u32::from(width),
        height: u32::from(height),
        frame_rate,
        duration_ms,
        bitrate: bitrate(bytes, duration_ms),
    })
}

/// The short name of a video sample entry `mp4-atom` does not decode.
fn sample_entry_codec(kind: &str) -> String {
    match kind {
        "mp4v" => "mpeg4".to_owned(),
        "apch" | "apcn" | "apcs" | "apco" | "ap4h" | "ap4x" => "prores".to_owned(),
        other => other.trim().to_ascii_lowercase(),
    }
}

fn movie_duration_ms(moov: &Moov) -> u64 {
    let scale = u64::from(moov.mvhd.timescale);
    let units = moov
        .mvex
        .as_ref()
        .and_then(|m| m.mehd.as_ref())
        .map_or(moov.mvhd.duration, |m| m.fragment_duration);
    match scale {
        0 => 0,
        scale => units.saturating_mul(1000) / scale,
    }
}

/// What the headers of a Matroska or WebM file say: its first video track, and its first audio
/// track as the other containers' readers report theirs (symphonia, which reads those, is built
/// here without Matroska). `None` when the file cannot be read as Matroska.
pub(crate) fn matroska<R: Read + Seek>(source: R) -> Option<(Option<VideoFacts>, ContainerFacts)> {
    let file = matroska_demuxer::MatroskaFile::open(source).ok()?;
    let info = file.info();
    // The segment's duration is in units of its timestamp scale (nanoseconds each).
    let duration_ms = info.duration().map(|units| {
        let ms = units * info.timestamp_scale().get() as f64 / 1e6;
        if ms.is_finite() && ms > 0.0 {
            ms.round() as u64
        } else {
            0
        }
    });
    let video = file.tracks().iter().find_map(|track| {
        let settings = track.video()?;
        let frame_rate = track
            .default_duration()
            .map_or(0.0, |ns| round3(1e9 / ns.get() as f64));
        Some(VideoFacts {
            codec: matroska_codec(track.codec_id()),
            width: u32::try_from(settings.pixel_width().get()).unwrap_or(0),
            height: u32::try_from(settings.pixel_height().get()).unwrap_or(0),
            frame_rate,
            duration_ms: duration_ms.unwrap_or(0),
            bitrate: 0,
        })
    });
    let audio = file.tracks().iter().find_map(|track| {
        let settings = track.audio()?;
        let rate = settings.sampling_frequency();
        Some(TrackAudio {
            codec: matroska_codec(track.codec_id()),
            sample_rate: if rate.is_finite() && rate > 0.0 {
                rate.round() as u32
            } else {
                0
            },
            channels: u16::try_from(settings.channels().get()).unwrap_or(0),
            bits_per_sample: None,
            duration_ms,
            pcm_bitrate: None,
            profile: None,
        })
    });
    let facts = ContainerFacts {
        audio,
        has_video: video.is_some(),
        data_start: 0,
    };
    Some((video, facts))
}

/// The short name of a Matroska codec id (`V_MPEG4/ISO/AVC` is `h264`), as the MP4 side and
/// ffmpeg name them; an id podhost does not know, lowercased.
fn matroska_codec(id: &str) -> String {
    let name = match id {
        "V_MPEG4/ISO/AVC" => "h264",
        "V_MPEGH/ISO/HEVC" => "hevc",
        "V_VP8" => "vp8",
        "V_VP9" => "vp9",
        "V_AV1" => "av1",
        "A_OPUS" => "opus",
        "A_VORBIS" => "vorbis",
        "A_FLAC" => "flac",
        "A_MPEG/L3" => "mp3",
        "A_AC3" => "ac3",
        "A_EAC3" => "eac3",
        id if id.starts_with("A_AAC") => "aac",
        id if id.starts_with("A_PCM") => "pcm",
        other => return other.to_ascii_lowercase(),
    };
    name.to_owned()
}

fn bitrate(bytes: u64, duration_ms: u64) -> u32 {
    if duration_ms == 0 {
        return 0;
    }
    u32::try_from(u128::from(bytes) * 8000 / u128::from(duration_ms)).unwrap_or(u32::MAX)
}

fn round3(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}
