//! Property: random operation sequences from several `PodcastHost` instances sharing one store,
//! run concurrently, end in the state a sequential model predicts. No update is lost.
//!
//! The oracle: every operation's effect commutes with the others' at the level the model looks
//! at (a read-modify-write append to a shared episode uses `if_version` and retries on conflict,
//! so each append must survive whatever the interleaving), so the model needs no order.

use std::{collections::BTreeMap, sync::Arc};

use object_store::{ObjectStore, memory::InMemory};
use podhost_core::{
    EpisodeId, Error, FeedId, PodcastHost, Principal,
    model::{EpisodeListQuery, EpisodePatch, MediaListQuery, NewEpisode, NewFeed, PageRequest},
};
use podhost_testkit::{fixtures, test_host};
use proptest::prelude::*;

const HOSTS: usize = 3;
const SHARED: usize = 3;

#[derive(Clone, Debug)]
enum Op {
    /// Append a unique token to a shared episode's description (read, then update if unchanged).
    Append(usize),
    /// Create an episode of one's own.
    Create,
    /// Delete the n-th still existing own episode, if any.
    Delete(usize),
    /// Upload a media file with one of a few names (clashes get numbered).
    Upload(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..SHARED).prop_map(Op::Append),
        2 => Just(Op::Create),
        1 => (0..4usize).prop_map(Op::Delete),
        1 => (0..2usize).prop_map(Op::Upload),
    ]
}

const NAMES: [&str; 2] = ["talk.wav", "intro.wav"];

/// What one host did, for the model.
#[derive(Default, Debug)]
struct Done {
    appended: Vec<(usize, String)>,
    own_alive: Vec<String>,
    uploads: Vec<usize>,
}

async fn run_host(
    host: PodcastHost,
    who: Principal,
    feed: FeedId,
    shared: Vec<EpisodeId>,
    h: usize,
    ops: Vec<Op>,
) -> Done {
    let mut done = Done::default();
    let mut own: Vec<(EpisodeId, String)> = Vec::new();
    for (i, op) in ops.into_iter().enumerate() {
        match op {
            Op::Append(s) => {
                let token = format!("h{h}o{i}");
                loop {
                    let current = host
                        .podcasts()
                        .get_episode(&who, &feed, shared[s])
                        .await
                        .unwrap()
                        .episode;
                    let patch = EpisodePatch {
                        if_version: Some(current.version),
                        description: Some(format!("{} {token}", current.description)),
                        ..Default::default()
                    };
                    match host
                        .podcasts()
                        .update_episode(&who, &feed, shared[s], &patch)
                        .await
                    {
                        Ok(_) => break,
                        Err(Error::Conflict { .. }) => continue,
                        Err(e) => panic!("append failed: {e}"),
                    }
                }
                done.appended.push((s, token));
            }
            Op::Create => {
                let title = format!("own-h{h}o{i}");
                let new = NewEpisode::titled(title.clone());
                let id = host
                    .podcasts()
                    .create_episode(&who, &feed, new)
                    .await
                    .unwrap()
                    .episode
                    .id;
                own.push((id, title));
            }
            Op::Delete(n) => {
                if !own.is_empty() {
                    let (id, _) = own.remove(n % own.len());
                    host.podcasts()
                        .delete_episode(&who, &feed, id)
                        .await
                        .unwrap();
                }
            }
            Op::Upload(n) => {
                podhost_testkit::setup::upload(&host, &who, NAMES[n], fixtures::wav(0.05, 8000))
                    .await;
                done.uploads.push(n);
            }
        }
    }
    done.own_alive = own.into_iter().map(|(_, title)| title).collect();
    done
}

/// Where the hosts keep their state: each host gets a store client of its own on one shared
/// backend, as separate processes have.
type Stores = dyn Fn() -> Arc<dyn ObjectStore>;

fn check(ops: Vec<Vec<Op>>, stores: &Stores) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let (setup, _) = test_host(stores());
        let owner = podhost_testkit::setup::account(&setup, "alice").await;
        let feed = setup
            .podcasts()
            .create_feed(&owner, NewFeed::titled("show", "Show"))
            .await
            .unwrap()
            .feed
            .id;
        let mut shared = Vec::new();
        for s in 0..SHARED {
            let new = NewEpisode::titled(format!("shared {s}"));
            shared.push(
                setup
                    .podcasts()
                    .create_episode(&owner, &feed, new)
                    .await
                    .unwrap()
                    .episode
                    .id,
            );
        }
        let mut tasks = Vec::new();
        for (h, ops) in ops.into_iter().enumerate() {
            let (host, _) = test_host(stores());
            let who = host
                .access()
                .owner(&"alice".parse().unwrap())
                .await
                .unwrap();
            tasks.push(tokio::spawn(run_host(
                host,
                who,
                feed.clone(),
                shared.clone(),
                h,
                ops,
            )));
        }
        let mut done = Vec::new();
        for task in tasks {
            done.push(task.await.unwrap());
        }

        // The model, checked on a fresh host that reads only the store.
        let (fresh, _) = test_host(stores());
        let who = fresh
            .access()
            .owner(&"alice".parse().unwrap())
            .await
            .unwrap();
        for (s, id) in shared.iter().enumerate() {
            let description = fresh
                .podcasts()
                .get_episode(&who, &feed, *id)
                .await
                .unwrap()
                .episode
                .description;
            let mut got: Vec<&str> = description.split_whitespace().collect();
            let mut want: Vec<&str> = done
                .iter()
                .flat_map(|d| &d.appended)
                .filter(|(t, _)| *t == s)
                .map(|(_, tok)| tok.as_str())
                .collect();
            got.sort_unstable();
            want.sort_unstable();
            assert_eq!(got, want, "appends to shared episode {s}");
        }
        let all = PageRequest::new(Some(1), Some(500)).unwrap();
        let listed = fresh
            .podcasts()
            .list_episodes(
                &who,
                &feed,
                &EpisodeListQuery {
                    page: all,
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        let mut own_titles: Vec<String> = listed
            .items
            .into_iter()
            .map(|v| v.episode.title)
            .filter(|t| t.starts_with("own-"))
            .collect();
        let mut want: Vec<String> = done.iter().flat_map(|d| d.own_alive.clone()).collect();
        own_titles.sort();
        want.sort();
        assert_eq!(own_titles, want, "own episodes");
        let media = fresh
            .podcasts()
            .list_media(
                &who,
                &MediaListQuery {
                    page: all,
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        let mut per_name: BTreeMap<&str, usize> = BTreeMap::new();
        for m in &media.items {
            let stem = NAMES
                .iter()
                .find(|n| {
                    m.name == **n
                        || m.name
                            .starts_with(&format!("{} (", n.trim_end_matches(".wav")))
                })
                .expect("a known name");
            *per_name.entry(stem).or_default() += 1;
        }
        for (n, name) in NAMES.iter().enumerate() {
            let uploaded = done
                .iter()
                .flat_map(|d| &d.uploads)
                .filter(|u| **u == n)
                .count();
            assert_eq!(
                per_name.get(name).copied().unwrap_or(0),
                uploaded,
                "uploads named {name}"
            );
        }
        let mut names: Vec<_> = media.items.iter().map(|m| m.name.clone()).collect();
        names.dedup();
        assert_eq!(names.len(), media.items.len(), "names are unique");
    });
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn concurrent_hosts_end_where_the_model_says(ops in proptest::collection::vec(proptest::collection::vec(op(), 0..12), HOSTS)) {
        let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        check(ops, &move || store.clone());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// The same property on a real S3-compatible server (`podhost_testkit::s3`), each host with an S3 client of
    /// its own on one bucket.
    #[test]
    fn concurrent_hosts_on_s3_end_where_the_model_says(ops in proptest::collection::vec(proptest::collection::vec(op(), 0..12), HOSTS)) {
        let Some(server) = podhost_testkit::s3::S3Server::shared_or_skip("concurrent_hosts_on_s3") else {
            return Ok(());
        };
        let bucket = server.new_bucket();
        check(ops, &move || server.open(&bucket).store);
    }
}

/// With the default refresh interval, a host sees its own writes at once and another host's
/// within one second, without anyone telling it.
#[tokio::test]
async fn another_hosts_writes_are_seen_within_a_second() {
    use podhost_core::HostConfig;
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let config = HostConfig::new("https://pod.test").unwrap();
    assert!(config.catalog.refresh_interval <= std::time::Duration::from_secs(1));
    let writer = PodcastHost::new(config.clone(), store.clone());
    let reader = PodcastHost::new(config, store);
    let w = podhost_testkit::setup::account(&writer, "alice").await;
    let feed = writer
        .podcasts()
        .create_feed(&w, NewFeed::titled("show", "Show"))
        .await
        .unwrap()
        .feed
        .id;
    let r = reader
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    // A refusal is never decided on a stale state: a feed made by the writer a moment ago can
    // take the reader's episode at once.
    let shows = writer
        .podcasts()
        .create_feed(&w, NewFeed::titled("shows", "Shows"))
        .await
        .unwrap()
        .feed
        .id;
    reader
        .podcasts()
        .create_episode(&r, &shows, NewEpisode::titled("At once"))
        .await
        .expect("the reader looks again before refusing");
    // The reader has the account open (and so a state in memory) before the next write.
    assert_eq!(
        reader
            .podcasts()
            .get_feed(&r, &feed)
            .await
            .unwrap()
            .episode_count,
        0
    );
    let new = NewEpisode::titled("One");
    let id = writer
        .podcasts()
        .create_episode(&w, &feed, new)
        .await
        .unwrap()
        .episode
        .id;
    assert!(
        writer.podcasts().get_episode(&w, &feed, id).await.is_ok(),
        "its own write, at once"
    );
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    assert_eq!(
        reader
            .podcasts()
            .get_episode(&r, &feed, id)
            .await
            .unwrap()
            .episode
            .title,
        "One",
        "the other's, within a second"
    );
}

/// What one host wrote is found at once by another, whatever the refresh interval: a read that
/// finds nothing checks the store for newer entries before answering `NotFound` (a client
/// behind a load balancer reads what it wrote through another server). A real miss is still
/// `NotFound`.
#[tokio::test]
async fn what_another_host_wrote_is_found_at_once() {
    use podhost_core::HostConfig;
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let mut config = HostConfig::new("https://pod.test").unwrap();
    config.catalog.refresh_interval = std::time::Duration::from_secs(3600);
    let writer = PodcastHost::new(config.clone(), store.clone());
    let reader = PodcastHost::new(config, store);
    let w = podhost_testkit::setup::account(&writer, "alice").await;
    let r = reader
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    // The reader has the account open (and would not look again for an hour).
    assert!(
        reader
            .podcasts()
            .list_feeds(&r, PageRequest::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );

    let feed = writer
        .podcasts()
        .create_feed(&w, NewFeed::titled("show", "Show"))
        .await
        .unwrap()
        .feed
        .id;
    assert_eq!(
        reader.podcasts().get_feed(&r, &feed).await.unwrap().feed.id,
        feed
    );
    // Its public feed too, and a file just uploaded, by its public URL.
    assert!(matches!(
        reader.delivery().public_feed(&feed).await.unwrap(),
        podhost_core::publish::PublicFeed::Live(_)
    ));
    let file = podhost_testkit::setup::upload(&writer, &w, "a.wav", fixtures::wav(0.5, 8000)).await;
    assert_eq!(
        reader
            .delivery()
            .public_media("alice", file.blob.as_str())
            .await
            .unwrap()
            .size,
        file.size
    );
    let episode = writer
        .podcasts()
        .create_episode(&w, &feed, NewEpisode::titled("Pilot"))
        .await
        .unwrap()
        .episode
        .id;
    let got = reader
        .podcasts()
        .get_episode(&r, &feed, episode)
        .await
        .unwrap();
    assert_eq!(got.episode.title, "Pilot");
    let listed = reader
        .podcasts()
        .list_episodes(&r, &feed, &EpisodeListQuery::default())
        .await
        .unwrap();
    assert_eq!(listed.items.len(), 1);
    let missing = FeedId::new("nowhere").unwrap();
    assert!(matches!(
        reader.podcasts().get_feed(&r, &missing).await,
        Err(Error::NotFound { .. })
    ));
    // Many misses at once share their looks at the store, and every one is answered.
    let misses = (0..64).map(|_| {
        let (reader, r, missing) = (reader.clone(), r.clone(), missing.clone());
        tokio::spawn(async move { reader.podcasts().get_feed(&r, &missing).await.map(|_| ()) })
    });
    let answers = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        futures::future::join_all(misses),
    )
    .await
    .expect("no miss waits forever");
    for answer in answers {
        assert!(matches!(answer.unwrap(), Err(Error::NotFound { .. })));
    }
}
