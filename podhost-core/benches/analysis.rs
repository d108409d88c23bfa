//! The analysis engine against ffmpeg on a 60-minute speech podcast: waveform and silence in
//! one pass, wall time and peak memory, next to `ffmpeg -af silencedetect` on the same file.
//!
//! ```sh
//! cargo bench -p podhost-core --bench analysis            # 60 minutes, 3 runs each
//! cargo bench -p podhost-core --bench analysis -- --quick # 10 minutes, 1 run each
//! ```
//!
//! The episode is made once by `/work/shared/tools/make-test-podcast.sh` (espeak-ng speech with
//! pauses, encoded by ffmpeg: Debian `espeak-ng` and `ffmpeg`) into `BENCH_DIR` (default
//! `target/bench-analysis`). Each of our runs is a child process (this binary again), so its
//! peak resident memory (`VmHWM`) is the analysis's alone; ffmpeg's comes from
//! `/usr/bin/time -v` when present. Target: at most 0.8× ffmpeg's time, under 32 MiB.
#![allow(clippy::unwrap_used, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[path = "../tests/support/silencedetect.rs"]
mod silencedetect;
use silencedetect::parse_silencedetect;

use podhost_core::analysis::{SilenceOptions, WaveformOptions, analyze};

const CHILD: &str = "PODHOST_ANALYSIS_BENCH_CHILD";
const MAKER: &str = "/work/shared/tools/make-test-podcast.sh";

fn main() {
    if let Ok(path) = std::env::var(CHILD) {
        child(Path::new(&path));
        return;
    }
    let quick = std::env::args().any(|a| a == "--quick");
    let minutes = if quick { 10 } else { 60 };
    let runs = if quick { 1 } else { 3 };
    let dir = std::env::var_os("BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench-analysis")
        })
        .join(format!("{minutes}min"));
    let episode = dir.join("episode.mp3");
    if !episode.exists() {
        println!("making a {minutes}-minute episode in {} ...", dir.display());
        let t = Instant::now();
        let status = Command::new("bash")
            .arg(MAKER)
            .arg(&dir)
            .arg(minutes.to_string())
            .status()
            .expect("run make-test-podcast.sh (needs espeak-ng, ffmpeg, python3)");
        assert!(status.success(), "make-test-podcast.sh failed");
        println!("made in {:.1} s", t.elapsed().as_secs_f64());
    }
    let size = std::fs::metadata(&episode).unwrap().len();
    println!(
        "file: {} ({:.1} MiB)",
        episode.display(),
        size as f64 / 1_048_576.0
    );

    let mut ours = Vec::new();
    let mut ours_rss = 0u64;
    let mut ours_report = String::new();
    for _ in 0..runs {
        let exe = std::env::current_exe().unwrap();
        let t = Instant::now();
        let out = Command::new(exe).env(CHILD, &episode).output().unwrap();
        let wall = t.elapsed().as_secs_f64();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let hwm = text
            .lines()
            .find_map(|l| l.strip_prefix("vmhwm_kib "))
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(0);
        ours.push(wall);
        ours_rss = ours_rss.max(hwm);
        ours_report = text;
    }

    let time_v = Path::new("/usr/bin/time").exists();
    let mut theirs = Vec::new();
    let mut theirs_rss = 0u64;
    let mut theirs_log = String::new();
    for _ in 0..runs {
        let mut cmd = if time_v {
            let mut c = Command::new("/usr/bin/time");
            c.args(["-v", "ffmpeg"]);
            c
        } else {
            Command::new("ffmpeg")
        };
        cmd.args(["-hide_banner", "-nostats", "-i"])
            .arg(&episode)
            .args(["-af", "silencedetect=noise=-60dB:d=2", "-f", "null", "-"]);
        let t = Instant::now();
        let out = cmd.output().expect("run ffmpeg");
        let wall = t.elapsed().as_secs_f64();
        assert!(out.status.success(), "ffmpeg failed");
        let log = String::from_utf8_lossy(&out.stderr).into_owned();
        let rss = log
            .lines()
            .find_map(|l| {
                l.trim()
                    .strip_prefix("Maximum resident set size (kbytes): ")
            })
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(0);
        theirs.push(wall);
        theirs_rss = theirs_rss.max(rss);
        theirs_log = log;
    }

    let best = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let median = |v: &[f64]| {
        let mut s = v.to_vec();
        s.sort_by(f64::total_cmp);
        s[s.len() / 2]
    };
    let (o, t) = (median(&ours), median(&theirs));
    println!();
    println!(
        "{:<44} {:>10} {:>10} {:>14}",
        "", "median s", "best s", "peak RSS MiB"
    );
    println!(
        "{:<44} {:>10.2} {:>10.2} {:>14.1}",
        "podhost analyze (waveform + silence, 1 pass)",
        o,
        best(&ours),
        ours_rss as f64 / 1024.0
    );
    println!(
        "{:<44} {:>10.2} {:>10.2} {:>14}",
        "ffmpeg -af silencedetect -f null -",
        t,
        best(&theirs),
        if time_v {
            format!("{:.1}", theirs_rss as f64 / 1024.0)
        } else {
            "n/a".to_owned()
        }
    );
    println!(
        "time ratio (ours / ffmpeg, medians): {:.2}x  (target <= 0.80x); peak memory {:.1} MiB (target < 32)",
        o / t,
        ours_rss as f64 / 1024.0
    );

    // The two agree? And the inserted long pauses are found?
    let ours_silences = parse_pairs(&ours_report, "silence ");
    let theirs_silences = parse_silencedetect(&theirs_log);
    let agree = ours_silences.len() == theirs_silences.len()
        && ours_silences
            .iter()
            .zip(&theirs_silences)
            .all(|(a, b)| (a.0 - b.0).abs() <= 0.01 && (a.1 - b.1).abs() <= 0.01);
    println!(
        "silences: ours {}, ffmpeg {}, all within 10 ms: {agree}",
        ours_silences.len(),
        theirs_silences.len()
    );
    if let Ok(truth) = std::fs::read_to_string(dir.join("truth.tsv")) {
        let pauses: Vec<(f64, f64)> = truth
            .lines()
            .skip(1)
            .filter_map(|l| {
                let mut it = l.split('\t').map(|v| v.parse::<f64>().ok());
                Some((it.next()??, it.next()??))
            })
            .collect();
        let found = pauses
            .iter()
            .filter(|p| {
                ours_silences
                    .iter()
                    .any(|s| s.0 <= p.0 + 0.01 && s.1 >= p.1 - 0.01)
            })
            .count();
        println!(
            "inserted 3 s pauses (truth.tsv): {} of {} inside a reported silence",
            found,
            pauses.len()
        );
    }
    for line in ours_report.lines().filter(|l| l.starts_with("midrolls ")) {
        println!("{line}");
    }
}

/// The child: one analysis, then its figures on stdout.
fn child(path: &Path) {
    let file = std::fs::File::open(path).unwrap();
    let t = Instant::now();
    let a = analyze(
        Box::new(file),
        Some("audio/mpeg"),
        Some(&WaveformOptions::default()),
        Some(&SilenceOptions::default()),
        true,
    )
    .unwrap();
    let secs = t.elapsed().as_secs_f64();
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let hwm = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .map(|v| v.trim().trim_end_matches("kB").trim().to_owned())
        .unwrap_or_default();
    println!("analyze_s {secs:.3}");
    println!("vmhwm_kib {hwm}");
    println!("duration_ms {}", a.duration_ms);
    println!("waveform_points {}", a.waveform.map_or(0, |w| w.len()));
    let report = a.silence.unwrap();
    for s in &report.silences {
        println!("silence {} {}", s.start, s.end);
    }
    println!("midrolls {:?}", report.midrolls);
}

fn parse_pairs(text: &str, prefix: &str) -> Vec<(f64, f64)> {
    text.lines()
        .filter_map(|l| l.strip_prefix(prefix))
        .filter_map(|rest| {
            let mut it = rest.split_whitespace().map(|v| v.parse::<f64>().ok());
            Some((it.next()??, it.next()??))
        })
        .collect()
}
