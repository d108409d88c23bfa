//! Tests of `probe`: content detection and exact audio facts on committed fixtures (see
//! `tests/fixtures/README.md` for how each was made and its measured facts), uploaded through
//! an in-memory object store in odd-sized chunks while the `Sniffer` watches, plus robustness
//! against hostile input.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::sync::Arc;

use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};
use podhost_core::probe::{MediaFacts, MediaKind, Sniffer, probe};
use proptest::prelude::*;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Streams `bytes` into a fresh in-memory store as a multipart upload of `chunk`-byte parts,
/// feeding every part to a `Sniffer` on the way, then probes the stored object.
async fn upload_and_probe(bytes: &[u8], chunk: usize, file_name: &str) -> MediaFacts {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let location = Path::from(format!("uploads/{file_name}"));
    let mut sniffer = Sniffer::new();
    if bytes.is_empty() {
        sniffer.update(&[]);
        store.put(&location, PutPayload::default()).await.unwrap();
    } else {
        let mut upload = store.put_multipart(&location).await.unwrap();
        for part in bytes.chunks(chunk) {
            sniffer.update(part);
            upload
                .put_part(PutPayload::from(part.to_vec()))
                .await
                .unwrap();
        }
        upload.complete().await.unwrap();
    }
    let sniffed = sniffer.finish();
    assert_eq!(sniffed.len(), bytes.len() as u64);
    assert_eq!(sniffed.head(), &bytes[..bytes.len().min(64 * 1024)]);
    let size = store.head(&location).await.unwrap().size;
    probe(store, &location, size, sniffed, file_name).await
}

/// `probe` and the sniffer must work inside multi-threaded servers: their futures and state
/// are `Send`.
#[test]
fn probe_future_and_sniffer_are_send() {
    fn assert_send<T: Send>(_: &T) {}
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let location = Path::from("x");
    let sniffer = Sniffer::new();
    assert_send(&sniffer);
    let sniffed = sniffer.finish();
    assert_send(&sniffed);
    let future = probe(store, &location, 0, sniffed, "x");
    assert_send(&future);
}

/// Expected facts of an audio fixture.
struct AudioCase {
    file: &'static str,
    mime: &'static str,
    kind: MediaKind,
    extension: &'static str,
    codec: &'static str,
    sample_rate: u32,
    channels: u16,
    /// The exact duration the probe must report; see the note on each case.
    duration_ms: u64,
    /// The true duration of the source audio (what ffprobe's stream duration or the sample
    /// count says); the reported duration must be within 30 ms of it.
    true_ms: u64,
    /// Average bitrate: nominal for CBR MP3, exact for PCM, otherwise coded audio bytes x 8 /
    /// duration (0: unknown, for the audio of a video).
    bitrate: u32,
    info: &'static str,
}

const AUDIO_CASES: &[AudioCase] = &[
    // 116 frames x 1152 = 133632 samples (3030 ms, ffprobe's stream duration); the LAME tag
    // in the Info frame says delay 576 + padding 756, so the gapless length is exactly the
    // source's 132300 samples = 3000 ms. We report the gapless length.
    AudioCase {
        file: "cbr_128k_stereo.mp3",
        mime: "audio/mpeg",
        kind: MediaKind::Audio,
        extension: "mp3",
        codec: "mp3",
        sample_rate: 44_100,
        channels: 2,
        duration_ms: 3000,
        true_ms: 3000,
        bitrate: 128_000,
        info: "MPEG ADTS, layer III, 128 kbps, 44.1 kHz, Stereo",
    },
    // VBR without any Xing/Info/VBRI header and without ID3: only counting frames gives the
    // length. 116 frames x 1152 / 44100 = 3030.2 ms, which includes ~30 ms of encoder delay and
    // padding that nothing in the file describes (the source is 3000 ms). The first second is
    // silence (32 kbps frames), so any estimate from the first frames' bitrate is far off:
    // symphonia alone says 4101 ms and ffprobe 3365 ms. This case fails without the scanner.
    AudioCase {
        file: "vbr_noxing_mono.mp3",
        mime: "audio/mpeg",
        kind: MediaKind::Audio,
        extension: "mp3",
        codec: "mp3",
        sample_rate: 44_100,
        channels: 1,
        duration_ms: 3030,
        true_ms: 3030,
        bitrate: 43_319,
        info: "MPEG ADTS, layer III, VBR 43 kbps, 44.1 kHz, Mono",
    },
    // VBR with an ID3v2.3 tag holding a noisy JPEG cover, Xing + LAME header: gapless 3000 ms.
    AudioCase {
        file: "vbr_id3_cover.mp3",
        mime: "audio/mpeg",
        kind: MediaKind::Audio,
        extension: "mp3",
        codec: "mp3",
        sample_rate: 44_100,
        channels: 1,
        duration_ms: 3000,
        true_ms: 3000,
        bitrate: 43_319,
        info: "MPEG ADTS, layer III, VBR 43 kbps, 44.1 kHz, Mono",
    },
    // The sample table holds 133324 samples (priming included, 3023 ms); the movie header
    // (edit list applied) says 3000 ms, as does ffprobe. We report the movie duration.
    AudioCase {
        file: "aac_96k_mono.m4a",
        mime: "audio/mp4",
        kind: MediaKind::Audio,
        extension: "m4a",
        codec: "aac",
        sample_rate: 44_100,
        channels: 1,
        duration_ms: 3000,
        true_ms: 3000,
        bitrate: 97_333,
        info: "MPEG-4 AAC, 97 kbps, 44.1 kHz, Mono",
    },
    // An "isom"-branded MP4 whose only track is audio is audio/mp4 (.m4a).
    AudioCase {
        file: "aac_isom_audio_only.mp4",
        mime: "audio/mp4",
        kind: MediaKind::Audio,
        extension: "m4a",
        codec: "aac",
        sample_rate: 44_100,
        channels: 1,
        duration_ms: 2000,
        true_ms: 2000,
        bitrate: 32_768,
        info: "MPEG-4 AAC, 33 kbps, 44.1 kHz, Mono",
    },
    // An MP4 with a video track is video; the audio track's facts are still reported.
    AudioCase {
        file: "tiny_video.mp4",
        mime: "video/mp4",
        kind: MediaKind::Video,
        extension: "mp4",
        codec: "aac",
        sample_rate: 44_100,
        channels: 1,
        duration_ms: 2000,
        true_ms: 2000,
        bitrate: 0,
        info: "MPEG-4 video, MPEG-4 Part 2, 64 x 64, 10 fps, AAC audio, 44.1 kHz, Mono",
    },
    // Bare ADTS: 88 frames x 1024 / 44100 = 2043.4 ms by frame count (priming and padding
    // included; ADTS cannot say how much). ffprobe estimates 2034 ms from the bitrate.
    AudioCase {
        file: "adts_mono.aac",
        mime: "audio/aac",
        kind: MediaKind::Audio,
        extension: "aac",
        codec: "aac",
        sample_rate: 44_100,
        channels: 1,
        duration_ms: 2043,
        true_ms: 2043,
        bitrate: 34_484,
        info: "ADTS AAC, 34 kbps, 44.1 kHz, Mono",
    },
    // Last granule position 132300 = 3000 ms.
    AudioCase {
        file: "vorbis_stereo.ogg",
        mime: "audio/ogg",
        kind: MediaKind::Audio,
        extension: "ogg",
        codec: "vorbis",
        sample_rate: 44_100,
        channels: 2,
        duration_ms: 3000,
        true_ms: 3000,
        bitrate: 13_979,
        info: "Ogg Vorbis, 14 kbps, 44.1 kHz, Stereo",
    },
    // STREAMINFO total samples 132300 = 3000 ms.
    AudioCase {
        file: "tone_stereo.flac",
        mime: "audio/flac",
        kind: MediaKind::Audio,
        extension: "flac",
        codec: "flac",
        sample_rate: 44_100,
        channels: 2,
        duration_ms: 3000,
        true_ms: 3000,
        bitrate: 91_637,
        info: "FLAC, 16 bit, 44.1 kHz, Stereo",
    },
    // data chunk 88200 bytes / 2 bytes per frame = 44100 frames = 1000 ms.
    AudioCase {
        file: "tone_mono_s16.wav",
        mime: "audio/wav",
        kind: MediaKind::Audio,
        extension: "wav",
        codec: "pcm_s16le",
        sample_rate: 44_100,
        channels: 1,
        duration_ms: 1000,
        true_ms: 1000,
        bitrate: 705_600,
        info: "WAVE PCM, 16 bit, 44.1 kHz, Mono",
    },
];

/// Odd chunkings: typical, tiny (straddles every header), and everything at once.
const CHUNKS: &[usize] = &[1000, 7, 1 << 20];

#[tokio::test]
async fn audio_fixtures() {
    for case in AUDIO_CASES {
        let bytes = fixture(case.file);
        for &chunk in CHUNKS {
            // A misleading name: detection must come from the content.
            let facts = upload_and_probe(&bytes, chunk, "upload.bin").await;
            let ctx = format!("{} in {chunk}-byte chunks: {facts:?}", case.file);
            assert_eq!(facts.mime, case.mime, "{ctx}");
            assert_eq!(facts.kind, case.kind, "{ctx}");
            assert_eq!(facts.extension, case.extension, "{ctx}");
            assert_eq!(facts.info, case.info, "{ctx}");
            assert!(facts.image.is_none(), "{ctx}");
            let audio = facts.audio.as_ref().expect(&ctx);
            assert_eq!(audio.codec, case.codec, "{ctx}");
            assert_eq!(audio.sample_rate, case.sample_rate, "{ctx}");
            assert_eq!(audio.channels, case.channels, "{ctx}");
            assert_eq!(audio.duration_ms, case.duration_ms, "{ctx}");
            assert!(audio.duration_ms.abs_diff(case.true_ms) <= 30, "{ctx}");
            assert_eq!(audio.bitrate, case.bitrate, "{ctx}");
        }
    }
}

/// Expected facts of a video fixture: what ffprobe says of each (tests/fixtures/README.md).
struct VideoCase {
    file: &'static str,
    mime: &'static str,
    extension: &'static str,
    codec: &'static str,
    width: u32,
    height: u32,
    frame_rate: f64,
    duration_ms: u64,
    /// The soundtrack's codec, channels and sample rate; `None` for a file without sound.
    audio: Option<(&'static str, u16, u32)>,
    info: &'static str,
}

const VIDEO_CASES: &[VideoCase] = &[
    VideoCase {
        file: "h264_aac.mp4",
        mime: "video/mp4",
        extension: "mp4",
        codec: "h264",
        width: 320,
        height: 180,
        // 30000/1001, as ffprobe's avg_frame_rate.
        frame_rate: 29.97,
        duration_ms: 1001,
        audio: Some(("aac", 2, 48_000)),
        info: "MPEG-4 video, H.264, 320 x 180, 29.97 fps, AAC audio, 48 kHz, Stereo",
    },
    VideoCase {
        file: "hevc.mov",
        mime: "video/quicktime",
        extension: "mov",
        codec: "hevc",
        width: 256,
        height: 144,
        frame_rate: 25.0,
        duration_ms: 1000,
        audio: None,
        info: "QuickTime video, HEVC, 256 x 144, 25 fps",
    },
    VideoCase {
        file: "av1.mp4",
        mime: "video/mp4",
        extension: "mp4",
        codec: "av1",
        width: 192,
        height: 108,
        frame_rate: 24.0,
        duration_ms: 1000,
        audio: None,
        info: "MPEG-4 video, AV1, 192 x 108, 24 fps",
    },
    VideoCase {
        file: "vp9_opus.webm",
        mime: "video/webm",
        extension: "webm",
        codec: "vp9",
        width: 320,
        height: 240,
        frame_rate: 24.0,
        // Matroska's segment duration (ffprobe's format duration).
        duration_ms: 1008,
        audio: Some(("opus", 1, 48_000)),
        info: "WebM video, VP9, 320 x 240, 24 fps, Opus audio, 48 kHz, Mono",
    },
    VideoCase {
        file: "h264_aac.mkv",
        mime: "video/x-matroska",
        extension: "mkv",
        codec: "h264",
        width: 320,
        height: 180,
        frame_rate: 29.97,
        duration_ms: 1022,
        audio: Some(("aac", 2, 48_000)),
        info: "Matroska video, H.264, 320 x 180, 29.97 fps, AAC audio, 48 kHz, Stereo",
    },
];

/// A video upload is video, with its codec, size, frame rate and duration read from the
/// container's headers (MP4, QuickTime, WebM, Matroska), and its soundtrack's facts beside.
#[tokio::test]
async fn video_fixtures() {
    for case in VIDEO_CASES {
        let bytes = fixture(case.file);
        for &chunk in CHUNKS {
            let facts = upload_and_probe(&bytes, chunk, "upload.bin").await;
            let ctx = format!("{} in {chunk}-byte chunks: {facts:?}", case.file);
            assert_eq!(facts.kind, MediaKind::Video, "{ctx}");
            assert_eq!(facts.mime, case.mime, "{ctx}");
            assert_eq!(facts.extension, case.extension, "{ctx}");
            assert_eq!(facts.info, case.info, "{ctx}");
            let video = facts.video.as_ref().expect(&ctx);
            assert_eq!(video.codec, case.codec, "{ctx}");
            assert_eq!(
                (video.width, video.height),
                (case.width, case.height),
                "{ctx}"
            );
            assert_eq!(video.frame_rate, case.frame_rate, "{ctx}");
            assert_eq!(video.duration_ms, case.duration_ms, "{ctx}");
            let audio = facts
                .audio
                .as_ref()
                .map(|a| (a.codec.as_str(), a.channels, a.sample_rate));
            assert_eq!(audio, case.audio, "{ctx}");
        }
    }
}

/// An MP4's `moov` may come after its media data (ffmpeg's and most cameras' layout, as in the
/// fixture) or before it (`+faststart`, for streaming): the probe finds it either way.
#[tokio::test]
async fn a_video_is_read_whether_its_moov_comes_first_or_last() {
    let last = fixture("h264_aac.mp4");
    let moov = find_box(&last, b"moov").unwrap();
    let mdat = find_box(&last, b"mdat").unwrap();
    assert!(mdat.0 < moov.0, "the fixture has its moov last");
    // Chunk offsets are not read by the probe, so the boxes may simply be swapped.
    let mut first = last[..mdat.0].to_vec();
    first.extend_from_slice(&last[moov.0..moov.1]);
    first.extend_from_slice(&last[mdat.0..mdat.1]);
    for bytes in [last, first] {
        let facts = upload_and_probe(&bytes, 4096, "clip.mp4").await;
        let video = facts.video.expect("video facts");
        assert_eq!(
            (video.codec.as_str(), video.width, video.height),
            ("h264", 320, 180)
        );
        assert_eq!(video.duration_ms, 1001);
    }
}

/// The byte range `[start, end)` of the first top-level box of `kind`.
fn find_box(bytes: &[u8], kind: &[u8; 4]) -> Option<(usize, usize)> {
    let mut at = 0;
    while at + 8 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        if &bytes[at + 4..at + 8] == kind {
            return Some((at, at + len));
        }
        at += len.max(8);
    }
    None
}

/// The trap this module exists for: a VBR MP3 with no Xing/Info/VBRI header. Its only length
/// is in its frames; symphonia alone estimates 4101 ms from the first (silent) frames. Fails
/// if the Sniffer's frame scan is removed or broken.
#[tokio::test]
async fn vbr_mp3_without_xing_needs_the_frame_scan() {
    let bytes = fixture("vbr_noxing_mono.mp3");
    for chunk in [1, 7, 1000] {
        let facts = upload_and_probe(&bytes, chunk, "episode.mp3").await;
        let audio = facts.audio.expect("audio facts");
        // 116 frames x 1152 samples / 44100 Hz = 3030.2 ms.
        assert_eq!(audio.duration_ms, 3030, "{chunk}-byte chunks");
        assert_eq!(audio.bitrate, 43_319);
    }
}

#[tokio::test]
async fn image_fixtures() {
    let cases = [
        (
            "cover_1400.png",
            "image/png",
            "png",
            1400,
            "PNG image, 1400 x 1400",
        ),
        (
            "cover_3000.jpg",
            "image/jpeg",
            "jpg",
            3000,
            "JPEG image, 3000 x 3000",
        ),
    ];
    for (file, mime, extension, side, info) in cases {
        let bytes = fixture(file);
        for &chunk in CHUNKS {
            let facts = upload_and_probe(&bytes, chunk, "cover.dat").await;
            assert_eq!(facts.mime, mime, "{file}");
            assert_eq!(facts.kind, MediaKind::Image, "{file}");
            assert_eq!(facts.extension, extension, "{file}");
            assert_eq!(facts.info, info, "{file}");
            let image = facts.image.expect(file);
            assert_eq!((image.width, image.height), (side, side), "{file}");
            assert!(facts.audio.is_none(), "{file}");
        }
    }
}

#[tokio::test]
async fn image_header_beyond_the_head_is_fetched() {
    // A JPEG whose SOF marker lies after 100 KB of APP segments (e.g. big EXIF/ICC blocks).
    let jpeg = fixture("cover_3000.jpg");
    let mut bytes = jpeg[..2].to_vec();
    for _ in 0..2 {
        bytes.extend_from_slice(&[0xFF, 0xE1, 0xFF, 0xFF]);
        bytes.extend(std::iter::repeat_n(0x41, 0xFFFD));
    }
    bytes.extend_from_slice(&jpeg[2..]);
    let facts = upload_and_probe(&bytes, 4096, "a.jpg").await;
    assert_eq!(facts.mime, "image/jpeg");
    assert_eq!(facts.image.map(|i| (i.width, i.height)), Some((3000, 3000)));
}

#[tokio::test]
async fn documents_and_unknown_content() {
    let pdf = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n";
    let facts = upload_and_probe(pdf, 7, "notes").await;
    assert_eq!(
        (
            facts.mime.as_str(),
            facts.kind,
            facts.extension.as_str(),
            facts.info.as_str()
        ),
        (
            "application/pdf",
            MediaKind::Document,
            "pdf",
            "PDF document"
        )
    );

    let vtt = b"WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nHello and welcome.\n";
    let facts = upload_and_probe(vtt, 1000, "transcript.txt").await;
    assert_eq!(
        (facts.mime.as_str(), facts.extension.as_str()),
        ("text/vtt", "vtt")
    );
    assert_eq!(facts.kind, MediaKind::Document);

    // Pseudo-random bytes: unknown, keeping the file name's extension.
    let noise: Vec<u8> = (0u32..50_000)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let facts = upload_and_probe(&noise, 1000, "Blob.XYZ").await;
    assert_eq!(facts, unknown("xyz"));

    let facts = upload_and_probe(&[], 1, "empty.MP3").await;
    assert_eq!(facts, unknown("mp3"));
    let facts = upload_and_probe(&[], 1, "no-extension").await;
    assert_eq!(facts, unknown(""));
}

fn unknown(extension: &str) -> MediaFacts {
    MediaFacts {
        mime: "application/octet-stream".to_owned(),
        kind: MediaKind::Other,
        extension: extension.to_owned(),
        info: "data".to_owned(),
        audio: None,
        image: None,
        video: None,
        tag_bytes: 0,
        sha384: None,
    }
}

/// An ID3v2.3 tag of `body_len` bytes whose body is full of valid-looking MPEG frame headers.
fn id3_tag_with_fake_frames(body_len: usize) -> Vec<u8> {
    let size = u32::try_from(body_len).unwrap();
    let mut tag = b"ID3\x03\x00\x00".to_vec();
    tag.extend([21, 14, 7, 0].map(|shift| ((size >> shift) & 0x7F) as u8));
    let fake = [0xFF, 0xFB, 0x90, 0x64];
    tag.extend((0..body_len).map(|i| match i % 417 {
        p @ 0..4 => fake[p],
        p => (p % 251) as u8,
    }));
    tag
}

#[tokio::test]
async fn mp3_with_big_id3_tag_and_trailing_tags() {
    // A 100 KB ID3 tag (larger than the 64 KiB head) full of fake frame headers, then the
    // Xing-less VBR stream, then an APE tag and an ID3v1 tag: only the real frames count.
    let mut bytes = id3_tag_with_fake_frames(100_000);
    bytes.extend(fixture("vbr_noxing_mono.mp3"));
    bytes.extend_from_slice(b"APETAGEX\xd0\x07\x00\x00");
    bytes.extend(std::iter::repeat_n(0xFF, 200));
    bytes.extend_from_slice(b"TAG");
    bytes.extend(std::iter::repeat_n(b' ', 125));
    for chunk in [7, 65_536] {
        let facts = upload_and_probe(&bytes, chunk, "x").await;
        assert_eq!(facts.mime, "audio/mpeg");
        let audio = facts.audio.expect("audio facts");
        assert_eq!(audio.duration_ms, 3030);
        assert_eq!((audio.sample_rate, audio.channels), (44_100, 1));
    }
}

#[tokio::test]
async fn flac_behind_an_id3_tag() {
    let mut bytes = id3_tag_with_fake_frames(2000);
    bytes.extend(fixture("tone_stereo.flac"));
    let facts = upload_and_probe(&bytes, 1000, "x.mp3").await;
    assert_eq!(
        (facts.mime.as_str(), facts.extension.as_str()),
        ("audio/flac", "flac")
    );
    assert_eq!(facts.audio.map(|a| a.duration_ms), Some(3000));
}

#[tokio::test]
async fn truncated_mp3_counts_what_is_there() {
    // Cut the CBR file roughly in half: its Info header still claims 116 frames, but the
    // counted frames disagree by far more than 1%, so the count wins (and no gapless trim).
    let bytes = fixture("cbr_128k_stereo.mp3");
    let cut = &bytes[..bytes.len() / 2];
    let facts = upload_and_probe(cut, 1000, "cut.mp3").await;
    let audio = facts.audio.expect("audio facts");
    // The frames wholly present: (cut - ID3 tag - Info frame) / 417 or 418 bytes each.
    assert!((1300..1600).contains(&audio.duration_ms), "{audio:?}");
    assert_eq!(audio.bitrate, 128_000);
}

#[tokio::test]
async fn wav_claiming_4_gb_is_clamped_to_its_bytes() {
    let original = fixture("tone_mono_s16.wav");
    let data = original.windows(4).position(|w| w == b"data").unwrap();
    let patch = |riff: u32, chunk: u32| {
        let mut bytes = original.clone();
        bytes[4..8].copy_from_slice(&riff.to_le_bytes());
        bytes[data + 4..data + 8].copy_from_slice(&chunk.to_le_bytes());
        bytes
    };
    // Consistent sizes (as a recorder that never finalised its header may leave them): the
    // header claims ~4 GB (~13.5 hours), the duration is what the 88200 bytes present hold.
    let claim = 0xFFFF_FF00u32;
    // The RIFF size counts everything after its own 8-byte header; u32::MAX means "unknown".
    let riff = claim + u32::try_from(data).unwrap();
    for (riff, chunk) in [(riff, claim), (u32::MAX, claim)] {
        let facts = upload_and_probe(&patch(riff, chunk), 1000, "big.wav").await;
        assert_eq!(facts.mime, "audio/wav");
        let audio = facts.audio.expect("audio facts");
        assert_eq!(audio.duration_ms, 1000, "{audio:?}");
    }
    // A data chunk larger than its RIFF parent is rejected by the demuxer: still a WAV.
    let facts = upload_and_probe(&patch(0xFFFF_FFF0, 0xFFFF_FFF0), 1000, "big.wav").await;
    assert_eq!(
        (facts.mime.as_str(), facts.kind),
        ("audio/wav", MediaKind::Audio)
    );
}

#[tokio::test]
async fn id3_size_field_larger_than_the_file() {
    let mut bytes = b"ID3\x04\x00\x00\x7F\x7F\x7F\x7F".to_vec();
    bytes.extend(fixture("vbr_noxing_mono.mp3"));
    let facts = upload_and_probe(&bytes, 999, "x").await;
    assert_eq!(facts.mime, "audio/mpeg");
    assert_eq!(facts.kind, MediaKind::Audio);
    assert!(facts.audio.is_none());
}

#[tokio::test]
async fn long_non_audio_stream_is_cheap() {
    // 32 MiB of a repeating non-audio pattern in 1 MiB chunks: the scanner gives up after its
    // probe window instead of scanning everything.
    let mut sniffer = Sniffer::new();
    let chunk: Vec<u8> = (0..1 << 20).map(|i: u32| (i % 241) as u8).collect();
    let started = std::time::Instant::now();
    for _ in 0..32 {
        sniffer.update(&chunk);
    }
    let sniffed = sniffer.finish();
    assert_eq!(sniffed.len(), 32 << 20);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

/// A fixture with bytes overwritten (anywhere, in the first 512 bytes, or in the last 2 KiB,
/// where headers and MP4 `moov` boxes live) and then truncated.
fn mutated(seed_file: &str, flips: &[(u8, usize, u8)], cut: usize) -> Vec<u8> {
    let mut bytes = fixture(seed_file);
    let len = bytes.len();
    for &(region, at, value) in flips {
        let index = match region % 3 {
            0 => at % len,
            1 => at % len.min(512),
            _ => len - 1 - at % len.min(2048),
        };
        bytes[index] = value;
    }
    bytes.truncate(cut % (bytes.len() + 1));
    bytes
}

fn run_probe(bytes: &[u8], chunks: &[usize], name: &str) -> MediaFacts {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        let location = Path::from("p");
        store
            .put(&location, PutPayload::from(bytes.to_vec()))
            .await
            .unwrap();
        let mut sniffer = Sniffer::new();
        let mut rest = bytes;
        let mut sizes = chunks.iter().cycle();
        while !rest.is_empty() {
            let n = sizes.next().copied().unwrap_or(1).clamp(1, rest.len());
            let (now, later) = rest.split_at(n);
            sniffer.update(now);
            rest = later;
        }
        probe(store, &location, bytes.len() as u64, sniffer.finish(), name).await
    })
}

/// Starts that steer random bytes into each parser.
const PREFIXES: &[&[u8]] = &[
    b"",
    b"ID3\x04\x00\x00\x00\x00\x00\x10",
    b"\xFF\xFB\x90\x64",
    b"\xFF\xF1\x50\x80",
    b"RIFF\xFF\xFF\xFF\xFFWAVEfmt ",
    b"fLaC",
    b"OggS\x00\x02",
    b"\x00\x00\x00\x18ftypisom",
    b"\x1A\x45\xDF\xA3",
    b"\x89PNG\r\n\x1a\n",
];

const SEEDS: &[&str] = &[
    "cbr_128k_stereo.mp3",
    "vbr_noxing_mono.mp3",
    "vbr_id3_cover.mp3",
    "aac_96k_mono.m4a",
    "tiny_video.mp4",
    "h264_aac.mp4",
    "vp9_opus.webm",
    "h264_aac.mkv",
    "adts_mono.aac",
    "vorbis_stereo.ogg",
    "tone_stereo.flac",
    "tone_mono_s16.wav",
    "cover_1400.png",
];

// 256 cases each by default; set PROPTEST_CASES for a longer fuzzing run.
proptest! {
    /// Arbitrary bytes in arbitrary chunkings never panic and yield a coherent result.
    #[test]
    fn arbitrary_bytes_never_panic(
        bytes in prop::collection::vec(any::<u8>(), 0..6000),
        chunks in prop::collection::vec(1usize..700, 1..8),
        prefix in prop::sample::select(PREFIXES),
    ) {
        let mut input = prefix.to_vec();
        input.extend(bytes);
        let facts = run_probe(&input, &chunks, "f.bin");
        prop_assert!(!facts.mime.is_empty());
        prop_assert!(!facts.info.is_empty());
    }

    /// Fixtures with corrupted bytes and truncation never panic either.
    #[test]
    fn mutated_fixtures_never_panic(
        seed in prop::sample::select(SEEDS),
        flips in prop::collection::vec((any::<u8>(), any::<usize>(), any::<u8>()), 0..24),
        cut in prop_oneof![Just(usize::MAX), any::<usize>()],
        chunks in prop::collection::vec(1usize..5000, 1..4),
    ) {
        let input = mutated(seed, &flips, cut);
        let facts = run_probe(&input, &chunks, seed);
        prop_assert!(!facts.mime.is_empty());
        prop_assert!(!facts.info.is_empty());
    }
}
