//! Delivery figures of the shipped binary beside nginx (not a timed test): run with
//! `BENCH_DIR=/tmp cargo bench -p podhost-cli --bench delivery`.
//! Needs `wrk`, `curl` and `nginx` (Debian packages `wrk`, `curl`, `nginx-light`) and
//! `shared/tools/nginx-static.sh` (found at `../shared/tools/` from the workspace, or set
//! `NGINX_STATIC`).
//!
//! What a user runs: `podhost serve`, the release binary as its own process, with its default
//! logging (an access line a request, to a file), metrics and download counting, on a local
//! folder (fsync). Its store holds a small account (a podcast of 50 episodes) and a large one
//! (podcasts of 10,000 and 1,000 episodes, every episode with a file of its own); the measured
//! podcast's newest episode has a 100 MiB enclosure. nginx serves the same bytes (the podcast's
//! RSS as podhost renders it, the enclosure) in the same run. wrk -t2 -c32 on loopback, 8 s a
//! run, the issue's settings; random ranges too; each case in three rounds of podhost then
//! nginx, the round of the median ratio reported. Then the cost of the access line: the large
//! account's feed 304 on a second server with `PODHOST_LOG=info,podhost::access=warn`.
//! The public pages too: the podcast's page and its public statistics page (`public_stats` set
//! through the API first), and its embeddable player (`/embed/{feed}`), nginx serving the same
//! HTML (under a `.rss` name, so its reference configuration compresses it as it does the feed).
//! And the podcast as a fediverse actor: its actor document, its outbox and the outbox's first
//! page, nginx serving the same JSON. `DELIVERY_CASES=page` (a part of the cases' labels;
//! several, separated by commas) measures only the cases whose label has one.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

#[path = "../../podhost-http/benches/support/reference.rs"]
mod reference;
#[path = "support/shipped.rs"]
mod shipped;

use reference::{Measured, first_bytes, percentile, ranges_script, start_nginx, wrk, wrk_for};
use shipped::{Account, ENCLOSURE_BYTES, Shipped};

/// The user agent of the stitched M4A's requests: one listener, so one arrangement.
const AGENT: &str = "User-Agent: podhost-bench/1.0";
const LOAD: (u32, u32) = (2, 32);

/// Rounds of each case: podhost and nginx in turn, the median reported (this machine's
/// figures vary by a tenth from one run of wrk to the next).
const ROUNDS: usize = 3;

/// podhost's and nginx's figures of a case in `ROUNDS` rounds, taken in turn; returns the
/// round of the median ratio.
fn rounds(
    ours: &str,
    theirs: &str,
    our: &[String],
    their: &[String],
    script: Option<&std::path::Path>,
    bytes: bool,
) -> (Measured, Measured) {
    let figure = |m: &Measured| if bytes { m.bytes_per_sec } else { m.rps };
    let ratio = |r: &(Measured, Measured)| figure(&r.0) / figure(&r.1).max(1e-9);
    // Warmed up first: connections, worker threads and caches of both, not measured.
    wrk_for(ours, LOAD, our, script, 2);
    wrk_for(theirs, LOAD, their, script, 2);
    let mut runs: Vec<(Measured, Measured)> = (0..ROUNDS)
        .map(|_| {
            (
                wrk(ours, LOAD, our, script),
                wrk(theirs, LOAD, their, script),
            )
        })
        .collect();
    runs.sort_by(|a, b| ratio(a).total_cmp(&ratio(b)));
    runs.swap_remove(ROUNDS / 2)
}

/// One line of the table: podhost's figure beside nginx's.
fn report(label: &str, p: &Measured, n: &Measured, bytes: bool) {
    let mib = |b: f64| b / (1024.0 * 1024.0);
    let (ours, theirs, unit) = match bytes {
        true => (mib(p.bytes_per_sec), mib(n.bytes_per_sec), "MiB/s"),
        false => (p.rps, n.rps, "req/s"),
    };
    println!(
        "| {label} | {ours:.0} {unit} | {theirs:.0} {unit} | {:.2}× | p99 {:.2} ms / {:.2} ms |",
        ours / theirs.max(1e-9),
        p.p99_ms,
        n.p99_ms
    );
}

/// The cases of one account, measured on `server` beside `nginx_base` (which serves that
/// account's feed as `/{feed}.rss` and the enclosure as `/episode.wav`).
fn cases(
    server: &Shipped,
    account: &Account,
    nginx_base: &str,
    ranges: &Path,
    video: Option<&Video>,
    m4a: Option<&StitchedM4a>,
) {
    let feed_path = format!("/feeds/{}/rss", account.feed);
    let gzip = "Accept-Encoding: gzip".to_string();
    let ours_etag = server.header(&feed_path, &[&gzip], "etag");
    let nginx_feed = format!("/{}.rss", account.feed);
    let theirs_etag = {
        let out = Command::new("curl")
            .args(["-s", "-o", "/dev/null", "-D", "-", "-H", &gzip])
            .arg(format!("{nginx_base}{nginx_feed}"))
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .find_map(|l| {
                l.strip_prefix("ETag: ")
                    .or_else(|| l.strip_prefix("etag: "))
            })
            .unwrap_or_default()
            .trim()
            .to_string()
    };
    let range = "Range: bytes=1048576-2097151".to_string();
    let case = |label, ours: &str, theirs: &str, our_headers: Vec<String>, their_headers| Case {
        label,
        ours: ours.to_string(),
        theirs: theirs.to_string(),
        our_headers,
        their_headers,
        random: None,
        bytes: false,
    };
    let table = [
        case(
            "feed 304 (If-None-Match, gzip)",
            &feed_path,
            &nginx_feed,
            vec![gzip.clone(), format!("If-None-Match: {ours_etag}")],
            vec![gzip.clone(), format!("If-None-Match: {theirs_etag}")],
        ),
        case(
            "feed GET gzip",
            &feed_path,
            &nginx_feed,
            vec![gzip.clone()],
            vec![gzip.clone()],
        ),
        case(
            "1 MiB range, bytes=1048576-2097151",
            &account.enclosure,
            "/episode.wav",
            vec![range.clone()],
            vec![range.clone()],
        ),
        Case {
            random: Some(ranges.to_path_buf()),
            ..case(
                "random 1 MiB ranges",
                &account.enclosure,
                "/episode.wav",
                vec![],
                vec![],
            )
        },
        Case {
            bytes: true,
            ..case(
                "100 MiB GET",
                &account.enclosure,
                "/episode.wav",
                vec![],
                vec![],
            )
        },
        case(
            "podcast page GET gzip",
            &format!("/podcasts/{}", account.feed),
            &format!("/{}-page.rss", account.feed),
            vec![gzip.clone()],
            vec![gzip.clone()],
        ),
        // nginx compresses every answer anew (no gzip_static): the same page uncompressed too.
        case(
            "podcast page GET identity",
            &format!("/podcasts/{}", account.feed),
            &format!("/{}-page.rss", account.feed),
            vec![],
            vec![],
        ),
        case(
            "public stats page GET gzip",
            &format!("/podcasts/{}/stats", account.feed),
            &format!("/{}-stats.rss", account.feed),
            vec![gzip.clone()],
            vec![gzip.clone()],
        ),
        case(
            "embedded player (newest episode) GET gzip",
            &format!("/embed/{}", account.feed),
            &format!("/{}-player.rss", account.feed),
            vec![gzip.clone()],
            vec![gzip.clone()],
        ),
        case(
            "embedded player (newest episode) GET identity",
            &format!("/embed/{}", account.feed),
            &format!("/{}-player.rss", account.feed),
            vec![],
            vec![],
        ),
        // nginx compresses every answer anew (no gzip_static): the same page uncompressed too.
        case(
            "public stats page GET identity",
            &format!("/podcasts/{}/stats", account.feed),
            &format!("/{}-stats.rss", account.feed),
            vec![],
            vec![],
        ),
    ];
    let mut table = table.to_vec();
    for ((path, name), label) in fediverse_documents(&account.feed).into_iter().zip([
        "fediverse actor GET",
        "fediverse outbox GET (the count)",
        "fediverse outbox page 1 GET (20 posts)",
    ]) {
        table.push(case(
            label,
            &path,
            &format!("/{}-{name}.rss", account.feed),
            vec![ACTIVITY_JSON.to_string()],
            vec![ACTIVITY_JSON.to_string()],
        ));
    }
    if let Some(video) = video {
        table.push(case(
            "video segment (1080p 00001.m4s, 2 MB)",
            &video.segment,
            "/segment.m4s",
            vec![],
            vec![],
        ));
        table.push(case(
            "listener's media playlist with 2 ads (1080p index.m3u8)",
            &video.playlist,
            "/playlist.m3u8",
            vec![],
            vec![],
        ));
    }
    if let Some(m4a) = m4a {
        table.push(Case {
            random: Some(m4a.ranges.path().to_path_buf()),
            ..case(
                "random 1 MiB ranges of a listener's M4A with 3 ads (60 min)",
                &m4a.path,
                "/stitched.m4a",
                vec![AGENT.to_string()],
                vec![AGENT.to_string()],
            )
        });
    }
    let only = std::env::var("DELIVERY_CASES").unwrap_or_default();
    let wanted = |label: &str| only.split(',').any(|part| label.contains(part));
    for case in table.into_iter().filter(|c| wanted(c.label)) {
        server.wait_idle();
        let script = case.random.as_deref();
        let (p, n) = rounds(
            &format!("{}{}", server.base, case.ours),
            &format!("{nginx_base}{}", case.theirs),
            &case.our_headers,
            &case.their_headers,
            script,
            case.bytes,
        );
        report(case.label, &p, &n, case.bytes);
    }
}

/// `PUT /api/feeds/{feed}` of `account`'s measured podcast with `fields`, as a podcaster does
/// (curl); it must answer 200 (a `fediverse` change on a store made before 0.2 needs
/// `podhost store upgrade` first).
fn put_feed(server: &Shipped, account: &Account, fields: &str) {
    let put = Command::new("curl")
        .args(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "PUT"])
        .args(["-H", &format!("Authorization: Bearer {}", account.token)])
        .args(["-H", "Content-Type: application/json"])
        .args(["--data", fields])
        .arg(format!("{}/api/feeds/{}", server.base, account.feed))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&put.stdout), "200", "{fields}");
}

/// What a fediverse server asks for.
const ACTIVITY_JSON: &str = "Accept: application/activity+json";

/// A podcast's fediverse documents measured: (path, name of nginx's copy).
fn fediverse_documents(feed: &str) -> [(String, &'static str); 3] {
    [
        (format!("/ap/podcasts/{feed}"), "actor"),
        (format!("/ap/podcasts/{feed}/outbox"), "outbox"),
        (format!("/ap/podcasts/{feed}/outbox?page=1"), "outbox-page"),
    ]
}

/// One row of the table: the same request to podhost and to nginx.
#[derive(Clone)]
struct Case {
    label: &'static str,
    ours: String,
    theirs: String,
    our_headers: Vec<String>,
    their_headers: Vec<String>,
    /// Random 1 MiB ranges from this wrk script instead of fixed headers.
    random: Option<PathBuf>,
    /// Reported in bytes per second rather than requests per second.
    bytes: bool,
}

/// The paths of a packaged video of the large account (see [`video`]).
struct Video {
    /// A 2 MB segment of its 1080p rendition.
    segment: String,
    /// A listener's 1080p media playlist, with a preroll and a midroll ad.
    playlist: String,
}

/// A listener's answer for an M4A episode with ads, and what asks random ranges of it.
struct StitchedM4a {
    /// Its path on the server.
    path: String,
    /// Its length in bytes.
    len: u64,
    /// The wrk script of random 1 MiB ranges of it.
    ranges: tempfile::NamedTempFile,
}

/// A 60-minute AAC-LC episode in M4A (ffmpeg, 44.1 kHz mono 64 kbit/s, as speech podcasts are
/// published) uploaded to `account` through the API, shown by a new episode of its measured
/// podcast, with a preroll and midrolls at 20 and 40 minutes, which the campaign [`video`]
/// made runs in; waits (polling, as a client would) until the listener of [`AGENT`] gets the
/// ads (the ad encoded to the episode's AAC by podhost's job). nginx gets that answer's bytes.
fn stitched_m4a(server: &Shipped, account: &Account, statics: &Path) -> StitchedM4a {
    let file = statics.join("episode.m4a");
    let made = Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi"])
        .args([
            "-i",
            "aevalsrc=0.2*sin(2*PI*(180+60*sin(2*PI*0.7*t))*t)*(0.6+0.4*sin(2*PI*3*t)):s=44100:d=3600",
        ])
        .args(["-c:a", "aac", "-b:a", "64k"])
        .arg(&file)
        .status()
        .unwrap();
    assert!(made.success());
    let form = format!("media=@{}", file.display());
    let uploaded = api(server, account, &["-F", &form], "/api/media");
    let id = uploaded["id"].as_u64().expect("the episode's id");
    let json = ["-H", "Content-Type: application/json", "--data"];
    let breaks =
        r#"{"adbreak": {"preroll": true, "postroll": false, "midrolls": [1200.0, 2400.0]}}"#;
    let put = api(
        server,
        account,
        &[&["-X", "PUT"][..], &json[..], &[breaks]].concat(),
        &format!("/api/media/{id}/metadata"),
    );
    assert_eq!(put["data"]["id"], id, "{put}");
    let shown = api(
        server,
        account,
        &[
            "-F",
            "title=An hour in M4A",
            "-F",
            &format!("show_media={id}"),
            "-F",
            "is_public=1",
        ],
        &format!("/api/feed/{}/show", account.feed),
    );
    assert!(shown["data"]["id"].is_string(), "{shown}");
    let record = api(server, account, &[], &format!("/api/media/{id}"));
    let url = record["url"].as_str().expect("the file's URL").to_string();
    let path = url
        .strip_prefix(&server.base)
        .unwrap_or_else(|| panic!("{url} is not on {}", server.base))
        .to_string();
    let stored = std::fs::metadata(&file).unwrap().len();
    let started = std::time::Instant::now();
    let answer = loop {
        let bytes = server.body(&path, &[AGENT]);
        if !bytes.is_empty() && bytes.len() as u64 != stored {
            break bytes;
        }
        assert!(started.elapsed().as_secs() < 900, "no ads in the M4A");
        std::thread::sleep(std::time::Duration::from_millis(500));
    };
    println!(
        "M4A: {:.1} MiB as stored; the listener's answer with 3 ads {:.1} MiB, ready after {:.0} s",
        stored as f64 / 1048576.0,
        answer.len() as f64 / 1048576.0,
        started.elapsed().as_secs_f64()
    );
    std::fs::write(statics.join("stitched.m4a"), &answer).unwrap();
    let len = answer.len() as u64;
    StitchedM4a {
        path,
        len,
        ranges: ranges_script(len),
    }
}

/// `curl -s` with the account's token: the JSON answer.
fn api(server: &Shipped, account: &Account, args: &[&str], path: &str) -> serde_json::Value {
    server.api(&account.token, args, path)
}

/// A 30-second 1080p H.264 video (about 2.8 Mbit/s, so its copied top rendition's 6-second
/// segments are about 2 MB) uploaded to `account` through the API as a podcaster does, shown by
/// a new episode of its measured podcast (of 10,000 episodes), with breaks before it and at
/// 12 s, and a campaign of a 3-second audio ad there; waits (by polling, as a client would)
/// until it is packaged and the ad is packaged for it. nginx gets the same segment and the
/// same listener's playlist in `statics`.
fn video(server: &Shipped, account: &Account, statics: &std::path::Path) -> Video {
    let clip = statics.join("clip.mp4");
    let made = Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-y"])
        .args(["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30"])
        .args(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"])
        .args([
            "-t",
            "30",
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-g",
            "60",
        ])
        .args(["-b:v", "2800k", "-maxrate", "2800k", "-bufsize", "5600k"])
        .args(["-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"])
        .arg(&clip)
        .status()
        .unwrap();
    assert!(made.success());
    let form = |field: &str, file: &std::path::Path| format!("{field}=@{}", file.display());
    let uploaded = api(
        server,
        account,
        &["-F", &form("media", &clip)],
        "/api/media",
    );
    let id = uploaded["id"].as_u64().expect("the video's id");
    let shown = api(
        server,
        account,
        &[
            "-F",
            "title=On camera",
            "-F",
            &format!("video_media={id}"),
            "-F",
            "is_public=1",
        ],
        &format!("/api/feed/{}/show", account.feed),
    );
    assert!(shown["data"]["id"].is_string(), "{shown}");
    let breaks = r#"{"adbreak": {"preroll": true, "postroll": false, "midrolls": [12.0]}}"#;
    let json = ["-H", "Content-Type: application/json", "--data"];
    let put = api(
        server,
        account,
        &[&["-X", "PUT"][..], &json[..], &[breaks]].concat(),
        &format!("/api/media/{id}/metadata"),
    );
    assert_eq!(put["data"]["id"], id, "{put}");
    let ad_file = statics.join("ad.wav");
    std::fs::write(&ad_file, podhost_testkit::fixtures::wav(3.0, 44_100)).unwrap();
    let ad = api(
        server,
        account,
        &["-F", &form("media", &ad_file)],
        "/api/media",
    );
    let campaign = format!(
        r#"{{"name": "Bench", "media_id": {}, "positions": ["preroll", "midroll"]}}"#,
        ad["id"]
    );
    let made = api(
        server,
        account,
        &[&json[..], &[&campaign]].concat(),
        "/api/campaigns",
    );
    assert!(made["data"]["id"].is_string(), "{made}");
    let started = std::time::Instant::now();
    let blob = loop {
        let record = api(server, account, &[], &format!("/api/media/{id}"));
        if record["hls"]["url"].is_string() {
            let url = record["url"].as_str().unwrap();
            break url.split('/').nth_back(1).unwrap().to_string();
        }
        assert!(started.elapsed().as_secs() < 600, "not packaged: {record}");
        std::thread::sleep(std::time::Duration::from_millis(500));
    };
    let base = format!("/media/{}/{blob}/hls/1080p", account.name);
    let playlist = format!("{base}/index.m3u8");
    let listed = loop {
        let text = server.body(&playlist, &[]);
        if String::from_utf8_lossy(&text).contains("#EXT-X-DISCONTINUITY") {
            break text;
        }
        assert!(
            started.elapsed().as_secs() < 900,
            "the ads were never spliced in"
        );
        std::thread::sleep(std::time::Duration::from_millis(500));
    };
    let segment = format!("{base}/00001.m4s");
    let bytes = server.body(&segment, &[]);
    println!(
        "video: packaged in {:.0} s with its ad; 1080p segment 00001.m4s of {} bytes; the listener's playlist of {} bytes",
        started.elapsed().as_secs_f64(),
        bytes.len(),
        listed.len()
    );
    std::fs::write(statics.join("segment.m4s"), &bytes).unwrap();
    std::fs::write(statics.join("playlist.m3u8"), &listed).unwrap();
    Video { segment, playlist }
}

fn main() {
    let base = std::env::var("BENCH_DIR").unwrap_or_else(|_| ".".into());
    let (store, _kept) = shipped::store_dir();
    let (small, large) = shipped::make_store(&store);
    let server = Shipped::start(&store, &[], &[]);

    // The same bytes for nginx: each measured podcast's RSS as podhost serves it, the enclosure.
    let statics = tempfile::tempdir_in(&base).unwrap();
    for account in [&small, &large] {
        let xml = server.body(&format!("/feeds/{}/rss", account.feed), &[]);
        assert!(xml.starts_with(b"<?xml"), "the feed of {}", account.name);
        std::fs::write(statics.path().join(format!("{}.rss", account.feed)), &xml).unwrap();
        println!("{}: RSS of {} bytes", account.feed, xml.len());
        // Its statistics made public, through the API as a podcaster does.
        put_feed(&server, account, r#"{"public_stats": true}"#);
        for (path, name) in [
            (format!("/podcasts/{}", account.feed), "page"),
            (format!("/podcasts/{}/stats", account.feed), "stats"),
            (format!("/embed/{}", account.feed), "player"),
        ] {
            let page = &path;
            let html = server.body(page, &[]);
            assert!(html.starts_with(b"<!DOCTYPE html>"), "{page}");
            let file = format!("{}-{name}.rss", account.feed);
            std::fs::write(statics.path().join(file), &html).unwrap();
            println!("{}: {name} page of {} bytes", account.feed, html.len());
        }
        // The podcast as a fediverse actor: its actor document, its outbox (the count of its
        // posts) and the outbox's first page. A podcast made before the store held format 2
        // gets its actor's key with its next change: this one.
        put_feed(&server, account, r#"{"fediverse": true}"#);
        for (path, name) in fediverse_documents(&account.feed) {
            let json = server.body(&path, &[ACTIVITY_JSON]);
            assert!(json.starts_with(b"{"), "{path}");
            let file = format!("{}-{name}.rss", account.feed);
            std::fs::write(statics.path().join(file), &json).unwrap();
            println!("{}: {name} of {} bytes", account.feed, json.len());
        }
    }
    let video = video(&server, &large, statics.path());
    let m4a = stitched_m4a(&server, &large, statics.path());
    let wav = server.body(&large.enclosure, &[]);
    assert_eq!(wav.len(), ENCLOSURE_BYTES);
    std::fs::write(statics.path().join("episode.wav"), &wav).unwrap();
    let port = 18_000 + (std::process::id() % 1000) as u16;
    let mut nginx = start_nginx(statics.path(), port);
    let nginx_base = format!("http://127.0.0.1:{port}");

    let ranges = ranges_script(ENCLOSURE_BYTES as u64);
    let same = Command::new("curl")
        .args(["-s", "-H", AGENT])
        .arg(format!("{nginx_base}/stitched.m4a"))
        .output()
        .unwrap()
        .stdout;
    assert_eq!(
        same.len() as u64,
        m4a.len,
        "nginx serves the listener's M4A"
    );

    println!(
        "\npodhost serve (release binary, default logging to a file, metrics, downloads counted) beside nginx, wrk -t{} -c{} -d8s on loopback, 2 cores shared by wrk, the server and nginx",
        LOAD.0, LOAD.1
    );
    for account in [&large, &small] {
        println!("\n{} account ({}):", account.name, account.feed);
        println!("| request | podhost | nginx | podhost/nginx | latency p99 podhost / nginx |");
        println!("|---|---|---|---|---|");
        let large_only = account.name == large.name;
        let (video, stitched) = (large_only.then_some(&video), large_only.then_some(&m4a));
        cases(
            &server,
            account,
            &nginx_base,
            ranges.path(),
            video,
            stitched,
        );
    }
    // The first byte of a listener's M4A: sequential ranges on one connection, on an idle
    // server (wrk's latency is the whole 1 MiB's).
    server.wait_idle();
    let addr = server.base.trim_start_matches("http://");
    let ours = first_bytes(addr, &m4a.path, AGENT, m4a.len, 1000);
    let theirs = first_bytes(&nginx_base[7..], "/stitched.m4a", AGENT, m4a.len, 1000);
    println!(
        "\ntime to the first body byte of the listener's M4A, 1,000 sequential random 1 MiB ranges on one connection: podhost p50 {:.3} ms, p99 {:.3} ms | nginx p50 {:.3} ms, p99 {:.3} ms",
        percentile(&ours, 0.5),
        percentile(&ours, 0.99),
        percentile(&theirs, 0.5),
        percentile(&theirs, 0.99),
    );
    println!(
        "\npeak memory of the server: {} MiB; log written: {} MiB",
        server.peak_mib(),
        server.logged_bytes() >> 20
    );

    // The access line's cost: the same feed 304 without access lines, on a second server
    // (each server's feed names its own address: its own ETag), in turn.
    let quiet = Shipped::start(&store, &[], &[("PODHOST_LOG", "info,podhost::access=warn")]);
    let feed_path = format!("/feeds/{}/rss", large.feed);
    let gzip = "Accept-Encoding: gzip".to_string();
    let conditional = |server: &Shipped| {
        let etag = server.header(&feed_path, &[&gzip], "etag");
        [gzip.clone(), format!("If-None-Match: {etag}")]
    };
    quiet.wait_idle();
    let (logged, silent) = rounds(
        &format!("{}{feed_path}", server.base),
        &format!("{}{feed_path}", quiet.base),
        &conditional(&server),
        &conditional(&quiet),
        None,
        false,
    );
    let per_line_us = 1e6 * (1.0 / logged.rps.max(1.0) - 1.0 / silent.rps.max(1.0));
    println!(
        "\naccess lines: feed 304 of the large account {:.0} req/s with them, {:.0} req/s with PODHOST_LOG=info,podhost::access=warn ({:.2}×): {per_line_us:.2} µs of throughput a line",
        logged.rps,
        silent.rps,
        logged.rps / silent.rps.max(1.0)
    );
    drop(quiet);
    drop(server);
    let _ = Command::new("kill").arg(nginx.id().to_string()).status();
    let _ = nginx.wait();
}
