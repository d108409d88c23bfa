//! Dynamic ad insertion beside nginx, in one run (not a timed test):
//! `BENCH_DIR=/tmp cargo bench -p podhost-http --bench ads`.
//!
//! Needs `wrk`, `nginx` (Debian `wrk`, `nginx-light`), `ffmpeg` (the ad), `curl`, and the
//! 60-minute speech episode of `shared/tools/make-test-podcast.sh` (`PODCAST_MP3`, else made in
//! `BENCH_DIR/podcast60` by the script: espeak-ng and ffmpeg, a few minutes).
//!
//! podhost serves the episode (LAME MP3, 44.1 kHz mono 64 kbit/s), in an account of 10,000 more
//! episodes (`BACK_CATALOGUE`), from a local-folder store with
//! a preroll, midrolls at 20 and 40 minutes and a postroll, and one campaign in every slot (a
//! 30 s ad, encoded like the episode by podhost's job before the run): every request is answered
//! with the stitched arrangement, computed from the stored parts. nginx serves that arrangement's
//! bytes, fetched from podhost, as a static file. Printed, for each: random 1 MiB ranges with
//! `wrk -t2 -c32` (requests and MiB per second, p99 latency), the time to the first body byte of
//! 1,000 sequential range requests (p50, p99), the server process's peak memory before and
//! after the load, and the bytes the store holds outside the statistics before and after (0
//! stored per arrangement).

use std::{
    path::{Path, PathBuf},
    process::Command,
    time::{Duration, Instant},
};

use podhost_core::model::{AdBreak, MetadataPatch, NewCampaign, NewEpisode, Position};
use podhost_http::{Api, HttpConfig};

#[path = "support/reference.rs"]
mod reference;
use reference::{first_bytes, percentile, ranges_script, start_nginx, wrk};

/// The episodes of the account besides the two measured (`BACK_CATALOGUE`, default 10,000).
static BACK_CATALOGUE: std::sync::LazyLock<usize> = std::sync::LazyLock::new(|| {
    std::env::var("BACK_CATALOGUE")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000)
});
const AGENT: &str = "User-Agent: podhost-bench/1.0";

/// The 60-minute episode: `PODCAST_MP3`, or made by `make-test-podcast.sh` in `base`.
fn episode(base: &Path) -> PathBuf {
    if let Ok(path) = std::env::var("PODCAST_MP3") {
        return PathBuf::from(path);
    }
    let dir = base.join("podcast60");
    let mp3 = dir.join("episode.mp3");
    if !mp3.exists() {
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/tools/make-test-podcast.sh"
        );
        println!("making the 60-minute episode with {script} (a few minutes)");
        let ok = Command::new("bash")
            .arg(script)
            .arg(&dir)
            .arg("60")
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "{script} failed (apt-get install espeak-ng ffmpeg)");
    }
    mp3
}

/// A 30 s ad: a jingle over a tone, as a WAV (podhost encodes it like the episode).
fn ad(dir: &Path) -> Vec<u8> {
    let path = dir.join("ad.wav");
    let ok = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-f", "lavfi", "-i"])
        .arg("aevalsrc=0.3*sin(2*PI*440*t)*(0.6+0.4*sin(2*PI*2*t)):s=48000:d=30")
        .arg(&path)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "ffmpeg makes the ad (apt-get install ffmpeg)");
    std::fs::read(path).unwrap()
}

/// The process's peak resident memory (VmHWM), in MiB.
fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The bytes of the files under `dir`, but for the statistics' (`stats` folders).
fn stored_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                if entry.file_name() != "stats" {
                    stack.push(path);
                }
            } else {
                total += entry.metadata().map_or(0, |m| m.len());
            }
        }
    }
    total
}

fn curl(args: &[&str]) -> Vec<u8> {
    let out = Command::new("curl")
        .args(["-s", "-H", AGENT])
        .args(args)
        .output()
        .expect("curl");
    out.stdout
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let base = PathBuf::from(std::env::var("BENCH_DIR").unwrap_or_else(|_| ".".into()));
    let episode_mp3 = std::fs::read(episode(&base)).unwrap();
    let store_dir = tempfile::tempdir_in(&base).unwrap();
    let static_dir = tempfile::tempdir_in(&base).unwrap();
    let ad_wav = ad(static_dir.path());

    let (addr, path, plain_url) = runtime.block_on(async {
        let (listener, addr, host) = reference::host_on_folder(store_dir.path()).await;
        let (owner, show) =
            podhost_testkit::setup::account_with_podcast(&host, "bench", "show").await;
        let episode =
            podhost_testkit::setup::upload(&host, &owner, "episode.mp3", episode_mp3.clone()).await;
        // The same file without breaks, as every episode was served before ads.
        let plain = podhost_testkit::setup::upload(&host, &owner, "plain.mp3", episode_mp3).await;
        let ad = podhost_testkit::setup::upload(&host, &owner, "ad.wav", ad_wav).await;
        let patch = MetadataPatch {
            adbreak: Some(Some(AdBreak {
                preroll: true,
                postroll: true,
                midrolls: vec![1200.0, 2400.0],
            })),
            ..Default::default()
        };
        host.podcasts()
            .update_metadata(&owner, episode.id, patch)
            .await
            .unwrap();
        let mut new = NewEpisode::titled("An hour");
        new.fields.media = Some(Some(episode.id));
        new.fields.is_public = Some(true);
        host.podcasts()
            .create_episode(&owner, &show, new)
            .await
            .unwrap();
        let mut new = NewEpisode::titled("The same hour, without breaks");
        new.fields.media = Some(Some(plain.id));
        new.fields.is_public = Some(true);
        host.podcasts()
            .create_episode(&owner, &show, new)
            .await
            .unwrap();
        // An account of real size: 10,000 more published episodes beside the measured one.
        let made = Instant::now();
        for n in 0..*BACK_CATALOGUE {
            let mut new = NewEpisode::titled(format!("Episode {n}: a title of ordinary length"));
            new.fields.description =
                Some("<p>Show notes with <a href=\"https://example.com\">a link</a>.</p>".into());
            new.fields.is_public = Some(true);
            host.podcasts()
                .create_episode(&owner, &show, new)
                .await
                .unwrap();
        }
        println!(
            "the account: {} episodes ({} made in {:.0} s)",
            *BACK_CATALOGUE + 2,
            *BACK_CATALOGUE,
            made.elapsed().as_secs_f64()
        );
        host.ads()
            .create_campaign(
                &owner,
                NewCampaign {
                    name: "Everywhere".into(),
                    media: Some(ad.id),
                    positions: Position::ALL.to_vec(),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        for task in [0, 1] {
            let host = host.clone();
            tokio::spawn(async move {
                match task {
                    0 => host.work().run_jobs(std::future::pending()).await,
                    _ => host.work().run_stats(std::future::pending()).await,
                }
            });
        }
        let url = host.podcasts().media_url(owner.account(), &episode);
        let plain_url = host.podcasts().media_url(owner.account(), &plain);
        let api = Api::new(host, HttpConfig::default());
        tokio::spawn(podhost_http::serve(listener, api, std::future::pending()));
        let path = url
            .strip_prefix(&format!("http://{addr}"))
            .unwrap()
            .to_string();
        (addr, path, plain_url)
    });
    let url = format!("http://{addr}{path}");

    // The campaign's creation asked for the episode's loudness and the ad's encoding (background
    // jobs); wait until the answer carries the ads.
    let file_len = curl(&["-o", "/dev/null", "-w", "%{size_download}", &url]);
    let file_len: u64 = String::from_utf8_lossy(&file_len).parse().unwrap();
    let started = Instant::now();
    let stitched = loop {
        let bytes = curl(&[&url]);
        if bytes.len() as u64 != file_len {
            break bytes;
        }
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "no ads after 10 minutes"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    let len = stitched.len() as u64;
    println!(
        "episode: {:.1} MiB as stored; with a preroll, two midrolls and a postroll of 30 s: {:.1} MiB ({} bytes); ads ready after {:.1} s",
        file_len as f64 / 1048576.0,
        len as f64 / 1048576.0,
        len,
        started.elapsed().as_secs_f64()
    );
    std::fs::write(static_dir.path().join("stitched.mp3"), &stitched).unwrap();
    let port = 18_000 + (std::process::id() % 1000) as u16;
    let mut nginx = start_nginx(static_dir.path(), port);
    let nginx_addr = format!("127.0.0.1:{port}");
    let same = curl(&[&format!("http://{nginx_addr}/stitched.mp3")]);
    assert_eq!(same, stitched, "nginx serves the same bytes");

    let stored_before = stored_bytes(store_dir.path());
    let peak_start = peak_mib();
    let ranges = ranges_script(len);
    let plain_ranges = ranges_script(file_len);
    let agent = AGENT.to_string();
    let mib = |b: f64| b / 1048576.0;
    // The same load on the file as stored first: the memory a download took before ads.
    let plain = wrk(
        &plain_url,
        (2, 32),
        std::slice::from_ref(&agent),
        Some(plain_ranges.path()),
    );
    let peak_before = peak_mib();
    println!(
        "random 1 MiB ranges of the stitched answer, wrk -t2 -c32 -d8s on loopback (2 cores shared by wrk and the servers):"
    );
    let ours = wrk(
        &url,
        (2, 32),
        std::slice::from_ref(&agent),
        Some(ranges.path()),
    );
    let theirs = wrk(
        &format!("http://{nginx_addr}/stitched.mp3"),
        (2, 32),
        std::slice::from_ref(&agent),
        Some(ranges.path()),
    );
    println!(
        "  podhost {:.0} req/s, {:.0} MiB/s, p99 {:.2} ms | nginx {:.0} req/s, {:.0} MiB/s, p99 {:.2} ms | podhost/nginx {:.2}×",
        ours.rps,
        mib(ours.bytes_per_sec),
        ours.p99_ms,
        theirs.rps,
        mib(theirs.bytes_per_sec),
        theirs.p99_ms,
        ours.rps / theirs.rps.max(1.0)
    );
    let peak_after = peak_mib();
    let stored_after = stored_bytes(store_dir.path());

    println!("time to the first body byte, 1,000 sequential 1 MiB ranges on one connection:");
    let ours = first_bytes(&addr.to_string(), &path, AGENT, len, 1000);
    let theirs = first_bytes(&nginx_addr, "/stitched.mp3", AGENT, len, 1000);
    println!(
        "  podhost p50 {:.3} ms, p99 {:.3} ms | nginx p50 {:.3} ms, p99 {:.3} ms",
        percentile(&ours, 0.5),
        percentile(&ours, 0.99),
        percentile(&theirs, 0.5),
        percentile(&theirs, 0.99),
    );
    println!(
        "  the file as stored (no breaks), same load: podhost {:.0} req/s, p99 {:.2} ms",
        plain.rps, plain.p99_ms
    );
    println!(
        "memory: the server process's peak {peak_start:.1} MiB before any load, {peak_before:.1} MiB after the load on the file as stored (+{:.1} MiB), {peak_after:.1} MiB after the same load on the stitched answer (+{:.1} MiB more; the episode is {:.1} MiB)",
        peak_before - peak_start,
        peak_after - peak_before,
        file_len as f64 / 1048576.0
    );
    println!(
        "store outside statistics: {stored_before} bytes before the load, {stored_after} after ({} bytes stored for the arrangement)",
        stored_after as i64 - stored_before as i64
    );
    let _ = Command::new("kill").arg(nginx.id().to_string()).status();
    let _ = nginx.wait();
}
