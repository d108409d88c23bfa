//! Stitching checked by ffmpeg: an episode and an ad encoded by LAME (whose bit reservoir makes
//! frames borrow from the frames before them), the ad put before, twice in the middle of and
//! after the episode, cut where a frame borrows. ffmpeg decodes the answer with no error and no
//! warning; every frame is there; after each seam the decoded samples are the episode's own; and
//! without the seam's carrier frames ffmpeg does complain (the test would catch their loss).
//!
//! Without ffmpeg the test prints `SKIPPED` and passes, unless `PODHOST_REQUIRE_EXTERNAL=1`.

#[path = "support/ffmpeg.rs"]
#[allow(dead_code)]
mod ffmpeg;
#[path = "support/stitched.rs"]
mod stitched;

use std::path::Path;
use std::process::Command;

use ffmpeg::ffmpeg_and_ffprobe;
use podhost_core::model::BlobKey;
use podhost_core::stitch::{Arrangement, Mp3File, Mp3Layout, Piece, Slot, stitch};
use podhost_core::tags::{Chapter, Tags};
use stitched::{answer, mutagen, stdout};

/// An MP3 of `seconds` of a signal that keeps the encoder busy, by LAME at 64 kbit/s mono.
fn lame(dir: &Path, name: &str, expr: &str, seconds: f64) -> Vec<u8> {
    let path = dir.join(name);
    let source = format!("aevalsrc={expr}:s=44100:d={seconds}");
    stdout(
        Command::new("ffmpeg")
            .args(["-v", "error", "-f", "lavfi", "-i", &source])
            .args(["-c:a", "libmp3lame", "-b:a", "64k", "-ac", "1"])
            .arg(&path),
    );
    std::fs::read(path).unwrap()
}

/// ffprobe's duration of `mp3`, in seconds.
fn probe_duration(dir: &Path, mp3: &[u8]) -> f64 {
    let path = dir.join("probed.mp3");
    std::fs::write(&path, mp3).unwrap();
    let out = stdout(
        Command::new("ffprobe")
            .args([
                "-v",
                "warning",
                "-show_entries",
                "format=duration",
                "-of",
                "csv=p=0",
            ])
            .arg(&path),
    );
    String::from_utf8(out).unwrap().trim().parse().unwrap()
}

/// ffmpeg's decoding of `mp3`: its mono samples, and what it said on stderr.
fn decode(dir: &Path, mp3: &[u8]) -> (Vec<i16>, String) {
    let path = dir.join("answer.mp3");
    std::fs::write(&path, mp3).unwrap();
    let out = Command::new("ffmpeg")
        .args(["-v", "warning", "-i"])
        .arg(&path)
        .args(["-f", "s16le", "-ac", "1", "-"])
        .output()
        .unwrap();
    let samples = out
        .stdout
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect();
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    (samples, said)
}

#[test]
fn ads_stitched_at_borrowing_frames_decode_clean() {
    let Some(()) = podhost_testkit::or_skip("stitch", "ffmpeg", ffmpeg_and_ffprobe()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let episode = lame(
        dir.path(),
        "episode.mp3",
        "0.3*sin(2*PI*(200+100*sin(2*PI*0.5*t))*t)*(0.5+0.5*sin(2*PI*2*t))+0.05*(random(0)-0.5)",
        20.0,
    );
    let ad = lame(
        dir.path(),
        "ad.mp3",
        "0.4*sin(2*PI*880*t)*lt(mod(t\\,0.5)\\,0.25)",
        3.0,
    );
    let key = |name: &str| -> BlobKey { serde_json::from_value(serde_json::json!(name)).unwrap() };
    let (episode_blob, ad_blob) = (key("episode"), key("ad"));
    let ad_layout = Mp3Layout::read(&ad).unwrap();
    let episode_layout = Mp3Layout::read(&episode).unwrap();
    assert_eq!(episode_layout.sample_rate(), 44_100);
    let spf = u64::from(episode_layout.samples_per_frame);
    // Two cuts where the frame borrows from the frames before it.
    let borrowing = |from: usize| {
        (from..episode_layout.frames.len())
            .find(|&i| episode_layout.frames[i].main_data_begin > 0)
            .expect("LAME used its reservoir")
    };
    let cuts = [borrowing(200), borrowing(500)];
    // Chapters that start at the breaks, written into the episode's file (an ID3v2 tag in
    // front, which the layout steps over).
    let ms = |frame: usize| frame as u64 * spf * 1000 / 44_100;
    let chapter = |start_ms, end_ms, title: &str| Chapter {
        start_ms,
        end_ms: Some(end_ms),
        title: title.into(),
        url: None,
    };
    let chapters = vec![
        chapter(0, ms(cuts[0]), "Intro"),
        chapter(ms(cuts[0]), ms(cuts[1]), "Middle"),
        chapter(ms(cuts[1]), 20_000, "End"),
    ];
    let path = dir.path().join("episode.mp3");
    let tags = Tags {
        title: Some("Pilot".into()),
        chapters: chapters.clone(),
        ..Default::default()
    };
    podhost_core::tags::write_tags(&path, "audio/mpeg", &tags, Some(20_000)).unwrap();
    let episode = std::fs::read(&path).unwrap();
    let episode_layout = Mp3Layout::read(&episode).unwrap();
    let episode_file = Mp3File {
        blob: &episode_blob,
        bytes: &episode,
        layout: &episode_layout,
    };
    let ad_file = Mp3File {
        blob: &ad_blob,
        bytes: &ad,
        layout: &ad_layout,
    };
    let ads = [
        (Slot::Preroll, ad_file),
        (Slot::Midroll(cuts[0] as u64 * spf), ad_file),
        (Slot::Midroll(cuts[1] as u64 * spf), ad_file),
        (Slot::Postroll, ad_file),
    ];
    let plan = stitch(episode_file, &ads).unwrap();
    let arrangement = plan.arrangement(None);
    let files = [(&episode_blob, &episode[..]), (&ad_blob, &ad[..])];
    let stitched = answer(&arrangement, &files);
    let (samples, said) = decode(dir.path(), &stitched);
    assert_eq!(
        said, "",
        "ffmpeg decodes the stitched answer without a word"
    );

    // Every frame is there, and no other: the episode's and four ads', a seam's carrier in
    // place of the last frame of the ad before it (two seams: the preroll's and the first
    // midroll's; the second midroll's ad is followed by a carrier too).
    let (e, a) = (episode_layout.frames.len(), ad_layout.frames.len());
    for &cut in &cuts {
        let carrier = episode_layout
            .carrier(&episode, cut)
            .expect("the frame borrows");
        assert!(carrier.len() < 1100, "one frame: {}", carrier.len());
    }
    let frames = e + 4 * a;
    assert_eq!(samples.len() as u64, frames as u64 * spf);
    let layout = Mp3Layout::read(&stitched).unwrap();
    assert_eq!(layout.frames.len(), frames, "the Xing frame is not audio");

    // ffprobe reads the answer's length from its Xing frame: the episode's and the ads' as
    // ffprobe gives each, within a frame.
    let duration = |bytes: &[u8]| probe_duration(dir.path(), bytes);
    let parts = duration(&episode) + 4.0 * duration(&ad);
    let whole = duration(&stitched);
    let frame_s = spf as f64 / 44_100.0;
    println!(
        "ffprobe: stitched {whole:.6} s, episode and ads {parts:.6} s, a frame {frame_s:.6} s"
    );
    assert!((whole - parts).abs() <= frame_s, "{whole} vs {parts}");

    // After each seam the episode's own samples, bit for bit, once the carrier's silence has
    // passed the decoder's overlap: from the second or third frame after the ad.
    let plain = stitch(episode_file, &[]).unwrap().arrangement(None);
    let (own, said) = decode(dir.path(), &answer(&plain, &files));
    assert_eq!(said, "");
    let at = |frame: usize| frame * spf as usize;
    // The first frame after `seam` (in `decoded`) from which 30 frames are the episode's own
    // from frame `cut` on.
    let settles = |decoded: &[i16], seam: usize, cut: usize| {
        (0..10)
            .find(|&j| {
                (j..j + 30).all(|f| {
                    decoded[at(seam + f)..at(seam + f + 1)] == own[at(cut + f)..at(cut + f + 1)]
                })
            })
            .unwrap_or(usize::MAX)
    };
    let mut before = a; // the preroll
    let mut from = 0;
    let mut seams = Vec::new();
    for cut in &cuts {
        before += (cut - from) + a;
        from = *cut;
        seams.push((before, *cut));
        let settled = settles(&samples, before, *cut);
        assert!(settled <= 2, "the seam at {cut}: {settled}");
        // To the sample: where the decoded answer becomes the episode's own for good (the
        // 30 frames after it), counted from the first sample of the episode's frame at the cut.
        let span = at(30);
        let (ours, theirs) = (&samples[at(before)..], &own[at(*cut)..]);
        let differs = (0..span)
            .rev()
            .find(|&i| ours[i] != theirs[i])
            .map_or(0, |i| i + 1);
        println!(
            "the seam at frame {cut}: the episode's own samples, bit for bit, from sample {differs} after it (encoder delay 1105)"
        );
        assert!(
            differs <= 1105,
            "the seam at {cut}: {differs} samples differ"
        );
    }

    // Without the carriers, the frame after a cut reads the ad's bytes as its reservoir: ffmpeg
    // says nothing, but what it decodes is not the episode for longer (garbage, not silence).
    let bare = Arrangement::new(
        arrangement
            .pieces()
            .iter()
            .filter(|p| matches!(p, Piece::Blob { .. }))
            .cloned(),
    );
    let (garbled, _) = decode(dir.path(), &answer(&bare, &files));
    // The bare answer lacks the preroll's carrier frame.
    let (seam, cut) = seams[0];
    assert!(settles(&garbled, seam - 1, cut) > settles(&samples, seam, cut));

    // The answer's tag: the episode's, its chapters moved by the ads before them, read by
    // mutagen from the stitched file.
    let retimed = plan.chapters(&chapters);
    let tag = podhost_core::tags::id3_with_chapters(&episode, &retimed, Some(plan.duration_ms()))
        .unwrap();
    let tagged = answer(&plan.arrangement(Some(tag.into())), &files);
    let path = dir.path().join("stitched.mp3");
    std::fs::write(&path, &tagged).unwrap();
    let (_, said) = decode(dir.path(), &tagged);
    assert_eq!(said, "", "the tagged answer decodes as cleanly");
    let ad_ms = |frames: u64| frames * spf * 1000 / 44_100;
    let a = a as u64;
    let want = [
        ("Intro", ad_ms(a), ms(cuts[0]) + ad_ms(a)),
        (
            "Middle",
            ms(cuts[0]) + ad_ms(2 * a),
            ms(cuts[1]) + ad_ms(2 * a),
        ),
        ("End", ms(cuts[1]) + ad_ms(3 * a), 20_000 + ad_ms(3 * a)),
    ];
    if let Some(python) = mutagen() {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/tags/mutagen_dump.py");
        let out = stdout(Command::new(python).arg(script).arg(&path));
        let dump: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let read: Vec<(String, u64, u64)> = dump["chapters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let n = |k: &str| c[k].as_u64().unwrap();
                (
                    c["title"].as_str().unwrap().to_string(),
                    n("start_ms"),
                    n("end_ms"),
                )
            })
            .collect();
        for ((title, start, end), (t, s, e)) in want.iter().zip(&read) {
            assert_eq!((*title, *start, *end), (t.as_str(), *s, *e), "{dump}");
        }
        assert_eq!(read.len(), 3, "{dump}");
        assert_eq!(dump["tags"]["TIT2"], serde_json::json!(["Pilot"]));
    }
}
