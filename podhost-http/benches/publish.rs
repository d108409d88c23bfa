//! Publishing figures side by side with nginx (not a timed test): run with
//! `BENCH_DIR=/tmp cargo bench -p podhost-http --bench publish`.
//! Needs `wrk` and `nginx` (Debian packages `wrk`, `nginx-light`) and `shared/tools/nginx-static.sh`
//! (found at `../shared/tools/` from the workspace, or set `NGINX_STATIC`).
//!
//! One run, one load generator on loopback, the same bytes: podhost serves a podcast of 1,000
//! episodes from a local-folder store (fsync, as deployed; download statistics on) and nginx
//! serves that podcast's rendered RSS and its 100 MB enclosure as static files. Prints requests
//! per second for the feed (GET with gzip, GET plain, 304) and throughput for the enclosure (whole
//! 100 MB GETs and random 1 MiB ranges), and podhost's share of nginx's figure.

use std::{io::Write, process::Command};

use podhost_core::{
    PodcastHost,
    model::{EpisodePatch, NewEpisode, NewFeed, NewMedia},
};
use podhost_http::{Api, HttpConfig};

#[path = "support/reference.rs"]
mod reference;
use reference::{start_nginx, wrk};

const EPISODES: usize = 1_000;
const ENCLOSURE_BYTES: usize = 100 << 20;
const RANGE_BYTES: usize = 1 << 20;

fn header_of(url: &str, headers: &[&str], name: &str) -> String {
    let mut command = Command::new("curl");
    command.args(["-s", "-o", "/dev/null", "-D", "-"]);
    for header in headers {
        command.args(["-H", header]);
    }
    let out = command.arg(url).output().expect("curl");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
        })
        .unwrap_or_default()
}

async fn build(host: &PodcastHost) -> (String, String) {
    let owner = podhost_testkit::setup::account(host, "bench").await;
    let feed = host
        .create_feed(
            &owner,
            NewFeed::titled("big", "A podcast of a thousand episodes"),
        )
        .await
        .unwrap()
        .feed
        .id;
    let enclosure = host
        .upload_media(
            &owner,
            NewMedia {
                name: "episode.wav".into(),
                category: None,
            },
            podhost_testkit::body(
                podhost_testkit::fixtures::noise_wav(ENCLOSURE_BYTES),
                1 << 20,
            ),
        )
        .await
        .unwrap();
    for i in 0..EPISODES {
        let fields = EpisodePatch {
            title: Some(format!("Episode {i}: a title of ordinary length")),
            description: Some("<p>Show notes of a typical length, with <a href=\"https://example.com\">a link</a> or two and a few sentences about the guests and what they talk about.</p>".into()),
            is_public: Some(true),
            media: Some(Some(enclosure.id)),
            ..Default::default()
        };
        host.create_episode(&owner, &feed, NewEpisode { guid: None, fields })
            .await
            .unwrap();
    }
    let rss = host.urls().rss(&feed);
    let media = host.media_url(owner.account(), &enclosure);
    (rss, media)
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let base = std::env::var("BENCH_DIR").unwrap_or_else(|_| ".".into());
    let store_dir = tempfile::tempdir_in(&base).unwrap();
    let static_dir = tempfile::tempdir_in(&base).unwrap();
    let (addr, rss, media) = runtime.block_on(async {
        let (listener, addr, host) = reference::host_on_folder(store_dir.path()).await;
        let (rss, media) = build(&host).await;
        tokio::spawn({
            let host = host.clone();
            async move { host.run_stats(std::future::pending()).await }
        });
        let api = Api::new(host, HttpConfig::default());
        tokio::spawn(podhost_http::serve(listener, api, std::future::pending()));
        (addr, rss, media)
    });
    let feed_path = rss
        .strip_prefix(&format!("http://{addr}"))
        .unwrap()
        .to_string();
    let media_path = media
        .strip_prefix(&format!("http://{addr}"))
        .unwrap()
        .to_string();

    // The same bytes as static files for nginx.
    let xml = Command::new("curl")
        .args(["-s", &rss])
        .output()
        .unwrap()
        .stdout;
    std::fs::write(static_dir.path().join("feed.rss"), &xml).unwrap();
    let wav = Command::new("curl")
        .args(["-s", &media])
        .output()
        .unwrap()
        .stdout;
    assert_eq!(wav.len(), ENCLOSURE_BYTES);
    std::fs::write(static_dir.path().join("episode.wav"), &wav).unwrap();
    let port = 18_000 + (std::process::id() % 1000) as u16;
    let mut nginx = start_nginx(static_dir.path(), port);
    let nginx_base = format!("http://127.0.0.1:{port}");
    let podhost_base = format!("http://{addr}");

    let mut ranges = tempfile::NamedTempFile::new().unwrap();
    write!(
        ranges,
        "math.randomseed(42)\nrequest = function()\n  local s = math.random(0, {last})\n  return wrk.format(\"GET\", nil, {{[\"Range\"] = \"bytes=\" .. s .. \"-\" .. (s + {len})}})\nend\n",
        last = ENCLOSURE_BYTES - RANGE_BYTES,
        len = RANGE_BYTES - 1
    )
    .unwrap();

    println!(
        "feed: {EPISODES} episodes, {} bytes of RSS; enclosure {} MiB; wrk -t1 -d8s on loopback, 2 cores shared by wrk and the server",
        xml.len(),
        ENCLOSURE_BYTES >> 20
    );
    let gzip = "Accept-Encoding: gzip".to_string();
    type Case<'a> = (
        &'a str,
        String,
        String,
        (u32, u32),
        Vec<String>,
        Vec<String>,
        bool,
    );
    // The settings the operations issue names: wrk -t2 -c32, a repeated 1 MiB range.
    let repeated_range = "Range: bytes=1048576-2097151".to_string();
    let podhost_etag = header_of(
        &format!("{podhost_base}{feed_path}"),
        &["Accept-Encoding: gzip"],
        "etag",
    );
    let nginx_etag = header_of(
        &format!("{nginx_base}/feed.rss"),
        &["Accept-Encoding: gzip"],
        "etag",
    );
    let cases: Vec<Case<'_>> = vec![
        (
            "feed GET, gzip (c32)",
            feed_path.clone(),
            "/feed.rss".into(),
            (1, 32),
            vec![gzip.clone()],
            vec![gzip.clone()],
            false,
        ),
        (
            "feed GET, plain (c32)",
            feed_path.clone(),
            "/feed.rss".into(),
            (1, 32),
            vec![],
            vec![],
            false,
        ),
        (
            "feed 304, If-None-Match (c32)",
            feed_path.clone(),
            "/feed.rss".into(),
            (1, 32),
            vec![gzip.clone(), format!("If-None-Match: {podhost_etag}")],
            vec![gzip.clone(), format!("If-None-Match: {nginx_etag}")],
            false,
        ),
        (
            "enclosure GET 100 MiB (c4)",
            media_path.clone(),
            "/episode.wav".into(),
            (1, 4),
            vec![],
            vec![],
            false,
        ),
        (
            "enclosure random 1 MiB ranges (c16)",
            media_path.clone(),
            "/episode.wav".into(),
            (1, 16),
            vec![],
            vec![],
            true,
        ),
        (
            "issue settings: 1 MiB range bytes=1048576-2097151 (t2 c32)",
            media_path.clone(),
            "/episode.wav".into(),
            (2, 32),
            vec![repeated_range.clone()],
            vec![repeated_range.clone()],
            false,
        ),
        (
            "issue settings: feed 304, If-None-Match (t2 c32)",
            feed_path.clone(),
            "/feed.rss".into(),
            (2, 32),
            vec![gzip.clone(), format!("If-None-Match: {podhost_etag}")],
            vec![gzip.clone(), format!("If-None-Match: {nginx_etag}")],
            false,
        ),
        (
            "issue settings: enclosure GET 100 MiB (t2 c32)",
            media_path.clone(),
            "/episode.wav".into(),
            (2, 32),
            vec![],
            vec![],
            false,
        ),
    ];
    for (label, ours, theirs, connections, our_headers, their_headers, ranged) in cases {
        let script = ranged.then(|| ranges.path());
        let p = wrk(
            &format!("{podhost_base}{ours}"),
            connections,
            &our_headers,
            script,
        );
        let n = wrk(
            &format!("{nginx_base}{theirs}"),
            connections,
            &their_headers,
            script,
        );
        let mib = |b: f64| b / (1024.0 * 1024.0);
        println!(
            "{label}: podhost {:.0} req/s, {:.0} MiB/s | nginx {:.0} req/s, {:.0} MiB/s | podhost/nginx {:.0} % (req/s)",
            p.rps,
            mib(p.bytes_per_sec),
            n.rps,
            mib(n.bytes_per_sec),
            100.0 * p.rps / n.rps.max(1.0)
        );
    }
    let _ = Command::new("kill").arg(nginx.id().to_string()).status();
    let _ = nginx.wait();
}
