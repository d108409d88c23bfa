//! Scale figures (not a timed test): `BENCH_DIR=/tmp cargo bench -p podhost-http --bench scale`.
//! `SCALE_N` lists the deployment sizes (default `1000,10000`; `100000` takes disk and time).
//!
//! For each size N it makes a deployment of N accounts on a local folder, each with one
//! podcast of 20 episodes (2 of them scheduled 30 days ahead), subscribed to a WebSub hub: one
//! account is made through the core (with the hub configured, its deliveries drained), then
//! copied object by object to the other N - 1 names (the same bytes with the account's and
//! podcast's names replaced; what the core would write for each). Then three servers (this
//! program, run again as `serve-one`: `podhost_http::Server`, what `podhost serve` runs) share
//! the store with the hub configured, and it prints, per server: idle CPU per second (20 s, from
//! /proc) and resident memory; the home page's p50/p99 over 1,000 requests; and the delay from a
//! scheduled publication's time to its `episode.published` webhook and its WebSub ping.
//!
//! The period's repair of the work index is claimed before the servers start, so the idle
//! figures are of the passes; the repair (which looks at every account) is timed apart, by the
//! process that made the deployment.

use std::{
    io::{Read, Write},
    net::{SocketAddr, TcpStream},
    path::{Path, PathBuf},
    process::{Child, Command},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use podhost_core::{
    HostConfig, PodcastHost,
    model::{EpisodePatch, NewEpisode},
    webhooks::subscription::NewWebhook,
};

const TEMPLATE: &str = "t0000000";
const EPISODES: usize = 20;

fn config(hub: &str) -> HostConfig {
    let mut config = HostConfig::new("http://127.0.0.1:1").unwrap();
    config.allow_private_webhooks = true;
    config.notify.websub_hubs = vec![hub.to_string()];
    config
}

fn host_on(dir: &Path, hub: &str) -> PodcastHost {
    let opened = podhost_core::open_store(dir.to_str().unwrap()).unwrap();
    PodcastHost::new(config(hub), opened.store)
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
async fn template(dir: &Path, hub: &str) {
    let host = host_on(dir, hub);
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
        host.create_episode(&who, &feed, NewEpisode { guid: None, fields })
            .await
            .unwrap();
    }
    let sender = podhost_http::HttpWebhookSender::new();
    let renderer = podhost_http::wire::WireEvents::new(host.clone());
    for _ in 0..3 {
        host.work_pass(&sender, &renderer).await.unwrap();
    }
    host.settle(&TEMPLATE.parse().unwrap()).await.unwrap();
}

/// Every file of the store whose path or bytes name the template.
fn template_files(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let hex = hex::encode(format!("{TEMPLATE}-show"));
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if relative.starts_with(".podhost") || relative.starts_with("work/repair") {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if relative.contains(TEMPLATE) || relative.contains(&hex) {
                out.push((PathBuf::from(relative), std::fs::read(&path).unwrap()));
            }
        }
    }
    out
}

/// Copies the template to accounts `a0000001` .. (N - 1 of them).
fn copy(root: &Path, n: usize) {
    let files = template_files(root);
    let hex = hex::encode(format!("{TEMPLATE}-show"));
    for i in 1..n {
        let name = format!("a{i:07}");
        let name_hex = hex::encode(format!("{name}-show"));
        for (path, bytes) in &files {
            let path = path
                .to_string_lossy()
                .replace(TEMPLATE, &name)
                .replace(&hex, &name_hex);
            let text = String::from_utf8_lossy(bytes).replace(TEMPLATE, &name);
            let target = root.join(path);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(target, text).unwrap();
        }
    }
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

fn count(root: &Path, folder: &str) -> usize {
    fn walk(path: &Path) -> usize {
        match std::fs::read_dir(path) {
            Ok(entries) => entries
                .map(|e| {
                    let path = e.unwrap().path();
                    if path.is_dir() { walk(&path) } else { 1 }
                })
                .sum(),
            Err(_) => 0,
        }
    }
    walk(&root.join(folder))
}

fn serve_one(dir: &str, port: u16, hub: &str) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let host = host_on(Path::new(dir), hub);
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

fn run(n: usize, base: &Path, runtime: &tokio::runtime::Runtime) {
    let (hub, arrivals) = receiver(runtime);
    let dir = tempfile::tempdir_in(base).unwrap();
    let made = Instant::now();
    runtime.block_on(template(dir.path(), &hub));
    copy(dir.path(), n);
    let made = made.elapsed();
    // The repair of the whole deployment, timed here; it also claims this period's repair, so
    // the servers' passes below are what an idle server does.
    let _ = std::fs::remove_dir_all(dir.path().join("work/repair"));
    let repaired = Instant::now();
    let (pass, (open, open_bytes)) = runtime.block_on(async {
        let host = host_on(dir.path(), &hub);
        let sender = podhost_http::HttpWebhookSender::new();
        let renderer = podhost_http::wire::WireEvents::new(host.clone());
        let pass = host.work_pass(&sender, &renderer).await.unwrap();
        (pass, host.open_catalogs())
    });
    let repaired = repaired.elapsed();
    assert_eq!(pass.repaired, Some(n), "the repair looked at every account");
    let repairer_rss = rss_mib(std::process::id());
    let (markers, due_keys) = (
        count(dir.path(), "work/deliver"),
        count(dir.path(), "work/due"),
    );

    let ports: Vec<u16> = (0..3)
        .map(|i| 19_000 + (std::process::id() % 500) as u16 * 3 + i)
        .collect();
    let exe = std::env::current_exe().unwrap();
    let mut servers: Vec<Child> = ports
        .iter()
        .map(|port| {
            Command::new(&exe)
                .args([
                    "serve-one",
                    dir.path().to_str().unwrap(),
                    &port.to_string(),
                    &hub,
                ])
                .env("RUST_LOG", "off")
                .spawn()
                .unwrap()
        })
        .collect();
    for port in &ports {
        let address: SocketAddr = ([127, 0, 0, 1], *port).into();
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(address).is_err() {
            assert!(Instant::now() < deadline, "a server did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
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
        let host = host_on(dir.path(), &hub);
        let (who, feed) =
            podhost_testkit::setup::account_with_podcast(&host, "probe", "probe-show").await;
        host.create_webhook(
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
        host.create_episode(&who, &feed, NewEpisode { guid: None, fields })
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
        "N = {n}: made in {:.1} s, repaired in {:.1} s (that process then at {repairer_rss:.0} MiB, {open} catalogs open, {:.0} MiB estimated; index: {markers} delivery markers, {due_keys} due keys) | idle CPU per server {} | RSS {} | home page p50 {:.2} ms, p99 {:.2} ms | scheduled -> webhook {}, -> WebSub ping {}",
        made.as_secs_f64(),
        repaired.as_secs_f64(),
        open_bytes as f64 / (1024.0 * 1024.0),
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
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("serve-one") {
        return serve_one(&args[2], args[3].parse().unwrap(), &args[4]);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let base = PathBuf::from(std::env::var("BENCH_DIR").unwrap_or_else(|_| ".".into()));
    let sizes = std::env::var("SCALE_N").unwrap_or_else(|_| "1000,10000".into());
    println!(
        "3 servers on one local-folder store, WebSub hub configured; 2 cores shared by everything"
    );
    for n in sizes.split(',').map(|n| n.trim().parse::<usize>().unwrap()) {
        run(n, &base, &runtime);
    }
}
