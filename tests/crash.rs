//! Crash safety: child processes write to one store (a local folder, or a bucket of a real
//! S3-compatible server) and report each acknowledged write; they are killed with SIGKILL at
//! random moments, round after round. After each round a fresh host must find every
//! acknowledged write, and nothing half-written.

use std::{
    collections::HashMap,
    io::{BufRead, BufReader},
    process::{Command, Stdio},
    sync::mpsc,
    time::Duration,
};

use podhost_core::{
    EpisodeId, FeedId, HostConfig, MediaId, PodcastHost,
    model::{EpisodeListQuery, MediaListQuery, PageRequest},
};
use rand::Rng;

const ROUNDS: usize = 12;
const WRITERS: usize = 2;

/// The store the writers and the checks open: its URL for the writers (`podhost` opens the same
/// way), the environment that URL needs, and how the checks open it.
struct Target {
    url: String,
    env: Vec<(&'static str, String)>,
    open: Box<dyn Fn() -> std::sync::Arc<dyn object_store::ObjectStore>>,
}

impl Target {
    fn folder(dir: &tempfile::TempDir) -> Target {
        let url = dir.path().to_str().unwrap().to_string();
        let path = url.clone();
        Target {
            url,
            env: Vec::new(),
            open: Box::new(move || podhost_core::open_store(&path).unwrap().store),
        }
    }

    /// A new bucket of the shared S3 server; `None` (the test skipped) when there is none.
    fn s3(test: &str) -> Option<Target> {
        let server = podhost_testkit::s3::S3Server::shared_or_skip(test)?;
        let bucket = server.new_bucket();
        Some(Target {
            url: format!("s3://{bucket}"),
            env: server.env(),
            open: Box::new(move || server.open(&bucket).store),
        })
    }
}

#[derive(Default)]
struct Acked {
    episodes: HashMap<EpisodeId, String>,
    edits: HashMap<EpisodeId, u64>,
    media: HashMap<MediaId, (String, u64)>,
    /// Episodes created with their uploaded audio (and cover).
    with_files: HashMap<EpisodeId, MediaId>,
}

/// Starts `WRITERS` crash writers on the target's store (with `mode`), lets them write for a random
/// while, kills them with SIGKILL, and records every write they acknowledged.
fn round(target: &Target, name: &str, mode: Option<&str>, acked: &mut Acked) {
    let mut rng = rand::rng();
    let (tx, rx) = mpsc::channel::<String>();
    let mut children = Vec::new();
    for w in 0..WRITERS {
        let mut command = Command::new(env!("CARGO_BIN_EXE_podhost-crash-writer"));
        command.args([&target.url, &format!("{name}w{w}")]);
        command.args(mode);
        command.envs(target.env.iter().map(|(k, v)| (k, v)));
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        children.push(child);
    }
    drop(tx);
    // Wait for every writer to start, then let them write for a random while.
    let mut ready = 0;
    while ready < WRITERS {
        let line = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("a writer starts");
        if line == "READY" {
            ready += 1;
        } else {
            record(acked, &line);
        }
    }
    std::thread::sleep(Duration::from_millis(rng.random_range(20..400)));
    for child in &mut children {
        child.kill().unwrap(); // SIGKILL
    }
    for mut child in children {
        child.wait().unwrap();
    }
    // Every line printed before the kill is an acknowledged write.
    for line in rx.iter() {
        record(acked, &line);
    }
}

#[test]
fn acknowledged_writes_survive_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    writes_survive_kill_9(&Target::folder(&dir));
}

#[test]
fn acknowledged_writes_survive_kill_9_on_s3() {
    if let Some(target) = Target::s3("acknowledged_writes_survive_kill_9_on_s3") {
        writes_survive_kill_9(&target);
    }
}

fn writes_survive_kill_9(target: &Target) {
    let mut acked = Acked::default();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    for r in 0..ROUNDS {
        round(target, &format!("r{r}"), None, &mut acked);
        runtime.block_on(check(target, &acked));
    }
    assert!(
        acked.episodes.len() > 20,
        "the writers wrote something: {}",
        acked.episodes.len()
    );
    assert!(!acked.media.is_empty());
}

/// An episode created with its uploaded audio and cover is one commit: killed at any moment,
/// the store holds the episode with both files, or none of them, and never a visible file of an
/// episode that does not exist.
#[test]
fn an_episode_with_its_uploads_is_whole_or_absent_after_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    episodes_whole_or_absent(&Target::folder(&dir));
}

#[test]
fn an_episode_with_its_uploads_is_whole_or_absent_after_kill_9_on_s3() {
    if let Some(target) = Target::s3("an_episode_with_its_uploads_is_whole_or_absent_on_s3") {
        episodes_whole_or_absent(&target);
    }
}

fn episodes_whole_or_absent(target: &Target) {
    let mut acked = Acked::default();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    for r in 0..ROUNDS {
        round(
            target,
            &format!("r{r}"),
            Some("episodes-with-files"),
            &mut acked,
        );
        runtime.block_on(check_with_files(target, &acked));
    }
    assert!(
        acked.with_files.len() > 10,
        "the writers wrote something: {}",
        acked.with_files.len()
    );
}

/// A fresh host on the store after a round, its owner, and the writers' feed.
async fn reopen(
    target: &Target,
) -> (
    std::sync::Arc<dyn object_store::ObjectStore>,
    PodcastHost,
    podhost_core::Principal,
    FeedId,
) {
    let store = (target.open)();
    let host = PodcastHost::new(
        HostConfig::new("https://crash.test").unwrap(),
        store.clone(),
    );
    let owner = host
        .access()
        .owner(&"crash".parse().unwrap())
        .await
        .unwrap();
    (store, host, owner, FeedId::new("crash").unwrap())
}

async fn check_with_files(target: &Target, acked: &Acked) {
    let (_, host, owner, feed) = reopen(target).await;
    for (id, media) in &acked.with_files {
        let episode = host
            .podcasts()
            .get_episode(&owner, &feed, *id)
            .await
            .unwrap_or_else(|e| panic!("acknowledged {id} lost: {e}"));
        assert_eq!(episode.media.map(|m| m.id), Some(*media), "{id}");
    }
    let query = EpisodeListQuery {
        page: PageRequest::new(Some(1), Some(500)).unwrap(),
        ..Default::default()
    };
    let mut used = std::collections::HashSet::new();
    for view in host
        .podcasts()
        .list_episodes(&owner, &feed, &query)
        .await
        .unwrap()
        .items
    {
        let id = view.episode.id;
        let media = view.media.unwrap_or_else(|| panic!("{id} lost its audio"));
        let cover = view.logo.unwrap_or_else(|| panic!("{id} lost its cover"));
        assert_eq!(media.name, format!("{}.wav", view.episode.title), "{id}");
        assert_eq!(cover.name, format!("{}.png", view.episode.title), "{id}");
        used.extend([media.id, cover.id]);
    }
    let query = MediaListQuery {
        page: PageRequest::new(Some(1), Some(500)).unwrap(),
        ..Default::default()
    };
    for media in host
        .podcasts()
        .list_media(&owner, &query)
        .await
        .unwrap()
        .items
    {
        assert!(
            used.contains(&media.id),
            "media {} ({}) is visible without its episode",
            media.id,
            media.name
        );
    }
}

fn record(acked: &mut Acked, line: &str) {
    let parts: Vec<&str> = line.splitn(5, ' ').collect();
    match parts.as_slice() {
        ["ACK", "episode", id, title] => {
            acked
                .episodes
                .insert(id.parse().unwrap(), title.to_string());
        }
        ["ACK", "edit", id, version] => {
            acked
                .edits
                .insert(id.parse().unwrap(), version.parse().unwrap());
        }
        ["ACK", "withfiles", id, media, _title] => {
            acked
                .with_files
                .insert(id.parse().unwrap(), media.parse().unwrap());
        }
        ["ACK", "media", id, name, len] => {
            acked.media.insert(
                id.parse().unwrap(),
                (name.to_string(), len.parse().unwrap()),
            );
        }
        _ => panic!("unexpected line from a writer: {line:?}"),
    }
}

async fn check(target: &Target, acked: &Acked) {
    let (store, host, owner, feed) = reopen(target).await;
    for (id, title) in &acked.episodes {
        let episode = host
            .podcasts()
            .get_episode(&owner, &feed, *id)
            .await
            .unwrap_or_else(|e| panic!("acknowledged {id} lost: {e}"));
        assert_eq!(&episode.episode.title, title);
    }
    for (id, version) in &acked.edits {
        let episode = host
            .podcasts()
            .get_episode(&owner, &feed, *id)
            .await
            .unwrap()
            .episode;
        assert!(episode.version >= *version, "edit of {id} lost");
    }
    use object_store::ObjectStoreExt;
    for (id, (name, len)) in &acked.media {
        let media = host
            .podcasts()
            .get_media(&owner, *id)
            .await
            .unwrap_or_else(|e| panic!("acknowledged media {id} lost: {e}"));
        assert_eq!((&media.name, media.size), (name, *len));
    }
    // Nothing half visible: every record's blob is whole.
    let query = MediaListQuery {
        page: PageRequest::new(Some(1), Some(500)).unwrap(),
        ..Default::default()
    };
    for media in host
        .podcasts()
        .list_media(&owner, &query)
        .await
        .unwrap()
        .items
    {
        let path = object_store::path::Path::from_iter([
            "accounts",
            "crash",
            "blobs",
            media.blob.as_str(),
        ]);
        let head = store
            .head(&path)
            .await
            .unwrap_or_else(|e| panic!("blob of media {} missing: {e}", media.id));
        assert_eq!(head.size, media.size);
    }
    let all = host
        .podcasts()
        .list_episodes(&owner, &feed, &EpisodeListQuery::default())
        .await
        .unwrap();
    assert!(all.total >= acked.episodes.len());
}
