//! The analysis engine on generated audio: silences where they were put, waveform values
//! computed here independently, and ffmpeg's `silencedetect` on the same files.
//!
//! The WAV files are written by the test. The MP3 and M4A files are encoded by ffmpeg, and the
//! reference intervals come from `ffmpeg -af silencedetect`; when ffmpeg is missing those tests
//! print `SKIPPED` and pass, unless `PODHOST_REQUIRE_EXTERNAL=1` (set by `scripts/test`, which
//! installs Debian's ffmpeg), which makes them fail.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "support/silencedetect.rs"]
mod silencedetect;
use silencedetect::parse_silencedetect;
#[path = "support/ffmpeg.rs"]
mod ffmpeg_tools;
use ffmpeg_tools::ffmpeg;

use podhost_core::analysis::{
    Analysis, AnalysisError, SilenceOptions, Waveform, WaveformOptions, analyze,
};

const RATE: u32 = 44_100;
/// The tolerance on every silence boundary, in seconds.
const TOLERANCE: f64 = 0.010;

/// The test programme, in seconds: tones and silences. Silences of at least 2 s (the default
/// minimum) are `[5, 8]`, `[20, 22.5]` and `[40, 43]` (the last one runs to the end); the one
/// of 1 s is too short to count.
const PROGRAMME: &[(f64, f64, bool)] = &[
    (0.0, 5.0, true),
    (5.0, 8.0, false),
    (8.0, 20.0, true),
    (20.0, 22.5, false),
    (22.5, 30.0, true),
    (30.0, 31.0, false),
    (31.0, 40.0, true),
    (40.0, 43.0, false),
];
const TRUTH: &[(f64, f64)] = &[(5.0, 8.0), (20.0, 22.5), (40.0, 43.0)];

/// One channel of the programme: a 440 Hz tone (or 660 Hz for `channel` 1) at half scale, and
/// digital silence.
fn programme(channel: usize) -> Vec<i16> {
    let freq = if channel == 0 { 440.0 } else { 660.0 };
    let amp = if channel == 0 { 16_000.0 } else { 9_000.0 };
    let mut out = Vec::new();
    for &(from, to, tone) in PROGRAMME {
        let (a, b) = (
            (from * f64::from(RATE)) as usize,
            (to * f64::from(RATE)) as usize,
        );
        for i in a..b {
            let t = i as f64 / f64::from(RATE);
            let v = if tone {
                (amp * (2.0 * std::f64::consts::PI * freq * t).sin()).round() as i16
            } else {
                0
            };
            out.push(v);
        }
    }
    out
}

/// A 16-bit PCM WAV file of the given channels.
fn wav(channels: &[Vec<i16>], rate: u32) -> Vec<u8> {
    let n = channels[0].len();
    let ch = channels.len() as u16;
    let data_len = (n * channels.len() * 2) as u32;
    let mut out = Vec::new();
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data_len).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&ch.to_le_bytes());
    out.extend_from_slice(&rate.to_le_bytes());
    out.extend_from_slice(&(rate * u32::from(ch) * 2).to_le_bytes());
    out.extend_from_slice(&(ch * 2).to_le_bytes());
    out.extend_from_slice(&16u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data_len.to_le_bytes());
    for i in 0..n {
        for c in channels {
            out.extend_from_slice(&c[i].to_le_bytes());
        }
    }
    out
}

fn dir() -> PathBuf {
    // Under target/tmp, rewritten by every run.
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("analysis");
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir().join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn run(
    path: &Path,
    waveform: Option<&WaveformOptions>,
    silence: Option<&SilenceOptions>,
) -> Result<Analysis, AnalysisError> {
    let file = std::fs::File::open(path).unwrap();
    analyze(Box::new(file), None, waveform, silence, false)
}

fn silences(path: &Path) -> Vec<(f64, f64)> {
    let a = run(path, None, Some(&SilenceOptions::default())).unwrap();
    a.silence
        .unwrap()
        .silences
        .iter()
        .map(|s| {
            // Each of the three is rounded to the microsecond on its own.
            assert!((s.end - s.start - s.duration).abs() <= 2e-6, "{s:?}");
            (s.start, s.end)
        })
        .collect()
}

#[track_caller]
fn assert_close(what: &str, got: &[(f64, f64)], want: &[(f64, f64)]) {
    let ok = got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(g, w)| (g.0 - w.0).abs() <= TOLERANCE && (g.1 - w.1).abs() <= TOLERANCE);
    assert!(
        ok,
        "{what}: got {got:?}, want {want:?} (within {TOLERANCE} s)"
    );
}

// ---------------------------------------------------------------------------------------------
// WAV, written here.

#[test]
fn wav_silences_are_where_they_were_put() {
    let mono = write("mono.wav", &wav(&[programme(0)], RATE));
    assert_close("mono wav", &silences(&mono), TRUTH);
    let stereo = write("stereo.wav", &wav(&[programme(0), programme(1)], RATE));
    assert_close("stereo wav", &silences(&stereo), TRUTH);
    let a = run(&mono, None, Some(&SilenceOptions::default())).unwrap();
    assert_eq!(a.duration_ms, 43_000);
    let report = a.silence.unwrap();
    assert_eq!(report.duration, 43.0);
    assert_eq!(report.noise_db, -60.0);
    assert_eq!(report.min_duration, 2.0);
    // 43 s: the window is 8.6..34.4; only [20, 22.5] is inside it.
    assert_eq!(report.midrolls.len(), 1);
    assert!(
        (report.midrolls[0] - 21.25).abs() < TOLERANCE,
        "{:?}",
        report.midrolls
    );
}

#[test]
fn a_loud_sample_on_one_channel_breaks_a_silence() {
    let left = programme(0);
    let mut right = programme(1);
    // One click in the right channel in the middle of [20, 22.5].
    right[(21.0 * f64::from(RATE)) as usize] = 1000;
    let path = write("click.wav", &wav(&[left, right], RATE));
    // [20, 21] and [21, 22.5] are shorter than 2 s.
    assert_close("click", &silences(&path), &[(5.0, 8.0), (40.0, 43.0)]);
    let short = SilenceOptions {
        min_duration: 1.0,
        ..Default::default()
    };
    let a = run(&path, None, Some(&short)).unwrap();
    let got: Vec<_> = a
        .silence
        .unwrap()
        .silences
        .iter()
        .map(|s| (s.start, s.end))
        .collect();
    let click = 21.0 + 1.0 / f64::from(RATE);
    assert_close(
        "click, 1 s",
        &got,
        &[
            (5.0, 8.0),
            (20.0, 21.0),
            (click, 22.5),
            (30.0, 31.0),
            (40.0, 43.0),
        ],
    );
}

#[test]
fn silence_threshold_and_duration_options() {
    // A quiet passage at about -40 dB (amplitude 330): silence at -30 dB, not at -60 dB.
    let mut s = programme(0);
    let a = (10.0 * f64::from(RATE)) as usize;
    let b = (13.0 * f64::from(RATE)) as usize;
    for (i, v) in s[a..b].iter_mut().enumerate() {
        *v = if i % 2 == 0 { 330 } else { -330 };
    }
    let path = write("quiet.wav", &wav(&[s], RATE));
    assert_close("quiet, -60 dB", &silences(&path), TRUTH);
    let loose = SilenceOptions {
        noise_db: -30.0,
        min_duration: 2.5,
    };
    let a = run(&path, None, Some(&loose)).unwrap();
    let got: Vec<_> = a
        .silence
        .unwrap()
        .silences
        .iter()
        .map(|s| (s.start, s.end))
        .collect();
    // The tone's zero crossings never stay below -30 dB for 2.5 s; [5, 8], the quiet passage
    // and the silences of 2.5 s or more are found.
    assert_close(
        "quiet, -30 dB",
        &got,
        &[(5.0, 8.0), (10.0, 13.0), (20.0, 22.5), (40.0, 43.0)],
    );
}

/// The waveform of `channels` computed here, the plain way: every frame's 16-bit samples
/// averaged with truncation toward zero, min and max per block, the last partial block kept,
/// and 8-bit values truncated toward zero.
fn expected_waveform(channels: &[Vec<i16>], spp: usize, bits: u8) -> Vec<i16> {
    let n = channels[0].len();
    let mono: Vec<i64> = (0..n)
        .map(|i| {
            let sum: i64 = channels.iter().map(|c| i64::from(c[i])).sum();
            let mean = sum as f64 / channels.len() as f64;
            mean.trunc() as i64
        })
        .collect();
    let mut out = Vec::new();
    for block in mono.chunks(spp) {
        for v in [*block.iter().min().unwrap(), *block.iter().max().unwrap()] {
            let v = if bits == 8 {
                (v as f64 / 256.0).trunc() as i64
            } else {
                v
            };
            out.push(v as i16);
        }
    }
    out
}

#[test]
fn waveform_values_are_exact() {
    let mono = vec![programme(0)];
    let stereo = vec![programme(0), programme(1)];
    // Odd values so that truncation toward zero shows: 8.6 s of -1/-2/+3 steps, length not a
    // multiple of any block size.
    let odd: Vec<i16> = (0..(8.6 * f64::from(RATE)) as usize)
        .map(|i| [-1i16, -2, 3, -257, 255, -32768, 32767, -513][i % 8])
        .collect();
    let odd2: Vec<i16> = odd.iter().map(|v| v.wrapping_mul(3) | 1).collect();
    let cases: Vec<(&str, Vec<Vec<i16>>)> = vec![
        ("mono", mono),
        ("stereo", stereo),
        ("odd", vec![odd.clone(), odd2]),
        ("odd mono", vec![odd]),
    ];
    for (name, channels) in &cases {
        let path = write(
            &format!("wf-{}.wav", name.replace(' ', "-")),
            &wav(channels, RATE),
        );
        for (opts, spp) in [
            (WaveformOptions::default(), 256),
            (
                WaveformOptions {
                    samples_per_pixel: Some(1000),
                    bits: 16,
                    ..Default::default()
                },
                1000,
            ),
            (
                WaveformOptions {
                    pixels_per_second: Some(100),
                    bits: 8,
                    ..Default::default()
                },
                441,
            ),
        ] {
            let a = run(&path, Some(&opts), None).unwrap();
            assert!(a.silence.is_none());
            let w = a.waveform.unwrap();
            assert_eq!(w.sample_rate, RATE);
            assert_eq!(w.samples_per_pixel, spp as u32, "{name}");
            assert_eq!(w.bits, opts.bits);
            let want = expected_waveform(channels, spp, opts.bits);
            assert_eq!(w.data.len(), want.len(), "{name} spp {spp}");
            assert!(w.data == want, "{name} spp {spp}: values differ");
            // Both forms carry exactly these values.
            assert_eq!(Waveform::from_json(&w.to_json()).unwrap(), w);
            assert_eq!(Waveform::from_dat(&w.to_dat()).unwrap(), w);
            let json = w.to_json();
            assert_eq!(json["length"], want.len() / 2);
            assert_eq!(json["version"], 2);
            assert_eq!(json["channels"], 1);
        }
    }
}

#[test]
fn waveform_and_silence_in_one_pass_match_separate_passes() {
    let path = write("both.wav", &wav(&[programme(0), programme(1)], RATE));
    let opts = WaveformOptions::default();
    let both = run(&path, Some(&opts), Some(&SilenceOptions::default())).unwrap();
    let w = run(&path, Some(&opts), None).unwrap();
    let s = run(&path, None, Some(&SilenceOptions::default())).unwrap();
    assert_eq!(both.waveform, w.waveform);
    assert_eq!(both.silence, s.silence);
    assert_eq!(both.duration_ms, 43_000);
}

#[test]
fn options_that_do_not_fit_the_file() {
    let path = write("opts.wav", &wav(&[vec![0i16; 1000]], 8000));
    let fine = WaveformOptions {
        pixels_per_second: Some(5000),
        ..Default::default()
    };
    let err = run(&path, Some(&fine), None).unwrap_err();
    assert!(
        matches!(
            err,
            AnalysisError::Options {
                field: "pixels_per_second",
                ..
            }
        ),
        "{err}"
    );
    let bad = WaveformOptions {
        bits: 12,
        ..Default::default()
    };
    assert!(matches!(
        run(&path, Some(&bad), None).unwrap_err(),
        AnalysisError::Options { field: "bits", .. }
    ));
}

// ---------------------------------------------------------------------------------------------
// Not audio, damaged audio.

#[test]
fn non_audio_and_damaged_files_give_clear_errors() {
    // A PNG (signature, IHDR, some IDAT-like bytes).
    let mut png =
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x02\0\0\0\x90\x91h6".to_vec();
    let mut x = 12345u32;
    for _ in 0..20_000 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        png.push((x >> 16) as u8);
    }
    let err = run(
        &write("image.png", &png),
        None,
        Some(&SilenceOptions::default()),
    )
    .unwrap_err();
    assert!(matches!(err, AnalysisError::NotAudio(_)), "png: {err}");
    assert!(err.to_string().starts_with("not an audio file"), "{err}");

    let err = run(
        &write("empty.bin", b""),
        Some(&WaveformOptions::default()),
        None,
    )
    .unwrap_err();
    assert!(matches!(err, AnalysisError::NotAudio(_)), "empty: {err}");

    // A WAV whose header is fine but which holds no sample.
    let err = run(
        &write("nodata.wav", &wav(&[vec![]], RATE)),
        None,
        Some(&SilenceOptions::default()),
    )
    .unwrap_err();
    assert!(matches!(err, AnalysisError::NotAudio(_)), "no data: {err}");

    // A WAV in a codec this build does not decode (format tag 0x0055 is MP3-in-WAV; 0x1234 is
    // nothing).
    let mut odd = wav(&[programme(0)], RATE);
    odd[20..22].copy_from_slice(&0x1234u16.to_le_bytes());
    let err = run(
        &write("oddcodec.wav", &odd),
        None,
        Some(&SilenceOptions::default()),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            AnalysisError::UnsupportedCodec(_) | AnalysisError::NotAudio(_)
        ),
        "odd codec: {err}"
    );

    // A WAV cut in its header.
    let cut = wav(&[programme(0)], RATE)[..30].to_vec();
    let err = run(
        &write("cut.wav", &cut),
        None,
        Some(&SilenceOptions::default()),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            AnalysisError::Corrupt { .. } | AnalysisError::NotAudio(_)
        ),
        "cut: {err}"
    );
}

// ---------------------------------------------------------------------------------------------
// Encoded by ffmpeg, and ffmpeg's silencedetect as the reference.

fn require_external() -> bool {
    std::env::var("PODHOST_REQUIRE_EXTERNAL").is_ok_and(|v| v == "1")
}

/// True when ffmpeg runs; otherwise prints SKIPPED (or fails under PODHOST_REQUIRE_EXTERNAL=1).
fn ffmpeg_present(test: &str) -> bool {
    let ok = Command::new("ffmpeg")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            !require_external(),
            "ffmpeg is missing and PODHOST_REQUIRE_EXTERNAL=1"
        );
        eprintln!(
            "\n*** SKIPPED {test}: ffmpeg is not installed; run scripts/test, which installs it ***\n"
        );
    }
    ok
}

fn encode(wav: &Path, name: &str, codec: &[&str]) -> PathBuf {
    let out = dir().join(name);
    let mut args = vec!["-i", wav.to_str().unwrap()];
    args.extend_from_slice(codec);
    args.push(out.to_str().unwrap());
    ffmpeg(&args);
    out
}

/// `ffmpeg -af silencedetect=noise=-60dB:d=2`: the intervals it prints.
fn ffmpeg_silences(path: &Path, noise_db: f64, duration: f64) -> Vec<(f64, f64)> {
    let filter = format!("silencedetect=noise={noise_db}dB:d={duration}");
    let out = Command::new("ffmpeg")
        .args(["-hide_banner", "-nostats", "-i"])
        .arg(path)
        .args(["-af", &filter, "-f", "null", "-"])
        .output()
        .unwrap();
    assert!(out.status.success());
    parse_silencedetect(&String::from_utf8_lossy(&out.stderr))
}

#[test]
fn parses_silencedetect_output() {
    let log = "[silencedetect @ 0x1] silence_start: 5\n[silencedetect @ 0x1] silence_end: 8.00002 | silence_duration: 3\nsize=N/A\n[silencedetect @ 0x1] silence_start: -0.01\n[silencedetect @ 0x1] silence_end: 43 | silence_duration: 3\n";
    assert_eq!(parse_silencedetect(log), [(5.0, 8.00002), (-0.01, 43.0)]);
}

#[test]
fn encoded_files_match_the_truth_and_ffmpeg() {
    if !ffmpeg_present("encoded_files_match_the_truth_and_ffmpeg") {
        return;
    }
    let stereo = write("enc-stereo.wav", &wav(&[programme(0), programme(1)], RATE));
    let mono = write("enc-mono.wav", &wav(&[programme(0)], RATE));
    let files = [
        ("wav", mono.clone(), true),
        ("stereo wav", stereo.clone(), true),
        (
            "mp3",
            encode(&stereo, "enc.mp3", &["-c:a", "libmp3lame", "-b:a", "128k"]),
            true,
        ),
        (
            "mono vbr mp3",
            encode(&mono, "enc-vbr.mp3", &["-c:a", "libmp3lame", "-q:a", "4"]),
            true,
        ),
        (
            "m4a",
            encode(&stereo, "enc.m4a", &["-c:a", "aac", "-b:a", "128k"]),
            true,
        ),
        // ADTS: bare AAC frames, no edit list to say the encoder's 1,024 samples of priming
        // (ffmpeg keeps them too): compared with ffmpeg only.
        (
            "adts aac",
            encode(
                &stereo,
                "enc.aac",
                &["-c:a", "aac", "-b:a", "128k", "-f", "adts"],
            ),
            false,
        ),
        ("flac", encode(&stereo, "enc.flac", &["-c:a", "flac"]), true),
        (
            "ogg",
            encode(&stereo, "enc.ogg", &["-c:a", "libvorbis", "-q:a", "4"]),
            true,
        ),
        // Without a Xing/LAME header nothing says how much encoder delay to trim (ffmpeg does
        // not either): compared with ffmpeg only.
        (
            "mp3 without xing",
            encode(
                &stereo,
                "enc-noxing.mp3",
                &["-c:a", "libmp3lame", "-b:a", "128k", "-write_xing", "0"],
            ),
            false,
        ),
    ];
    let mut failures = Vec::new();
    for (name, path, vs_truth) in &files {
        let ours = silences(path);
        let theirs = ffmpeg_silences(path, -60.0, 2.0);
        let close = |a: &[(f64, f64)], b: &[(f64, f64)]| {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(x, y)| (x.0 - y.0).abs() <= TOLERANCE && (x.1 - y.1).abs() <= TOLERANCE)
        };
        if !close(&ours, &theirs) {
            failures.push(format!("{name}: ours {ours:?}, ffmpeg {theirs:?}"));
        }
        if *vs_truth && !close(&ours, TRUTH) {
            failures.push(format!("{name}: ours {ours:?}, truth {TRUTH:?}"));
        }
        eprintln!(
            "{name}: ours {ours:?}\n{:width$}ffmpeg {theirs:?}",
            "",
            width = name.len() + 2
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn ffmpeg_agrees_on_other_options() {
    if !ffmpeg_present("ffmpeg_agrees_on_other_options") {
        return;
    }
    let mut s = programme(0);
    let a = (10.0 * f64::from(RATE)) as usize;
    for (i, v) in s[a..a + 3 * RATE as usize].iter_mut().enumerate() {
        *v = if i % 2 == 0 { 330 } else { -330 };
    }
    let path = write("opts-ref.wav", &wav(&[s], RATE));
    let mp3 = encode(
        &path,
        "opts-ref.mp3",
        &["-c:a", "libmp3lame", "-b:a", "96k"],
    );
    for file in [&path, &mp3] {
        for (noise_db, min_duration) in [(-30.0, 2.5), (-45.0, 0.5), (-60.0, 1.0)] {
            let opts = SilenceOptions {
                noise_db,
                min_duration,
            };
            let a = run(file, None, Some(&opts)).unwrap();
            let ours: Vec<_> = a
                .silence
                .unwrap()
                .silences
                .iter()
                .map(|s| (s.start, s.end))
                .collect();
            let theirs = ffmpeg_silences(file, noise_db, min_duration);
            assert_close(
                &format!("{} {noise_db} dB {min_duration} s", file.display()),
                &ours,
                &theirs,
            );
        }
    }
}

#[test]
fn mp3_without_xing_header_decodes_to_its_end() {
    if !ffmpeg_present("mp3_without_xing_header_decodes_to_its_end") {
        return;
    }
    // Loud noise first (large VBR frames), then 20 s of silence (tiny frames): an estimate of
    // the length from the first frames' bitrate falls far short.
    let mut x = 1u32;
    let mut s: Vec<i16> = (0..3 * RATE as usize)
        .map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (x >> 17) as i16 - 16_384
        })
        .collect();
    s.extend(vec![0i16; 20 * RATE as usize]);
    let src = write("noxing-src.wav", &wav(&[s], RATE));
    let mp3 = encode(
        &src,
        "noxing.mp3",
        &["-c:a", "libmp3lame", "-q:a", "0", "-write_xing", "0"],
    );
    let a = run(
        &mp3,
        Some(&WaveformOptions::default()),
        Some(&SilenceOptions::default()),
    )
    .unwrap();
    // 23 s plus the encoder delay and padding (under 2 frames of 1,152 samples).
    assert!(
        (23_000..23_000 + 60).contains(&a.duration_ms),
        "decoded {} ms of 23,000",
        a.duration_ms
    );
    let silence = a.silence.unwrap();
    assert_eq!(silence.silences.len(), 1);
    assert!((silence.silences[0].end - silence.duration).abs() < 1e-9);
    assert_close(
        "no xing",
        &[(silence.silences[0].start, silence.silences[0].end)],
        &ffmpeg_silences(&mp3, -60.0, 2.0),
    );
}

#[test]
fn damaged_aac_gives_a_clear_error() {
    if !ffmpeg_present("damaged_aac_gives_a_clear_error") {
        return;
    }
    let src = write("damage-src.wav", &wav(&[programme(0)], RATE));
    let m4a = encode(
        &src,
        "damage.m4a",
        &["-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart"],
    );
    let mut bytes = std::fs::read(&m4a).unwrap();
    // Scramble the audio data (the `mdat` box, last with faststart) after its first 10 KiB.
    let mdat = bytes.windows(4).rposition(|w| w == b"mdat").unwrap();
    let mut x = 7u32;
    for b in &mut bytes[mdat + 10_240..] {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        *b = (x >> 16) as u8;
    }
    let err = run(
        &write("damaged.m4a", &bytes),
        None,
        Some(&SilenceOptions::default()),
    )
    .unwrap_err();
    match &err {
        AnalysisError::Corrupt { at, .. } => assert!(*at > 0.1 && *at < 2.0, "{err}"),
        other => panic!("expected Corrupt, got {other}"),
    }
    assert!(
        err.to_string().starts_with("corrupt audio data at "),
        "{err}"
    );
}

/// Ogg Opus, encoded by ffmpeg's libopus: decoded by libopus with the `opus` feature (which
/// `scripts/test` enables), and refused with a reason that names the feature without it.
#[test]
fn opus_decodes_with_the_opus_feature() {
    if !ffmpeg_present("opus_decodes_with_the_opus_feature") {
        return;
    }
    let stereo = write("opus-src.wav", &wav(&[programme(0), programme(1)], RATE));
    let opus = encode(&stereo, "enc.opus", &["-c:a", "libopus", "-b:a", "96k"]);
    let got = run(&opus, None, Some(&SilenceOptions::default()));
    if cfg!(not(feature = "opus")) {
        let err = got.unwrap_err();
        assert!(matches!(err, AnalysisError::UnsupportedCodec(_)), "{err}");
        assert!(err.to_string().contains("`opus` feature"), "{err}");
        assert!(
            !require_external(),
            "built without the `opus` feature and PODHOST_REQUIRE_EXTERNAL=1"
        );
        eprintln!(
            "\n*** SKIPPED opus_decodes_with_the_opus_feature: built without the `opus` feature; \
             run scripts/test, which enables it ***\n"
        );
        return;
    }
    let duration_ms = got.unwrap().duration_ms;
    let ours = silences(&opus);
    assert_close("opus vs ffmpeg", &ours, &ffmpeg_silences(&opus, -60.0, 2.0));
    // Opus rings above -60 dB for about 64 ms after each tone stops (ffmpeg hears the same), so
    // against the truth only the ends are within the tolerance.
    assert_eq!(ours.len(), TRUTH.len(), "{ours:?}");
    for ((start, end), (true_start, true_end)) in ours.iter().zip(TRUTH) {
        assert!(
            (0.0..0.1).contains(&(start - true_start)) && (end - true_end).abs() <= TOLERANCE,
            "opus vs truth: {ours:?}"
        );
    }
    // Opus decodes at 48 kHz whatever went in; the length is the programme's, pre-skip removed.
    assert!(duration_ms.abs_diff(43_000) <= 10, "{duration_ms} ms");
}

/// HE-AAC and HE-AACv2 in M4A, signalled explicitly as Apple's encoders and fdkaac write them
/// (fixtures made by libfdk-aac; see `fixtures/README.md`): podhost decodes their AAC-LC core
/// (symphonia has no SBR or PS) and finds the pause (3-5 s) where ffmpeg, decoding them whole,
/// finds it, the same loudness within 0.5 LU, and their length within a core frame.
#[test]
fn he_aac_is_analysed_from_its_core_as_ffmpeg_analyses_it_whole() {
    if !ffmpeg_present("he_aac_is_analysed_from_its_core_as_ffmpeg_analyses_it_whole") {
        return;
    }
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let options = SilenceOptions {
        noise_db: -50.0,
        min_duration: 1.5,
    };
    let mut failures = Vec::new();
    for name in ["he_aac_stereo.m4a", "he_aac_v2.m4a"] {
        let path = fixtures.join(name);
        let file = std::fs::File::open(&path).unwrap();
        let ours = analyze(Box::new(file), None, None, Some(&options), true).unwrap();
        let silences: Vec<(f64, f64)> = ours
            .silence
            .unwrap()
            .silences
            .iter()
            .map(|s| (s.start, s.end))
            .collect();
        let theirs = ffmpeg_silences(&path, options.noise_db, options.min_duration);
        let ours_lufs = ours.loudness.unwrap().integrated.unwrap();
        let theirs_lufs = ffmpeg_tools::ffmpeg_loudness(&path).integrated.unwrap();
        let seconds: f64 = ffmpeg_tools::probe(&path, "format=duration")
            .parse()
            .unwrap();
        eprintln!(
            "{name}: silences ours {silences:?}, ffmpeg {theirs:?}; loudness ours {ours_lufs:.2} LUFS, ffmpeg {theirs_lufs:.2}; length ours {} ms, ffprobe {seconds:.4} s",
            ours.duration_ms
        );
        let close = silences.len() == theirs.len()
            && silences
                .iter()
                .zip(&theirs)
                .all(|(a, b)| (a.0 - b.0).abs() <= 0.05 && (a.1 - b.1).abs() <= 0.05);
        if !close || silences.len() != 1 {
            failures.push(format!("{name}: silences {silences:?} vs {theirs:?}"));
        }
        if (ours_lufs - theirs_lufs).abs() > 0.5 {
            failures.push(format!("{name}: {ours_lufs} vs {theirs_lufs} LUFS"));
        }
        if (ours.duration_ms as f64 / 1000.0 - seconds).abs() > 2048.0 / 44_100.0 {
            failures.push(format!("{name}: {} ms vs {seconds} s", ours.duration_ms));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
