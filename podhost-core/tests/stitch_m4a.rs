//! AAC in M4A stitched with ads, checked by real peers: an episode and an ad encoded by
//! ffmpeg's AAC encoder (the episode with a title and a cover), the ad put before, twice in the
//! middle of and after the episode. ffmpeg decodes the answer with no error or warning (none
//! but what it says of the episode's own file) and
//! exactly as many samples as its edit list presents (the episode's and the ads' to the
//! sample); after each seam the decoded samples are the episode's own; ffprobe and mutagen read
//! the chapters moved by the ads, mutagen the title and the cover.
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
use podhost_core::stitch::{M4aAd, M4aCuts, M4aFile, Slot};
use podhost_core::tags::Chapter;
use stitched::{answer, mutagen, stdout};

const RATE: u64 = 44_100;

/// An M4A of `seconds` of `expr` by ffmpeg's AAC encoder, 128 kbit/s stereo at 44.1 kHz; with
/// a title and a cover when `tagged`.
fn aac(dir: &Path, name: &str, expr: &str, seconds: f64, tagged: bool) -> Vec<u8> {
    let path = dir.join(name);
    let source = format!("aevalsrc={expr}|{expr}:s={RATE}:d={seconds}");
    let mut command = Command::new("ffmpeg");
    command.args(["-v", "error", "-f", "lavfi", "-i", &source]);
    if tagged {
        let cover = dir.join("cover.png");
        std::fs::write(&cover, podhost_testkit::fixtures::png(300, 300)).unwrap();
        command.arg("-i").arg(&cover);
        command.args(["-map", "0:a", "-map", "1:v", "-c:v", "copy"]);
        command.args(["-disposition:v", "attached_pic", "-metadata", "title=Pilot"]);
    }
    stdout(
        command
            .args(["-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart"])
            .arg(&path),
    );
    std::fs::read(path).unwrap()
}

/// ffmpeg's decoding of `m4a`'s left channel, and what it said on stderr.
fn decode(dir: &Path, m4a: &[u8]) -> (Vec<i16>, String) {
    let path = dir.join("answer.m4a");
    std::fs::write(&path, m4a).unwrap();
    let out = Command::new("ffmpeg")
        .args(["-v", "warning", "-i"])
        .arg(&path)
        .args(["-map", "0:a", "-f", "s16le", "-ac", "2", "-"])
        .output()
        .unwrap();
    let samples = out
        .stdout
        .chunks_exact(4)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect();
    // Each line names its component's address ("[aac @ 0x55…]"): left out, to compare.
    let said = String::from_utf8_lossy(&out.stderr)
        .lines()
        .map(|line| match (line.find(" @ 0x"), line.find(']')) {
            (Some(at), Some(end)) if at < end => format!("{}{}", &line[..at], &line[end..]),
            _ => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    (samples, said)
}

/// ffprobe's JSON of `m4a` (format and chapters).
fn probe(dir: &Path, m4a: &[u8]) -> serde_json::Value {
    let path = dir.join("probed.m4a");
    std::fs::write(&path, m4a).unwrap();
    let out = stdout(
        Command::new("ffprobe")
            .args([
                "-v",
                "error",
                "-of",
                "json",
                "-show_format",
                "-show_chapters",
                "-show_streams",
                "-count_packets",
            ])
            .arg(&path),
    );
    serde_json::from_slice(&out).unwrap()
}

/// The correlation of two equally long signals.
fn correlation(a: &[i16], b: &[i16]) -> f64 {
    let (mut ab, mut aa, mut bb) = (0f64, 0f64, 0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        ab += x * y;
        aa += x * x;
        bb += y * y;
    }
    ab / (aa * bb).sqrt().max(1e-9)
}

#[test]
fn ads_stitched_into_an_m4a_play_clean_with_the_episodes_own_samples_and_moved_chapters() {
    let Some(()) = podhost_testkit::or_skip("stitch_m4a", "ffmpeg", ffmpeg_and_ffprobe()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let episode = aac(
        dir.path(),
        "episode.m4a",
        "0.3*sin(2*PI*(200+100*sin(2*PI*0.5*t))*t)*(0.5+0.5*sin(2*PI*2*t))+0.05*(random(0)-0.5)",
        20.0,
        true,
    );
    let ad = aac(
        dir.path(),
        "ad.m4a",
        "0.4*sin(2*PI*880*t)*lt(mod(t\\,0.5)\\,0.25)*lt(t\\,2.8)",
        3.0,
        false,
    );
    let key = |name: &str| -> BlobKey { serde_json::from_value(serde_json::json!(name)).unwrap() };
    let (episode_blob, ad_blob) = (key("episode"), key("ad"));
    let files = [(&episode_blob, &episode[..]), (&ad_blob, &ad[..])];
    let ms = |samples: u64| samples * 1000 / RATE;
    let breaks = [6 * RATE + 500, 13 * RATE];
    let slots = [
        Slot::Preroll,
        Slot::Midroll(breaks[0]),
        Slot::Midroll(breaks[1]),
        Slot::Postroll,
    ];
    let cuts = M4aCuts::new(
        M4aFile {
            blob: &episode_blob,
            bytes: &episode,
        },
        &slots,
    )
    .unwrap();
    let spot = M4aAd::of(M4aFile {
        blob: &ad_blob,
        bytes: &ad,
    })
    .unwrap();
    let plan = cuts
        .stitch(&[(0, &spot), (1, &spot), (2, &spot), (3, &spot)])
        .unwrap();
    let chapters = vec![
        Chapter {
            start_ms: 0,
            end_ms: None,
            title: "Intro".into(),
            url: None,
        },
        Chapter {
            start_ms: ms(breaks[0]),
            end_ms: None,
            title: "Middle".into(),
            url: None,
        },
        Chapter {
            start_ms: ms(breaks[1]),
            end_ms: None,
            title: "End".into(),
            url: None,
        },
    ];
    let moved = plan.chapters(&chapters);
    let stitched = answer(&plan.arrangement(&moved).unwrap(), &files);
    // ffmpeg says nothing of the answer that it does not say of the episode itself (of a
    // file with a cover it says "stream 0, timescale not set", its own file or not).
    let (_, of_episode) = decode(dir.path(), &episode);
    let (samples, said) = decode(dir.path(), &stitched);
    assert_eq!(
        said, of_episode,
        "ffmpeg decodes the stitched answer as cleanly"
    );

    // The episode's and the ads' samples, to the sample, as ffprobe reads the answer's edit
    // list (ffmpeg's decoder trims the encoder's priming, not the padding after the end): each
    // ad's frames whole but the priming the preroll's edit trims and the padding of the last
    // ad in place of the episode's.
    let plain = cuts.stitch(&[]).unwrap();
    let plain_file = answer(&plain.arrangement(&[]).unwrap(), &files);
    let (own, said) = decode(dir.path(), &plain_file);
    assert_eq!(said, of_episode);
    let facts = |bytes: &[u8]| {
        let probed = probe(dir.path(), bytes);
        let stream = &probed["streams"][0];
        let n = |k: &str| {
            let v = &stream[k];
            v.as_u64()
                .or_else(|| v.as_str()?.parse().ok())
                .unwrap_or_else(|| panic!("{k}: {stream}"))
        };
        (n("duration_ts"), n("nb_read_packets"))
    };
    let (episode_ts, episode_frames) = facts(&episode);
    let (ad_ts, ad_frames) = facts(&ad);
    let priming = 1024; // ffmpeg's AAC encoder, both files
    let padding = |ts: u64, frames: u64| frames * 1024 - priming - ts;
    let want = episode_ts + 4 * ad_frames * 1024 + padding(episode_ts, episode_frames)
        - padding(ad_ts, ad_frames);
    assert_eq!(facts(&plain_file).0, episode_ts, "the episode alone");
    assert_eq!(plain.presented(), episode_ts);
    let (stitched_ts, stitched_frames) = facts(&stitched);
    println!(
        "ffprobe: episode {episode_ts} samples, ad {ad_ts} ({ad_frames} frames), stitched {stitched_ts} ({stitched_frames} frames), want {want}, plan {}",
        plan.presented()
    );
    assert_eq!(stitched_ts, want);
    assert_eq!(stitched_ts, plan.presented());
    assert_eq!(stitched_frames, episode_frames + 4 * ad_frames);

    // After each seam, the episode's own samples. Not bit for bit: the AAC encoder codes
    // noisy bands as noise (PNS), which a decoder makes up from a generator that has run on
    // through the ads; so by correlation, from the second frame after the seam (the first
    // overlaps the ad's silent end) and over the seam's own frame.
    let inserts = plan.inserts();
    assert_eq!(inserts.len(), 4, "{inserts:?}");
    for insert in &inserts[..3] {
        // Where the episode resumes, in the answer and in the episode.
        let shift: u64 = inserts
            .iter()
            .filter(|i| i.at <= insert.at)
            .map(|i| i.samples)
            .sum();
        let (theirs, ours) = (insert.at as usize, (insert.at + shift) as usize);
        let (frame, span) = (1024, RATE as usize);
        let after = correlation(
            &samples[ours + 2 * frame..ours + span],
            &own[theirs + 2 * frame..theirs + span],
        );
        let seam = correlation(
            &samples[ours..ours + 2 * frame],
            &own[theirs..theirs + 2 * frame],
        );
        // One frame early or late would not correlate.
        let off = correlation(
            &samples[ours + 3 * frame..ours + span],
            &own[theirs + 2 * frame..theirs + span - frame],
        );
        println!(
            "the seam at sample {}: correlation {after:.5} after it, {seam:.5} over it, {off:.5} a frame off",
            insert.at
        );
        assert!(after > 0.99, "{after}");
        assert!(seam > 0.9, "{seam}");
        assert!(off < 0.5, "{off}");
    }

    // The chapters as ffprobe reads them (its own reading of the file: chpl and the chapter
    // track) and mutagen (chpl), and the episode's title and cover.
    let probed = probe(dir.path(), &stitched);
    let read: Vec<(String, u64)> = probed["chapters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let start: f64 = c["start_time"].as_str().unwrap().parse().unwrap();
            (
                c["tags"]["title"].as_str().unwrap_or("").to_string(),
                (start * 1000.0).round() as u64,
            )
        })
        .collect();
    // The preroll before the first chapter: a chapter without a title (a chapter track plays
    // from the start).
    let want: Vec<(String, u64)> = std::iter::once((String::new(), 0))
        .chain(moved.iter().map(|c| (c.title.clone(), c.start_ms)))
        .collect();
    assert_eq!(read, want, "{probed}");
    assert!(want[1].1 > 3000, "the preroll moves the first chapter");
    if let Some(python) = mutagen() {
        let path = dir.path().join("stitched.m4a");
        std::fs::write(&path, &stitched).unwrap();
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/tags/mutagen_dump.py");
        let dump: serde_json::Value =
            serde_json::from_slice(&stdout(Command::new(python).arg(script).arg(&path))).unwrap();
        assert_eq!(dump["tags"]["©nam"], serde_json::json!(["Pilot"]), "{dump}");
        assert_eq!(dump["pictures"].as_array().unwrap().len(), 1, "{dump}");
        let starts: Vec<u64> = dump["chapters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["start_ms"].as_u64().unwrap())
            .collect();
        let want: Vec<u64> = want.iter().map(|(_, start)| *start).collect();
        assert_eq!(starts, want, "{dump}");
    }
}
