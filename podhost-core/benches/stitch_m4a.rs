//! An M4A episode's `moov` for one listener's arrangement: how long it takes to make.
//!
//! ```sh
//! BENCH_DIR=/tmp cargo bench -p podhost-core --bench stitch_m4a
//! ```
//!
//! Needs ffmpeg: it encodes a 60-minute episode (a tone with noise, AAC 128 kbit/s stereo at
//! 44.1 kHz, kept in `BENCH_DIR` as `stitch-episode-60min.m4a`) and a 30-second ad the same
//! way. Times, each the median of 50 runs: reading the episode's `moov` and cutting it for a
//! preroll, two midrolls and a postroll (`M4aCuts::new`, once per episode and process), and
//! making one arrangement (`stitch` and `arrangement`: the frame layout and the new `moov`,
//! once per arrangement; the issue asks for at most 5 ms).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use podhost_core::model::BlobKey;
use podhost_core::stitch::{M4aAd, M4aCuts, M4aFile, Slot};
use podhost_core::tags::Chapter;

const RATE: u64 = 44_100;

/// An M4A of `seconds` in `dir` named `name`, made once.
fn encoded(dir: &Path, name: &str, seconds: u32) -> PathBuf {
    let path = dir.join(name);
    if path.exists() {
        return path;
    }
    let source = format!(
        "aevalsrc=0.3*sin(2*PI*220*t)+0.05*(random(0)-0.5)|0.3*sin(2*PI*330*t):s={RATE}:d={seconds}"
    );
    let out = Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi"])
        .args(["-i", &source, "-c:a", "aac", "-b:a", "128k"])
        .args(["-movflags", "+faststart"])
        .arg(&path)
        .output()
        .expect("ffmpeg runs (install it: scripts/test does)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    path
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let dir = PathBuf::from(std::env::var("BENCH_DIR").unwrap_or_else(|_| ".".into()));
    let episode = std::fs::read(encoded(&dir, "stitch-episode-60min.m4a", 3600)).unwrap();
    let ad = std::fs::read(encoded(&dir, "stitch-ad-30s.m4a", 30)).unwrap();
    let key = |name: &str| -> BlobKey { serde_json::from_value(serde_json::json!(name)).unwrap() };
    let (episode_blob, ad_blob) = (key("episode"), key("ad"));
    let slots = [
        Slot::Preroll,
        Slot::Midroll(20 * 60 * RATE),
        Slot::Midroll(40 * 60 * RATE),
        Slot::Postroll,
    ];
    let file = M4aFile {
        blob: &episode_blob,
        bytes: &episode,
    };
    let spot = M4aAd::of(M4aFile {
        blob: &ad_blob,
        bytes: &ad,
    })
    .unwrap();
    let chapters: Vec<Chapter> = (0..30)
        .map(|i| Chapter {
            start_ms: i * 120_000,
            end_ms: None,
            title: format!("Chapter {i}"),
            url: None,
        })
        .collect();
    let mut cutting = Vec::new();
    let mut arranging = Vec::new();
    let mut head = 0;
    for _ in 0..50 {
        let started = Instant::now();
        let cuts = M4aCuts::new(file, &slots).unwrap();
        cutting.push(started.elapsed());
        let started = Instant::now();
        let plan = cuts
            .stitch(&[(0, &spot), (1, &spot), (2, &spot), (3, &spot)])
            .unwrap();
        let moved = plan.chapters(&chapters);
        let arrangement = plan.arrangement(&moved).unwrap();
        arranging.push(started.elapsed());
        head = match arrangement.pieces().first() {
            Some(podhost_core::stitch::Piece::Bytes(bytes)) => bytes.len(),
            _ => 0,
        };
    }
    println!(
        "episode: {} MiB, 60 min; answer: {} pieces, head (ftyp, moov, mdat header) {} KiB",
        episode.len() >> 20,
        M4aCuts::new(file, &slots)
            .unwrap()
            .stitch(&[(0, &spot), (1, &spot), (2, &spot), (3, &spot)])
            .unwrap()
            .arrangement(&[])
            .unwrap()
            .pieces()
            .len(),
        head >> 10
    );
    println!(
        "| step (median of 50) | time |\n|---|---|\n| read the moov and cut for 4 slots (once per episode) | {:.2} ms |\n| one arrangement: 4 ads, 30 chapters, its moov | {:.2} ms |",
        median(cutting).as_secs_f64() * 1e3,
        median(arranging).as_secs_f64() * 1e3
    );
}
