//! REST API figures (not a timed test): run with `cargo bench -p podhost-http --bench api`.
//! Needs `wrk` (Debian package) on the PATH.
//!
//! Prints requests per second and p99 latency of `GET /api/feed/{id}/shows?page[size]=50` on a
//! feed of 10,000 episodes and of `GET /api/media`, each side by side with a trivial hyper
//! handler answering a constant body of the same size (the ceiling of this stack), and the peak
//! memory of a 1 GiB upload over HTTP.

use std::{convert::Infallible, process::Command, sync::Arc, time::Instant};

use bytes::Bytes;
use http_body_util::Full;
use podhost_core::{
    PodcastHost, Scopes,
    model::{EpisodePatch, NewEpisode, NewFeed, NewMedia},
};
use podhost_http::{Api, HttpConfig};
use tokio::{io::AsyncWriteExt, net::TcpListener};

#[path = "support/reference.rs"]
mod reference;

/// A host whose rate limit never refuses (a benchmark is not a client to limit).
fn unlimited(public_url: &str) -> podhost_core::HostConfig {
    let mut config = podhost_core::HostConfig::new(public_url).unwrap();
    config.rate_limit = u32::MAX;
    config
}

async fn serve_api(host: PodcastHost) -> std::net::SocketAddr {
    serve_api_with(host, HttpConfig::default()).await
}

async fn serve_api_with(host: PodcastHost, config: HttpConfig) -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let api = Api::new(host, config);
    tokio::spawn(podhost_http::serve(listener, api, std::future::pending()));
    addr
}

/// The ceiling: hyper answering a constant body with the same headers.
async fn serve_constant(body: Bytes) -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let body = body.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |_req| {
                    let body = body.clone();
                    async move {
                        let mut response = http::Response::new(Full::new(body));
                        let h = response.headers_mut();
                        h.insert("content-type", "application/json".parse().unwrap());
                        h.insert("cache-control", "no-cache, private".parse().unwrap());
                        h.insert("access-control-allow-origin", "*".parse().unwrap());
                        Ok::<_, Infallible>(response)
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    addr
}

/// Runs wrk; returns (requests per second, p99 latency in ms).
fn wrk(url: &str, token: &str) -> (f64, f64) {
    wrk_script(url, token, None)
}

/// Runs wrk (-t2 -c32) with a Lua script making each request's path.
fn wrk_script(url: &str, token: &str, script: Option<&std::path::Path>) -> (f64, f64) {
    let auth = format!("Authorization: Bearer {token}");
    let measured = reference::wrk(url, (2, 32), &[auth], script);
    (measured.rps, measured.p99_ms)
}

async fn side_by_side(label: &str, api: std::net::SocketAddr, path: &str, token: &str) {
    // The body of the answer, so the constant handler answers the same bytes.
    let body = Command::new("curl")
        .args([
            "-s",
            "-H",
            &format!("Authorization: Bearer {token}"),
            &format!("http://{api}{path}"),
        ])
        .output()
        .map(|o| o.stdout)
        .unwrap_or_default();
    let constant = serve_constant(Bytes::from(body.clone())).await;
    let (api_rps, api_p99) = wrk(&format!("http://{api}{path}"), token);
    let (max_rps, max_p99) = wrk(&format!("http://{constant}{path}"), token);
    println!(
        "{label} ({} bytes): podhost {api_rps:.0} req/s, p99 {api_p99:.2} ms | constant hyper handler {max_rps:.0} req/s, p99 {max_p99:.2} ms | {:.0} % of the ceiling",
        body.len(),
        100.0 * api_rps / max_rps.max(1.0)
    );
}

/// A page of 50 of a 10,000-episode feed: the same page again (answered from the list cache)
/// beside a random page each time put together afresh (the answer cache turned off; the items'
/// JSON kept per episode), the same with nothing kept (every item serialized), and, on the
/// caching server, random page numbers and sizes (what a crawler's misses look like).
async fn warm_and_cold(host: PodcastHost, token: &str) {
    let warm = serve_api(host.clone()).await;
    let cold = serve_api_with(
        host.clone(),
        HttpConfig {
            cache_lists: false,
            ..HttpConfig::default()
        },
    )
    .await;
    let raw = serve_api_with(
        host,
        HttpConfig {
            cache_lists: false,
            cache_list_items: false,
            ..HttpConfig::default()
        },
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("pages.lua");
    std::fs::write(
        &pages,
        "math.randomseed(7)\nrequest = function()\n  return wrk.format(\"GET\", \"/api/feed/big/shows?page%5Bsize%5D=50&page%5Bnumber%5D=\" .. math.random(1, 200))\nend\n",
    )
    .unwrap();
    let sizes = dir.path().join("sizes.lua");
    std::fs::write(
        &sizes,
        "math.randomseed(7)\nrequest = function()\n  return wrk.format(\"GET\", \"/api/feed/big/shows?page%5Bsize%5D=\" .. math.random(1, 100) .. \"&page%5Bnumber%5D=\" .. math.random(1, 100))\nend\n",
    )
    .unwrap();
    let fixed = "/api/feed/big/shows?page%5Bsize%5D=50&page%5Bnumber%5D=3";
    let (warm_rps, warm_p99) = wrk(&format!("http://{warm}{fixed}"), token);
    let (cold_rps, cold_p99) = wrk_script(&format!("http://{cold}/"), token, Some(&pages));
    let (raw_rps, raw_p99) = wrk_script(&format!("http://{raw}/"), token, Some(&pages));
    let (miss_rps, miss_p99) = wrk_script(&format!("http://{warm}/"), token, Some(&sizes));
    println!(
        "episode list of a 10,000-episode feed, pages of 50: warm (same page, cached) {warm_rps:.0} req/s, p99 {warm_p99:.2} ms | cold (random page, no answer cached, items' JSON kept) {cold_rps:.0} req/s, p99 {cold_p99:.2} ms | cold/warm {:.0} % | nothing kept (every item serialized) {raw_rps:.0} req/s, p99 {raw_p99:.2} ms, {:.0} % of warm",
        100.0 * cold_rps / warm_rps.max(1.0),
        100.0 * raw_rps / warm_rps.max(1.0)
    );
    println!(
        "episode list, random page[number] and page[size] on the caching server (mostly misses): {miss_rps:.0} req/s, p99 {miss_p99:.2} ms"
    );
}

async fn upload_1gib() {
    let dir =
        tempfile::tempdir_in(std::env::var("BENCH_DIR").unwrap_or_else(|_| ".".into())).unwrap();
    let opened = podhost_core::open_store(dir.path().to_str().unwrap()).unwrap();
    let host = PodcastHost::new(unlimited("http://bench.test"), opened.store);
    let owner = podhost_testkit::setup::account(&host, "up").await;
    let token = host
        .access()
        .create_token(&owner, "bench", Scopes::all())
        .await
        .unwrap()
        .secret;
    let addr = serve_api(host).await;
    let size: u64 = 1 << 30;
    let boundary = "bench-boundary-1f2e";
    let head = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"media\"; filename=\"big.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n"
    );
    let tail = format!("\r\n--{boundary}--\r\n");
    let length = head.len() as u64 + size + tail.len() as u64;
    podhost_testkit::memory::reset_peak();
    let idle = podhost_testkit::memory::resident_kib();
    let start = Instant::now();
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "POST /api/media HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {token}\r\nContent-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n{head}"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let chunk: Vec<u8> = (0..65_536u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    for _ in 0..(size / chunk.len() as u64) {
        stream.write_all(&chunk).await.unwrap();
    }
    stream.write_all(tail.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::io::AsyncReadExt::read_to_end(&mut stream, &mut answer)
        .await
        .unwrap();
    let secs = start.elapsed().as_secs_f64();
    let peak = podhost_testkit::memory::peak_kib();
    let status = String::from_utf8_lossy(&answer[..answer.len().min(12)]).into_owned();
    println!(
        "upload 1 GiB over HTTP (local folder, fsync): {status}, {secs:.1} s, {:.0} MiB/s, peak RSS {} MiB above idle ({} MiB idle)",
        1024.0 / secs,
        peak.saturating_sub(idle) / 1024,
        idle / 1024
    );
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let store = Arc::new(object_store::memory::InMemory::new());
        let host = PodcastHost::new(unlimited("https://bench.test"), store);
        let owner = podhost_testkit::setup::account(&host, "bench").await;
        let token = host.access().create_token(&owner, "bench", Scopes::all()).await.unwrap().secret;
        let feed = host.podcasts().create_feed(&owner, NewFeed::titled("big", "Big")).await.unwrap().feed.id;
        for i in 0..10_000 {
            let fields = EpisodePatch {
                title: Some(format!("Episode {i}: a title of ordinary length")),
                description: Some("<p>Show notes of a typical length, with a link or two and a few sentences about the guests.</p>".into()),
                is_public: Some(true),
                ..Default::default()
            };
            host.podcasts().create_episode(&owner, &feed, NewEpisode { guid: None, fields }).await.unwrap();
        }
        for i in 0..200 {
            host.podcasts().upload_media(&owner, NewMedia { name: format!("file-{i}.wav"), category: None }, podhost_testkit::body(podhost_testkit::fixtures::wav(0.1, 8000), 4096))
                .await
                .unwrap();
        }
        warm_and_cold(host.clone(), &token).await;
        let addr = serve_api(host).await;
        side_by_side("GET /api/feed/big/shows?page[size]=50 (10,000 episodes)", addr, "/api/feed/big/shows?page%5Bsize%5D=50", &token).await;
        side_by_side("GET /api/media (200 files, page of 50)", addr, "/api/media", &token).await;
        upload_1gib().await;
    });
}
