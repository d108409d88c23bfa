//! Under a store that fails (errors, lost answers of writes that landed, delays), the catalog
//! never corrupts: every acknowledged write is there exactly once, and once the faults stop
//! everything works again.

use std::{collections::HashMap, sync::Arc, time::Duration};

use object_store::{ObjectStore, memory::InMemory};
use podhost_core::{
    Error,
    model::{EpisodeListQuery, EpisodePatch, NewEpisode, NewFeed, NewMedia, PageRequest},
};
use podhost_testkit::{FaultStore, Faults, body, fixtures, test_host};

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
