//! One episode delivered to 1,000 followers on 100 instances, on a SeaweedFS cluster, with the
//! delivering server killed mid-way (issue 47's figure).
//!
//! Two `podhost serve` processes (this build's binary, default logging to files) share a bucket
//! of a SeaweedFS cluster of their own. 100 instances (wiremock servers on loopback, each a
//! host of its own) each have 10 actors with a shared inbox; every actor follows the podcast
//! (a signed `Follow` to the first server's shared inbox). Once the 1,000 `Accept`s arrived,
//! an episode is published and its `Create` goes out: one request per instance, to its shared
//! inbox. The instances answer after 0.3 to 1.5 s (a busy instance), so the round takes a
//! while. The instances count the `Create`s as they arrive: the one whose arrival is the
//! quarter's (25 of 100) kills the server that is delivering (the holder of the account's
//! delivery lease, by the servers' `--lease-journal`s) with SIGKILL, before it answers, so the
//! kill lands at that exact count. The other server takes
//! over its lease and the attempts it claimed.
//!
//! Prints: the follows' time, the Accepts' time, then for the episode the kill (when, at how
//! many), the first arrival after it (the takeover), the time until every instance had it, how
//! many instances got it once and how many got the same activity twice (an attempt the killed
//! server had sent but not recorded is sent again: at least once, and instances drop a repeat
//! by its id), and what arrived anywhere else.
//!
//! `cargo bench -p podhost-cli --bench fediverse` (needs `weed`, as `scripts/test` installs
//! it). `FEDI_INSTANCES` and `FEDI_PER_INSTANCE` change the sizes (100 and 10).

use std::{
    collections::HashMap,
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use bytes::Bytes;
use http_body_util::Full;
use podhost_core::activitypub::{keys::ActorKey, signatures};
use serde_json::{Value, json};
use wiremock::{Mock, MockServer, ResponseTemplate, matchers};

/// A `podhost serve` process.
struct Server {
    child: Child,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Where the server on `port` writes its holdings of leases (`--lease-journal`).
fn journal_of(dir: &Path, port: u16) -> PathBuf {
    dir.join(format!("leases-{port}.jsonl"))
}

/// The latest end of a holding of an account's delivery lease in a server's journal (µs of the
/// monotonic clock), none when it never held one.
fn delivering_until(journal: &Path) -> Option<i64> {
    std::fs::read_to_string(journal)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<podhost_core::LeaseHeld>(line).ok())
        .filter(|held| held.lease.starts_with("deliver/"))
        .map(|held| held.until_us)
        .max()
}

/// Starts `podhost serve` on `port` over the bucket; the first prints the admin's token.
fn serve(
    endpoint: &str,
    bucket: &str,
    public: &str,
    port: u16,
    dir: &Path,
) -> (Server, Option<String>) {
    let log = dir.join(format!("server-{port}.log"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_podhost"))
        .args(["--store", &format!("s3://{bucket}"), "--public-url", public])
        .args([
            "--allow-private-webhooks",
            "serve",
            "--listen",
            &format!("127.0.0.1:{port}"),
        ])
        .args(["--rate-limit", "1000000"])
        .args([
            "--lease-journal",
            &journal_of(dir, port).display().to_string(),
        ])
        .env("AWS_ENDPOINT", endpoint)
        .env("AWS_ALLOW_HTTP", "true")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ACCESS_KEY_ID", "bench")
        .env("AWS_SECRET_ACCESS_KEY", "bench")
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = sender.send(line);
    });
    let started = Instant::now();
    loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if text.contains("serving") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no start: {text}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let token = receiver
        .recv_timeout(Duration::from_millis(500))
        .ok()
        .map(|l| l.trim().to_string())
        .filter(|t| !t.is_empty());
    (Server { child }, token)
}

type Client = hyper_util::client::legacy::Client<
    hyper_util::client::legacy::connect::HttpConnector,
    Full<Bytes>,
>;

async fn send(client: &Client, request: http::Request<Full<Bytes>>) -> (u16, Bytes) {
    use http_body_util::BodyExt;
    let answer = client.request(request).await.expect("an answer");
    let status = answer.status().as_u16();
    let body = answer.into_body().collect().await.unwrap().to_bytes();
    (status, body)
}

/// The `Create`s that arrived at the instances' shared inboxes, counted as they arrive.
#[derive(Default)]
struct Arrivals {
    /// Each arrival: when, and at which instance.
    seen: Vec<(Instant, usize)>,
    /// What to do at the `kill_at`th arrival (once).
    kill: Option<Box<dyn FnOnce() -> String + Send>>,
    kill_at: usize,
    /// Which server was killed, when, after how many arrivals.
    killed: Option<(String, Instant, usize)>,
}

/// An instance's answer to a POST: counts a `Create` at its shared inbox (and kills the
/// delivering server at the mark, before answering), then answers 202 after `delay`.
struct Counting {
    instance: usize,
    delay: Duration,
    arrivals: Arc<Mutex<Arrivals>>,
}

impl wiremock::Respond for Counting {
    fn respond(&self, request: &wiremock::Request) -> ResponseTemplate {
        let activity: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        if request.url.path() == "/inbox" && activity["type"] == "Create" {
            let mut arrivals = self.arrivals.lock().unwrap();
            arrivals.seen.push((Instant::now(), self.instance));
            let count = arrivals.seen.len();
            if count == arrivals.kill_at
                && let Some(kill) = arrivals.kill.take()
            {
                let which = kill();
                arrivals.killed = Some((which, Instant::now(), count));
            }
        }
        ResponseTemplate::new(202).set_delay(self.delay)
    }
}

/// An instance: its server, its key (its actors share it), its host.
struct Instance {
    server: MockServer,
    key: ActorKey,
}

impl Instance {
    fn actor(&self, n: usize) -> String {
        format!("{}/users/u{n}", self.server.uri())
    }
}

/// The POSTs an instance received: (path, activity type, activity id).
async fn posts(instance: &Instance) -> Vec<(String, String, String)> {
    instance
        .server
        .received_requests()
        .await
        .unwrap_or_default()
        .into_iter()
        .filter(|r| r.method.as_str() == "POST")
        .map(|r| {
            let v: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
            (
                r.url.path().to_string(),
                v["type"].as_str().unwrap_or("").to_string(),
                v["id"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(run());
}

async fn run() {
    let instances_n: usize = std::env::var("FEDI_INSTANCES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let per: usize = std::env::var("FEDI_PER_INSTANCE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let s3 = podhost_testkit::s3::S3Server::own_seaweedfs().expect("a SeaweedFS cluster (weed)");
    let bucket = s3.new_bucket();
    let dir = tempfile::tempdir().unwrap();
    let (port_a, port_b) = (free_port(), free_port());
    let public = format!("http://127.0.0.1:{port_a}");
    let (a, token) = serve(s3.endpoint(), &bucket, &public, port_a, dir.path());
    let token = token.expect("the first server prints the admin's token");
    let (b, _) = serve(s3.endpoint(), &bucket, &public, port_b, dir.path());
    let client: Client =
        hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
            .build_http();

    let made = send(
        &client,
        http::Request::post(format!("{public}/api/feeds"))
            .header("authorization", format!("Bearer {token}"))
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(
                json!({"id": "show", "title": "The Show"}).to_string(),
            )))
            .unwrap(),
    )
    .await;
    assert_eq!(made.0, 201, "{:?}", made.1);
    let actor_url = format!("{public}/ap/podcasts/show");

    // The instances: each with its key, actors u0.., a shared inbox; slow answers to posts.
    let arrivals = Arc::new(Mutex::new(Arrivals::default()));
    let started = Instant::now();
    let mut instances = Vec::new();
    for _ in 0..instances_n {
        let server = MockServer::start().await;
        let key = ActorKey::generate();
        for n in 0..per {
            let id = format!("{}/users/u{n}", server.uri());
            Mock::given(matchers::method("GET"))
                .and(matchers::path(format!("/users/u{n}")))
                .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                    "id": id, "type": "Person", "preferredUsername": format!("u{n}"),
                    "inbox": format!("{id}/inbox"),
                    "endpoints": {"sharedInbox": format!("{}/inbox", server.uri())},
                    "publicKey": {"id": format!("{id}#main-key"), "owner": id, "publicKeyPem": key.public_pem()},
                })))
                .mount(&server)
                .await;
        }
        let delay = Duration::from_millis(300 + rand::random::<u64>() % 1200);
        Mock::given(matchers::method("POST"))
            .respond_with(Counting {
                instance: instances.len(),
                delay,
                arrivals: Arc::clone(&arrivals),
            })
            .mount(&server)
            .await;
        instances.push(Instance { server, key });
    }
    eprintln!(
        "{} instances of {per} actors ready in {:.1} s",
        instances.len(),
        started.elapsed().as_secs_f64()
    );

    // The follows, 16 at a time, to the shared inbox.
    let started = Instant::now();
    let mut follows = Vec::new();
    for (i, instance) in instances.iter().enumerate() {
        for n in 0..per {
            let who = instance.actor(n);
            let body = json!({
                "@context": "https://www.w3.org/ns/activitystreams",
                "id": format!("{who}#follow-{i}-{n}"), "type": "Follow", "actor": who, "object": actor_url,
            })
            .to_string();
            let target = format!("{public}/ap/inbox");
            let headers = signatures::sign_draft(
                &instance.key,
                &format!("{who}#main-key"),
                "POST",
                &target,
                Some(body.as_bytes()),
                jiff::Timestamp::now(),
            )
            .unwrap();
            let mut request =
                http::Request::post(&target).header("content-type", "application/activity+json");
            for (name, value) in headers {
                if name != "host" {
                    request = request.header(name, value);
                }
            }
            follows.push(request.body(Full::new(Bytes::from(body))).unwrap());
        }
    }
    let total = follows.len();
    let mut refused = 0;
    let mut pending = follows.into_iter();
    loop {
        let batch: Vec<_> = pending.by_ref().take(16).collect();
        if batch.is_empty() {
            break;
        }
        for (status, body) in
            futures::future::join_all(batch.into_iter().map(|r| send(&client, r))).await
        {
            if status != 202 {
                refused += 1;
                eprintln!(
                    "a follow answered {status}: {}",
                    String::from_utf8_lossy(&body)
                );
            }
        }
    }
    let follows_took = started.elapsed();
    eprintln!(
        "{total} follows posted in {:.1} s ({refused} refused)",
        follows_took.as_secs_f64()
    );

    // The Accepts, each to its follower's own inbox.
    let started = Instant::now();
    let accepts = loop {
        let mut count = 0;
        for instance in &instances {
            count += posts(instance)
                .await
                .iter()
                .filter(|(_, kind, _)| kind == "Accept")
                .count();
        }
        if count >= total || started.elapsed() > Duration::from_secs(300) {
            break count;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    let accepts_took = started.elapsed();
    eprintln!(
        "{accepts} Accepts arrived in {:.1} s",
        accepts_took.as_secs_f64()
    );

    // The episode.
    let boundary = "bench-boundary";
    let mut form = String::new();
    for (name, value) in [
        ("title", "Pilot"),
        ("description", "<p>Hello</p>"),
        ("is_public", "1"),
        ("publishing_date", "2025-01-01"),
    ] {
        form.push_str(&format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
        ));
    }
    form.push_str(&format!("--{boundary}--\r\n"));
    // At the quarter's arrival, the server holding the account's delivery lease (the latest
    // holding in the two lease journals) is killed.
    {
        let mut arrivals = arrivals.lock().unwrap();
        arrivals.kill_at = (instances.len() / 4).max(1);
        let pids = (a.child.id(), b.child.id());
        let journals = (
            journal_of(dir.path(), port_a),
            journal_of(dir.path(), port_b),
        );
        arrivals.kill = Some(Box::new(move || {
            let second = delivering_until(&journals.1) > delivering_until(&journals.0);
            let pid = if second { pids.1 } else { pids.0 };
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            if second { "the second" } else { "the first" }.to_string()
        }));
    }
    let published_at = Instant::now();
    let episode = send(
        &client,
        http::Request::post(format!("{public}/api/feed/show/show"))
            .header("authorization", format!("Bearer {token}"))
            .header(
                "content-type",
                format!("multipart/form-data; boundary={boundary}"),
            )
            .body(Full::new(Bytes::from(form)))
            .unwrap(),
    )
    .await;
    assert_eq!(episode.0, 201, "{:?}", episode.1);

    let reached = || {
        let arrivals = arrivals.lock().unwrap();
        let instances: std::collections::BTreeSet<_> =
            arrivals.seen.iter().map(|(_, i)| *i).collect();
        instances.len()
    };
    let mut all_at = None;
    while published_at.elapsed() < Duration::from_secs(180) {
        if reached() == instances.len() {
            all_at = Some(published_at.elapsed());
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The killed server's claims go stale after `STALE_CLAIM` (30 s), its lease after 15 s:
    // the attempts it sent but never recorded are sent again by the other server after that,
    // so the run watches until 75 s after the kill.
    let watch_until = arrivals
        .lock()
        .unwrap()
        .killed
        .as_ref()
        .map(|(_, at, _)| *at + Duration::from_secs(75));
    if let Some(until) = watch_until {
        tokio::time::sleep_until(until.into()).await;
    }
    tokio::time::sleep(Duration::from_secs(5)).await;
    let creates = |posts: &[(String, String, String)]| {
        posts
            .iter()
            .filter(|(path, kind, _)| path == "/inbox" && kind == "Create")
            .count()
    };
    let mut once = 0;
    let mut twice = 0;
    let mut more = 0;
    let mut distinct_ids = 0;
    let mut elsewhere: HashMap<String, usize> = HashMap::new();
    for instance in &instances {
        let got = posts(instance).await;
        let n = creates(&got);
        let ids: std::collections::BTreeSet<_> = got
            .iter()
            .filter(|(path, kind, _)| path == "/inbox" && kind == "Create")
            .map(|(_, _, id)| id.clone())
            .collect();
        distinct_ids = distinct_ids.max(ids.len());
        match n {
            1 => once += 1,
            2 => twice += 1,
            0 => {}
            _ => more += 1,
        }
        for (path, kind, _) in got
            .iter()
            .filter(|(p, k, _)| !(p == "/inbox" && k == "Create") && k != "Accept")
        {
            *elsewhere.entry(format!("{kind} to {path}")).or_default() += 1;
        }
    }
    let (killed, repeats) = {
        let arrivals = arrivals.lock().unwrap();
        let killed = arrivals.killed.clone();
        let after = killed.as_ref().map_or(0, |(_, at, _)| {
            arrivals.seen.iter().filter(|(t, _)| t > at).count()
        });
        // The repeats: an instance's second arrival (and later), with when after the kill
        // (the other server's takeover of the attempts the killed one never recorded).
        let mut seen_at: HashMap<usize, usize> = HashMap::new();
        let repeats: Vec<Duration> = arrivals
            .seen
            .iter()
            .filter(|(_, instance)| {
                let n = seen_at.entry(*instance).or_default();
                *n += 1;
                *n > 1
            })
            .filter_map(|(t, _)| {
                killed
                    .as_ref()
                    .map(|(_, at, _)| t.saturating_duration_since(*at))
            })
            .collect();
        (killed.map(|(w, at, n)| (w, at, n, after)), repeats)
    };
    println!(
        "fediverse delivery: {} followers on {} instances, SeaweedFS cluster, two servers",
        total,
        instances.len()
    );
    println!(
        "  follows posted (signed, verified, kept): {:.1} s",
        follows_took.as_secs_f64()
    );
    println!(
        "  Accepts delivered ({accepts} of {total}): {:.1} s after the last follow",
        accepts_took.as_secs_f64()
    );
    match &killed {
        Some((which, at, count, after)) => {
            println!(
                "  {which} server (delivering) killed with SIGKILL {:.1} s after the publication, at the {count}th arrival; {after} arrivals after it",
                at.duration_since(published_at).as_secs_f64()
            );
            match (repeats.iter().min(), repeats.iter().max()) {
                (Some(first), Some(last)) => println!(
                    "  sent again by the other server (sent by the killed one, never recorded): {} instances, {:.1} s to {:.1} s after the kill",
                    repeats.len(),
                    first.as_secs_f64(),
                    last.as_secs_f64()
                ),
                _ => println!("  nothing sent again after the kill"),
            }
        }
        None => println!("  no server killed (fewer arrivals than the mark)"),
    }
    match all_at {
        Some(t) => println!(
            "  every instance had the Create {:.1} s after the publication",
            t.as_secs_f64()
        ),
        None => println!("  NOT every instance had the Create within 180 s"),
    }
    println!(
        "  instances that got it once: {once}; the same activity twice: {twice}; more: {more}; distinct activity ids per instance: {distinct_ids}"
    );
    println!("  anything else posted: {elsewhere:?}");
    drop(a);
    drop(b);
}
