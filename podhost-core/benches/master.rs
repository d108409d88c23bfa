//! Mastering beside ffmpeg, in one run (figures, not a timed test):
//!
//! ```sh
//! cargo bench -p podhost-core --bench master            # the 60-minute episode
//! cargo bench -p podhost-core --bench master -- --quick # the 10-minute one
//! ```
//!
//! The episode is the analysis bench's (`make-test-podcast.sh`, in `BENCH_DIR`, default
//! `target/bench-analysis`; run that bench first). Printed:
//! - **Speed**: podhost mastering it to MP3 at 128 kbit/s (its loudness measured by a decode,
//!   then the mastering decode(s): what the job does when no analysis ran before) beside
//!   ffmpeg's two-pass `loudnorm` (a measuring pass, then `linear=true` with the measured values)
//!   with libmp3lame at 128 kbit/s; then to AAC-LC in M4A (podhost's chain piped to ffmpeg's
//!   `aac` encoder) beside the same loudnorm with ffmpeg's `aac`. Target: at most 1.0× ffmpeg's
//!   time.
//! - **The mastered files measured by ffmpeg**: integrated loudness (target -16 LUFS, ±0.5 LU),
//!   true peak (ceiling -1 dBTP, + 0.2 dB allowed), duration beside the source's (one frame),
//!   decoding errors.
//! - **Encoder quality** beside libmp3lame at the same bitrate, on speech (the episode's first
//!   five minutes) and on music-like audio (a synthetic stereo piece: chords with tremolo, a
//!   plucked melody and pink noise; no recorded music is available offline): the same PCM encoded
//!   by both encoders, decoded by ffmpeg, compared with the PCM. Two objective measures: the
//!   noise-to-signal ratio (the error's energy over the signal's, in dB: lower is better; it
//!   counts every difference, including noise a psychoacoustic model means to hide, so LAME's
//!   noise shaping scores worse on it than it sounds) and the log-spectral distance (the RMS,
//!   over 2,048-sample frames and frequency bins up to 16 kHz, of the difference of the two
//!   spectra in dB: bandwidth lost and tonal artefacts, which the first misses). Neither is
//!   PEAQ or a listening test.
#![allow(clippy::unwrap_used, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[path = "../tests/support/ffmpeg.rs"]
mod ffmpeg_tools;
use ffmpeg_tools::{ffmpeg, ffmpeg_loudness, probe};
use podhost_core::analysis::{analyze, analyze_with};
use podhost_core::master::{Master, MasterOptions, in_passes};
use serde_json::json;

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let minutes = if quick { 10 } else { 60 };
    let dir = std::env::var_os("BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench-analysis")
        });
    let episode = dir.join(format!("{minutes}min/episode.mp3"));
    assert!(
        episode.exists(),
        "{} is missing: run `cargo bench -p podhost-core --bench analysis` first",
        episode.display()
    );
    let work = dir.join("master");
    std::fs::create_dir_all(&work).unwrap();
    println!("file: {} ({minutes} minutes)", episode.display());

    // Speed, and the mastered files: MP3 beside libmp3lame, AAC in M4A beside ffmpeg's aac.
    let episode_channels = channels(&episode);
    let source_duration = duration(&episode);
    for (format, extension, codec) in [("mp3", "mp3", "libmp3lame"), ("aac", "m4a", "aac")] {
        let ours_path = work.join(format!("podhost.{extension}"));
        let t = Instant::now();
        let (passes, reported) = master_file(&episode, &ours_path, episode_channels, format);
        let ours = t.elapsed().as_secs_f64();
        let theirs_path = work.join(format!("ffmpeg.{extension}"));
        let t = Instant::now();
        loudnorm(&episode, &theirs_path, codec);
        let theirs = t.elapsed().as_secs_f64();
        println!();
        println!(
            "{:<58} {:>8} {:>9} {:>9} {:>10} {:>7}",
            format!("mastering to {format} 128 kbit/s, -16 LUFS, -1 dBTP"),
            "s",
            "I LUFS",
            "TP dBTP",
            "duration",
            "errors"
        );
        let mut measured = Vec::new();
        for (name, secs, path) in [
            (
                format!("podhost ({passes} pass(es), at most 2 encoding, + a measuring decode)"),
                ours,
                &ours_path,
            ),
            (
                format!("ffmpeg loudnorm (2 passes) + {codec}"),
                theirs,
                &theirs_path,
            ),
        ] {
            let loudness = ffmpeg_loudness(path);
            let (integrated, true_peak) =
                (loudness.integrated.unwrap(), loudness.true_peak.unwrap());
            measured.push(integrated);
            println!(
                "{name:<58} {secs:>8.2} {integrated:>9.1} {true_peak:>9.1} {:>+9.3}s {:>7}",
                duration(path) - source_duration,
                decode_errors(path),
            );
        }
        println!(
            "time ratio (podhost / ffmpeg): {:.2}x (target <= 1.00x); source duration {source_duration:.3} s; podhost's own measure of what it encoded {:.2} LUFS, ffmpeg's of the file {:.1} (it prints tenths)",
            ours / theirs,
            reported.unwrap_or(f64::NAN),
            measured[0]
        );
    }

    // Encoder quality: the same PCM through both encoders.
    println!();
    println!(
        "encoder quality at 128 kbit/s (noise-to-signal dB, lower is better | log-spectral distance dB, lower is better):"
    );
    let speech = work.join("speech.wav");
    ffmpeg(&[
        "-t",
        "300",
        "-i",
        episode.to_str().unwrap(),
        "-ar",
        "44100",
        "-c:a",
        "pcm_s16le",
        speech.to_str().unwrap(),
    ]);
    let music = work.join("music.wav");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "aevalsrc=0.18*sin(2*PI*220*t)*(0.7+0.3*sin(2*PI*4*t))+0.12*sin(2*PI*277.2*t)+0.1*sin(2*PI*329.6*t)+0.2*sin(2*PI*(440+220*mod(floor(t*4)\\,3))*t)*exp(-6*mod(t\\,0.25))|0.18*sin(2*PI*329.6*t)*(0.7+0.3*sin(2*PI*3*t))+0.12*sin(2*PI*440*t)+0.2*sin(2*PI*(660+110*mod(floor(t*4)\\,4))*t)*exp(-6*mod(t\\,0.25)):s=44100:d=120",
        "-f",
        "lavfi",
        "-i",
        "anoisesrc=color=pink:amplitude=0.05:sample_rate=44100:duration=120",
        "-filter_complex",
        "[1]aformat=channel_layouts=stereo[n];[0][n]amix=inputs=2:normalize=0",
        "-c:a",
        "pcm_s16le",
        music.to_str().unwrap(),
    ]);
    for (name, wav) in [
        ("speech (mono, 5 min)", &speech),
        ("music-like (stereo, 2 min)", &music),
    ] {
        let ours = work.join("q-podhost.mp3");
        std::fs::write(&ours, encode_ours(wav)).unwrap();
        let theirs = work.join("q-lame.mp3");
        ffmpeg(&[
            "-i",
            wav.to_str().unwrap(),
            "-c:a",
            "libmp3lame",
            "-b:a",
            "128k",
            theirs.to_str().unwrap(),
        ]);
        let source = pcm(wav);
        let channels = channels(wav);
        let (nsr_ours, lsd_ours) = compare(&source, &pcm(&ours), channels);
        let (nsr_lame, lsd_lame) = compare(&source, &pcm(&theirs), channels);
        println!(
            "  {name:<28} rusty_mp3 {nsr_ours:>6.1} | {lsd_ours:>5.2}    libmp3lame {nsr_lame:>6.1} | {lsd_lame:>5.2}"
        );
    }
}

/// What the mastering job does: measure, then master to `format` in passes
/// ([`in_passes`]: the first encodes; when it misses the target by more than the tolerance,
/// passes that only measure find the gain and one more encodes). Returns the passes that set
/// the gain and the loudness of the encoded signal as podhost measured it.
fn master_file(input: &Path, output: &Path, channels: usize, format: &str) -> (usize, Option<f64>) {
    let loudness = analyze(open(input), None, None, None, true)
        .unwrap()
        .loudness
        .unwrap();
    let options =
        MasterOptions::from_params(&json!({"bitrate": 128, "format": format}), 1).unwrap();
    let options = MasterOptions {
        target: -16.0,
        ..options
    };
    let master = |gain| Master::new(options, gain, channels);
    let decode = |master: &mut Master| analyze_with(open(input), None, false, master).map(drop);
    let (made, passes) = in_passes(&options, &loudness, master, decode).unwrap();
    std::fs::write(output, &made.files[0].1).unwrap();
    (passes, made.integrated)
}

fn open(path: &Path) -> Box<std::fs::File> {
    Box::new(std::fs::File::open(path).unwrap())
}

/// ffmpeg's two-pass loudnorm with `codec` (libmp3lame, aac) at 128 kbit/s.
fn loudnorm(input: &Path, output: &Path, codec: &str) {
    let filter = "loudnorm=I=-16:TP=-1:LRA=11";
    let out = Command::new("ffmpeg")
        .args([
            "-hide_banner",
            "-nostats",
            "-i",
            input.to_str().unwrap(),
            "-af",
        ])
        .arg(format!("{filter}:print_format=json"))
        .args(["-f", "null", "-"])
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    let json: serde_json::Value = serde_json::from_str(&log[log.rfind('{').unwrap()..]).unwrap();
    let measured = |key: &str| json[key].as_str().unwrap().to_string();
    let second = format!(
        "{filter}:measured_I={}:measured_TP={}:measured_LRA={}:measured_thresh={}:offset={}:linear=true",
        measured("input_i"),
        measured("input_tp"),
        measured("input_lra"),
        measured("input_thresh"),
        measured("target_offset"),
    );
    ffmpeg(&[
        "-i",
        input.to_str().unwrap(),
        "-af",
        &second,
        "-ar",
        "44100",
        "-c:a",
        codec,
        "-b:a",
        "128k",
        output.to_str().unwrap(),
    ]);
}

fn channels(path: &Path) -> usize {
    probe(path, "stream=channels").parse().unwrap()
}

fn duration(path: &Path) -> f64 {
    probe(path, "format=duration").parse().unwrap()
}

/// Lines ffmpeg prints at `-v error` while decoding the whole file.
fn decode_errors(path: &Path) -> usize {
    let out = Command::new("ffmpeg")
        .args([
            "-v",
            "error",
            "-i",
            path.to_str().unwrap(),
            "-f",
            "null",
            "-",
        ])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stderr).lines().count()
}

/// A WAV encoded by rusty_mp3 at 128 kbit/s through the master module with no gain and no
/// limiting (a 0 dBTP ceiling the sources stay under): the encoder alone.
fn encode_ours(wav: &Path) -> Vec<u8> {
    let options = MasterOptions::from_params(&json!({"bitrate": 128, "true_peak": 0}), 2).unwrap();
    let mut master = Master::new(options, 0.0, channels(wav));
    analyze_with(open(wav), None, false, &mut master).unwrap();
    master.finish().unwrap().files.remove(0).1
}

/// A file as ffmpeg decodes it: interleaved f32 at 44.1 kHz, in its own channels.
fn pcm(path: &Path) -> Vec<f32> {
    let out = Command::new("ffmpeg")
        .args([
            "-v",
            "error",
            "-i",
            path.to_str().unwrap(),
            "-ar",
            "44100",
            "-f",
            "f32le",
            "-",
        ])
        .output()
        .unwrap();
    out.stdout
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// Noise-to-signal ratio and log-spectral distance of `decoded` against `source` (both
/// interleaved, `channels` channels; lengths may differ by the encoders' padding).
fn compare(source: &[f32], decoded: &[f32], channels: usize) -> (f64, f64) {
    let n = source.len().min(decoded.len());
    let (source, decoded) = (&source[..n], &decoded[..n]);
    let signal: f64 = source.iter().map(|&s| f64::from(s).powi(2)).sum();
    let noise: f64 = source
        .iter()
        .zip(decoded)
        .map(|(&s, &d)| (f64::from(d) - f64::from(s)).powi(2))
        .sum();
    let nsr = 10.0 * (noise / signal).log10();
    // Log-spectral distance over 2,048-sample frames of each channel, averaged.
    const FRAME: usize = 2048;
    let mut planner = rustfft::FftPlanner::<f64>::new();
    let fft = planner.plan_fft_forward(FRAME);
    let window: Vec<f64> = (0..FRAME)
        .map(|i| 0.5 - 0.5 * (2.0 * std::f64::consts::PI * i as f64 / FRAME as f64).cos())
        .collect();
    let spectrum = |frame: &[f32]| -> Vec<f64> {
        let mut buffer: Vec<rustfft::num_complex::Complex<f64>> = frame
            .iter()
            .zip(&window)
            .map(|(&s, w)| rustfft::num_complex::Complex::new(f64::from(s) * w, 0.0))
            .collect();
        fft.process(&mut buffer);
        // Bins up to 16 kHz (of 22.05 kHz).
        buffer[1..FRAME * 16 / 44]
            .iter()
            .map(|c| 10.0 * (c.norm_sqr() + 1e-10).log10())
            .collect()
    };
    let mut total = 0.0;
    let mut frames = 0usize;
    for channel in 0..channels {
        let plane = |all: &[f32]| -> Vec<f32> {
            all.iter()
                .skip(channel)
                .step_by(channels)
                .copied()
                .collect()
        };
        let (source, decoded) = (plane(source), plane(decoded));
        for start in (0..source.len().saturating_sub(FRAME)).step_by(FRAME) {
            let a = &source[start..start + FRAME];
            // Frames of near silence say nothing of the codec.
            if a.iter().map(|s| s.abs()).fold(0f32, f32::max) < 1e-3 {
                continue;
            }
            let (sa, sb) = (spectrum(a), spectrum(&decoded[start..start + FRAME]));
            let mean: f64 = sa
                .iter()
                .zip(&sb)
                .map(|(x, y)| (x - y).powi(2))
                .sum::<f64>()
                / sa.len() as f64;
            total += mean.sqrt();
            frames += 1;
        }
    }
    (nsr, total / frames.max(1) as f64)
}
