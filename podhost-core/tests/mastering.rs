//! Mastering checked by real peers: ffmpeg measures the mastered file's loudness and true peak
//! (its `ebur128` filter) and decodes it with no error, ffprobe reads its duration, and mutagen
//! (PyPI, in `.venv`) reads the tags and chapters carried over from the original.
//!
//! Without ffmpeg/ffprobe or the venv's mutagen the test prints `SKIPPED` and passes, unless
//! `PODHOST_REQUIRE_EXTERNAL=1` (set by `scripts/test`, which installs them).

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "support/ffmpeg.rs"]
mod ffmpeg_tools;
use ffmpeg_tools::{ffmpeg, ffmpeg_and_ffprobe, ffmpeg_loudness, probe};
use futures::TryStreamExt;
use podhost_core::{
    MediaId, PodcastHost,
    model::{JobKind, JobStatus},
    tags::{Chapter, Tags},
};
use serde_json::{Value, json};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn tools() -> Result<(), String> {
    ffmpeg_and_ffprobe()?;
    let mutagen = Command::new(repo().join(".venv/bin/python"))
        .args(["-c", "import mutagen"])
        .output()
        .is_ok_and(|o| o.status.success());
    mutagen
        .then_some(())
        .ok_or_else(|| "no mutagen in .venv".to_string())
}

fn run(program: &str, args: &[&str]) -> String {
    let out = Command::new(program).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// A file's duration as ffmpeg decodes it (honouring the encoder delay and padding a LAME/Info
/// header or an Opus pre-skip and end trim give), in seconds; stopping at the first decoding
/// error.
fn decoded_seconds(path: &Path) -> f64 {
    let file = path.to_str().unwrap();
    let args = [
        "-v", "error", "-xerror", "-i", file, "-ac", "1", "-ar", "48000",
    ];
    let out = Command::new("ffmpeg")
        .args(args)
        .args(["-f", "s16le", "-"])
        .output()
        .unwrap();
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "ffmpeg decoding {file}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout.len() as f64 / 2.0 / 48_000.0
}

/// A mastered file as ffmpeg reads it: decoded with no error or warning; loudness at the target
/// (-16 LUFS for stereo, within ±0.5 LU) and true peaks at or below the ceiling (-1 dBTP) +
/// 0.2 dB; as long as `source` within `frame` seconds, decoded.
fn checked_by_ffmpeg(path: &Path, source: &Path, frame: f64) {
    let loudness = ffmpeg_loudness(path);
    let (integrated, true_peak) = (loudness.integrated.unwrap(), loudness.true_peak.unwrap());
    assert!((integrated + 16.0).abs() <= 0.5, "integrated {integrated}");
    assert!(true_peak <= -0.8, "true peak {true_peak}");
    let (ours, theirs) = (decoded_seconds(path), decoded_seconds(source));
    eprintln!(
        "{}: {integrated:.2} LUFS, true peak {true_peak:.2} dBTP, decoded {ours:.4} s, source {theirs:.4} s",
        path.display()
    );
    assert!((ours - theirs).abs() <= frame, "{ours} vs {theirs}");
}

/// A webhook sender that answers every request 204, sending nothing.
#[derive(Debug)]
struct Answers204;

#[async_trait::async_trait]
impl podhost_core::webhooks::WebhookSender for Answers204 {
    async fn send(
        &self,
        _: podhost_core::webhooks::WebhookRequest,
    ) -> podhost_core::webhooks::SendOutcome {
        podhost_core::webhooks::SendOutcome::Answered {
            status: 204,
            excerpt: String::new(),
        }
    }
}

/// Events rendered as an empty object.
#[derive(Debug)]
struct EmptyEvents;

impl podhost_core::webhooks::event::EventRenderer for EmptyEvents {
    fn render(
        &self,
        _: &podhost_core::AccountId,
        _: &podhost_core::webhooks::event::Subject,
    ) -> Value {
        json!({})
    }
}

/// `path` made by ffmpeg from the lavfi audio source `source`, with `codec` options.
fn generate(path: &Path, source: &str, codec: &[&str]) {
    let mut args = vec!["-f", "lavfi", "-i", source];
    args.extend_from_slice(codec);
    args.push(path.to_str().unwrap());
    ffmpeg(&args);
}

/// What mutagen (the venv's, `tests/tags/mutagen_dump.py`) reads of `path`'s tags, as JSON.
fn mutagen_dump(path: &Path) -> String {
    run(
        repo().join(".venv/bin/python").to_str().unwrap(),
        &[
            repo().join("tests/tags/mutagen_dump.py").to_str().unwrap(),
            path.to_str().unwrap(),
        ],
    )
}

/// `talk.flac` in `dir`: 12.345 s of a quiet voice-like stereo signal at 44.1 kHz.
fn talk_flac(dir: &Path) -> PathBuf {
    let source = dir.join("talk.flac");
    generate(
        &source,
        "aevalsrc=0.05*sin(2*PI*220*t)*(0.6+0.4*sin(2*PI*3*t))|0.05*sin(2*PI*330*t):s=44100:d=12.345",
        &[],
    );
    source
}

/// A host on a memory store with the account alice, and `file` uploaded as her media file.
async fn alice_with(
    file: &Path,
) -> (
    PodcastHost,
    podhost_core::Principal,
    podhost_core::model::Media,
) {
    let host = PodcastHost::new(
        podhost_core::HostConfig::new("https://pod.example").unwrap(),
        podhost_core::open_store("memory://").unwrap().store,
    );
    let who = podhost_testkit::setup::account(&host, "alice").await;
    let name = file.file_name().unwrap().to_str().unwrap();
    let original =
        podhost_testkit::setup::upload(&host, &who, name, std::fs::read(file).unwrap()).await;
    (host, who, original)
}

/// Masters `media` with `params`, here; the job's report once it succeeded.
async fn master_here(
    host: &PodcastHost,
    who: &podhost_core::Principal,
    media: MediaId,
    params: Value,
) -> Value {
    let job = host
        .work()
        .submit_job(who, media, JobKind::Master, params)
        .await
        .unwrap();
    let job = host.work().run_job(who, &job.id).await.unwrap();
    assert_eq!(job.status, JobStatus::Succeeded, "{:?}", job.error);
    job.report.unwrap()
}

async fn download(host: &PodcastHost, who: &podhost_core::Principal, id: MediaId) -> Vec<u8> {
    let (_, stream) = host.podcasts().download_media(who, id).await.unwrap();
    let chunks: Vec<bytes::Bytes> = stream.try_collect().await.unwrap();
    chunks.concat()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quiet_file_is_mastered_to_the_target_with_its_tags_and_chapters() {
    let Some(()) = podhost_testkit::or_skip("mastering", "ffmpeg, ffprobe and mutagen", tools())
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // 40 s of stereo music-like audio at 44.1 kHz, quiet (about -30 LUFS) with loud bursts that
    // the gain would push past the ceiling: the limiter has work to do.
    let source = dir.path().join("episode.mp3");
    generate(
        &source,
        "aevalsrc=0.03*sin(2*PI*220*t)*(0.6+0.4*sin(2*PI*3*t))+0.02*sin(2*PI*277*t)+if(lt(mod(t\\,10)\\,0.3)\\,0.9*sin(2*PI*90*t)\\,0)|0.03*sin(2*PI*330*t)+0.02*sin(2*PI*440*t):s=44100:d=40",
        &["-c:a", "libmp3lame", "-b:a", "192k"],
    );
    let tags = Tags {
        title: Some("Pilot".into()),
        artist: Some("Alice".into()),
        chapters: vec![
            Chapter {
                start_ms: 0,
                end_ms: Some(20_000),
                title: "Intro".into(),
                url: None,
            },
            Chapter {
                start_ms: 20_000,
                end_ms: Some(40_000),
                title: "Main part".into(),
                url: None,
            },
        ],
        ..Default::default()
    };
    podhost_core::tags::write_tags(&source, "audio/mpeg", &tags, Some(40_000)).unwrap();

    let (host, who, original) = alice_with(&source).await;
    // Refusals, before anything runs.
    for (params, field) in [
        (json!({"target": -3}), "target"),
        (json!({"format": "wav"}), "format"),
        (json!({"bitrate": 100}), "bitrate"),
    ] {
        let refused = host
            .work()
            .submit_job(&who, original.id, JobKind::Master, params)
            .await
            .unwrap_err();
        assert!(refused.is_invalid_field(field), "{refused:?}");
    }

    let hook = host
        .work()
        .create_webhook(
            &who,
            podhost_core::webhooks::subscription::NewWebhook {
                url: "https://hooks.example.com/podhost".into(),
                events: vec!["media.created".into(), "media.updated".into()],
                description: None,
                secret: None,
            },
        )
        .await
        .unwrap();
    let report = master_here(&host, &who, original.id, Value::Null).await;
    let made = report["media_id"].as_u64().unwrap();
    let mastered = host
        .podcasts()
        .get_media(&who, MediaId::new(made).unwrap())
        .await
        .unwrap();
    // Named after the original, with the format's extension (made unique beside it).
    assert!(
        mastered.name.starts_with("episode") && mastered.name.ends_with(".mp3"),
        "{}",
        mastered.name
    );
    assert_ne!(mastered.name, original.name);
    assert_eq!(mastered.facts.mime, "audio/mpeg");
    let audio = mastered.facts.audio.as_ref().unwrap();
    assert_eq!((audio.channels, audio.sample_rate), (2, 44_100));
    let path = dir.path().join("mastered.mp3");
    std::fs::write(&path, download(&host, &who, mastered.id).await).unwrap();

    // Decoded as long as the original within one frame (1152 samples at 44.1 kHz); ffprobe
    // reads an MP3 stream.
    checked_by_ffmpeg(&path, &source, 1152.0 / 44_100.0);
    assert_eq!(probe(&path, "stream=codec_name"), "mp3");
    // mutagen: the tags and chapters carried over.
    let dump = mutagen_dump(&path);
    assert!(dump.contains("Pilot") && dump.contains("Alice"), "{dump}");
    assert!(
        dump.contains("Intro") && dump.contains("Main part"),
        "{dump}"
    );
    assert_eq!(mastered.chapters.len(), 2, "{:?}", mastered.chapters);
    // The original stays as it was: the job announces the new file, and no change of the
    // original.
    let still = host.podcasts().get_media(&who, original.id).await.unwrap();
    assert_eq!(still.blob, original.blob);
    host.work()
        .process_webhooks(&who, &Answers204, &EmptyEvents)
        .await
        .unwrap();
    let announced: Vec<String> = host
        .work()
        .webhook_deliveries(&who, &hook.id)
        .await
        .unwrap()
        .into_iter()
        .map(|d| d.kind)
        .collect();
    assert_eq!(announced, ["media.created"]);
}

/// Opus (RFC 7845 in Ogg) and MP3 from one decode: the Opus file is resampled from 44.1 kHz,
/// measured at the target by ffmpeg, decoded with no error, as long as the source within one
/// 20 ms frame, and carries the tags.
#[cfg(feature = "opus")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opus_is_made_beside_the_mp3_in_the_same_job() {
    let Some(()) = podhost_testkit::or_skip("mastering", "ffmpeg, ffprobe and mutagen", tools())
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let source = talk_flac(dir.path());
    let tags = Tags {
        title: Some("Pilot".into()),
        artist: Some("Alice".into()),
        ..Default::default()
    };
    podhost_core::tags::write_tags(&source, "audio/flac", &tags, Some(12_345)).unwrap();
    let (host, who, original) = alice_with(&source).await;
    let report = master_here(&host, &who, original.id, json!({"alternates": ["opus"]})).await;
    let mp3 = MediaId::new(report["media_id"].as_u64().unwrap()).unwrap();
    let opus = MediaId::new(report["alternates"][0].as_u64().unwrap()).unwrap();
    let opus = host.podcasts().get_media(&who, opus).await.unwrap();
    assert_eq!(opus.name, "talk.opus");
    assert_eq!(opus.facts.mime, "audio/ogg");
    assert_eq!(opus.facts.extension, "opus", "{:?}", opus.facts);
    assert_eq!(opus.mastered_from, Some(original.id));
    assert_eq!(
        host.podcasts().get_media(&who, mp3).await.unwrap().name,
        "talk.mp3"
    );

    let path = dir.path().join("mastered.opus");
    std::fs::write(&path, download(&host, &who, opus.id).await).unwrap();
    // Within one 20 ms Opus frame of the source.
    checked_by_ffmpeg(&path, &source, 0.020);
    assert_eq!(probe(&path, "stream=codec_name"), "opus");
    let dump = mutagen_dump(&path);
    assert!(dump.contains("Pilot") && dump.contains("Alice"), "{dump}");
}

/// A 96 kHz master (a rate MP3 has no place for) is resampled to 48 kHz: ffmpeg decodes it with
/// no error, at the target, as long as the source within one MP3 frame.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_96_khz_file_is_mastered_to_a_48_khz_mp3() {
    let Some(()) = podhost_testkit::or_skip("mastering", "ffmpeg, ffprobe and mutagen", tools())
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("studio.wav");
    generate(
        &source,
        "aevalsrc=0.05*sin(2*PI*220*t)*(0.6+0.4*sin(2*PI*3*t))|0.05*sin(2*PI*330*t):s=96000:d=7.5",
        &["-c:a", "pcm_s24le"],
    );
    let (host, who, original) = alice_with(&source).await;
    let report = master_here(&host, &who, original.id, Value::Null).await;
    let made = MediaId::new(report["media_id"].as_u64().unwrap()).unwrap();
    let mastered = host.podcasts().get_media(&who, made).await.unwrap();
    assert_eq!(mastered.facts.audio.as_ref().unwrap().sample_rate, 48_000);
    let path = dir.path().join("studio.mp3");
    std::fs::write(&path, download(&host, &who, made).await).unwrap();
    checked_by_ffmpeg(&path, &source, 1152.0 / 48_000.0);
    assert_eq!(probe(&path, "stream=codec_name,sample_rate"), "mp3,48000");
}

/// AAC-LC in M4A (by ffmpeg's encoder, a child process) beside an MP3 from one decode: ffmpeg
/// measures it at the target and decodes it as long as the source to the sample (its edit list
/// skips the priming and trims the padding); `iTunSMPB` says the same numbers; ffprobe reads
/// the chapters (Nero `chpl` and the QuickTime chapter track) and mutagen the tags and cover.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aac_in_m4a_is_mastered_with_gapless_information_chapters_and_cover() {
    let Some(()) = podhost_testkit::or_skip("mastering", "ffmpeg, ffprobe and mutagen", tools())
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let source = talk_flac(dir.path());
    let cover = dir.path().join("cover.png");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "color=c=teal:s=64x64",
        "-frames:v",
        "1",
        cover.to_str().unwrap(),
    ]);
    let cover = std::fs::read(&cover).unwrap();
    let tags = Tags {
        title: Some("Pilot".into()),
        artist: Some("Alice".into()),
        chapters: vec![
            Chapter {
                start_ms: 0,
                end_ms: Some(5_000),
                title: "Intro".into(),
                url: None,
            },
            Chapter {
                start_ms: 5_000,
                end_ms: Some(12_345),
                title: "Main part".into(),
                url: None,
            },
        ],
        cover: Some(podhost_core::tags::Cover {
            mime: "image/png".into(),
            bytes: cover.clone().into(),
        }),
        ..Default::default()
    };
    podhost_core::tags::write_tags(&source, "audio/flac", &tags, Some(12_345)).unwrap();
    let (host, who, original) = alice_with(&source).await;
    for (params, field) in [
        (json!({"format": "aac", "bitrate": 8}), "bitrate"),
        (
            json!({"format": "aac", "alternates": ["aac"]}),
            "alternates",
        ),
    ] {
        let refused = host
            .work()
            .submit_job(&who, original.id, JobKind::Master, params)
            .await
            .unwrap_err();
        assert!(refused.is_invalid_field(field), "{refused:?}");
    }
    let params = json!({"format": "aac", "alternates": ["mp3"]});
    let report = master_here(&host, &who, original.id, params).await;
    let aac = MediaId::new(report["media_id"].as_u64().unwrap()).unwrap();
    let mp3 = MediaId::new(report["alternates"][0].as_u64().unwrap()).unwrap();
    let aac = host.podcasts().get_media(&who, aac).await.unwrap();
    assert_eq!(aac.name, "talk.m4a");
    assert_eq!(aac.facts.mime, "audio/mp4");
    let audio = aac.facts.audio.as_ref().unwrap();
    assert_eq!(
        (
            audio.codec.as_str(),
            audio.profile.as_deref(),
            audio.sample_rate,
            audio.channels
        ),
        ("aac", Some("LC"), 44_100, 2)
    );
    assert_eq!(aac.chapters.len(), 2, "{:?}", aac.chapters);
    assert_eq!(
        host.podcasts()
            .get_media(&who, mp3)
            .await
            .unwrap()
            .facts
            .mime,
        "audio/mpeg"
    );

    let path = dir.path().join("talk.m4a");
    std::fs::write(&path, download(&host, &who, aac.id).await).unwrap();
    // ffmpeg (5.1) skips the priming by the edit list but does not trim the end of an AAC
    // track: its decode is within a frame; the edit list's length (ffprobe's `duration_ts`) is
    // the source's to the sample (12.345 s at 44.1 kHz, 544,414.5, which lavfi rounds up).
    checked_by_ffmpeg(&path, &source, 1024.0 / 44_100.0);
    assert_eq!(probe(&path, "stream=duration_ts"), "544415");
    assert_eq!(
        probe(&path, "stream=codec_name,profile,sample_rate,channels"),
        "aac,LC,44100,2"
    );
    let bitrate: f64 = probe(&path, "stream=bit_rate").parse().unwrap();
    assert!((100_000.0..=140_000.0).contains(&bitrate), "{bitrate}");
    let chapters = run(
        "ffprobe",
        &[
            "-v",
            "error",
            "-show_chapters",
            "-of",
            "csv=p=0",
            path.to_str().unwrap(),
        ],
    );
    assert!(
        chapters.contains("Intro") && chapters.contains("Main part"),
        "{chapters}"
    );
    let dump: Value = serde_json::from_str(&mutagen_dump(&path)).unwrap();
    assert_eq!(dump["tags"]["©nam"], json!(["Pilot"]), "{dump}");
    assert_eq!(dump["tags"]["©ART"], json!(["Alice"]), "{dump}");
    assert_eq!(dump["pictures"][0]["len"], json!(cover.len()), "{dump}");
    let titles: Vec<&str> = dump["chapters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Intro", "Main part"], "{dump}");
    // iTunSMPB: 1,024 samples of priming, the length the decoder gives, the padding to the
    // last whole frame.
    let smpb = dump["tags"]["----:com.apple.iTunes:iTunSMPB"][0]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let fields: Vec<u64> = smpb
        .trim_start_matches("b'")
        .split_whitespace()
        .take(4)
        .map(|h| u64::from_str_radix(h.trim_matches('\''), 16).unwrap())
        .collect();
    let decoded = (fields[1] + fields[2] + fields[3]) as f64;
    assert_eq!(fields[1], 1024, "{smpb}");
    assert_eq!((decoded as u64) % 1024, 0, "{smpb}");
    assert!((fields[3] as i64 - 544_415).abs() <= 1, "{smpb}");
}
