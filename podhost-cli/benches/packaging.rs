//! Packaging a video for HLS: the shipped binary beside the plain ffmpeg command that makes the
//! same ladder, in one run (not a timed test): run with
//! `BENCH_DIR=/tmp cargo bench -p podhost-cli --bench packaging`.
//! Needs `ffmpeg` and `curl` (Debian packages).
//!
//! The source: a 10-minute 1080p30 H.264 video with AAC sound (`PACKAGING_SECONDS` changes its
//! length), made once with ffmpeg's test pattern and kept in `BENCH_DIR` as
//! `packaging-{seconds}s.mp4`. podhost: `podhost serve`, the release binary as its own process
//! with its default logging, on a new local-folder store; the video uploaded through the API
//! as a podcaster does, then timed from the upload's answer until the media's `hls` says the
//! stream is made (polled every 100 ms, as a client would). That time holds what the job does
//! beside ffmpeg: the source copied to a working folder, the renditions read back (durations,
//! key frames), every segment stored (fsync), the package described. The plain command: ffmpeg
//! with the very arguments podhost gives it (the ladder of `hls::ladder::plan`, the same
//! encoder settings and thread bound, the soundtrack in the same run), writing to a folder.
//! The CPU time of each (the server's and its children's from `/proc`, the plain command's
//! from this process's children) is reported beside the wall time: on a shared machine the
//! wall time of one 7-minute encode varies by a tenth from run to run.
//! Rounds in turn (`PACKAGING_ROUNDS`, default 2: podhost, plain, podhost, plain; 0 skips
//! them), each podhost round on a new store; each round's ratio and the median of each
//! reported.
//!
//! Then the memory of a 1 GiB upload (skipped with `PACKAGING_MEMORY=0`): a source of the same
//! length at 14.4 Mbit/s uploaded with curl to a new server, its RSS sampled every 10 ms until
//! the upload's answer and on until the stream is made.

use std::{
    path::{Path, PathBuf},
    process::Command,
    time::{Duration, Instant},
};

use podhost_core::{
    PodcastHost, Scopes,
    hls::{ladder, transcode},
    probe::VideoFacts,
};

#[path = "support/shipped.rs"]
mod shipped;

use shipped::Shipped;

/// The source's length when `PACKAGING_SECONDS` is not set: the 10 minutes.
const SECONDS: u64 = 600;

/// Threads podhost gives ffmpeg by default (`--ffmpeg-threads`).
const THREADS: usize = 2;

/// The 1080p30 source of `seconds` at `kbits` of video, made once in `dir` (H.264 with a key
/// frame every 2 s, AAC sound: at 2800 kbit/s, what an editor exports for the web, and what
/// podhost copies as its top rendition).
fn make_source(dir: &Path, seconds: u64, kbits: u32) -> PathBuf {
    let name = match kbits {
        2800 => format!("packaging-{seconds}s"),
        _ => format!("packaging-{seconds}s-{kbits}k"),
    };
    let file = dir.join(format!("{name}.mp4"));
    if file.exists() {
        return file;
    }
    let partial = dir.join(format!("{name}.partial.mp4"));
    let started = Instant::now();
    let made = Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-y"])
        .args(["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30"])
        .args(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"])
        .args(["-t", &seconds.to_string()])
        .args(["-c:v", "libx264", "-preset", "ultrafast", "-g", "60"])
        .args([
            "-b:v",
            &format!("{kbits}k"),
            "-maxrate",
            &format!("{kbits}k"),
        ])
        .args(["-bufsize", &format!("{}k", 2 * kbits)])
        .args(["-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k"])
        .args(["-movflags", "+faststart", "-shortest"])
        .arg(&partial)
        .status()
        .expect("ffmpeg runs");
    assert!(made.success(), "the source was not made");
    std::fs::rename(&partial, &file).unwrap();
    eprintln!(
        "source {} made in {:.0} s",
        file.display(),
        started.elapsed().as_secs_f64()
    );
    file
}

/// A new store in `base` with an account and a token of every scope; returns the store's
/// folder (kept by the returned guard) and the token.
fn store(base: &Path) -> (tempfile::TempDir, PathBuf, String) {
    let temp = tempfile::tempdir_in(base).unwrap();
    let dir = temp.path().join("store");
    std::fs::create_dir_all(&dir).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let token = runtime.block_on(async {
        let opened = podhost_core::open_store(dir.to_str().unwrap()).unwrap();
        let host = PodcastHost::new(
            podhost_core::HostConfig::new("http://127.0.0.1").unwrap(),
            opened.store,
        );
        let who = podhost_testkit::setup::account(&host, "studio").await;
        host.access()
            .create_token(&who, "bench", Scopes::all())
            .await
            .unwrap()
            .secret
    });
    (temp, dir, token)
}

/// What one podhost round measured.
struct Packaged {
    /// The upload, until its answer.
    upload: Duration,
    /// From the upload's answer until the stream was made.
    packaging: Duration,
    /// The video as the server probed it.
    facts: VideoFacts,
    /// The renditions it made.
    renditions: Vec<String>,
    /// CPU time of the server and its children (ffmpeg) from the upload's answer until the
    /// stream was made, seconds.
    cpu: f64,
    /// The server's peak RSS, MiB.
    peak_mib: u64,
}

/// Uploads `source` to a new `podhost serve` and times its packaging.
fn podhost_round(base: &Path, source: &Path) -> Packaged {
    let (_kept, dir, token) = store(base);
    let server = Shipped::start(&dir, &[], &[]);
    server.wait_idle();
    let started = Instant::now();
    let uploaded = server.api(
        &token,
        &["-F", &format!("media=@{}", source.display())],
        "/api/media",
    );
    let upload = started.elapsed();
    let id = uploaded["id"].as_u64().expect("the video's id");
    let answered = Instant::now();
    let cpu_before = server.cpu_seconds();
    let record = loop {
        let record = server.api(&token, &[], &format!("/api/media/{id}"));
        if record["hls"]["url"].is_string() {
            break record;
        }
        assert!(
            answered.elapsed() < Duration::from_secs(3600),
            "not packaged in an hour: {record}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let packaging = answered.elapsed();
    let cpu = server.cpu_seconds() - cpu_before;
    let facts: VideoFacts =
        serde_json::from_value(record["video"].clone()).expect("the video's facts");
    let renditions = record["hls"]["renditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().to_string())
        .collect();
    Packaged {
        upload,
        packaging,
        facts,
        renditions,
        cpu,
        peak_mib: server.peak_mib(),
    }
}

/// Runs the plain ffmpeg command of `facts`' ladder on `source` into a new folder in `base`;
/// returns its time, its CPU time (seconds) and the command.
fn plain_round(base: &Path, source: &Path, facts: &VideoFacts) -> (Duration, f64, String) {
    let out = tempfile::tempdir_in(base).unwrap();
    let plan = ladder::plan(facts);
    let soundtrack = out.path().join("soundtrack.m4a");
    let mut args = transcode::arguments(source, out.path(), &plan, Some(&soundtrack), THREADS);
    // podhost reads ffmpeg's progress from its standard output; the plain command prints none.
    if let Some(at) = args.iter().position(|a| a == "-progress") {
        args.drain(at..at + 2);
    }
    let command = format!(
        "ffmpeg {}",
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let cpu_before = shipped::cpu_seconds("/proc/self/stat");
    let started = Instant::now();
    let status = Command::new("ffmpeg").args(&args).status().unwrap();
    let took = started.elapsed();
    let cpu = shipped::cpu_seconds("/proc/self/stat") - cpu_before;
    assert!(status.success(), "the plain command failed: {command}");
    (took, cpu, command)
}

/// The server's resident memory while `source` is uploaded through the API and then packaged:
/// (before, peak until the upload's answer, peak until the stream is made), KiB; sampled every
/// 10 ms.
fn upload_memory(base: &Path, source: &Path) -> (u64, u64, u64) {
    let (_kept, dir, token) = store(base);
    let server = Shipped::start(&dir, &[], &[]);
    server.wait_idle();
    let before = server.rss_kib();
    let mut curl = Command::new("curl")
        .args(["-s", "-o", "/dev/null", "-w", "%{http_code}"])
        .args(["-H", &format!("Authorization: Bearer {token}")])
        .args(["-F", &format!("media=@{}", source.display())])
        .arg(format!("{}/api/media", server.base))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut uploading = before;
    while curl.try_wait().unwrap().is_none() {
        uploading = uploading.max(server.rss_kib());
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = curl.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "201", "the upload");
    let mut packaging = uploading;
    let started = Instant::now();
    let mut asked = Instant::now() - Duration::from_secs(1);
    loop {
        packaging = packaging.max(server.rss_kib());
        if asked.elapsed() >= Duration::from_millis(500) {
            asked = Instant::now();
            let record = server.api(&token, &[], "/api/media/1");
            if record["hls"]["url"].is_string() {
                break;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(3600),
            "not packaged"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    (before, uploading, packaging)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let base = PathBuf::from(std::env::var("BENCH_DIR").unwrap_or_else(|_| ".".into()));
    let seconds: u64 = std::env::var("PACKAGING_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(SECONDS);
    let rounds: usize = std::env::var("PACKAGING_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    if rounds > 0 {
        packaging(&base, seconds, rounds);
    }

    // A 1 GiB upload's memory: the same length at 14.4 Mbit/s.
    if std::env::var("PACKAGING_MEMORY").as_deref() != Ok("0") {
        let big = make_source(&base, seconds, 14_400);
        let size = std::fs::metadata(&big).unwrap().len();
        let (before, uploading, packaging) = upload_memory(&base, &big);
        let mib = |kib: u64| kib as f64 / 1024.0;
        println!(
            "upload of {:.0} MiB through the API: RSS {:.1} MiB before, peak {:.1} MiB until its answer (+{:.1} MiB), peak {:.1} MiB until packaged (+{:.1} MiB)",
            size as f64 / f64::from(1 << 20),
            mib(before),
            mib(uploading),
            mib(uploading - before),
            mib(packaging),
            mib(packaging - before)
        );
    }
}

/// `rounds` rounds of podhost's packaging and the plain command's, in turn.
fn packaging(base: &Path, seconds: u64, rounds: usize) {
    let source = make_source(base, seconds, 2800);
    let bytes = std::fs::metadata(&source).unwrap().len();
    let mut ours = Vec::new();
    let mut plain = Vec::new();
    let mut uploads = Vec::new();
    let mut cpus = Vec::new();
    let mut shown = None;
    for round in 1..=rounds {
        let packaged = podhost_round(base, &source);
        println!(
            "round {round}: podhost {:.1} s, CPU {:.1} s (upload {:.1} s), peak RSS {} MiB",
            packaged.packaging.as_secs_f64(),
            packaged.cpu,
            packaged.upload.as_secs_f64(),
            packaged.peak_mib
        );
        let (took, cpu, command) = plain_round(base, &source, &packaged.facts);
        println!(
            "round {round}: plain ffmpeg {:.1} s, CPU {cpu:.1} s; podhost/ffmpeg {:.3}× in time, {:.3}× in CPU",
            took.as_secs_f64(),
            packaged.packaging.as_secs_f64() / took.as_secs_f64().max(1e-9),
            packaged.cpu / cpu.max(1e-9)
        );
        cpus.push((packaged.cpu, cpu));
        ours.push(packaged.packaging);
        uploads.push(packaged.upload);
        plain.push(took);
        shown.get_or_insert((packaged.facts, packaged.renditions, command));
    }
    let (facts, renditions, command) = shown.unwrap();
    let (ours, plain) = (median(ours), median(plain));
    println!(
        "\nsource: {seconds} s of {}x{} {} at {:.2} fps, {:.1} Mbit/s video, {} MiB; ladder {}",
        facts.width,
        facts.height,
        facts.codec,
        facts.frame_rate,
        f64::from(facts.bitrate) / 1e6,
        bytes >> 20,
        renditions.join(", ")
    );
    println!("plain command: {command}");
    println!("| packaging ({rounds} rounds, median) | podhost | plain ffmpeg | podhost/ffmpeg |");
    println!("|---|---|---|---|");
    println!(
        "| {seconds} s 1080p source, upload answered → stream made | {:.1} s | {:.1} s | {:.3}× |",
        ours.as_secs_f64(),
        plain.as_secs_f64(),
        ours.as_secs_f64() / plain.as_secs_f64().max(1e-9)
    );
    let (ours_cpu, plain_cpu) = cpus
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    println!(
        "| the same, CPU time (server and ffmpeg; all rounds) | {ours_cpu:.1} s | {plain_cpu:.1} s | {:.3}× |",
        ours_cpu / plain_cpu.max(1e-9)
    );
    println!(
        "upload of the source ({} MiB) through the API: {:.1} s (median)",
        bytes >> 20,
        median(uploads).as_secs_f64()
    );
}
