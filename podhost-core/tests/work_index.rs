//! The background work of webhooks is found through the work index, not by scanning accounts:
//! a scheduled publication is announced once when its time comes; what a lost index object or
//! a `kill -9` between a commit and its index writes left out is found by the repair, and nothing
//! is sent twice; three servers on one store share the work.

use std::sync::{Arc, Mutex};

use futures::TryStreamExt;
use jiff::{SignedDuration, Timestamp};
use object_store::{ObjectStore, ObjectStoreExt, path::Path};
use podhost_core::{
    Clock, HostConfig, ManualClock, PodcastHost, Principal,
    model::NewEpisode,
    webhooks::{
        SendOutcome, WebhookRequest, WebhookSender,
        event::{EventRenderer, Subject},
        subscription::NewWebhook,
    },
};

/// Records what was sent, by which server.
#[derive(Debug, Default)]
struct Recorder {
    sent: Mutex<Vec<(usize, String, String)>>,
}

/// One server's sender: answers 204 after a moment (so that passes overlap), recording the
/// event's type and id.
#[derive(Debug)]
struct Sender {
    server: usize,
    recorder: Arc<Recorder>,
}

#[async_trait::async_trait]
impl WebhookSender for Sender {
    async fn send(&self, request: WebhookRequest) -> SendOutcome {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        let body: serde_json::Value = serde_json::from_slice(&request.body).unwrap();
        let id = request
            .headers
            .iter()
            .find(|(name, _)| name == "webhook-id")
            .map(|(_, value)| value.clone())
            .unwrap();
        self.recorder.sent.lock().unwrap().push((
            self.server,
            body["type"].as_str().unwrap().to_string(),
            id,
        ));
        SendOutcome::Answered {
            status: 204,
            excerpt: String::new(),
        }
    }
}

#[derive(Debug)]
struct Renderer;

impl EventRenderer for Renderer {
    fn render(&self, _: &podhost_core::AccountId, _: &Subject) -> serde_json::Value {
        serde_json::json!({})
    }
}

fn server(store: Arc<dyn ObjectStore>, clock: Arc<ManualClock>) -> PodcastHost {
    let mut config = HostConfig::new("https://pod.example").unwrap();
    config.allow_private_webhooks = true;
    PodcastHost::with_clock(config, store, clock)
}

async fn subscribed(host: &PodcastHost, name: &str) -> (Principal, podhost_core::FeedId) {
    let (who, feed) =
        podhost_testkit::setup::account_with_podcast(host, name, &format!("{name}-show")).await;
    host.work()
        .create_webhook(
            &who,
            NewWebhook {
                url: "http://127.0.0.1:9/hook".into(),
                events: vec!["episode.published".into()],
                description: None,
                secret: None,
            },
        )
        .await
        .unwrap();
    (who, feed)
}

async fn scheduled(
    host: &PodcastHost,
    who: &Principal,
    feed: &podhost_core::FeedId,
    at: Timestamp,
) {
    let mut new = NewEpisode::titled("Later");
    new.fields.is_public = Some(true);
    new.fields.publish_at = Some(at);
    host.podcasts()
        .create_episode(who, feed, new)
        .await
        .unwrap();
}

async fn keys(store: &Arc<dyn ObjectStore>, prefix: &str) -> Vec<Path> {
    store
        .list(Some(&Path::from(prefix)))
        .map_ok(|meta| meta.location)
        .try_collect()
        .await
        .unwrap()
}

fn published(recorder: &Recorder) -> usize {
    recorder
        .sent
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, kind, _)| kind == "episode.published")
        .count()
}

/// A server on a fresh store, its clock, and its sender with what it sent.
fn one_server() -> (
    Arc<dyn ObjectStore>,
    Arc<ManualClock>,
    Arc<Recorder>,
    Sender,
    PodcastHost,
) {
    let store = podhost_core::open_store("memory://").unwrap().store;
    let clock = start();
    let recorder = Arc::new(Recorder::default());
    let sender = Sender {
        server: 0,
        recorder: recorder.clone(),
    };
    let host = server(store.clone(), clock.clone());
    (store, clock, recorder, sender, host)
}

fn start() -> Arc<ManualClock> {
    Arc::new(ManualClock::new("2026-11-26T10:00:00Z".parse().unwrap()))
}

#[tokio::test]
async fn a_scheduled_publication_is_announced_once_when_its_time_comes() {
    let (store, clock, recorder, sender, host) = one_server();
    let (who, feed) = subscribed(&host, "alice").await;
    // Half a second past a whole second: the pass at the whole second is too early.
    let at = clock.now() + SignedDuration::from_hours(1) + SignedDuration::from_millis(500);
    scheduled(&host, &who, &feed, at).await;
    assert_eq!(
        keys(&store, "work/due").await.len(),
        1,
        "the schedule is indexed"
    );

    for early in [SignedDuration::ZERO, SignedDuration::from_secs(3600)] {
        clock.set(start().now() + early);
        let pass = host.work().work_pass(&sender, &Renderer).await.unwrap();
        assert_eq!(pass.announced, 0);
        assert_eq!(published(&recorder), 0, "not before its time");
        assert_eq!(keys(&store, "work/due").await.len(), 1, "kept for its time");
    }

    clock.advance(SignedDuration::from_secs(1));
    let pass = host.work().work_pass(&sender, &Renderer).await.unwrap();
    assert_eq!((pass.announced, pass.delivered), (1, 1));
    assert_eq!(published(&recorder), 1);
    assert!(keys(&store, "work/due").await.is_empty(), "the key is done");
    assert!(keys(&store, "work/deliver").await.is_empty(), "drained");

    // Later passes, and a repair, find nothing more to do.
    for _ in 0..3 {
        let pass = host.work().work_pass(&sender, &Renderer).await.unwrap();
        assert_eq!((pass.announced, pass.delivered), (0, 0));
    }
    host.work().repair_work(&sender, &Renderer).await.unwrap();
    host.work().work_pass(&sender, &Renderer).await.unwrap();
    assert_eq!(published(&recorder), 1, "announced once");
}

#[tokio::test]
async fn what_a_lost_index_object_left_out_is_found_by_the_repair_and_sent_once() {
    let (store, clock, recorder, sender, host) = one_server();
    // The period's repair runs on the first pass: done here, before anything exists.
    assert_eq!(
        host.work()
            .work_pass(&sender, &Renderer)
            .await
            .unwrap()
            .repaired,
        Some(0)
    );
    let (who, feed) = subscribed(&host, "alice").await;
    scheduled(
        &host,
        &who,
        &feed,
        clock.now() + SignedDuration::from_mins(5),
    )
    .await;
    // The index object is lost.
    for key in keys(&store, "work/due").await {
        store.delete(&key).await.unwrap();
    }
    clock.advance(SignedDuration::from_mins(6));
    let pass = host.work().work_pass(&sender, &Renderer).await.unwrap();
    assert_eq!((pass.announced, pass.repaired), (0, None));
    assert_eq!(published(&recorder), 0, "the pass does not scan");

    // The repair announces and delivers it; nothing is sent twice afterwards.
    assert_eq!(
        host.work().repair_work(&sender, &Renderer).await.unwrap(),
        1
    );
    assert_eq!(published(&recorder), 1);
    host.work().work_pass(&sender, &Renderer).await.unwrap();
    host.work().repair_work(&sender, &Renderer).await.unwrap();
    assert_eq!(published(&recorder), 1, "once");
}

/// The environment variable that makes this test binary the writer killed by
/// [`a_kill_9_between_the_commit_and_its_index_writes_is_repaired`]: the store folder, then
/// `now` or `scheduled`.
const KILLED_WRITER: &str = "PODHOST_KILLED_WRITER";

/// The killed writer: a server on the store folder that creates an episode of alice's podcast
/// (published now, or a minute after the start), says so once the commit has landed and its
/// first index write is held, and waits there to be killed.
async fn killed_writer(spec: &str) -> ! {
    let (dir, when) = spec.rsplit_once(':').unwrap();
    let store = podhost_core::open_store(dir).unwrap().store;
    let faults = podhost_testkit::FaultStore::new(store);
    let gate = faults.gate(|call, path| {
        call == podhost_testkit::Call::Put && path.as_ref().starts_with("work/")
    });
    let clock = start();
    let dying = server(Arc::new(faults), clock.clone());
    let who = dying
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    let feed: podhost_core::FeedId = "alice-show".parse().unwrap();
    let mut new = NewEpisode::titled("Episode");
    new.fields.is_public = Some(true);
    new.fields.publish_at =
        (when == "scheduled").then(|| clock.now() + SignedDuration::from_mins(1));
    tokio::spawn(async move { dying.podcasts().create_episode(&who, &feed, new).await });
    gate.reached().await;
    println!("held after the commit");
    std::io::Write::flush(&mut std::io::stdout()).unwrap();
    std::future::pending().await
}

#[tokio::test]
async fn a_kill_9_between_the_commit_and_its_index_writes_is_repaired() {
    if let Ok(spec) = std::env::var(KILLED_WRITER) {
        killed_writer(&spec).await;
    }
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().to_str().unwrap();
    let store = podhost_core::open_store(folder).unwrap().store;
    let clock = start();
    let recorder = Arc::new(Recorder::default());
    let sender = Sender {
        server: 0,
        recorder: recorder.clone(),
    };
    let mut config = HostConfig::new("https://pod.example").unwrap();
    config.allow_private_webhooks = true;
    config.catalog.refresh_interval = std::time::Duration::ZERO;
    let host = PodcastHost::with_clock(config, store.clone(), clock.clone());
    host.work().work_pass(&sender, &Renderer).await.unwrap();
    subscribed(&host, "alice").await;
    // Two writer processes, each killed (SIGKILL) after its commit landed and before its index
    // writes: one publishing now (its delivery marker lost), one scheduling (its due key lost).
    for when in ["now", "scheduled"] {
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "a_kill_9_between_the_commit_and_its_index_writes_is_repaired",
                "--nocapture",
            ])
            .env(KILLED_WRITER, format!("{folder}:{when}"))
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let out = std::io::BufReader::new(child.stdout.take().unwrap());
        let held = std::io::BufRead::lines(out)
            .map_while(Result::ok)
            .any(|line| line == "held after the commit");
        assert!(held, "the writer reached its index write");
        child.kill().unwrap();
        child.wait().unwrap();
    }
    let indexed = keys(&store, "work/").await;
    assert!(
        indexed.iter().all(|k| !k.as_ref().starts_with("work/due")
            && !k.as_ref().starts_with("work/deliver")),
        "{indexed:?}"
    );
    let alice = host
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    let episodes = host
        .podcasts()
        .list_episodes(&alice, &"alice-show".parse().unwrap(), &Default::default())
        .await
        .unwrap();
    assert_eq!(episodes.total, 2, "both commits landed");
    clock.advance(SignedDuration::from_mins(2));
    host.work().work_pass(&sender, &Renderer).await.unwrap();
    assert_eq!(published(&recorder), 0, "not in the index");
    host.work().repair_work(&sender, &Renderer).await.unwrap();
    assert_eq!(
        published(&recorder),
        2,
        "both found: the immediate and the scheduled one"
    );
    host.work().work_pass(&sender, &Renderer).await.unwrap();
    host.work().repair_work(&sender, &Renderer).await.unwrap();
    assert_eq!(published(&recorder), 2, "once each");
}

#[tokio::test]
async fn three_servers_share_the_work_and_none_repeats_another() {
    let store = podhost_core::open_store("memory://").unwrap().store;
    let clock = start();
    let recorder = Arc::new(Recorder::default());
    let servers: Vec<PodcastHost> = (0..3)
        .map(|_| server(store.clone(), clock.clone()))
        .collect();
    let senders: Vec<Sender> = (0..3)
        .map(|server| Sender {
            server,
            recorder: recorder.clone(),
        })
        .collect();
    // The period's repair is claimed while the store is empty.
    for (host, sender) in servers.iter().zip(&senders) {
        host.work().work_pass(sender, &Renderer).await.unwrap();
    }
    const ACCOUNTS: usize = 30;
    for n in 0..ACCOUNTS {
        let host = &servers[n % 3];
        let (who, feed) = subscribed(host, &format!("account{n}")).await;
        let mut new = NewEpisode::titled("Pilot");
        new.fields.is_public = Some(true);
        host.podcasts()
            .create_episode(&who, &feed, new)
            .await
            .unwrap();
    }
    assert_eq!(keys(&store, "work/deliver").await.len(), ACCOUNTS);
    let passes = futures::future::join_all(
        servers
            .iter()
            .zip(&senders)
            .map(|(host, sender)| host.work().work_pass(sender, &Renderer)),
    )
    .await;
    let delivered: Vec<usize> = passes.into_iter().map(|p| p.unwrap().delivered).collect();
    let sent = recorder.sent.lock().unwrap().clone();
    let mut ids: Vec<&String> = sent.iter().map(|(_, _, id)| id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(sent.len(), ACCOUNTS, "every event sent: {delivered:?}");
    assert_eq!(ids.len(), ACCOUNTS, "none twice");
    for server in 0..3 {
        let share = sent.iter().filter(|(s, _, _)| *s == server).count();
        assert!(
            share > 0,
            "server {server} did some of the work: {delivered:?}"
        );
    }
    assert!(keys(&store, "work/deliver").await.is_empty());
}

/// Every holding of a lease, as the servers' witness is told of it.
#[derive(Default)]
struct Holdings(Mutex<Vec<(String, String, std::time::Instant, std::time::Instant)>>);

impl podhost_core::LeaseWitness for Holdings {
    fn held(&self, lease: &str, holder: &str, from: std::time::Instant, until: std::time::Instant) {
        self.0
            .lock()
            .unwrap()
            .push((lease.into(), holder.into(), from, until));
    }
}

/// A sender whose first request stops the whole process for `pause` (SIGSTOP, a VM migrated:
/// nothing of it runs, its lease's renewals included), then waits until woken.
#[derive(Debug)]
struct Pausing {
    pause: std::time::Duration,
    entered: Arc<tokio::sync::Notify>,
    wake: tokio::sync::Mutex<Option<tokio::sync::oneshot::Receiver<()>>>,
    then: Sender,
}

#[async_trait::async_trait]
impl WebhookSender for Pausing {
    async fn send(&self, request: WebhookRequest) -> SendOutcome {
        if let Some(wake) = self.wake.lock().await.take() {
            self.entered.notify_one();
            // The test's runtime has one thread: this stops every task of both servers.
            std::thread::sleep(self.pause);
            let _ = wake.await;
        }
        self.then.send(request).await
    }
}

/// Two servers on the system's clock with 3 s leases, the first stopped in its delivery for
/// 4 s, the second taking the unit over meanwhile; the history of their holdings, checked.
async fn paused_past_its_lease(unchecked: bool) -> podhost_testkit::history::Report {
    use podhost_testkit::history::{Entry, Limits, Op, Outcome, check};
    let store = podhost_core::open_store("memory://").unwrap().store;
    let began = std::time::Instant::now();
    let holdings = Arc::new(Holdings::default());
    let recorder = Arc::new(Recorder::default());
    let host = || {
        let mut config = HostConfig::new("https://pod.example").unwrap();
        config.allow_private_webhooks = true;
        config.leases.hold = std::time::Duration::from_secs(3);
        config.leases.witness = Some(holdings.clone());
        config.leases.unchecked = unchecked;
        PodcastHost::with_clock(config, store.clone(), Arc::new(podhost_core::SystemClock))
    };
    let (one, two) = (host(), host());
    let sender = |server| Sender {
        server,
        recorder: recorder.clone(),
    };
    // The period's repair is claimed while the store is empty.
    two.work().work_pass(&sender(1), &Renderer).await.unwrap();
    let (who, feed) = subscribed(&one, "alice").await;
    let mut new = NewEpisode::titled("Pilot");
    new.fields.is_public = Some(true);
    one.podcasts()
        .create_episode(&who, &feed, new)
        .await
        .unwrap();

    let entered = Arc::new(tokio::sync::Notify::new());
    let (wake, paused) = tokio::sync::oneshot::channel();
    let pausing = Pausing {
        pause: std::time::Duration::from_secs(4),
        entered: entered.clone(),
        wake: tokio::sync::Mutex::new(Some(paused)),
        then: sender(0),
    };
    let (first, second) = tokio::join!(one.work().work_pass(&pausing, &Renderer), async {
        entered.notified().await;
        // Runs once the pause is over: the first server's lease ran out meanwhile.
        let pass = two.work().work_pass(&sender(1), &Renderer).await.unwrap();
        wake.send(()).unwrap();
        pass
    });
    first.unwrap();
    assert_eq!(second.delivered, 1, "the second server took the unit over");
    let micros = |at: std::time::Instant| at.saturating_duration_since(began).as_micros() as u64;
    let history: Vec<Entry> = holdings
        .0
        .lock()
        .unwrap()
        .iter()
        .map(|(lease, holder, from, until)| Entry {
            client: 0,
            op: Op::Lease {
                lease: lease.clone(),
                holder: holder.clone(),
            },
            sent_us: micros(*from),
            answered_us: Some(micros(*until)),
            stale_us: None,
            outcome: Outcome::Ok { value: None },
        })
        .collect();
    assert!(
        history.len() >= 2,
        "both servers held the unit: {history:?}"
    );
    check(&history, Limits::default())
}

#[tokio::test]
async fn a_server_paused_past_its_lease_stops_and_a_build_that_goes_on_is_caught_by_the_checker() {
    let checked = paused_past_its_lease(false).await;
    assert!(checked.holds(), "{checked}");
    // A build that does not check its lease after the pause: the history checker finds the
    // unit held by both servers at once.
    let broken = paused_past_its_lease(true).await;
    assert_eq!(broken.held_twice.len(), 1, "{broken}");
    assert!(!broken.holds());
}
