//! Tag writing on a ~100 MB MP3 and a ~100 MB M4A: wall time and peak memory of `write_tags`
//! with a title, artist, album, year, comment, a 1400x1400 PNG cover and 10 chapters.
//!
//! ```sh
//! cargo bench -p podhost-core --bench tags
//! ```
//!
//! Needs ffmpeg (to encode a minute of audio, repeated to 100 MB, and the cover). Peak memory is
//! the process's VmHWM from /proc/self/status (Linux), read before and after each step: the
//! growth is what the step cost.

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use bytes::Bytes;
use podhost_core::tags::{Chapter, Cover, Tags, read_tags, write_tags};

const TARGET_BYTES: u64 = 100 * 1024 * 1024;

fn ffmpeg(args: &[&str]) {
    let out = Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-y"])
        .args(args)
        .output()
        .expect("ffmpeg runs (install it: scripts/test does)");
    assert!(
        out.status.success(),
        "ffmpeg {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Peak resident set size so far, in KiB.
fn vm_hwm_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn make_mp3(dir: &Path) -> std::path::PathBuf {
    let minute = dir.join("minute.mp3");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "sine=frequency=440:duration=60",
        "-ac",
        "2",
        "-c:a",
        "libmp3lame",
        "-b:a",
        "320k",
        "-write_xing",
        "0",
        "-id3v2_version",
        "0",
        minute.to_str().unwrap(),
    ]);
    let frames = std::fs::read(&minute).unwrap();
    let path = dir.join("big.mp3");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let mut written = 0u64;
    while written < TARGET_BYTES {
        out.write_all(&frames).unwrap();
        written += frames.len() as u64;
    }
    out.flush().unwrap();
    path
}

fn tags(cover: Bytes) -> Tags {
    Tags {
        title: Some("Episode 100: a long one".into()),
        artist: Some("The Podhost Team".into()),
        album: Some("The Podhost Show".into()),
        year: Some(2024),
        comment: Some("Benchmark".into()),
        chapters: (0..10)
            .map(|i| Chapter {
                start_ms: i * 300_000,
                end_ms: None,
                title: format!("Chapter {}", i + 1),
                url: Some(format!("https://example.com/chapters/{}", i + 1)),
            })
            .collect(),
        cover: Some(Cover {
            mime: "image/png".into(),
            bytes: cover,
        }),
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = make_mp3(dir.path());
    let png = dir.path().join("cover.png");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc2=size=1400x1400:rate=1",
        "-frames:v",
        "1",
        png.to_str().unwrap(),
    ]);
    let cover = Bytes::from(std::fs::read(&png).unwrap());
    let size = std::fs::metadata(&path).unwrap().len();
    println!(
        "tags bench: MP3 of {:.1} MiB, cover PNG 1400x1400 of {:.0} KiB, 10 chapters",
        size as f64 / 1048576.0,
        cover.len() as f64 / 1024.0
    );
    let tags = tags(cover);
    let duration_ms = Some(3_000_000);

    let steps: [(&str, &Tags); 3] = [
        ("first write (tag grows: the audio moves)", &tags),
        ("rewrite, same tags (fits in place)", &tags),
        (
            "rewrite, cover removed (tag shrinks)",
            &Tags {
                cover: None,
                ..tags.clone()
            },
        ),
    ];
    for (name, tags) in steps {
        let before = vm_hwm_kib();
        let start = Instant::now();
        write_tags(&path, "audio/mpeg", tags, duration_ms).unwrap();
        let elapsed = start.elapsed();
        let after = vm_hwm_kib();
        println!(
            "write_tags {name}: {:>8.1} ms, peak RSS {:.1} MiB (+{:.1} MiB), file {:.1} MiB",
            elapsed.as_secs_f64() * 1000.0,
            mib(after),
            mib(after - before),
            std::fs::metadata(&path).unwrap().len() as f64 / 1048576.0,
        );
    }
    let before = vm_hwm_kib();
    let start = Instant::now();
    let mut file = std::fs::File::open(&path).unwrap();
    let read = read_tags(&mut file, "audio/mpeg").unwrap();
    println!(
        "read_tags: {:>8.1} ms, peak RSS {:.1} MiB (+{:.1} MiB), {} chapters",
        start.elapsed().as_secs_f64() * 1000.0,
        mib(vm_hwm_kib()),
        mib(vm_hwm_kib() - before),
        read.chapters.len()
    );

    // The same on ~100 MB files of the other formats that take chapters: an M4A with `moov`
    // first (faststart), so that the grown `moov` moves the audio behind it; FLAC; Ogg Vorbis.
    let others: [(&str, &str, &[&str], &[&str]); 3] = [
        (
            "big.m4a",
            "audio/mp4",
            &["-c:a", "aac", "-b:a", "320k"],
            &["-movflags", "+faststart"],
        ),
        ("big.flac", "audio/flac", &["-c:a", "flac"], &[]),
        (
            "big.ogg",
            "audio/ogg",
            &["-c:a", "libvorbis", "-q:a", "10"],
            &[],
        ),
    ];
    for (name, mime, codec, mux) in others {
        let file = make_repeated(dir.path(), name, codec, mux);
        println!(
            "{name} of {:.1} MiB",
            std::fs::metadata(&file).unwrap().len() as f64 / 1048576.0
        );
        for step in ["first write", "rewrite, same tags"] {
            let before = vm_hwm_kib();
            let start = Instant::now();
            write_tags(&file, mime, &tags, duration_ms).unwrap();
            println!(
                "write_tags {name} {step}: {:>8.1} ms, peak RSS {:.1} MiB (+{:.1} MiB)",
                start.elapsed().as_secs_f64() * 1000.0,
                mib(vm_hwm_kib()),
                mib(vm_hwm_kib() - before),
            );
        }
        let mut reader = std::fs::File::open(&file).unwrap();
        assert_eq!(read_tags(&mut reader, mime).unwrap().chapters.len(), 10);
        std::fs::remove_file(&file).unwrap();
    }
}

/// About 100 MB of audio in `name`: one minute encoded with `codec`, repeated without
/// re-encoding, muxed with `mux`.
fn make_repeated(dir: &Path, name: &str, codec: &[&str], mux: &[&str]) -> std::path::PathBuf {
    let minute = dir.join(format!("minute-{name}"));
    let mut args = vec![
        "-f",
        "lavfi",
        "-i",
        "sine=frequency=440:duration=60",
        "-ac",
        "2",
    ];
    args.extend_from_slice(codec);
    args.push(minute.to_str().unwrap());
    ffmpeg(&args);
    let path = dir.join(name);
    let repeats = (TARGET_BYTES / std::fs::metadata(&minute).unwrap().len()).to_string();
    let mut args = vec![
        "-stream_loop",
        &repeats,
        "-i",
        minute.to_str().unwrap(),
        "-c",
        "copy",
    ];
    args.extend_from_slice(mux);
    args.push(path.to_str().unwrap());
    ffmpeg(&args);
    path
}
