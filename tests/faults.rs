//! Under a store that fails (errors, lost answers of writes that landed, delays), the catalog
//! never corrupts: every acknowledged write is there exactly once, and once the faults stop
//! everything works again.

use std::{collections::HashMap, sync::Arc, time::Duration};

use object_store::{ObjectStore, memory::InMemory};
use podhost_core::{
    Error,
    model::{EpisodeListQuery, EpisodePatch, NewEpisode, NewFeed, NewMedia, PageRequest},
};
use podhost_testkit::{FaultStore, Faults, body, fixtures, history, test_host};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_lose_nothing_acknowledged_and_duplicate_nothing() {
    let inner: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let faulty = FaultStore::new(inner.clone());
    let (host, _) = test_host(Arc::new(faulty.clone()));
    let (who, feed) = podhost_testkit::setup::account_with_podcast(&host, "alice", "show").await;

    faulty.set(Faults {
        retried_put: 0.1,
        error: 0.15,
        ambiguous: 0.15,
        delay: Some(Duration::from_millis(1)),
        ..Faults::default()
    });
    let mut acked_titles = Vec::new();
    let mut acked_edits = HashMap::new();
    let mut failures = 0;
    for i in 0..150 {
        let title = format!("ep {i}");
        let new = NewEpisode::titled(title.clone());
        match host.podcasts().create_episode(&who, &feed, new).await {
            Ok(view) => {
                acked_titles.push(title);
                if i % 3 == 0 {
                    let patch = EpisodePatch {
                        subtitle: Some(format!("edit {i}")),
                        ..Default::default()
                    };
                    match host
                        .podcasts()
                        .update_episode(&who, &feed, view.episode.id, &patch)
                        .await
                    {
                        Ok(edited) => {
                            acked_edits.insert(view.episode.id, edited.episode.subtitle);
                        }
                        Err(Error::Storage { .. }) => failures += 1,
                        Err(e) => panic!("unexpected error: {e}"),
                    }
                }
            }
            Err(Error::Storage { .. }) => failures += 1,
            Err(e) => panic!("unexpected error: {e}"),
        }
        if i % 10 == 0 {
            let upload = host
                .podcasts()
                .upload_media(
                    &who,
                    NewMedia {
                        name: format!("m{i}.wav"),
                        category: None,
                    },
                    body(fixtures::wav(0.05, 8000), 800),
                )
                .await;
            assert!(
                matches!(upload, Ok(_) | Err(Error::Storage { .. })),
                "{upload:?}"
            );
        }
    }
    assert!(
        faulty.counts().injected > 20,
        "faults were injected: {:?}",
        faulty.counts()
    );
    assert!(
        acked_titles.len() > 50,
        "most writes went through: {}",
        acked_titles.len()
    );

    faulty.heal();
    // The faulty host recovers: it writes again and agrees with a fresh reader.
    let new = NewEpisode::titled("after");
    host.podcasts()
        .create_episode(&who, &feed, new)
        .await
        .unwrap();
    acked_titles.push("after".into());

    let (fresh, _) = test_host(inner);
    let fresh_who = fresh
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    let all = EpisodeListQuery {
        page: PageRequest::new(Some(1), Some(500)).unwrap(),
        ..Default::default()
    };
    let listed = fresh
        .podcasts()
        .list_episodes(&fresh_who, &feed, &all)
        .await
        .unwrap();
    let mut count: HashMap<String, usize> = HashMap::new();
    for view in &listed.items {
        *count.entry(view.episode.title.clone()).or_default() += 1;
    }
    for title in &acked_titles {
        let copies: Vec<_> = listed
            .items
            .iter()
            .filter(|v| &v.episode.title == title)
            .map(|v| (v.episode.id, v.episode.version, v.episode.created))
            .collect();
        assert_eq!(copies.len(), 1, "{title} is there exactly once: {copies:?}");
    }
    assert!(
        count.values().all(|n| *n == 1),
        "no write was applied twice"
    );
    for (id, subtitle) in acked_edits {
        assert_eq!(
            fresh
                .podcasts()
                .get_episode(&fresh_who, &feed, id)
                .await
                .unwrap()
                .episode
                .subtitle,
            subtitle
        );
    }
    let mine = host
        .podcasts()
        .list_episodes(&who, &feed, &all)
        .await
        .unwrap();
    assert_eq!(
        mine.total, listed.total,
        "the faulty host's memory agrees with the store"
    );
    eprintln!(
        "{failures} operations failed cleanly under {:?}",
        faulty.counts()
    );
}

/// A store that lets a second create of the same object through (an S3-compatible server that
/// ignores `If-None-Match: *`) is refused with a message saying why; a store that honours
/// conditional writes passes and keeps nothing of the check.
#[tokio::test]
async fn a_store_without_conditional_writes_is_refused() {
    let inner: Arc<dyn ObjectStore> = Arc::new(object_store::memory::InMemory::new());
    let faulty = FaultStore::new(inner.clone());
    let store: Arc<dyn ObjectStore> = Arc::new(faulty.clone());
    podhost_core::check_conditional_writes(&store)
        .await
        .expect("memory honours conditional writes");
    faulty.set(Faults {
        ignore_conditional_writes: true,
        ..Faults::default()
    });
    let refused = podhost_core::check_conditional_writes(&store).await;
    match refused {
        Err(Error::Invalid(fields)) => {
            let message = format!("{fields:?}");
            assert!(message.contains("conditional writes"), "{message}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    use futures::TryStreamExt;
    let left: Vec<_> = inner.list(None).try_collect().await.unwrap();
    assert!(left.is_empty(), "the check leaves nothing: {left:?}");
}

/// Writing a snapshot holds up no writer: while the store holds the snapshot's parts, edits
/// commit and read back; once the parts land, another process opens the account from that
/// snapshot and sees every edit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_being_written_holds_up_no_writer() {
    use podhost_testkit::{Call, test_config, test_host_with};
    let faulty = FaultStore::new(Arc::new(InMemory::new()));
    let held =
        faulty.gate(|call, path| call == Call::Put && path.as_ref().contains("/snapshots/parts/"));
    let mut config = test_config();
    config.catalog.snapshot_every = 8;
    config.catalog.segment_every = 4;
    let (host, _) = test_host_with(Arc::new(faulty.clone()), config.clone());
    host.access().create_account("alice").await.unwrap();
    let account = "alice".parse().unwrap();
    let who = host.access().owner(&account).await.unwrap();
    let feed = host
        .podcasts()
        .create_feed(&who, NewFeed::titled("show", "Show"))
        .await
        .unwrap()
        .feed
        .id;
    let mut ids = Vec::new();
    for i in 0..8 {
        let new = NewEpisode::titled(format!("ep {i}"));
        ids.push(
            host.podcasts()
                .create_episode(&who, &feed, new)
                .await
                .unwrap()
                .episode
                .id,
        );
    }
    tokio::time::timeout(Duration::from_secs(10), held.reached())
        .await
        .expect("a snapshot was started and is held at the store");

    for (i, id) in ids.iter().cycle().take(40).enumerate() {
        let patch = EpisodePatch {
            subtitle: Some(format!("edit {i}")),
            ..Default::default()
        };
        tokio::time::timeout(
            Duration::from_secs(10),
            host.podcasts().update_episode(&who, &feed, *id, &patch),
        )
        .await
        .expect("an edit commits while the snapshot is held")
        .unwrap();
    }
    assert!(held.is_holding(), "the snapshot is still held");
    let subtitles = |host: podhost_core::PodcastHost| {
        let (who, feed, ids) = (who.clone(), feed.clone(), ids.clone());
        async move {
            let mut subtitles = Vec::new();
            for id in ids {
                let view = host.podcasts().get_episode(&who, &feed, id).await.unwrap();
                subtitles.push(view.episode.subtitle);
            }
            subtitles
        }
    };
    let expected: Vec<String> = (32..40).map(|i| format!("edit {i}")).collect();
    assert_eq!(subtitles(host.clone()).await, expected);

    held.open();
    host.settle(&account).await.unwrap();
    let (other, _) = test_host_with(Arc::new(faulty.clone()), config);
    let stats = other.open_stats(&account).await.unwrap();
    assert!(stats.snapshot_seq > 0, "opened from a snapshot: {stats:?}");
    assert_eq!(subtitles(other).await, expected);
}

/// What a client of the core was answered, as the history records it: a refusal that says
/// nothing was done is `Failed`; a store failure or timeout may have taken effect: `Unknown`.
fn outcome_of<T>(result: &Result<T, Error>, read: Option<Option<String>>) -> history::Outcome {
    match result {
        Ok(_) => history::Outcome::Ok {
            value: read.flatten(),
        },
        Err(Error::NotFound { .. }) if read.is_some() => history::Outcome::Ok { value: None },
        Err(e @ (Error::Storage { .. } | Error::Unavailable { .. })) => {
            history::Outcome::Unknown { why: e.to_string() }
        }
        Err(e) => history::Outcome::Failed { why: e.to_string() },
    }
}

/// Four clients on two hosts sharing a store under `faults` create, rename and read episodes,
/// each operation recorded; then, with the faults healed, a fresh host reads every episode and
/// lists the podcast. The history's check.
async fn history_under(faults: Faults) -> history::Report {
    let inner: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let faulty = FaultStore::new(inner.clone());
    let (a, _) = test_host(Arc::new(faulty.clone()));
    let (b, _) = test_host(Arc::new(faulty.clone()));
    let (who, feed) = podhost_testkit::setup::account_with_podcast(&a, "alice", "show").await;
    let file = tempfile::NamedTempFile::new().unwrap();
    let recorder = Arc::new(history::Recorder::new(Box::new(file.reopen().unwrap())));
    faulty.set(faults);
    let known = Arc::new(std::sync::Mutex::new(Vec::new()));
    let clients = (0..4u64).map(|client| {
        let host = if client % 2 == 0 {
            a.clone()
        } else {
            b.clone()
        };
        let (who, feed, recorder, known) =
            (who.clone(), feed.clone(), recorder.clone(), known.clone());
        tokio::spawn(async move {
            let mut own = Vec::new();
            for n in 0..40 {
                let sent_us = recorder.now_us();
                let context = podhost_core::RequestContext::new(None);
                let roll = rand::random::<u32>() % 10;
                let (op, outcome) = if own.is_empty() || roll < 3 {
                    let title = format!("c{client}-{n}");
                    let made = host
                        .podcasts()
                        .create_episode(&who, &feed, NewEpisode::titled(title.clone()))
                        .await;
                    // A creation that failed names no record: were it to land anyway, nothing
                    // read here would show it.
                    let Ok(view) = &made else { continue };
                    own.push(view.episode.id);
                    known.lock().unwrap().push(view.episode.id);
                    let record = format!("episode/{}", view.episode.id);
                    (
                        history::Op::Write {
                            record,
                            value: title,
                        },
                        outcome_of(&made, None),
                    )
                } else {
                    let id = own[rand::random::<u32>() as usize % own.len()];
                    let record = format!("episode/{id}");
                    if roll < 7 {
                        let title = format!("c{client}-{n}-renamed");
                        let patch = EpisodePatch {
                            title: Some(title.clone()),
                            ..Default::default()
                        };
                        let renamed = host
                            .podcasts()
                            .update_episode(&who, &feed, id, &patch)
                            .await;
                        (
                            history::Op::Write {
                                record,
                                value: title,
                            },
                            outcome_of(&renamed, None),
                        )
                    } else {
                        let got = context
                            .clone()
                            .run(host.podcasts().get_episode(&who, &feed, id))
                            .await;
                        let seen = got.as_ref().ok().map(|v| v.episode.title.clone());
                        (history::Op::Read { record }, outcome_of(&got, Some(seen)))
                    }
                };
                let answered_us = match outcome {
                    history::Outcome::Unknown { .. } => None,
                    _ => Some(recorder.now_us()),
                };
                // A read answered from what the host held says how old it may be.
                let stale_us = context.stale_for().map(|age| age.as_micros() as u64);
                recorder.record(&history::Entry {
                    client,
                    op,
                    sent_us,
                    answered_us,
                    stale_us,
                    outcome,
                });
            }
        })
    });
    for client in clients.collect::<Vec<_>>() {
        client.await.unwrap();
    }
    faulty.heal();
    // A fresh host, after the faults: every episode read, the podcast listed.
    let (fresh, _) = test_host(inner);
    let fresh_who = fresh
        .access()
        .owner(&"alice".parse().unwrap())
        .await
        .unwrap();
    let ids = known.lock().unwrap().clone();
    for id in ids {
        let sent_us = recorder.now_us();
        let got = fresh.podcasts().get_episode(&fresh_who, &feed, id).await;
        let seen = got.as_ref().ok().map(|v| v.episode.title.clone());
        let outcome = outcome_of(&got, Some(seen));
        let op = history::Op::Read {
            record: format!("episode/{id}"),
        };
        let answered_us = Some(recorder.now_us());
        recorder.record(&history::Entry {
            client: 99,
            op,
            sent_us,
            answered_us,
            stale_us: None,
            outcome,
        });
    }
    let all = EpisodeListQuery {
        page: PageRequest::new(Some(1), Some(500)).unwrap(),
        ..Default::default()
    };
    let listed = fresh
        .podcasts()
        .list_episodes(&fresh_who, &feed, &all)
        .await
        .unwrap();
    let now = recorder.now_us();
    recorder.record(&history::Entry {
        client: 99,
        op: history::Op::List {
            container: "show".into(),
            records: listed
                .items
                .iter()
                .map(|v| (format!("episode/{}", v.episode.id), v.episode.title.clone()))
                .collect(),
        },
        sent_us: now,
        answered_us: Some(now),
        stale_us: None,
        outcome: history::Outcome::Ok { value: None },
    });
    recorder.flush();
    let entries = history::load(std::io::BufReader::new(file.reopen().unwrap())).unwrap();
    history::check(&entries, history::Limits::default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_history_checker_holds_podhost_to_its_promises_and_catches_an_early_acknowledgement() {
    // Failures and lost answers: podhost keeps every promise.
    let honest = history_under(Faults {
        error: 0.3,
        ambiguous: 0.3,
        ..Faults::default()
    })
    .await;
    assert!(honest.holds(), "{honest}");
    assert!(honest.acknowledged > 50, "{honest}");
    eprintln!("honest store, failing and losing answers:\n{honest}");
    // A store (or a build) that acknowledges a write before it is durable: the checker finds
    // what was lost.
    let broken = history_under(Faults {
        lost_write: 0.2,
        ..Faults::default()
    })
    .await;
    assert!(
        !broken.holds(),
        "the checker must refuse this history: {broken}"
    );
    assert!(
        !broken.lost.is_empty() || !broken.not_linearizable.is_empty(),
        "{broken}"
    );
    eprintln!("writes acknowledged before they are durable:\n{broken}");
}
