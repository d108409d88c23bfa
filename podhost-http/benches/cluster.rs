//! The load of `scripts/cluster` (not run alone): mixed requests through the load balancer in
//! front of several `podhost serve` processes while the script injects faults (a server killed,
//! paused, cut off from the store; the store slowed; a volume server or the filer killed; a
//! clock off). Then every acknowledged write is read back.
//!
//! Environment: `CLUSTER_URL` (nginx), `CLUSTER_TOKEN` (a token with every scope),
//! `CLUSTER_SECONDS` (the longest the load runs, default 30), `CLUSTER_STOP` (a file whose
//! appearance ends the load sooner), `CLUSTER_WORKERS` (default 16), `CLUSTER_SEED` (the seed of
//! the clients' choices, printed; random by default), `CLUSTER_FAULTS` (the script's log of
//! faults, for the figures during and after each), `CLUSTER_READBACK` (a folder where the script
//! asks for every acknowledged record to be read back through named servers; see
//! [`readbacks`]), `CLUSTER_ONLY_503` (set: any attempt answered with neither a success, a
//! refusal nor a 503, or not answered, fails the run, as an upgrade's restarts must not cause).
//!
//! The client behaves as the API's documentation tells one to: every write carries a new
//! `Idempotency-Key`, and a request that got no answer, a 502, 503 or 504, or a 409 with
//! `Retry-After` (its key's first request still running) is sent again, with the same key,
//! for up to a minute.
//!
//! Prints throughput, p50/p99 latency per kind of request (retries included), the requests
//! retried and replayed, failures (requests that never got an answer they could use), the
//! acknowledged writes lost (an episode created or renamed, a file uploaded, answered 2xx, then
//! not found as acknowledged) and the episodes and files created twice (more in the podcast or
//! the account than were acknowledged), and per fault: the requests during it, their failures,
//! p99 during and in the 10 s after, and the time to recover. Exits 1 when any request failed,
//! any write was lost, anything was created twice or a readback found a record unreadable.
//!
//! Every creation, rename and read of an episode is also recorded, with the times it was sent
//! and answered, as a history (`CLUSTER_HISTORY`, lines of JSON; see
//! `podhost_testkit::history`), with the publications scheduled (some creations are published
//! by schedule a few seconds later) and every webhook delivery of `episode.published` received,
//! ended by a read of every episode and the podcast's final listing. The history's checker then
//! holds it to per-record linearizability, nothing lost, nothing applied twice, each event
//! delivered one to three times and each scheduled publication announced by exactly one event,
//! and prints what it found. Exits 1 when it does not hold.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use bytes::Bytes;
use http::{Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use podhost_testkit::history;
use serde_json::{Value, json};

type Client = hyper_util::client::legacy::Client<
    hyper_util::client::legacy::connect::HttpConnector,
    Full<Bytes>,
>;

#[derive(Clone)]
struct Target {
    client: Client,
    base: String,
    token: String,
}

/// An answer, or why there was none.
type Outcome = Result<(StatusCode, Bytes), String>;

/// How long a request is sent again while it gets no usable answer.
const RETRY_FOR: Duration = Duration::from_secs(60);

/// One attempt's answer: status, body, `Retry-After`, whether it was a kept answer replayed.
struct Attempt {
    status: StatusCode,
    body: Bytes,
    retry_after: Option<u64>,
    replayed: bool,
    /// `Age`: answered from what the server held while the store did not answer.
    age: Option<u64>,
}

/// Retries and replays, over the whole run.
static RETRIED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
static REPLAYED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Set when the script says the load is to stop (`CLUSTER_STOP` exists).
static STOP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The history of this run's episode operations.
static HISTORY: std::sync::OnceLock<history::Recorder> = std::sync::OnceLock::new();

/// Records one operation of client `client` sent at `sent_us`, answered `outcome`.
fn record(client: u64, op: history::Op, sent_us: u64, outcome: &Outcome) {
    record_stale(client, op, sent_us, outcome, None);
}

/// [`record`], of a read answered `Age: age` seconds old.
fn record_stale(client: u64, op: history::Op, sent_us: u64, outcome: &Outcome, age: Option<u64>) {
    let read = matches!(op, history::Op::Read { .. });
    let Some(recorder) = HISTORY.get() else {
        return;
    };
    let answered_us = recorder.now_us();
    let (answered_us, outcome) = match outcome {
        Ok((status, body)) if status.is_success() => (
            Some(answered_us),
            history::Outcome::Ok {
                value: if read { title_of(body) } else { None },
            },
        ),
        // A read of a record that is not there: its value is none.
        Ok((StatusCode::NOT_FOUND, _)) if read => {
            (Some(answered_us), history::Outcome::Ok { value: None })
        }
        // A refusal that says nothing was done.
        Ok((status, _)) if status.is_client_error() || status.as_u16() == 507 => (
            Some(answered_us),
            history::Outcome::Failed {
                why: status.to_string(),
            },
        ),
        Ok((status, _)) => (
            None,
            history::Outcome::Unknown {
                why: status.to_string(),
            },
        ),
        Err(why) => (None, history::Outcome::Unknown { why: why.clone() }),
    };
    recorder.record(&history::Entry {
        client,
        op,
        sent_us,
        answered_us,
        // Whole seconds, rounded up by the server.
        stale_us: age.map(|seconds| seconds * 1_000_000),
        outcome,
    });
}

/// When the history's clock reads now (0 without a history).
fn history_now() -> u64 {
    HISTORY.get().map_or(0, history::Recorder::now_us)
}

/// An episode answer's title.
fn title_of(body: &Bytes) -> Option<String> {
    let v: Value = serde_json::from_slice(body).ok()?;
    v["data"]["attributes"]["title"]
        .as_str()
        .map(str::to_string)
}

/// When each answer other than 2xx came, and which server gave it (nginx's `X-Upstream`).
static NOT_2XX: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Attempts answered with neither a success, a refusal (4xx, 507) nor a 503, or not answered at
/// all: what a client must never meet while the servers are upgraded one at a time.
static NEITHER_SUCCESS_NOR_503: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn now_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default()
}

impl Target {
    async fn send(
        &self,
        method: Method,
        path: &str,
        content_type: Option<&str>,
        body: Bytes,
    ) -> Outcome {
        self.send_with(method, path, content_type, body, &[]).await
    }

    /// Sends a request until it gets a usable answer (see the module's documentation); a write
    /// carries a new key, the same in each attempt.
    async fn send_with(
        &self,
        method: Method,
        path: &str,
        content_type: Option<&str>,
        body: Bytes,
        headers: &[(&str, &str)],
    ) -> Outcome {
        self.until_usable(method, path, content_type, body, headers)
            .await
            .map(|a| (a.status, a.body))
    }

    /// The attempts of [`send_with`](Self::send_with), the last one's answer whole.
    async fn until_usable(
        &self,
        method: Method,
        path: &str,
        content_type: Option<&str>,
        body: Bytes,
        headers: &[(&str, &str)],
    ) -> Result<Attempt, String> {
        use std::sync::atomic::Ordering::Relaxed;
        let key = (method != Method::GET).then(|| uuid::Uuid::new_v4().to_string());
        let mut headers = headers.to_vec();
        if let Some(key) = &key {
            headers.push(("idempotency-key", key));
        }
        let give_up = Instant::now() + RETRY_FOR;
        loop {
            let attempt = self
                .attempt(method.clone(), path, content_type, body.clone(), &headers)
                .await;
            match &attempt {
                Err(why) => NEITHER_SUCCESS_NOR_503
                    .lock()
                    .unwrap()
                    .push(format!("{} {method} {path}: {why}", now_ms())),
                Ok(a) if a.status.is_server_error() && !matches!(a.status.as_u16(), 503 | 507) => {
                    NEITHER_SUCCESS_NOR_503.lock().unwrap().push(format!(
                        "{} {method} {path}: {}",
                        now_ms(),
                        a.status
                    ));
                }
                Ok(_) => {}
            }
            let wait = match &attempt {
                Err(_) => Duration::from_millis(200),
                Ok(a) if matches!(a.status.as_u16(), 502..=504) => Duration::from_millis(200),
                Ok(a) if a.status == StatusCode::CONFLICT && a.retry_after.is_some() => {
                    Duration::from_secs(a.retry_after.unwrap_or(1))
                }
                Ok(a) => {
                    if a.replayed {
                        REPLAYED.fetch_add(1, Relaxed);
                    }
                    return attempt;
                }
            };
            if Instant::now() + wait > give_up {
                return attempt;
            }
            RETRIED.fetch_add(1, Relaxed);
            tokio::time::sleep(wait).await;
        }
    }

    /// One attempt of a request.
    async fn attempt(
        &self,
        method: Method,
        path: &str,
        content_type: Option<&str>,
        body: Bytes,
        headers: &[(&str, &str)],
    ) -> Result<Attempt, String> {
        let mut request = Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base))
            .header("authorization", format!("Bearer {}", self.token));
        if let Some(content_type) = content_type {
            request = request.header("content-type", content_type);
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request.body(Full::new(body)).map_err(|e| e.to_string())?;
        // Longer than nginx waits for a stuck server (12 s) before it asks the next one.
        let answer = tokio::time::timeout(Duration::from_secs(30), async {
            let response = self
                .client
                .request(request)
                .await
                .map_err(|e| e.to_string())?;
            let status = response.status();
            let retry_after = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse().ok());
            let replayed = response.headers().contains_key("idempotent-replayed");
            let age = response
                .headers()
                .get("age")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse().ok());
            if !status.is_success() {
                let upstream = response
                    .headers()
                    .get("x-upstream")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("?")
                    .to_string();
                NOT_2XX
                    .lock()
                    .unwrap()
                    .push(format!("{} {status} from {upstream}", now_ms()));
            }
            let bytes = response
                .into_body()
                .collect()
                .await
                .map_err(|e| e.to_string())?
                .to_bytes();
            Ok::<_, String>(Attempt {
                status,
                body: bytes,
                retry_after,
                replayed,
                age,
            })
        })
        .await;
        answer.unwrap_or_else(|_| Err("no answer within 30 s".into()))
    }

    /// Reads episode `id` of the podcast as history client `client`, recording the read.
    async fn read_episode(&self, client: u64, id: &str) -> Outcome {
        let sent = history_now();
        let got = self
            .send(Method::GET, &episode_path(id), None, Bytes::new())
            .await;
        let op = history::Op::Read {
            record: format!("episode/{id}"),
        };
        record(client, op, sent, &got);
        got
    }

    async fn json(&self, method: Method, path: &str, body: &Value) -> Outcome {
        self.send(
            method,
            path,
            Some("application/json"),
            Bytes::from(body.to_string()),
        )
        .await
    }

    async fn multipart(
        &self,
        path: &str,
        fields: &[(&str, &str)],
        file: Option<(&str, &[u8])>,
    ) -> Outcome {
        let boundary = "cluster-load-7a1c";
        let mut body = Vec::new();
        for (name, value) in fields {
            body.extend_from_slice(
                format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n").as_bytes(),
            );
        }
        if let Some((name, bytes)) = file {
            body.extend_from_slice(
                format!("--{boundary}\r\nContent-Disposition: form-data; name=\"media\"; filename=\"{name}\"\r\nContent-Type: audio/wav\r\n\r\n").as_bytes(),
            );
            body.extend_from_slice(bytes);
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
        self.send(
            Method::POST,
            path,
            Some(&format!("multipart/form-data; boundary={boundary}")),
            Bytes::from(body),
        )
        .await
    }
}

/// What the workers were told was done, and what may or may not have been.
#[derive(Default)]
struct Ledger {
    /// Episode id → its title as last acknowledged.
    titles: HashMap<String, String>,
    /// Episode id → titles sent after the last acknowledgement whose outcome is unknown.
    maybe_titles: HashMap<String, Vec<String>>,
    /// Media id → size, acknowledged.
    media: HashMap<String, usize>,
    /// Per kind of request: latencies of answers, failures by reason.
    latencies: HashMap<&'static str, Vec<Duration>>,
    failures: HashMap<String, u64>,
    /// Every request: when it was sent (ms since the epoch, the faults log's clock), how long
    /// its answer took, whether it was a success.
    samples: Vec<(u128, Duration, bool)>,
    /// Episode id → when its scheduled publication is due (ms since the epoch).
    scheduled: HashMap<String, u128>,
    /// Writes refused with 507 (the store's disk full): nothing done, not a failure.
    refused_full: u64,
}

const FEED: &str = "load";

/// The API path of episode `id` of the podcast.
fn episode_path(id: &str) -> String {
    format!("/api/feed/{FEED}/show/{id}")
}

fn wav(seconds: f64) -> Vec<u8> {
    podhost_testkit::fixtures::wav(seconds, 8000)
}

fn id_of(bytes: &Bytes) -> Option<String> {
    let v: Value = serde_json::from_slice(bytes).ok()?;
    // Episodes answer `{"data": {"id"}}`, media records `{"id"}` (as the API documents them).
    let id = match &v["data"]["id"] {
        Value::Null => &v["id"],
        id => id,
    };
    match id {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

async fn worker(
    target: Target,
    w: usize,
    until: Instant,
    ledger: Arc<Mutex<Ledger>>,
    enclosure: String,
    seed: u64,
) {
    use rand::{Rng, SeedableRng};
    // Each client's choices from the run's seed: a run's mix of requests is replayed by its
    // seed (the timing, and so what the faults meet, is not).
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed.wrapping_add(w as u64));
    let mut own: Vec<String> = Vec::new();
    let mut n = 0u64;
    let audio = Bytes::from(wav(0.5));
    while Instant::now() < until && !STOP.load(std::sync::atomic::Ordering::Relaxed) {
        n += 1;
        let roll = rng.random::<u32>() % 100;
        let started = Instant::now();
        let sent_ms = now_ms();
        let (kind, outcome): (&'static str, Outcome) = match roll {
            25..=29 => {
                // An episode published by schedule, a few seconds from now (UTC, the podcast's
                // time zone): announced once, by whichever server's pass finds it due.
                let title = format!("w{w}-{n}-scheduled");
                let due = jiff::Timestamp::now()
                    + jiff::SignedDuration::from_secs(rng.random_range(3..10));
                let at = due.to_zoned(jiff::tz::TimeZone::UTC);
                let (date, time) = (
                    at.strftime("%Y-%m-%d").to_string(),
                    at.strftime("%H:%M:%S").to_string(),
                );
                let sent = history_now();
                let outcome = target
                    .multipart(
                        &format!("/api/feed/{FEED}/show"),
                        &[
                            ("title", &title),
                            ("is_public", "1"),
                            ("publishing_date", &date),
                            ("publishing_time", &time),
                        ],
                        None,
                    )
                    .await;
                if let Ok((StatusCode::CREATED, body)) = &outcome
                    && let Some(id) = id_of(body)
                {
                    let episode = format!("episode/{id}");
                    let op = history::Op::Write {
                        record: episode.clone(),
                        value: title.clone(),
                    };
                    record(w as u64, op, sent, &outcome);
                    let op = history::Op::Scheduled { record: episode };
                    record(w as u64, op, sent, &outcome);
                    let mut ledger = ledger.lock().unwrap();
                    ledger.titles.insert(id.clone(), title);
                    ledger
                        .scheduled
                        .insert(id.clone(), due.as_millisecond() as u128);
                    own.push(id);
                }
                ("episode schedule", outcome)
            }
            0..=29 => {
                let title = format!("w{w}-{n}");
                let sent = history_now();
                let outcome = target
                    .multipart(
                        &format!("/api/feed/{FEED}/show"),
                        &[("title", &title), ("is_public", "1")],
                        None,
                    )
                    .await;
                if let Ok((StatusCode::CREATED, body)) = &outcome
                    && let Some(id) = id_of(body)
                {
                    // A creation is its record's first write; one whose answer was lost names
                    // no record, and is found by the final listing if it landed twice.
                    let op = history::Op::Write {
                        record: format!("episode/{id}"),
                        value: title.clone(),
                    };
                    record(w as u64, op, sent, &outcome);
                    ledger.lock().unwrap().titles.insert(id.clone(), title);
                    own.push(id);
                }
                ("episode create", outcome)
            }
            30..=44 if !own.is_empty() => {
                let id = own[rng.random::<u32>() as usize % own.len()].clone();
                let title = format!("w{w}-{n}-renamed");
                let sent = history_now();
                let outcome = target
                    .json(Method::PUT, &episode_path(&id), &json!({"title": title}))
                    .await;
                let op = history::Op::Write {
                    record: format!("episode/{id}"),
                    value: title.clone(),
                };
                record(w as u64, op, sent, &outcome);
                let mut ledger = ledger.lock().unwrap();
                match &outcome {
                    Ok((StatusCode::OK, _)) => {
                        ledger.titles.insert(id.clone(), title);
                        ledger.maybe_titles.remove(&id);
                    }
                    Ok((status, _)) if status.is_client_error() => {}
                    _ => ledger.maybe_titles.entry(id).or_default().push(title),
                }
                ("episode update", outcome)
            }
            45..=49 => {
                let name = format!("w{w}-{n}.wav");
                let outcome = target
                    .multipart("/api/media", &[], Some((&name, &audio)))
                    .await;
                if let Ok((StatusCode::CREATED, body)) = &outcome
                    && let Some(id) = id_of(body)
                {
                    ledger.lock().unwrap().media.insert(id, audio.len());
                }
                ("upload", outcome)
            }
            50..=59 if !own.is_empty() => {
                let id = own[rng.random::<u32>() as usize % own.len()].clone();
                let sent = history_now();
                let answer = target
                    .until_usable(Method::GET, &episode_path(&id), None, Bytes::new(), &[])
                    .await;
                let age = answer.as_ref().ok().and_then(|a| a.age);
                let outcome = answer.map(|a| (a.status, a.body));
                let op = history::Op::Read {
                    record: format!("episode/{id}"),
                };
                record_stale(w as u64, op, sent, &outcome, age);
                ("episode read", outcome)
            }
            50..=69 => (
                "list",
                target
                    .send(
                        Method::GET,
                        &format!("/api/feed/{FEED}/shows?page%5Bsize%5D=20"),
                        None,
                        Bytes::new(),
                    )
                    .await,
            ),
            70..=84 => (
                "feed",
                target
                    .send(
                        Method::GET,
                        &format!("/feeds/{FEED}/rss"),
                        None,
                        Bytes::new(),
                    )
                    .await,
            ),
            _ => (
                "enclosure",
                target
                    .send_with(
                        Method::GET,
                        &enclosure,
                        None,
                        Bytes::new(),
                        &[("range", "bytes=0-65535")],
                    )
                    .await,
            ),
        };
        let took = started.elapsed();
        let mut ledger = ledger.lock().unwrap();
        let ok = matches!(&outcome, Ok((status, _)) if status.is_success());
        ledger.samples.push((sent_ms, took, ok));
        match outcome {
            Ok((status, _)) if status.is_success() => {
                ledger.latencies.entry(kind).or_default().push(took);
            }
            // The store's disk is full: refused with nothing done, as documented.
            Ok((StatusCode::INSUFFICIENT_STORAGE, _)) => ledger.refused_full += 1,
            Ok((status, _)) => {
                *ledger
                    .failures
                    .entry(format!("{kind}: {status}"))
                    .or_default() += 1
            }
            Err(reason) => {
                let reason = reason.split(':').next().unwrap_or_default().to_string();
                *ledger
                    .failures
                    .entry(format!("{kind}: {reason}"))
                    .or_default() += 1;
            }
        }
    }
}

/// Every id in a paged list: `path` with `page[number]` added, the ids at `items` (a JSON
/// pointer to an array of objects with `id`).
async fn all_ids(target: &Target, path: &str, items: &str) -> Result<Vec<String>, String> {
    let mut ids = Vec::new();
    for number in 1.. {
        let (status, body) = target
            .send(
                Method::GET,
                &format!("{path}&page%5Bnumber%5D={number}"),
                None,
                Bytes::new(),
            )
            .await?;
        if status != StatusCode::OK {
            return Err(format!("{path}: {status}"));
        }
        let page: Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
        let Some(found) = page.pointer(items).and_then(Value::as_array) else {
            return Err(format!("{path}: no {items}"));
        };
        if found.is_empty() {
            break;
        }
        ids.extend(found.iter().filter_map(|item| match &item["id"] {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }));
    }
    Ok(ids)
}

/// Every episode of the podcast with its title, read page by page.
async fn episode_titles(
    target: &Target,
) -> Result<std::collections::BTreeMap<String, String>, String> {
    let mut titles = std::collections::BTreeMap::new();
    for number in 1.. {
        let path = format!("/api/feed/{FEED}/shows?page%5Bsize%5D=500&page%5Bnumber%5D={number}");
        let (status, body) = target.send(Method::GET, &path, None, Bytes::new()).await?;
        if status != StatusCode::OK {
            return Err(format!("{path}: {status}"));
        }
        let page: Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
        let items = page["data"].as_array().cloned().unwrap_or_default();
        if items.is_empty() {
            break;
        }
        for item in items {
            if let (Some(id), Some(title)) =
                (item["id"].as_str(), item["attributes"]["title"].as_str())
            {
                titles.insert(format!("episode/{id}"), title.to_string());
            }
        }
    }
    Ok(titles)
}

/// Records the script's readbacks found unreadable (see [`readbacks`]).
static UNREADABLE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Reads back, through each server the script names, every record acknowledged so far: what
/// one release wrote, read by the other, while servers of two releases share the store
/// (`scripts/cluster`'s upgrade). The script writes a request `NAME` into the folder
/// `CLUSTER_READBACK`, lines `label url`; every read goes into the history (the checker holds
/// it to what was written), and `NAME.done` says how many records each server read and how
/// many it could not (anything but a 200 with the record, after the retries of a 503).
async fn readbacks(dir: String, ledger: Arc<Mutex<Ledger>>, target: Target) {
    let mut served = std::collections::HashSet::new();
    let mut client = u64::from(u32::MAX) + 16;
    loop {
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !n.ends_with(".done") && !n.ends_with(".tmp"))
            .collect();
        names.sort();
        for name in names {
            if !served.insert(name.clone()) {
                continue;
            }
            let request = std::fs::read_to_string(format!("{dir}/{name}")).unwrap_or_default();
            let (episodes, media): (Vec<String>, Vec<String>) = {
                let ledger = ledger.lock().unwrap();
                (
                    ledger.titles.keys().cloned().collect(),
                    ledger.media.keys().cloned().collect(),
                )
            };
            let mut report = String::new();
            for line in request.lines() {
                let Some((label, url)) = line.split_once(' ') else {
                    continue;
                };
                let server = Target {
                    base: url.trim().to_string(),
                    ..target.clone()
                };
                client += 1;
                let mut unreadable = Vec::new();
                for id in &episodes {
                    let got = server.read_episode(client, id).await;
                    if !matches!(&got, Ok((StatusCode::OK, body)) if title_of(body).is_some()) {
                        unreadable.push(format!("episode {id}: {:?}", got.map(|(s, _)| s)));
                    }
                }
                for id in &media {
                    let got = server
                        .send(Method::GET, &format!("/api/media/{id}"), None, Bytes::new())
                        .await;
                    if !matches!(&got, Ok((StatusCode::OK, _))) {
                        unreadable.push(format!("media {id}: {:?}", got.map(|(s, _)| s)));
                    }
                }
                let said = format!(
                    "{label} ({url}): {} episodes and {} files read back, {} unreadable",
                    episodes.len(),
                    media.len(),
                    unreadable.len()
                );
                println!("readback {name}: {said}");
                for u in unreadable.iter().take(10) {
                    println!("  UNREADABLE {u}");
                }
                UNREADABLE.fetch_add(unreadable.len(), std::sync::atomic::Ordering::Relaxed);
                report.push_str(&said);
                report.push('\n');
            }
            let done = format!("{dir}/{name}.done");
            let _ = std::fs::write(format!("{done}.tmp"), report)
                .and_then(|()| std::fs::rename(format!("{done}.tmp"), &done));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let at = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[at].as_secs_f64() * 1000.0
}

#[tokio::main]
async fn main() {
    let Ok(base) = std::env::var("CLUSTER_URL") else {
        eprintln!(
            "cluster: run by scripts/cluster (CLUSTER_URL and CLUSTER_TOKEN unset); nothing to do"
        );
        return;
    };
    let token = std::env::var("CLUSTER_TOKEN").expect("CLUSTER_TOKEN");
    let seconds: u64 = std::env::var("CLUSTER_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    let seed: u64 = std::env::var("CLUSTER_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random);
    println!("cluster: seed {seed} (CLUSTER_SEED={seed} replays this run's requests)");
    let workers: usize = std::env::var("CLUSTER_WORKERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(16);
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .pool_idle_timeout(Duration::from_secs(5))
        .build_http();
    let target = Target {
        client,
        base,
        token,
    };

    // A podcast with one published episode and its audio, for the reads.
    let made = target
        .json(
            Method::POST,
            "/api/feeds",
            &json!({"id": FEED, "title": "Load"}),
        )
        .await;
    assert!(
        matches!(made, Ok((StatusCode::CREATED | StatusCode::CONFLICT, _))),
        "{made:?}"
    );
    // Every announced publication is delivered here, and recorded in the history.
    let receiver = podhost_testkit::WebhookReceiver::start().await;
    let subscribed = target
        .json(
            Method::POST,
            "/api/webhooks",
            &json!({"url": receiver.url(), "secret": receiver.secret(), "events": ["episode.published"], "description": "cluster"}),
        )
        .await;
    assert!(
        matches!(subscribed, Ok((StatusCode::CREATED, _))),
        "the webhook subscription: {subscribed:?}"
    );
    let webhook_id = subscribed
        .as_ref()
        .ok()
        .and_then(|(_, body)| id_of(body))
        .unwrap_or_default();
    let first = target
        .multipart(
            &format!("/api/feed/{FEED}/show"),
            &[("title", "first"), ("is_public", "1")],
            Some(("first.wav", &wav(2.0))),
        )
        .await
        .expect("the first episode");
    assert_eq!(first.0, StatusCode::CREATED, "the first episode: {first:?}");
    let first: Value = serde_json::from_slice(&first.1).unwrap();
    let first_id = first["data"]["id"].as_str().unwrap_or_default().to_string();
    // What the set-up made (the first episode's file, and those of earlier runs on the store)
    // is not counted as made twice: listed once every server has caught up (a server reads the
    // others' writes within its refresh interval, 500 ms).
    tokio::time::sleep(Duration::from_secs(2)).await;
    let media_before = all_ids(&target, "/api/media?page%5Bsize%5D=500", "/items")
        .await
        .expect("the media list");
    let enclosure_url = first["data"]["attributes"]["enclosure_url"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let enclosure = enclosure_url
        .strip_prefix(&target.base)
        .unwrap_or(&enclosure_url)
        .to_string();

    let history_path = std::env::var("CLUSTER_HISTORY").unwrap_or_else(|_| {
        std::env::temp_dir()
            .join("podhost-cluster-history.jsonl")
            .display()
            .to_string()
    });
    let file = std::fs::File::create(&history_path).expect("CLUSTER_HISTORY is writable");
    HISTORY
        .set(history::Recorder::new(Box::new(std::io::BufWriter::new(
            file,
        ))))
        .expect("one history");
    let ledger = Arc::new(Mutex::new(Ledger::default()));
    // The script kills a server a third of the way into the load itself, not into the time
    // this bench took to build and set up: it waits for this file.
    if let Ok(marker) = std::env::var("CLUSTER_STARTED") {
        std::fs::write(marker, b"load started\n").expect("CLUSTER_STARTED is writable");
    }
    if let Ok(stop) = std::env::var("CLUSTER_STOP") {
        tokio::spawn(async move {
            while !std::path::Path::new(&stop).exists() {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            STOP.store(true, std::sync::atomic::Ordering::Relaxed);
        });
    }
    let started = Instant::now();
    let until = started + Duration::from_secs(seconds);
    let tasks: Vec<_> = (0..workers)
        .map(|w| {
            tokio::spawn(worker(
                target.clone(),
                w,
                until,
                ledger.clone(),
                enclosure.clone(),
                seed,
            ))
        })
        .collect();
    // The script's readbacks (its upgrade asks for them while two releases serve).
    let readback = std::env::var("CLUSTER_READBACK")
        .ok()
        .map(|dir| tokio::spawn(readbacks(dir, ledger.clone(), target.clone())));
    for task in tasks {
        task.await.unwrap();
    }
    if let Some(readback) = readback {
        // Gone, with its share of the ledger, once the abort is awaited.
        readback.abort();
        let _ = readback.await;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let ledger = Arc::try_unwrap(ledger).ok().unwrap().into_inner().unwrap();

    // Every scheduled publication announced, or two minutes passed (a delivery that failed
    // while a server was down waits for its retry; asking for the due ones now hurries it).
    let announced_of = |r: &podhost_testkit::Received| {
        let id = match &r.body["data"]["id"] {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            _ => return None,
        };
        (r.verified && r.event_type == "episode.published").then_some(id)
    };
    let waiting_since = Instant::now();
    loop {
        let announced: std::collections::HashSet<String> = receiver
            .received()
            .iter()
            .filter_map(announced_of)
            .collect();
        let left = ledger
            .scheduled
            .keys()
            .filter(|id| !announced.contains(*id))
            .count();
        if left == 0 || waiting_since.elapsed() > Duration::from_secs(120) {
            println!(
                "scheduled publications: {} acknowledged, {left} not announced after {:.0} s",
                ledger.scheduled.len(),
                waiting_since.elapsed().as_secs_f64()
            );
            // What the API says of the first few: published? an event, a delivery?
            let deliveries = target
                .send(
                    Method::GET,
                    &format!("/api/webhooks/{webhook_id}/deliveries"),
                    None,
                    Bytes::new(),
                )
                .await;
            for id in ledger
                .scheduled
                .keys()
                .filter(|id| !announced.contains(*id))
                .take(5)
            {
                let episode = target
                    .send(Method::GET, &episode_path(id), None, Bytes::new())
                    .await;
                let attributes = episode
                    .ok()
                    .and_then(|(_, body)| serde_json::from_slice::<Value>(&body).ok())
                    .map(|v| v["data"]["attributes"].clone())
                    .unwrap_or_default();
                println!(
                    "  not announced: episode {id}: is_published {}, publish_date {}",
                    attributes["is_published"], attributes["publish_date"]
                );
                if let Ok((_, body)) = &deliveries
                    && let Ok(list) = serde_json::from_slice::<Value>(body)
                {
                    let needle = format!("\"{id}\"");
                    for item in list["data"].as_array().into_iter().flatten() {
                        let text = item.to_string();
                        if text.contains(&needle) {
                            println!("    delivery: {}", &text[..text.len().min(600)]);
                        }
                    }
                }
            }
            break;
        }
        let _ = target
            .send(Method::POST, "/api/webhooks-processing", None, Bytes::new())
            .await;
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    // Each delivery into the history; how far from its time each publication was announced
    // (a server whose clock is ahead finds a publication due early).
    let mut off_ms: Vec<i128> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for received in receiver.received() {
        let published = announced_of(&received);
        if let Some(id) = &published
            && let Some(due) = ledger.scheduled.get(id)
            && seen.insert(id.clone())
        {
            let arrived = received
                .arrived_at
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis())
                .unwrap_or_default();
            off_ms.push(arrived as i128 - *due as i128);
        }
        let now = history_now();
        HISTORY.get().expect("the history").record(&history::Entry {
            client: u64::from(u32::MAX) + 1,
            op: history::Op::Delivered {
                event: received.id.clone(),
                published: published.map(|id| format!("episode/{id}")),
            },
            sent_us: now,
            answered_us: Some(now),
            stale_us: None,
            outcome: history::Outcome::Ok { value: None },
        });
    }
    if let (Some(early), Some(late)) = (off_ms.iter().min(), off_ms.iter().max()) {
        println!(
            "scheduled publications announced from {:.1} s to {:.1} s after their time (negative: early)",
            *early as f64 / 1000.0,
            *late as f64 / 1000.0
        );
    }

    // Every acknowledged write, read back through the load balancer, once every server has
    // caught up (a server reads the others' writes within its refresh interval, 500 ms).
    tokio::time::sleep(Duration::from_secs(2)).await;
    let mut lost = Vec::new();
    for (id, title) in &ledger.titles {
        let got = target.read_episode(u64::from(u32::MAX), id).await;
        let shown = match &got {
            Ok((StatusCode::OK, body)) => {
                serde_json::from_slice::<Value>(body).ok().and_then(|v| {
                    v["data"]["attributes"]["title"]
                        .as_str()
                        .map(str::to_string)
                })
            }
            _ => None,
        };
        let maybe = ledger.maybe_titles.get(id).cloned().unwrap_or_default();
        match shown {
            Some(t) if &t == title || maybe.contains(&t) => {}
            other => lost.push(format!(
                "episode {id}: acknowledged {title:?}, found {other:?} ({got:?})"
            )),
        }
    }
    for (id, size) in &ledger.media {
        let got = target
            .send(Method::GET, &format!("/api/media/{id}"), None, Bytes::new())
            .await;
        let found = matches!(&got, Ok((StatusCode::OK, body)) if serde_json::from_slice::<Value>(body).ok().and_then(|v| v["byte"].as_u64().or(v["data"]["byte"].as_u64())) == Some(*size as u64));
        if !found {
            lost.push(format!("media {id}: {got:?}"));
        }
    }

    // Made twice: episodes in the podcast and files in the account that nobody was told of.
    let episodes = all_ids(
        &target,
        &format!("/api/feed/{FEED}/shows?page%5Bsize%5D=500"),
        "/data",
    )
    .await
    .expect("the episode list");
    let twice_episodes: Vec<&String> = episodes
        .iter()
        .filter(|id| **id != first_id && !ledger.titles.contains_key(*id))
        .collect();
    let media = all_ids(&target, "/api/media?page%5Bsize%5D=500", "/items")
        .await
        .expect("the media list");
    let twice_media: Vec<&String> = media
        .iter()
        .filter(|id| !media_before.contains(id) && !ledger.media.contains_key(*id))
        .collect();

    // The podcast's final listing, for the checker's count of what was applied twice.
    let listed = episode_titles(&target)
        .await
        .expect("the episode list with titles");
    let recorder = HISTORY.get().expect("the history");
    let now = recorder.now_us();
    recorder.record(&history::Entry {
        client: u64::from(u32::MAX),
        op: history::Op::List {
            container: FEED.into(),
            records: listed,
        },
        sent_us: now,
        answered_us: Some(now),
        stale_us: None,
        outcome: history::Outcome::Ok { value: None },
    });
    // Every holding of a unit of work, from each server's journal (`--lease-journal`).
    let mut holdings = 0;
    for path in std::env::var("CLUSTER_LEASE_JOURNALS")
        .unwrap_or_default()
        .split(',')
        .filter(|p| !p.is_empty())
    {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        for line in text.lines() {
            let held: podhost_core::LeaseHeld =
                serde_json::from_str(line).expect("a lease journal's line");
            let at = |us: i64| recorder.of_monotonic_us(us);
            recorder.record(&history::Entry {
                client: u64::from(u32::MAX) + 2,
                op: history::Op::Lease {
                    lease: held.lease,
                    holder: held.holder,
                },
                sent_us: at(held.from_us),
                answered_us: Some(at(held.until_us)),
                stale_us: None,
                outcome: history::Outcome::Ok { value: None },
            });
            holdings += 1;
        }
    }
    println!("holdings of units of work journaled by the servers: {holdings}");
    recorder.flush();
    let entries = history::load(std::io::BufReader::new(
        std::fs::File::open(&history_path).expect("the history reads back"),
    ))
    .expect("the history parses");
    // API reads are linearizable through any server (each looks at the store first); a read
    // answered from memory while the store did not answer says how old it may be (`Age`).
    let limits = history::Limits::default();
    let report = history::check(&entries, limits);
    println!("history ({history_path}): {} entries", entries.len());
    print!("{report}");

    let total: usize = ledger.latencies.values().map(Vec::len).sum();
    let failed: u64 = ledger.failures.values().sum();
    let mut all: Vec<Duration> = ledger.latencies.values().flatten().copied().collect();
    all.sort_unstable();
    println!(
        "cluster: {workers} clients for {elapsed:.0} s through nginx: {total} answered 2xx ({:.0} req/s), {failed} failed; p50 {:.1} ms, p99 {:.1} ms",
        total as f64 / elapsed,
        percentile(&all, 0.5),
        percentile(&all, 0.99)
    );
    let mut kinds: Vec<_> = ledger.latencies.iter().collect();
    kinds.sort_by_key(|(k, _)| *k);
    for (kind, latencies) in kinds {
        let mut sorted = latencies.clone();
        sorted.sort_unstable();
        println!(
            "  {kind}: {} ({:.0}/s), p50 {:.1} ms, p99 {:.1} ms",
            sorted.len(),
            sorted.len() as f64 / elapsed,
            percentile(&sorted, 0.5),
            percentile(&sorted, 0.99)
        );
    }
    let mut failures: Vec<_> = ledger.failures.iter().collect();
    failures.sort();
    for (what, count) in failures {
        println!("  failed: {what} × {count}");
    }
    if ledger.refused_full > 0 {
        println!(
            "refused with 507 (the store's disk full, nothing done): {}",
            ledger.refused_full
        );
    }
    println!(
        "retried: {} requests sent again (no answer, 502-504, or 409 while running); {} answered with a kept answer (Idempotent-Replayed)",
        RETRIED.load(std::sync::atomic::Ordering::Relaxed),
        REPLAYED.load(std::sync::atomic::Ordering::Relaxed),
    );
    println!(
        "acknowledged writes: {} episodes (created or renamed), {} uploads; lost: {}; created twice: {} episodes, {} files",
        ledger.titles.len(),
        ledger.media.len(),
        lost.len(),
        twice_episodes.len(),
        twice_media.len(),
    );
    for id in twice_episodes.iter().take(10) {
        println!("  TWICE episode {id}");
    }
    for id in twice_media.iter().take(10) {
        println!("  TWICE media {id}");
    }
    for l in lost.iter().take(20) {
        println!("  LOST {l}");
    }
    for u in NOT_2XX.lock().unwrap().iter().take(30) {
        println!("  not 2xx: {u}");
    }
    let neither = NEITHER_SUCCESS_NOR_503.lock().unwrap();
    println!(
        "attempts answered with neither a success, a refusal nor a 503, or not at all: {}",
        neither.len()
    );
    for n in neither.iter().take(20) {
        println!("  {n}");
    }
    let unreadable = UNREADABLE.load(std::sync::atomic::Ordering::Relaxed);
    if let Ok(faults) = std::env::var("CLUSTER_FAULTS") {
        print_fault_windows(&faults, &ledger.samples);
    }
    // An upgrade (a graceful stop and a restart, server by server) has no excuse for an answer
    // but a success or a 503: the script asks for that with CLUSTER_ONLY_503.
    let only_503 = std::env::var_os("CLUSTER_ONLY_503").is_some();
    if !lost.is_empty()
        || failed > 0
        || unreadable > 0
        || (only_503 && !neither.is_empty())
        || !twice_episodes.is_empty()
        || !twice_media.is_empty()
        || !report.holds()
    {
        std::process::exit(1);
    }
}

/// For each fault of the script's log (lines `name injected_ms restored_ms`): the requests sent
/// while it lasted and in the 10 s after (up to the next fault), their p99 and failures, and the
/// time to recover: from the fault's end until the answer of the last request sent before the
/// next fault (or within a minute) that failed or took more than a second.
fn print_fault_windows(path: &str, samples: &[(u128, Duration, bool)]) {
    let Ok(log) = std::fs::read_to_string(path) else {
        return;
    };
    let faults: Vec<(&str, u128, u128)> = log
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [name, from, to] = fields[..] else {
                return None;
            };
            Some((name, from.parse().ok()?, to.parse().ok()?))
        })
        .collect();
    println!(
        "| fault | length | requests sent during | answered other than 2xx | p99 during | p99 in the 10 s after | time to recover |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (i, (name, from, to)) in faults.iter().copied().enumerate() {
        let next = faults.get(i + 1).map_or(to + 60_000, |(_, next, _)| *next);
        let window = |a: u128, b: u128| {
            let mut took: Vec<Duration> = samples
                .iter()
                .filter(|(sent, _, _)| (a..b).contains(sent))
                .map(|(_, took, _)| *took)
                .collect();
            took.sort_unstable();
            took
        };
        let during = window(from, to);
        let after = window(to, (to + 10_000).min(next));
        let failed = samples
            .iter()
            .filter(|(sent, _, ok)| (from..to).contains(sent) && !ok)
            .count();
        let recovered = samples
            .iter()
            .filter(|(sent, took, ok)| {
                (from..next).contains(sent) && (!ok || *took > Duration::from_secs(1))
            })
            .map(|(sent, took, _)| sent + took.as_millis())
            .max()
            .map_or(0, |last| last.saturating_sub(to));
        println!(
            "| {name} | {:.1} s | {} | {failed} | {:.0} ms | {:.0} ms | {:.1} s |",
            (to - from) as f64 / 1000.0,
            during.len(),
            percentile(&during, 0.99),
            percentile(&after, 0.99),
            recovered as f64 / 1000.0
        );
    }
}
