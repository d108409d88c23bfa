//! One episode delivered to 1,000 followers on 100 instances, on a SeaweedFS cluster, with the
//! delivering server killed mid-way (issue 47's figure).
//!
//! Two `podhost serve` processes (this build's binary, default logging to files) share a bucket
//! of a SeaweedFS cluster of their own. 100 instances (wiremock servers on loopback, each a
//! host of its own) each have 10 actors with a shared inbox; every actor follows the podcast
//! (a signed `Follow` to the first server's shared inbox). Once the 1,000 `Accept`s arrived,
//! an episode is published and its `Create` goes out: one request per instance, to its shared
//! inbox. The instances answer after 0.3 to 1.5 s (a busy instance), so the round takes a
//! while; when a quarter of the instances got it, the server that is delivering (the one whose
//! log says so) is killed with SIGKILL. The other takes over its lease and the attempts it
//! claimed.
//!
//! Prints: the follows' time, the Accepts' time, then for the episode the time until every
//! instance had it, how many instances got it once and how many got the same activity twice
//! (an attempt the killed server had sent but not recorded is sent again: at least once, and
//! instances drop a repeat by its id), and what arrived anywhere else.
//!
//! `cargo bench -p podhost-cli --bench fediverse` (needs `weed`, as `scripts/test` installs
//! it). `FEDI_INSTANCES` and `FEDI_PER_INSTANCE` change the sizes (100 and 10).

use std::{
    collections::HashMap,
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
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
    log: PathBuf,
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
    (Server { child, log }, token)
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
    let (mut a, token) = serve(s3.endpoint(), &bucket, &public, port_a, dir.path());
    let token = token.expect("the first server prints the admin's token");
    let (mut b, _) = serve(s3.endpoint(), &bucket, &public, port_b, dir.path());
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
            .respond_with(ResponseTemplate::new(202).set_delay(delay))
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
    let logged = |server: &Server| {
        std::fs::read_to_string(&server.log)
            .unwrap_or_default()
            .matches("delivery attempted")
            .count()
    };
    let before = (logged(&a), logged(&b));
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

    let creates = |posts: &[(String, String, String)]| {
        posts
            .iter()
            .filter(|(path, kind, _)| path == "/inbox" && kind == "Create")
            .count()
    };
    let mut killed: Option<(&str, f64)> = None;
    let mut all_at = None;
    let mut holder_b = false;
    while published_at.elapsed() < Duration::from_secs(180) {
        let mut reached = 0;
        for instance in &instances {
            if creates(&posts(instance).await) > 0 {
                reached += 1;
            }
        }
        if killed.is_none() && reached >= instances.len() / 4 {
            // The delivering server: the one whose log grew with attempts since the publication.
            let (now_a, now_b) = (logged(&a), logged(&b));
            holder_b = now_b - before.1 > now_a - before.0;
            let victim = if holder_b { &mut b } else { &mut a };
            let _ = victim.child.kill();
            killed = Some((
                if holder_b { "the second" } else { "the first" },
                published_at.elapsed().as_secs_f64(),
            ));
            eprintln!("killed {} server at {reached} instances", killed.unwrap().0);
        }
        if reached == instances.len() {
            all_at = Some(published_at.elapsed());
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Late repeats land within a few seconds more.
    tokio::time::sleep(Duration::from_secs(5)).await;
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
    let _ = holder_b;
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
    match killed {
        Some((which, at)) => println!(
            "  {which} server (delivering) killed with SIGKILL {at:.1} s after the publication"
        ),
        None => println!("  no server killed (every instance had it before a quarter was reached)"),
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
