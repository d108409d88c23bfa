//! Scale figures (not a timed test): `BENCH_DIR=/tmp cargo bench -p podhost-http --bench scale`.
//! `SCALE_N` lists the deployment sizes (default `1000,10000`; `100000` takes disk and time);
//! `SCALE_STORE` is `folder` (default), `seaweedfs` (a bucket on a SeaweedFS cluster on loopback,
//! `podhost_testkit::seaweedfs`), `moto` (a bucket on moto's S3 server), or several, as
//! `folder,seaweedfs` (both from the workspace's `.venv` as `scripts/test` installs them);
//! `SCALE_CACHE_MB` bounds
//! the servers' open catalogs (default 64 MiB, so that the bound shows below 100,000 accounts).
//!
//! For each store and size N it makes a deployment of N accounts, each with one
//! podcast of 20 episodes (2 of them scheduled 30 days ahead), subscribed to a WebSub hub: one
//! account is made through the core (with the hub configured, its deliveries drained), then
//! copied object by object to the other N - 1 names (the same bytes with the account's and
//! podcast's names replaced; what the core would write for each). Then three servers (this
//! program, run again as `serve-one`: `podhost_http::Server`, what `podhost serve` runs) share
//! the store with the hub configured, and it prints, per server: idle CPU per second (20 s, from
//! /proc) and resident memory; the home page's p50/p99 over 1,000 requests; and the delay from a
//! scheduled publication's time to its `episode.published` webhook and its WebSub ping. Last,
//! server 1 is asked for every account's feed, and its resident memory and open catalogs are
//! printed: what a server holds after it has seen every account.
//!
//! The period's repair of the work index is claimed before the servers start, so the idle
//! figures are of the passes; the repair (which looks at every account) is timed apart, by the
//! process that made the deployment.
//!
//! On moto the two steps that open every account (the timed repair, and server 1 serving every
//! feed) are left out: moto answers a listing by scanning every key of the bucket (about 100 ms
//! an account at 1,000 accounts, growing with N), which measures moto, not podhost. There the
//! template's own repair claim is kept, and the index is the template's, copied.

use std::{
    io::{Read, Write},
    net::{SocketAddr, TcpStream},
    path::{Path, PathBuf},
    process::{Child, Command},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use futures::{StreamExt, TryStreamExt};
use object_store::{ObjectStore, ObjectStoreExt, path::Path as Key};
use podhost_core::{
    HostConfig, PodcastHost,
    model::{EpisodePatch, NewEpisode},
    webhooks::subscription::NewWebhook,
};

const TEMPLATE: &str = "t0000000";
const EPISODES: usize = 20;

fn config(hub: &str, cache_mb: usize) -> HostConfig {
    let mut config = HostConfig::new("http://127.0.0.1:1").unwrap();
    config.allow_private_webhooks = true;
    config.notify.websub_hubs = vec![hub.to_string()];
    config.catalog.cache_bytes = cache_mb << 20;
    config
}

/// Where a deployment lives: a local folder, or a bucket of an S3 server (SeaweedFS or moto).
enum Place {
    Folder(tempfile::TempDir),
    S3 {
        server: &'static podhost_testkit::s3::S3Server,
        bucket: String,
    },
}

impl Place {
    fn new(kind: &str, base: &Path) -> Place {
        match kind {
            "folder" => Place::Folder(tempfile::tempdir_in(base).unwrap()),
            "moto" | "seaweedfs" => {
                use podhost_testkit::s3::S3Server;
                let server = if kind == "moto" {
                    S3Server::own_moto()
                } else {
                    S3Server::own_seaweedfs()
                }
                .unwrap_or_else(|e| panic!("SCALE_STORE={kind}: {e}"));
                // It serves until this program ends.
                let server: &'static S3Server = Box::leak(Box::new(server));
                let bucket = server.new_bucket();
                Place::S3 { server, bucket }
            }
            other => panic!("SCALE_STORE: unknown store {other:?} (folder, seaweedfs or moto)"),
        }
    }

    /// The store URL `podhost serve` would be given.
    fn url(&self) -> String {
        match self {
            Place::Folder(dir) => dir.path().to_str().unwrap().to_string(),
            Place::S3 { bucket, .. } => format!("s3://{bucket}"),
        }
    }

    /// The environment a server process opens [`url`](Self::url) with.
    fn env(&self) -> Vec<(&'static str, String)> {
        match self {
            Place::Folder(_) => Vec::new(),
            Place::S3 { server, .. } => server.env(),
        }
    }

    fn store(&self) -> Arc<dyn ObjectStore> {
        match self {
            Place::Folder(dir) => {
                podhost_core::open_store(dir.path().to_str().unwrap())
                    .unwrap()
                    .store
            }
            Place::S3 { server, bucket } => server.open(bucket).store,
        }
    }

    /// Whether the steps that open every account run on this store (see the module's doc).
    fn opens_every_account(&self) -> bool {
        match self {
            Place::Folder(_) => true,
            Place::S3 { server, .. } => server.kind() != podhost_testkit::s3::Kind::Moto,
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Place::Folder(_) => "a local folder",
            Place::S3 { server, .. } => match server.kind() {
                podhost_testkit::s3::Kind::Moto => "moto (S3)",
                _ => "SeaweedFS (S3)",
            },
        }
    }

    fn host(&self, hub: &str) -> PodcastHost {
        PodcastHost::new(config(hub, 256), self.store())
    }
}

/// Records when each request arrived, with its body.
type Arrivals = Arc<Mutex<Vec<(Instant, String, String)>>>;

/// A receiver for webhooks and WebSub pings on loopback.
fn receiver(runtime: &tokio::runtime::Runtime) -> (String, Arrivals) {
    let arrivals: Arrivals = Arc::default();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let kept = arrivals.clone();
    runtime.spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let kept = kept.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(
                    move |request: http::Request<hyper::body::Incoming>| {
                        let kept = kept.clone();
                        async move {
                            use http_body_util::BodyExt;
                            let path = request.uri().path().to_string();
                            let body = request.into_body().collect().await?.to_bytes();
                            kept.lock().unwrap().push((
                                Instant::now(),
                                path,
                                String::from_utf8_lossy(&body).into_owned(),
                            ));
                            Ok::<_, hyper::Error>(http::Response::new(http_body_util::Empty::<
                                bytes::Bytes,
                            >::new(
                            )))
                        }
                    },
                );
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    (url, arrivals)
}

/// The template account, made through the core, its deliveries drained.
async fn template(place: &Place, hub: &str) {
    let host = place.host(hub);
    let (who, feed) =
        podhost_testkit::setup::account_with_podcast(&host, TEMPLATE, &format!("{TEMPLATE}-show"))
            .await;
    let later = host.now() + jiff::SignedDuration::from_hours(24 * 30);
    for i in 0..EPISODES {
        let fields = EpisodePatch {
            title: Some(format!("Episode {i}: a title of ordinary length")),
            description: Some("<p>Show notes of a typical length, with a link or two.</p>".into()),
            is_public: Some(true),
            publish_at: (i >= EPISODES - 2).then_some(later),
            ..Default::default()
        };
        host.podcasts()
            .create_episode(&who, &feed, NewEpisode { guid: None, fields })
            .await
            .unwrap();
    }
    let sender = podhost_http::HttpWebhookSender::new();
    let renderer = podhost_http::wire::WireEvents::new(host.clone());
    for _ in 0..3 {
        host.work().work_pass(&sender, &renderer).await.unwrap();
    }
    host.settle(&TEMPLATE.parse().unwrap()).await.unwrap();
}

/// Every object of the store whose key or bytes name the template.
async fn template_objects(store: &Arc<dyn ObjectStore>) -> Vec<(String, Vec<u8>)> {
    let hex = hex::encode(format!("{TEMPLATE}-show"));
    let keys: Vec<Key> = store
        .list(None)
        .map_ok(|meta| meta.location)
        .try_filter(|key| {
            let key = key.as_ref();
            let wanted = !key.starts_with(".podhost")
                && !key.starts_with("work/repair")
                && (key.contains(TEMPLATE) || key.contains(&hex));
            std::future::ready(wanted)
        })
        .try_collect()
        .await
        .unwrap();
    let mut out = Vec::new();
    for key in keys {
        let bytes = store.get(&key).await.unwrap().bytes().await.unwrap();
        out.push((key.to_string(), bytes.to_vec()));
    }
    out
}

/// Copies the template to accounts `a0000001` .. (N - 1 of them), 32 puts at a time.
async fn copy(store: &Arc<dyn ObjectStore>, n: usize) {
    let objects = template_objects(store).await;
    let hex = hex::encode(format!("{TEMPLATE}-show"));
    let puts = (1..n).flat_map(|i| {
        let hex = &hex;
        let name = format!("a{i:07}");
        let name_hex = hex::encode(format!("{name}-show"));
        objects
            .iter()
            .map(|(key, bytes)| {
                let key = key.replace(TEMPLATE, &name).replace(hex, &name_hex);
                let text = String::from_utf8_lossy(bytes).replace(TEMPLATE, &name);
                (Key::from(key), text.into_bytes())
            })
            .collect::<Vec<_>>()
    });
    futures::stream::iter(puts)
        .map(|(key, bytes)| async move { store.put(&key, bytes.into()).await.unwrap() })
        .buffer_unordered(32)
        .for_each(|_| std::future::ready(()))
        .await;
}

/// How many objects are under `prefix`.
async fn count(store: &Arc<dyn ObjectStore>, prefix: &str) -> usize {
    store.list(Some(&Key::from(prefix))).count().await
}

fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    ticks / 100.0
}

fn rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    kb / 1024.0
}

/// One GET on a kept-alive connection; the time it took.
fn get(stream: &mut TcpStream, path: &str) -> Duration {
    let started = Instant::now();
    let request = format!("GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n");
    stream.write_all(request.as_bytes()).unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_lowercase();
    assert!(head.starts_with("http/1.1 200"), "{head}");
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map(|v| v.trim().parse().unwrap())
        .expect("a length");
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).unwrap();
    started.elapsed()
}

/// The `podhost_` lines of a server's metrics (from its metrics listener) that start with one
/// of `names`.
fn metrics(port: u16, names: &[&str]) -> Vec<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut text = String::new();
    let _ = stream.read_to_string(&mut text);
    text.lines()
        .filter(|l| names.iter().any(|n| l.starts_with(n)))
        .map(str::to_string)
        .collect()
}

/// One server process: `serve-one URL PORT HUB CACHE_MB`.
fn serve_one(args: &[String]) {
    let [url, port, hub, cache_mb] = args else {
        panic!("serve-one URL PORT HUB CACHE_MB")
    };
    let port: u16 = port.parse().unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let store = podhost_core::open_store(url).unwrap().store;
        let host = PodcastHost::new(config(hub, cache_mb.parse().unwrap()), store);
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .unwrap();
        let metrics = std::net::TcpListener::bind(("127.0.0.1", port + 1000)).unwrap();
        podhost_http::Server::new(host)
            .metrics_listener(metrics)
            .run(listener, std::future::pending())
            .await
            .unwrap();
    });
}

fn run(n: usize, place: &Place, cache_mb: usize, runtime: &tokio::runtime::Runtime) {
    let (hub, arrivals) = receiver(runtime);
    let store = place.store();
    let made = Instant::now();
    runtime.block_on(async {
        template(place, &hub).await;
        copy(&store, n).await;
        if !place.opens_every_account() {
            return;
        }
        // The repair below claims this period's repair again.
        let repairs: Vec<Key> = store
            .list(Some(&Key::from("work/repair")))
            .map_ok(|meta| meta.location)
            .try_collect()
            .await
            .unwrap();
        for key in repairs {
            store.delete(&key).await.unwrap();
        }
    });
    let made = made.elapsed();
    // The repair of the whole deployment, timed here; it also claims this period's repair, so
    // the servers' passes below are what an idle server does.
    let repair = place.opens_every_account().then(|| {
        let repaired = Instant::now();
        let (pass, (open, open_bytes)) = runtime.block_on(async {
            let host = place.host(&hub);
            let sender = podhost_http::HttpWebhookSender::new();
            let renderer = podhost_http::wire::WireEvents::new(host.clone());
            let pass = host.work().work_pass(&sender, &renderer).await.unwrap();
            (pass, host.open_catalogs())
        });
        assert_eq!(pass.repaired, Some(n), "the repair looked at every account");
        format!(
            "repaired in {:.1} s (that process then at {:.0} MiB, {open} catalogs open, {:.0} MiB estimated)",
            repaired.elapsed().as_secs_f64(),
            rss_mib(std::process::id()),
            open_bytes as f64 / (1024.0 * 1024.0),
        )
    });
    let (markers, due_keys) = runtime.block_on(async {
        (
            count(&store, "work/deliver").await,
            count(&store, "work/due").await,
        )
    });

    let ports: Vec<u16> = (0..3)
        .map(|i| 19_000 + (std::process::id() % 500) as u16 * 3 + i)
        .collect();
    let exe = std::env::current_exe().unwrap();
    let start = |port: u16| {
        Command::new(&exe)
            .args([
                "serve-one",
                &place.url(),
                &port.to_string(),
                &hub,
                &cache_mb.to_string(),
            ])
            .envs(place.env())
            .env("RUST_LOG", "off")
            .spawn()
            .unwrap()
    };
    let started = |port: u16| {
        let address: SocketAddr = ([127, 0, 0, 1], port).into();
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(address).is_err() {
            assert!(Instant::now() < deadline, "a server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    // The first visitor after a start, then the second, each on a new connection, the first
    // as soon as the server accepts: the directory is read at start, in the background, from
    // its one index object (written by the servers' listings).
    let first_pages = |when: &str| {
        let visit = || {
            let mut stream = TcpStream::connect(("127.0.0.1", ports[0])).unwrap();
            stream.set_nodelay(true).unwrap();
            get(&mut stream, "/")
        };
        let (first, second) = (visit(), visit());
        println!(
            "home page right after {when}: first {:.2} ms, second {:.2} ms",
            first.as_secs_f64() * 1000.0,
            second.as_secs_f64() * 1000.0
        );
    };
    let mut servers: Vec<Child> = ports.iter().map(|port| start(*port)).collect();
    for port in &ports {
        started(*port);
    }
    first_pages("the first start (no index yet: the whole listing)");
    // A restart of server 1, killed as a deployment's process may be, once the index exists.
    std::thread::sleep(Duration::from_secs(2));
    servers[0].kill().unwrap();
    servers[0].wait().unwrap();
    servers[0] = start(ports[0]);
    started(ports[0]);
    first_pages("a restart");
    std::thread::sleep(Duration::from_secs(5));
    let before: Vec<f64> = servers.iter().map(|s| cpu_seconds(s.id())).collect();
    let idle = Duration::from_secs(20);
    std::thread::sleep(idle);
    let cpu: Vec<f64> = servers
        .iter()
        .zip(&before)
        .map(|(s, b)| (cpu_seconds(s.id()) - b) / idle.as_secs_f64())
        .collect();
    let rss: Vec<f64> = servers.iter().map(|s| rss_mib(s.id())).collect();

    // The home page, 1,000 times on one connection to server 1 (the first answer lists the
    // directory and is counted too).
    let mut stream = TcpStream::connect(("127.0.0.1", ports[0])).unwrap();
    stream.set_nodelay(true).unwrap();
    let mut times: Vec<Duration> = (0..1000).map(|_| get(&mut stream, "/")).collect();
    times.sort();
    let (p50, p99) = (times[499], times[989]);

    // A scheduled publication, 5 s ahead, made through the core by a fourth process's host.
    let scheduled_at = runtime.block_on(async {
        let host = place.host(&hub);
        let (who, feed) =
            podhost_testkit::setup::account_with_podcast(&host, "probe", "probe-show").await;
        host.work()
            .create_webhook(
                &who,
                NewWebhook {
                    url: format!("{hub}/webhook"),
                    events: vec!["episode.published".into()],
                    description: None,
                    secret: None,
                },
            )
            .await
            .unwrap();
        // Its notifier subscriptions are made by the server that drains its first marker.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let scheduled_at = Instant::now() + Duration::from_secs(5);
        let fields = EpisodePatch {
            title: Some("Scheduled".into()),
            is_public: Some(true),
            publish_at: Some(host.now() + jiff::SignedDuration::from_secs(5)),
            ..Default::default()
        };
        host.podcasts()
            .create_episode(&who, &feed, NewEpisode { guid: None, fields })
            .await
            .unwrap();
        scheduled_at
    });
    let wait_for = |what: &dyn Fn(&(Instant, String, String)) -> bool| {
        let deadline = scheduled_at + Duration::from_secs(30);
        loop {
            if let Some(at) = arrivals
                .lock()
                .unwrap()
                .iter()
                .find(|a| a.0 >= scheduled_at && what(a))
                .map(|a| a.0)
            {
                return Some(at.duration_since(scheduled_at));
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let webhook = wait_for(&|a| a.1 == "/webhook" && a.2.contains("episode.published"));
    let ping = wait_for(&|a| a.1 != "/webhook" && a.2.contains("probe-show"));
    let wanted = [
        "podhost_work_units_total",
        "podhost_catalogs_open ",
        "podhost_deliveries_total",
    ];
    for (i, port) in ports.iter().enumerate() {
        println!(
            "  server {}: {}",
            i + 1,
            metrics(port + 1000, &wanted).join("; ")
        );
    }
    // Server 1 serves every account's feed: what it holds afterwards.
    let served = place.opens_every_account().then(|| {
        let served = Instant::now();
        for i in 0..n {
            let name = if i == 0 {
                TEMPLATE.to_string()
            } else {
                format!("a{i:07}")
            };
            get(&mut stream, &format!("/feeds/{name}-show/rss"));
        }
        format!(
            "server 1 after serving every feed ({:.0} s, bound {cache_mb} MiB): RSS {:.0} MiB, {}",
            served.elapsed().as_secs_f64(),
            rss_mib(servers[0].id()),
            metrics(ports[0] + 1000, &["podhost_catalogs_open"]).join("; ")
        )
    });
    for server in &mut servers {
        let _ = server.kill();
        let _ = server.wait();
    }
    if std::env::var("SCALE_DEBUG").is_ok() {
        for (at, path, body) in arrivals.lock().unwrap().iter() {
            let at = at
                .checked_duration_since(scheduled_at)
                .map(|d| d.as_millis() as i64);
            println!(
                "  arrival {at:?} ms after the time: {path} {}",
                &body[..body.len().min(300)]
            );
        }
    }
    let ms = |d: Option<Duration>| {
        d.map_or("none in 30 s".to_string(), |d| {
            format!("{} ms", d.as_millis())
        })
    };
    println!(
        "N = {n} on {}: made in {:.1} s, {}; index: {markers} delivery markers, {due_keys} due keys | idle CPU per server {} | RSS {} | home page p50 {:.2} ms, p99 {:.2} ms | scheduled -> webhook {}, -> WebSub ping {} | {}",
        place.name(),
        made.as_secs_f64(),
        repair.unwrap_or_else(|| "repair not timed here".into()),
        cpu.iter()
            .map(|c| format!("{:.2} %", c * 100.0))
            .collect::<Vec<_>>()
            .join(" / "),
        rss.iter()
            .map(|r| format!("{r:.0} MiB"))
            .collect::<Vec<_>>()
            .join(" / "),
        p50.as_secs_f64() * 1000.0,
        p99.as_secs_f64() * 1000.0,
        ms(webhook),
        ms(ping),
        served.unwrap_or_else(|| "every feed not served here".into()),
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("serve-one") {
        return serve_one(&args[2..]);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let base = PathBuf::from(std::env::var("BENCH_DIR").unwrap_or_else(|_| ".".into()));
    let sizes = std::env::var("SCALE_N").unwrap_or_else(|_| "1000,10000".into());
    let stores = std::env::var("SCALE_STORE").unwrap_or_else(|_| "folder".into());
    let cache_mb: usize = std::env::var("SCALE_CACHE_MB")
        .map(|v| v.parse().expect("SCALE_CACHE_MB is a number of MiB"))
        .unwrap_or(64);
    println!("3 servers on one store, WebSub hub configured; 2 cores shared by everything");
    for kind in stores.split(',').map(str::trim) {
        for n in sizes.split(',').map(|n| n.trim().parse::<usize>().unwrap()) {
            let place = Place::new(kind, &base);
            run(n, &place, cache_mb, &runtime);
        }
    }
}
