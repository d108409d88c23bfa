//! Faults of a real distributed store: three hosts (each with its own S3 client, as three
//! `podhost serve` processes have) take writes and uploads on a SeaweedFS cluster of their own
//! while one of its processes is killed with SIGKILL and started again. Afterwards a fresh host
//! finds every acknowledged write, every acknowledged upload byte for byte, and nothing written
//! twice; while the process was down, every request ended (with an error or not) well within a
//! request's time, never hanging. What clients saw is printed per phase (run with
//! `--nocapture` to read it).

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use podhost_core::{
    EpisodeId, FeedId, HostConfig, MediaId, PodcastHost, Principal,
    model::{EpisodeListQuery, NewEpisode, NewFeed, NewMedia, PageRequest},
};
use podhost_testkit::{
    s3::S3Server,
    seaweedfs::{Role, SeaweedCluster},
};

const HOSTS: usize = 3;
/// Longer than any request may take: one that takes longer is a hang.
const REQUEST_LIMIT: Duration = Duration::from_secs(60);
const PHASES: [&str; 3] = ["before", "down", "after"];

#[derive(Default)]
struct Seen {
    episodes: HashMap<EpisodeId, String>,
    uploads: HashMap<MediaId, Vec<u8>>,
    /// Per phase: answers, errors by their first words, the slowest request, hangs.
    phases: [Phase; 3],
}

#[derive(Default)]
struct Phase {
    ok: usize,
    errors: BTreeMap<String, usize>,
    slowest: Duration,
    hangs: usize,
}

impl Phase {
    fn record(&mut self, took: Duration, outcome: Result<(), String>) {
        self.slowest = self.slowest.max(took);
        match outcome {
            Ok(()) => self.ok += 1,
            Err(e) => *self.errors.entry(e).or_default() += 1,
        }
    }
}

/// The first words of an error: enough to group them.
fn gist(e: &podhost_core::Error) -> String {
    let text = e.to_string();
    text.split_whitespace()
        .take(6)
        .collect::<Vec<_>>()
        .join(" ")
}

fn host_on(server: &S3Server, bucket: &str) -> PodcastHost {
    let mut config = HostConfig::new("https://faults.test").unwrap();
    config.catalog.refresh_interval = Duration::ZERO;
    PodcastHost::new(config, server.open(bucket).store)
}

async fn setup(host: &PodcastHost) -> (Principal, FeedId) {
    host.access().create_account("faults").await.unwrap();
    let owner = host
        .access()
        .owner(&"faults".parse().unwrap())
        .await
        .unwrap();
    let feed = FeedId::new("faults").unwrap();
    host.podcasts()
        .create_feed(&owner, NewFeed::titled("faults", "Faults"))
        .await
        .unwrap();
    (owner, feed)
}

/// Writes from `HOSTS` hosts until `stop`: an episode, and every fourth time an upload of
/// 48 KiB of random bytes; records what was acknowledged and what each request saw.
async fn load(
    hosts: Arc<Vec<PodcastHost>>,
    owner: Principal,
    feed: FeedId,
    phase: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    seen: Arc<Mutex<Seen>>,
) {
    let mut tasks = Vec::new();
    for h in 0..HOSTS {
        let (hosts, owner, feed) = (hosts.clone(), owner.clone(), feed.clone());
        let (phase, stop, seen) = (phase.clone(), stop.clone(), seen.clone());
        tasks.push(tokio::spawn(async move {
            let host = &hosts[h];
            for i in 0u64.. {
                if stop.load(Ordering::Acquire) {
                    break;
                }
                let at = phase.load(Ordering::Acquire);
                let started = Instant::now();
                let upload = i % 4 == 3;
                let bytes: Vec<u8> = (0..48 * 1024).map(|_| rand::random::<u8>()).collect();
                let outcome = if upload {
                    let call = host.podcasts().upload_media(
                        &owner,
                        NewMedia {
                            name: format!("h{h}-{i}.bin"),
                            category: None,
                        },
                        podhost_testkit::body(bytes.clone(), 16 * 1024),
                    );
                    match tokio::time::timeout(REQUEST_LIMIT, call).await {
                        Ok(Ok(media)) => {
                            seen.lock().unwrap().uploads.insert(media.id, bytes);
                            Some(Ok(()))
                        }
                        Ok(Err(e)) => Some(Err(gist(&e))),
                        Err(_) => None,
                    }
                } else {
                    let title = format!("h{h}-{i}");
                    let call =
                        host.podcasts()
                            .create_episode(&owner, &feed, NewEpisode::titled(&title));
                    match tokio::time::timeout(REQUEST_LIMIT, call).await {
                        Ok(Ok(view)) => {
                            seen.lock().unwrap().episodes.insert(view.episode.id, title);
                            Some(Ok(()))
                        }
                        Ok(Err(e)) => Some(Err(gist(&e))),
                        Err(_) => None,
                    }
                };
                let took = started.elapsed();
                {
                    let mut seen = seen.lock().unwrap();
                    match outcome {
                        Some(outcome) => seen.phases[at].record(took, outcome),
                        None => seen.phases[at].hangs += 1,
                    }
                }
                if took < Duration::from_millis(20) {
                    tokio::time::sleep(Duration::from_millis(20) - took).await;
                }
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
}

/// One fault at a time: two clusters of five processes and six hosts on two cores would
/// measure the machine's load, not the fault.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Kills `role` after a while of load, starts it again, and checks what the hosts wrote.
async fn kill_and_restart(role: Role, down: Duration) {
    let _alone = ONE_AT_A_TIME.lock().await;
    let Some(server) = podhost_testkit::or_skip(
        &format!("seaweedfs_faults {role:?}"),
        "SeaweedFS (weed)",
        S3Server::own_seaweedfs(),
    ) else {
        return;
    };
    let cluster: &SeaweedCluster = server.seaweedfs().unwrap();
    let bucket = server.new_bucket();
    let hosts: Arc<Vec<PodcastHost>> =
        Arc::new((0..HOSTS).map(|_| host_on(&server, &bucket)).collect());
    let (owner, feed) = setup(&hosts[0]).await;
    for host in hosts.iter() {
        host.check_store().await.unwrap();
    }
    let phase = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let seen = Arc::new(Mutex::new(Seen::default()));
    let writing = tokio::spawn(load(
        hosts.clone(),
        owner.clone(),
        feed.clone(),
        phase.clone(),
        stop.clone(),
        seen.clone(),
    ));
    tokio::time::sleep(Duration::from_secs(3)).await;
    phase.store(1, Ordering::Release);
    cluster.kill(role);
    // What `/readyz` answers while it is down: the readiness probe, asked a second in.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let asked = Instant::now();
    let readiness_down = tokio::time::timeout(Duration::from_secs(10), hosts[1].readiness()).await;
    let readiness_took = asked.elapsed();
    tokio::time::sleep(down.saturating_sub(Duration::from_secs(1) + readiness_took)).await;
    cluster.restart(role).unwrap();
    let back = Instant::now();
    tokio::task::block_in_place(|| cluster.wait_until_it_stores(Duration::from_secs(90))).unwrap();
    phase.store(2, Ordering::Release);
    let recovered = back.elapsed();
    // The hosts recover by themselves: ready again, with nothing done to them.
    let mut ready_again = None;
    while back.elapsed() < Duration::from_secs(60) {
        if hosts[1].readiness().await.is_ok() {
            ready_again = Some(back.elapsed());
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_secs(4)).await;
    stop.store(true, Ordering::Release);
    writing.await.unwrap();

    let seen = std::mem::take(&mut *seen.lock().unwrap());
    println!(
        "{role:?} killed with SIGKILL for {down:?}; the cluster stored again {recovered:?} after its restart"
    );
    println!(
        "  readiness while down: {readiness_down:?} in {readiness_took:?}; ready again {ready_again:?} after the restart"
    );
    for (name, phase) in PHASES.iter().zip(&seen.phases) {
        println!(
            "  {name}: {} answered, {} errors {:?}, slowest request {:?}, {} hung past {REQUEST_LIMIT:?}",
            phase.ok,
            phase.errors.values().sum::<usize>(),
            phase.errors,
            phase.slowest,
            phase.hangs
        );
    }

    // A fresh host, as a restarted server, finds everything acknowledged.
    let fresh = host_on(&server, &bucket);
    let owner = fresh
        .access()
        .owner(&"faults".parse().unwrap())
        .await
        .unwrap();
    let mut lost = 0;
    for (id, title) in &seen.episodes {
        match fresh.podcasts().get_episode(&owner, &feed, *id).await {
            Ok(view) => assert_eq!(&view.episode.title, title, "{id}"),
            Err(e) => {
                eprintln!("acknowledged {id} ({title}) lost: {e}");
                lost += 1;
            }
        }
    }
    let store = server.open(&bucket).store;
    let mut uploads_lost = 0;
    for (id, bytes) in &seen.uploads {
        let media = match fresh.podcasts().get_media(&owner, *id).await {
            Ok(media) => media,
            Err(e) => {
                eprintln!("acknowledged upload {id} lost: {e}");
                uploads_lost += 1;
                continue;
            }
        };
        let path = object_store::path::Path::from_iter([
            "accounts",
            "faults",
            "blobs",
            media.blob.as_str(),
        ]);
        use object_store::ObjectStoreExt;
        let stored = store.get(&path).await.unwrap().bytes().await.unwrap();
        assert!(
            stored.as_ref() == bytes.as_slice(),
            "upload {id} reads back other bytes"
        );
    }
    // Nothing twice: each title was sent once, so it is there at most once.
    let mut titles = HashSet::new();
    let mut twice = 0;
    let mut page = 1;
    loop {
        let query = EpisodeListQuery {
            page: PageRequest::new(Some(page), Some(500)).unwrap(),
            ..Default::default()
        };
        let listed = fresh
            .podcasts()
            .list_episodes(&owner, &feed, &query)
            .await
            .unwrap();
        if listed.items.is_empty() {
            break;
        }
        for view in listed.items {
            if !titles.insert(view.episode.title.clone()) {
                twice += 1;
            }
        }
        page += 1;
    }
    println!(
        "  acknowledged: {} episodes, {} uploads; lost: {lost} episodes, {uploads_lost} uploads; written twice: {twice}",
        seen.episodes.len(),
        seen.uploads.len()
    );
    assert_eq!((lost, uploads_lost, twice), (0, 0, 0));
    let hangs: usize = seen.phases.iter().map(|p| p.hangs).sum();
    assert_eq!(hangs, 0, "requests hung past {REQUEST_LIMIT:?}");
    assert!(
        readiness_down.is_ok(),
        "the readiness probe answers while {role:?} is down"
    );
    assert!(
        ready_again.is_some(),
        "the hosts are ready again by themselves"
    );
    assert!(
        seen.phases[0].ok > 0 && seen.phases[2].ok > 0,
        "the hosts wrote before and after"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_volume_server_killed_with_sigkill_loses_nothing_acknowledged() {
    kill_and_restart(Role::Volume(1), Duration::from_secs(8)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_filer_killed_with_sigkill_loses_nothing_and_the_hosts_recover() {
    kill_and_restart(Role::Filer, Duration::from_secs(5)).await;
}
