//! The analysis engine against ffmpeg on a 60-minute speech podcast: waveform, silences and
//! loudness in one pass, wall time and peak memory, next to one ffmpeg run doing
//! `silencedetect` and `ebur128=peak=true` on the same file; then the loudness beside ffmpeg's
//! `ebur128` on fixtures of every format (made by ffmpeg in `BENCH_DIR/fixtures`).
//!
//! ```sh
//! cargo bench -p podhost-core --features opus --bench analysis            # 60 minutes, 3 runs each
//! cargo bench -p podhost-core --features opus --bench analysis -- --quick # 10 minutes, 1 run each
//! ```
//!
//! The episode is made once by `/work/shared/tools/make-test-podcast.sh` (espeak-ng speech with
//! pauses, encoded by ffmpeg: Debian `espeak-ng` and `ffmpeg`) into `BENCH_DIR` (default
//! `target/bench-analysis`). Each of our runs is a child process (this binary again), so its
//! peak resident memory (`VmHWM`) is the analysis's alone; ffmpeg's comes from
//! `/usr/bin/time -v` when present. Targets: at most 0.5× ffmpeg's time, under 32 MiB; loudness
//! within ±0.1 LU (integrated), ±0.5 LU (range), ±0.3 dB (true peak) of ffmpeg's.
#![allow(clippy::unwrap_used, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[path = "../tests/support/silencedetect.rs"]
mod silencedetect;
use silencedetect::parse_silencedetect;
#[path = "../tests/support/ffmpeg.rs"]
mod ffmpeg_tools;
use ffmpeg_tools::{Ebur128Summary, ffmpeg_loudness, parse_ebur128};

use podhost_core::analysis::{Loudness, SilenceOptions, WaveformOptions, analyze};

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
            .args([
                "-af",
                "silencedetect=noise=-60dB:d=2,ebur128=peak=sample+true",
                "-f",
                "null",
                "-",
            ]);
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
        "podhost analyze (waveform, silence, loudness)",
        o,
        best(&ours),
        ours_rss as f64 / 1024.0
    );
    println!(
        "{:<44} {:>10.2} {:>10.2} {:>14}",
        "ffmpeg -af silencedetect,ebur128 -f null -",
        t,
        best(&theirs),
        if time_v {
            format!("{:.1}", theirs_rss as f64 / 1024.0)
        } else {
            "n/a".to_owned()
        }
    );
    println!(
        "time ratio (ours / ffmpeg, medians): {:.2}x  (target <= 0.50x); peak memory {:.1} MiB (target < 32)",
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

    println!();
    println!("loudness beside ffmpeg's ebur128 (ours | ffmpeg's; ffmpeg prints tenths):");
    let ours_loudness = ours_report
        .lines()
        .find_map(|l| l.strip_prefix("loudness "))
        .and_then(|l| serde_json::from_str::<Loudness>(l).ok())
        .expect("the child printed the loudness");
    compare("the episode", &ours_loudness, parse_ebur128(&theirs_log));
    for (name, path) in fixtures(&dir.join("../fixtures"), &episode) {
        let theirs = ffmpeg_loudness(&path);
        match analyze(
            Box::new(std::fs::File::open(&path).unwrap()),
            None,
            None,
            None,
            true,
        ) {
            Ok(ours) => compare(&name, &ours.loudness.unwrap(), theirs),
            Err(e) => println!("  {name:<34} not read: {e}"),
        }
    }
}

/// Fixtures of every format, made by ffmpeg from the episode's first two minutes (speech) and
/// from a synthetic stereo piece (music-like: a chord with tremolo over pink noise), and a
/// 1 kHz stereo sine at -23 LUFS.
fn fixtures(dir: &Path, episode: &Path) -> Vec<(String, PathBuf)> {
    std::fs::create_dir_all(dir).unwrap();
    let speech = ["-t", "120", "-i"];
    let music = "aevalsrc=0.2*sin(2*PI*220*t)*(0.6+0.4*sin(2*PI*3*t))+0.15*sin(2*PI*277*t)+0.1*sin(2*PI*330*t)|0.2*sin(2*PI*330*t)*(0.6+0.4*sin(2*PI*2*t))+0.15*sin(2*PI*440*t):s=48000:d=120";
    let cases: [(&str, &[&str]); 9] = [
        (
            "speech mono 44.1k.mp3",
            &[
                "-ac",
                "1",
                "-ar",
                "44100",
                "-c:a",
                "libmp3lame",
                "-b:a",
                "64k",
            ],
        ),
        (
            "speech mono 48k.wav",
            &["-ac", "1", "-ar", "48000", "-c:a", "pcm_s16le"],
        ),
        (
            "speech stereo 44.1k.flac",
            &["-ac", "2", "-ar", "44100", "-c:a", "flac"],
        ),
        (
            "speech stereo 48k.opus",
            &["-ac", "2", "-ar", "48000", "-c:a", "libopus", "-b:a", "48k"],
        ),
        ("music stereo 48k.m4a", &["-c:a", "aac", "-b:a", "128k"]),
        (
            "music stereo 44.1k.mp3",
            &["-ar", "44100", "-c:a", "libmp3lame", "-b:a", "128k"],
        ),
        ("music stereo 48k.wav", &["-c:a", "pcm_s24le"]),
        (
            "music mono 44.1k.m4a",
            &["-ac", "1", "-ar", "44100", "-c:a", "aac", "-b:a", "96k"],
        ),
        ("sine 1 kHz stereo -23 LUFS.wav", &["-c:a", "pcm_s16le"]),
    ];
    let mut out = Vec::new();
    for (name, codec) in cases {
        let path = dir.join(name.replace(' ', "_"));
        if !path.exists() {
            let mut cmd = Command::new("ffmpeg");
            cmd.args(["-v", "error", "-y"]);
            if name.starts_with("speech") {
                cmd.args(speech).arg(episode);
            } else if name.starts_with("music") {
                cmd.args(["-f", "lavfi", "-i", music, "-af", "volume=-8dB"]);
            } else {
                // A sine at -23 dBFS in both channels reads -23 LUFS (EBU Tech 3341, case 1);
                // lavfi's sine is at 1/8 of full scale (-18.06 dBFS).
                cmd.args([
                    "-f",
                    "lavfi",
                    "-i",
                    "sine=frequency=1000:sample_rate=48000:duration=20",
                    "-af",
                    "volume=-4.94dB,pan=stereo|c0=c0|c1=c0",
                ]);
            }
            cmd.args(codec).arg(&path);
            let status = cmd.status().expect("run ffmpeg");
            assert!(status.success(), "making {name}");
        }
        out.push((name.to_string(), path));
    }
    out
}

/// Prints our figures beside ffmpeg's, with whether each is within its tolerance.
fn compare(name: &str, ours: &Loudness, theirs: Ebur128Summary) {
    let theirs = (
        theirs.integrated,
        theirs.range,
        theirs.true_peak,
        theirs.sample_peak,
    );
    let within = |a: Option<f64>, b: Option<f64>, tolerance: f64| match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() <= tolerance + 0.05,
        _ => false,
    };
    let show = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}"));
    let ok = within(ours.integrated, theirs.0, 0.1)
        && within(Some(ours.range), theirs.1, 0.5)
        && within(ours.true_peak, theirs.2, 0.3);
    println!(
        "  {name:<34} I {} | {}  LRA {} | {}  TP {} | {}  SP {} | {}  {}",
        show(ours.integrated),
        show(theirs.0),
        show(Some(ours.range)),
        show(theirs.1),
        show(ours.true_peak),
        show(theirs.2),
        show(ours.sample_peak),
        show(theirs.3),
        if ok { "within" } else { "OUTSIDE" },
    );
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
    println!(
        "loudness {}",
        serde_json::to_string(&a.loudness.unwrap()).unwrap()
    );
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
