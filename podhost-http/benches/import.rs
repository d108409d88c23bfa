//! Importing a large podcast (not a timed test): run with
//! `BENCH_DIR=/tmp cargo bench -p podhost-http --bench import` (`EPISODES`, `ENCLOSURE_MB`
//! change the size; the defaults are issue 11's 1,000 episodes of 5 MB).
//!
//! A server in this process serves a feed of `EPISODES` items whose enclosures are distinct URLs
//! of the same `ENCLOSURE_MB` WAV (noise, so nothing compresses), each behind a podtrac-style
//! redirect; podhost imports it into a local-folder store (fsync, as deployed) through
//! `HttpFetcher`, then imports it again. Prints the time, the throughput and the peak resident
//! memory of the process (server included) above what it held before the import.

use std::{net::SocketAddr, sync::Arc, time::Instant};

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::Full;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use podhost_core::{
    HostConfig, PodcastHost,
    import::{ImportOptions, ImportSource, Quietly},
};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn feed(base: &str, episodes: usize, length: usize) -> String {
    let mut xml = String::from(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>
<title>Big Show</title><description>A thousand episodes</description><language>en</language>
<itunes:author>Bench</itunes:author>"#,
    );
    for i in 0..episodes {
        let day = jiff::Timestamp::from_second(1_600_000_000 + i as i64 * 86_400).unwrap();
        xml.push_str(&format!(
            r#"<item><title>Episode {i}</title><guid isPermaLink="false">bench-{i}</guid>
<pubDate>{}</pubDate><description><![CDATA[<p>Notes of episode {i}</p>]]></description>
<enclosure url="{base}/redirect.mp3/{base}/audio/{i}.wav" length="{length}" type="audio/wav"/>
<itunes:episode>{i}</itunes:episode></item>
"#,
            day.strftime("%a, %d %b %Y %H:%M:%S +0000")
        ));
    }
    xml.push_str("</channel></rss>");
    xml
}

fn serve(listener: tokio::net::TcpListener, feed: Bytes, audio: Bytes) {
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let (feed, audio) = (feed.clone(), audio.clone());
            tokio::spawn(async move {
                let service = service_fn(move |request: Request<hyper::body::Incoming>| {
                    let path = request.uri().path().to_string();
                    let (feed, audio) = (feed.clone(), audio.clone());
                    async move {
                        let mut answer = Response::new(Full::new(Bytes::new()));
                        if path == "/feed.xml" {
                            *answer.body_mut() = Full::new(feed);
                        } else if let Some(target) = path.strip_prefix("/redirect.mp3/") {
                            *answer.status_mut() = StatusCode::FOUND;
                            let location = format!(
                                "http://{}",
                                target.trim_start_matches("http:/").trim_start_matches('/')
                            );
                            answer
                                .headers_mut()
                                .insert(http::header::LOCATION, location.parse().unwrap());
                        } else if path.starts_with("/audio/") {
                            *answer.body_mut() = Full::new(audio);
                        } else {
                            *answer.status_mut() = StatusCode::NOT_FOUND;
                        }
                        Ok::<_, std::convert::Infallible>(answer)
                    }
                });
                let _ = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
}

fn main() {
    let episodes = env_usize("EPISODES", 1_000);
    let mb = env_usize("ENCLOSURE_MB", 5);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let dir = match std::env::var("BENCH_DIR") {
            Ok(dir) => tempfile::tempdir_in(dir).unwrap(),
            Err(_) => tempfile::tempdir().unwrap(),
        };
        let audio = Bytes::from(podhost_testkit::fixtures::noise_wav(mb << 20));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr: SocketAddr = listener.local_addr().unwrap();
        let base = format!("http://{addr}");
        let xml = Bytes::from(feed(&base, episodes, audio.len()));
        serve(listener, xml, audio);
        let opened = podhost_core::open_store(dir.path().to_str().unwrap()).unwrap();
        let mut config = HostConfig::new("http://bench.test").unwrap();
        config.allow_private_webhooks = true;
        config.scratch_dir = opened.scratch_dir.clone();
        let host = PodcastHost::new(config, opened.store);
        let owner = podhost_testkit::setup::account(&host, "bench").await;
        let fetcher = Arc::new(podhost_http::HttpFetcher::new());
        let source = || ImportSource::Url(format!("{base}/feed.xml"));
        let options = ImportOptions::default();
        podhost_testkit::memory::reset_peak();
        let idle = podhost_testkit::memory::peak_kib();
        let started = Instant::now();
        let report = host
            .podcasts().import_feed(&owner, source(), &options, fetcher.as_ref(), &Quietly)
            .await
            .unwrap();
        let took = started.elapsed();
        let peak = podhost_testkit::memory::peak_kib();
        assert_eq!(report.created, episodes, "{:?}", report.problems);
        println!(
            "import of {episodes} episodes with {mb} MB enclosures (local folder store, fsync, {} files, {} MiB): {:.1} s, {:.0} MiB/s, peak RSS {} MiB above idle ({} MiB idle, {} MiB peak)",
            report.files,
            report.bytes >> 20,
            took.as_secs_f64(),
            (report.bytes >> 20) as f64 / took.as_secs_f64(),
            peak.saturating_sub(idle) / 1024,
            idle / 1024,
            peak / 1024,
        );
        let started = Instant::now();
        let again = host
            .podcasts().import_feed(&owner, source(), &options, fetcher.as_ref(), &Quietly)
            .await
            .unwrap();
        assert_eq!((again.created, again.files), (0, 0));
        println!(
            "the same import again (nothing to fetch): {:.2} s, {} episodes unchanged",
            started.elapsed().as_secs_f64(),
            again.unchanged
        );
    });
}
