//! Crash safety: child processes write to one local-folder store and report each acknowledged
//! write; they are killed with SIGKILL at random moments, round after round. After each round a
//! fresh host must find every acknowledged write, and nothing half-written.

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

#[derive(Default)]
struct Acked {
    episodes: HashMap<EpisodeId, String>,
    edits: HashMap<EpisodeId, u64>,
    media: HashMap<MediaId, (String, u64)>,
}

#[test]
fn acknowledged_writes_survive_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().to_str().unwrap().to_string();
    let mut acked = Acked::default();
    let mut rng = rand::rng();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    for round in 0..ROUNDS {
        let (tx, rx) = mpsc::channel::<String>();
        let mut children = Vec::new();
        for w in 0..WRITERS {
            let mut child = Command::new(env!("CARGO_BIN_EXE_podhost-crash-writer"))
                .args([&store_dir, &format!("r{round}w{w}")])
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
        // Wait for both writers to start, then let them write for a random while.
        let mut ready = 0;
        while ready < WRITERS {
            let line = rx
                .recv_timeout(Duration::from_secs(60))
                .expect("a writer starts");
            if line == "READY" {
                ready += 1;
            } else {
                record(&mut acked, &line);
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
            record(&mut acked, &line);
        }
        runtime.block_on(check(&store_dir, &acked));
    }
    assert!(
        acked.episodes.len() > 20,
        "the writers wrote something: {}",
        acked.episodes.len()
    );
    assert!(!acked.media.is_empty());
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
        ["ACK", "media", id, name, len] => {
            acked.media.insert(
                id.parse().unwrap(),
                (name.to_string(), len.parse().unwrap()),
            );
        }
        _ => panic!("unexpected line from a writer: {line:?}"),
    }
}

async fn check(store_dir: &str, acked: &Acked) {
    let opened = podhost_core::open_store(store_dir).unwrap();
    let host = PodcastHost::new(
        HostConfig::new("https://crash.test").unwrap(),
        opened.store.clone(),
    );
    let owner = host.owner(&"crash".parse().unwrap()).await.unwrap();
    let feed = FeedId::new("crash").unwrap();
    for (id, title) in &acked.episodes {
        let episode = host
            .get_episode(&owner, &feed, *id)
            .await
            .unwrap_or_else(|e| panic!("acknowledged {id} lost: {e}"));
        assert_eq!(&episode.episode.title, title);
    }
    for (id, version) in &acked.edits {
        let episode = host.get_episode(&owner, &feed, *id).await.unwrap().episode;
        assert!(episode.version >= *version, "edit of {id} lost");
    }
    use object_store::ObjectStoreExt;
    for (id, (name, len)) in &acked.media {
        let media = host
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
    for media in host.list_media(&owner, &query).await.unwrap().items {
        let path = object_store::path::Path::from_iter([
            "accounts",
            "crash",
            "blobs",
            media.blob.as_str(),
        ]);
        let head = opened
            .store
            .head(&path)
            .await
            .unwrap_or_else(|e| panic!("blob of media {} missing: {e}", media.id));
        assert_eq!(head.size, media.size);
    }
    let all = host
        .list_episodes(&owner, &feed, &EpisodeListQuery::default())
        .await
        .unwrap();
    assert!(all.total >= acked.episodes.len());
}
