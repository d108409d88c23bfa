//! Catalog engine tests on a counter journal: races, snapshots, bounded opens.

use std::{collections::BTreeSet, sync::Arc, time::Duration};

use object_store::{ObjectStore, memory::InMemory, path::Path};
use serde::{Deserialize, Serialize};

use super::*;
use crate::store::layout;

/// A set of numbers; a change adds one. Lost updates show up as missing numbers.
#[derive(Clone, Default, Serialize, Deserialize)]
struct Numbers {
    seen: BTreeSet<u64>,
    applied: u64,
}

/// A part of [`Numbers`]: the count, or the numbers of one hundred.
#[derive(Serialize, Deserialize)]
enum NumbersPart {
    Applied(u64),
    Hundred(Vec<u64>),
}

impl Journal for Numbers {
    type Change = u64;
    type Part = NumbersPart;
    fn apply(&mut self, n: &u64) {
        self.seen.insert(*n);
        self.applied += 1;
    }
    fn into_parts(self) -> Vec<NumbersPart> {
        let mut hundreds: std::collections::BTreeMap<u64, Vec<u64>> = Default::default();
        for n in self.seen {
            hundreds.entry(n / 100).or_default().push(n);
        }
        let mut parts = vec![NumbersPart::Applied(self.applied)];
        parts.extend(hundreds.into_values().map(NumbersPart::Hundred));
        parts
    }
    fn from_parts(parts: Vec<NumbersPart>) -> std::result::Result<Self, String> {
        let mut numbers = Numbers::default();
        for part in parts {
            match part {
                NumbersPart::Applied(n) => numbers.applied = n,
                NumbersPart::Hundred(ns) => numbers.seen.extend(ns),
            }
        }
        Ok(numbers)
    }
}

fn config(snapshot_every: u64) -> CatalogConfig {
    CatalogConfig {
        refresh_interval: Duration::from_millis(0),
        snapshot_every,
        // Segments are tested on their own (`segments_...`): here, none get in the way.
        segment_every: 1_000_000,
        keep_unused_parts: Duration::from_secs(3600),
        max_attempts: 6,
        ..CatalogConfig::default()
    }
}

async fn create(store: &Arc<dyn ObjectStore>, snapshot_every: u64) -> Catalog<Numbers> {
    create_with(store, config(snapshot_every)).await
}

async fn create_with(store: &Arc<dyn ObjectStore>, config: CatalogConfig) -> Catalog<Numbers> {
    Catalog::create(
        store.clone(),
        Path::from("p"),
        config,
        Timestamp::UNIX_EPOCH,
        vec![0],
    )
    .await
    .unwrap()
}

async fn open(store: &Arc<dyn ObjectStore>, snapshot_every: u64) -> (Catalog<Numbers>, OpenStats) {
    open_with(store, config(snapshot_every)).await
}

async fn open_with(
    store: &Arc<dyn ObjectStore>,
    config: CatalogConfig,
) -> (Catalog<Numbers>, OpenStats) {
    Catalog::open(store.clone(), Path::from("p"), config)
        .await
        .unwrap()
        .unwrap()
}

#[tokio::test]
async fn creating_twice_is_a_conflict_and_opening_nothing_is_none() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    assert!(
        Catalog::<Numbers>::open(store.clone(), Path::from("p"), config(10))
            .await
            .unwrap()
            .is_none()
    );
    create(&store, 10).await;
    let again = Catalog::<Numbers>::create(
        store.clone(),
        Path::from("p"),
        config(10),
        Timestamp::UNIX_EPOCH,
        vec![0],
    )
    .await;
    assert!(matches!(again, Err(Error::Conflict { .. })));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_writers_on_one_store_lose_nothing() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let first = Arc::new(create(&store, 1000).await);
    let mut catalogs = vec![first];
    for _ in 0..3 {
        catalogs.push(Arc::new(open(&store, 1000).await.0));
    }
    let mut tasks = Vec::new();
    for (w, catalog) in catalogs.iter().enumerate() {
        let catalog = catalog.clone();
        tasks.push(tokio::spawn(async move {
            for i in 0..50u64 {
                let n = 1 + w as u64 * 1000 + i;
                catalog
                    .commit_by(Timestamp::UNIX_EPOCH, None, |_| Ok((vec![n], ())))
                    .await
                    .unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let (reopened, _) = open(&store, 1000).await;
    let (seen, applied) = reopened.read(|s| (s.seen.len(), s.applied)).await;
    assert_eq!(seen, 201, "every number of every writer is there");
    assert_eq!(applied, 201, "and each exactly once");
    for catalog in &catalogs {
        catalog.catch_up().await.unwrap();
        assert_eq!(catalog.read(|s| s.applied).await, 201);
    }
}

#[tokio::test]
async fn a_decision_is_made_again_on_the_newer_state() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let a = create(&store, 1000).await;
    let (b, _) = open(&store, 1000).await;
    a.commit_by(Timestamp::UNIX_EPOCH, None, |_| Ok((vec![7], ())))
        .await
        .unwrap();
    // b has not seen 7 yet; its rule "add 7 unless present" must see it before writing.
    let mut runs = 0;
    let added = b
        .commit_by(Timestamp::UNIX_EPOCH, None, |s| {
            runs += 1;
            if s.seen.contains(&7) {
                Ok((vec![], false))
            } else {
                Ok((vec![7], true))
            }
        })
        .await
        .unwrap();
    assert!(!added);
    assert_eq!(
        runs, 2,
        "decided once on the stale state, again after losing the race"
    );
    assert_eq!(b.read(|s| s.applied).await, 2);
}

#[tokio::test]
async fn opening_reads_the_newest_snapshot_and_a_bounded_tail() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let catalog = create(&store, 10).await;
    for n in 1..=60 {
        commit_numbers(&catalog, [n]).await;
        if n % 20 == 0 {
            // Let a compaction finish now and then, so that several snapshots are written.
            catalog.settle().await;
        }
    }
    catalog.settle().await;
    let (reopened, stats) = open(&store, 10).await;
    // Snapshots are written in the background, at the newest entry when one is due: the
    // newest is within one interval of the end, and opening replays only what follows it.
    assert!(
        (51..=61).contains(&stats.snapshot_seq),
        "a recent snapshot: {stats:?}"
    );
    assert_eq!(stats.entries_replayed, 61 - stats.snapshot_seq);
    assert_eq!(reopened.read(|s| (s.seen.len(), s.applied)).await, (61, 61));
    let snapshots = load::list_snapshots(&store, &Path::from("p"))
        .await
        .unwrap();
    assert_eq!(
        snapshots.len(),
        2,
        "older snapshots are pruned: {snapshots:?}"
    );
}

#[tokio::test]
async fn an_unreadable_snapshot_falls_back_to_an_older_one() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let catalog = create(&store, 1000).await;
    commit_numbers(&catalog, 1..=4).await;
    catalog.snapshot().await.unwrap();
    commit_numbers(&catalog, 5..=12).await;
    catalog.snapshot().await.unwrap();
    use object_store::ObjectStoreExt;
    store
        .put(
            &layout::snapshot(&Path::from("p"), 13),
            b"garbage".to_vec().into(),
        )
        .await
        .unwrap();
    let (reopened, stats) = open(&store, 1000).await;
    assert_eq!(stats.snapshot_seq, 5);
    assert_eq!(stats.entries_replayed, 8);
    assert_eq!(reopened.read(|s| (s.seen.len(), s.applied)).await, (13, 13));
}

#[tokio::test]
async fn a_rejected_decision_writes_nothing() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let catalog = create(&store, 10).await;
    let result: Result<()> = catalog
        .commit_by(Timestamp::UNIX_EPOCH, None, |_| Err(Error::conflict("no")))
        .await;
    assert!(result.is_err());
    assert_eq!(catalog.seq(), 1);
    assert_eq!(open(&store, 10).await.0.seq(), 1);
}

fn with(config: CatalogConfig, f: impl FnOnce(&mut CatalogConfig)) -> CatalogConfig {
    let mut config = config;
    f(&mut config);
    config
}

async fn commit_numbers(catalog: &Catalog<Numbers>, numbers: impl IntoIterator<Item = u64>) {
    for n in numbers {
        catalog
            .commit_by(Timestamp::UNIX_EPOCH, None, |_| Ok((vec![n], ())))
            .await
            .unwrap();
    }
}

async fn parts_in_store(store: &Arc<dyn ObjectStore>) -> BTreeSet<String> {
    use futures::TryStreamExt;
    store
        .list(Some(&layout::snapshot_parts(&Path::from("p"))))
        .map_ok(|meta| {
            layout::snapshot_part_hash(&meta.location)
                .unwrap()
                .to_string()
        })
        .try_collect()
        .await
        .unwrap()
}

#[tokio::test]
async fn opening_reads_segments_then_the_entries_after_them() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let config = with(config(1000), |c| c.segment_every = 4);
    let catalog = create_with(&store, config.clone()).await;
    commit_numbers(&catalog, 1..=25).await;
    catalog.settle().await;
    let (reopened, stats) = open_with(&store, config).await;
    assert_eq!(
        stats,
        OpenStats {
            snapshot_seq: 0,
            segments_read: 6,
            entries_replayed: 26,
        },
        "entries 1..=24 from six segments, 25 and 26 from the log"
    );
    assert_eq!(reopened.read(|s| (s.seen.len(), s.applied)).await, (26, 26));
}

#[tokio::test]
async fn an_unreadable_segment_falls_back_to_the_log() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let config = with(config(1000), |c| c.segment_every = 4);
    let catalog = create_with(&store, config.clone()).await;
    commit_numbers(&catalog, 1..=25).await;
    catalog.settle().await;
    use object_store::ObjectStoreExt;
    store
        .put(
            &layout::segment(&Path::from("p"), 12),
            b"{\"v\":1,\"first\":9".to_vec().into(),
        )
        .await
        .unwrap();
    let (reopened, stats) = open_with(&store, config).await;
    assert_eq!(stats.segments_read, 2, "the two before the broken one");
    assert_eq!(reopened.read(|s| (s.seen.len(), s.applied)).await, (26, 26));
}

#[tokio::test]
async fn a_snapshot_writes_only_the_parts_that_changed() {
    use object_store::ObjectStoreExt;
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let catalog = create(&store, 1000).await;
    commit_numbers(&catalog, 1..=50).await;
    catalog.snapshot().await.unwrap();
    let first = parts_in_store(&store).await;
    assert_eq!(first.len(), 2, "the count, and the numbers 0..100");
    let written = |hash: &String| {
        let store = store.clone();
        let path = layout::snapshot_part(&Path::from("p"), hash);
        async move { store.head(&path).await.unwrap().last_modified }
    };
    let mut before = Vec::new();
    for hash in &first {
        before.push(written(hash).await);
    }

    commit_numbers(&catalog, [150]).await;
    catalog.snapshot().await.unwrap();
    let second = parts_in_store(&store).await;
    let new: Vec<_> = second.difference(&first).collect();
    assert_eq!(new.len(), 2, "a new count and the numbers 100..200");
    let unchanged: Vec<_> = first.iter().filter(|h| second.contains(*h)).collect();
    assert_eq!(unchanged.len(), 2, "the old parts are kept (young)");
    // The numbers 0..100 did not change: their part was not written again.
    let mut after = Vec::new();
    for hash in &first {
        after.push(written(hash).await);
    }
    assert_eq!(before, after, "unchanged parts are not rewritten");

    let (reopened, stats) = open(&store, 1000).await;
    assert_eq!(stats.snapshot_seq, 52);
    assert_eq!(stats.entries_replayed, 0);
    assert_eq!(reopened.read(|s| (s.seen.len(), s.applied)).await, (52, 52));
}

#[tokio::test]
async fn a_snapshot_with_a_missing_part_falls_back_to_an_older_one() {
    use object_store::ObjectStoreExt;
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let catalog = create(&store, 1000).await;
    commit_numbers(&catalog, 1..=10).await;
    catalog.snapshot().await.unwrap();
    let first = parts_in_store(&store).await;
    commit_numbers(&catalog, [120]).await;
    catalog.snapshot().await.unwrap();
    let second = parts_in_store(&store).await;
    let only_in_newest = second.difference(&first).next().unwrap();
    store
        .delete(&layout::snapshot_part(&Path::from("p"), only_in_newest))
        .await
        .unwrap();
    let (reopened, stats) = open(&store, 1000).await;
    assert_eq!(stats.snapshot_seq, 11, "the older snapshot, then the log");
    assert_eq!(stats.entries_replayed, 1);
    assert_eq!(reopened.read(|s| s.seen.len()).await, 12);
}

#[tokio::test]
async fn pruning_keeps_what_the_two_newest_snapshots_name() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let config = with(config(1000), |c| {
        c.keep_unused_parts = Duration::ZERO;
        c.segment_every = 4;
    });
    let catalog = create_with(&store, config.clone()).await;
    for hundred in 1..=4u64 {
        commit_numbers(
            &catalog,
            [hundred * 100, hundred * 100 + 1, hundred * 100 + 2],
        )
        .await;
        catalog.snapshot().await.unwrap();
    }
    let root = Path::from("p");
    let manifests = load::list_snapshots(&store, &root).await.unwrap();
    assert_eq!(manifests.len(), 2);
    // The newest names the count and five hundreds; the one before, a count and four of them.
    assert_eq!(parts_in_store(&store).await.len(), 7);
    let listed = store
        .list_with_delimiter(Some(&layout::segments(&root)))
        .await
        .unwrap();
    let mut segments: Vec<u64> = listed
        .objects
        .iter()
        .filter_map(|m| layout::segment_last(&m.location))
        .collect();
    segments.sort_unstable();
    assert_eq!(
        segments,
        vec![12],
        "segments that end before the older kept snapshot (at 10) are gone"
    );
    let (reopened, _) = open_with(&store, config).await;
    assert_eq!(reopened.read(|s| s.seen.len()).await, 13);
}

#[tokio::test]
async fn a_whole_state_snapshot_of_an_earlier_build_is_read() {
    use object_store::ObjectStoreExt;
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let catalog = create(&store, 1000).await;
    commit_numbers(&catalog, 1..=5).await;
    // What podhost wrote before snapshots had parts: the state after entry 4, whole. (It says
    // 4 numbers were seen; the log would say 0..=3: which one is read shows in the answer.)
    store
        .put(
            &layout::snapshot(&Path::from("p"), 4),
            br#"{"v":1,"seq":4,"state":{"seen":[0,1,2,3,1000],"applied":4}}"#
                .to_vec()
                .into(),
        )
        .await
        .unwrap();
    let (reopened, stats) = open(&store, 1000).await;
    assert_eq!(stats.snapshot_seq, 4);
    assert_eq!(stats.entries_replayed, 2);
    assert!(reopened.read(|s| s.seen.contains(&1000)).await);
    assert_eq!(reopened.read(|s| s.applied).await, 6);
}

#[tokio::test]
async fn a_request_reading_the_latest_sees_what_another_writer_answered_a_moment_ago() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let slow = |c: &mut CatalogConfig| c.refresh_interval = Duration::from_secs(3600);
    let writer = create_with(&store, with(config(1000), slow)).await;
    let (reader, _) = open_with(&store, with(config(1000), slow)).await;
    commit_numbers(&writer, [7]).await;

    // A read that may be as old as the refresh interval is answered from memory.
    assert!(!reader.read(|n| n.seen.contains(&7)).await);
    // A request reading the latest looks at the store first, and says nothing of age.
    let request = crate::request::RequestContext::new(None).reading_latest();
    let context = request.clone();
    let (seen, seen_by_all) = request
        .run(async {
            let seen = reader.read(|n| n.seen.contains(&7)).await;
            commit_numbers(&writer, [8]).await;
            // Readers that wait together all see the write answered before they asked.
            let all =
                futures::future::join_all((0..20).map(|_| reader.read(|n| n.seen.contains(&8))))
                    .await;
            (seen, all.into_iter().all(|s| s))
        })
        .await;
    assert!(seen, "the write answered before the read is seen");
    assert!(seen_by_all);
    assert_eq!(context.stale_for(), None);
}

#[tokio::test]
async fn a_write_queued_behind_others_gives_up_with_its_requests_store_time() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let catalog = create(&store, 1000).await;
    // Another write holds the account's write lock (its store answers slowly).
    let held = catalog.write.lock().await;
    let queued = crate::RequestContext::new(None)
        .giving_up_after_a_stall(Duration::from_millis(300))
        .run(catalog.commit_by(Timestamp::UNIX_EPOCH, None, |_| Ok((vec![1], ()))))
        .await;
    assert!(
        matches!(&queued, Err(Error::Unavailable { message, .. }) if message.contains("commit")),
        "{queued:?}"
    );
    // Work outside such a request waits its turn, and the refused write was never made.
    let waiting = catalog.commit_by(Timestamp::UNIX_EPOCH, None, |_| Ok((vec![2], ())));
    drop(held);
    waiting.await.unwrap();
    let seen = catalog.read(|n| n.seen.clone()).await;
    assert!(seen.contains(&2) && !seen.contains(&1), "{seen:?}");
}

#[tokio::test]
async fn a_write_waiting_for_another_writers_unreadable_entry_gives_up_with_its_store_time() {
    // The next entry is taken by a writer paused mid-put (SeaweedFS then refuses the key and
    // shows nothing there): a commit waits for it, up to its patience of 10 s, as store time.
    let faulty = podhost_testkit::FaultStore::new(Arc::new(InMemory::new()));
    let store: Arc<dyn ObjectStore> = Arc::new(faulty.clone());
    let catalog = create(&store, 1000).await;
    faulty.set(podhost_testkit::Faults {
        taken_elsewhere: true,
        ..Default::default()
    });
    let refused = crate::RequestContext::new(None)
        .giving_up_after_a_stall(Duration::from_millis(300))
        .run(catalog.commit_by(Timestamp::UNIX_EPOCH, None, |_| Ok((vec![1], ()))))
        .await;
    assert!(
        matches!(&refused, Err(Error::Unavailable { message, .. })
            if message.contains("commit") && message.contains("may or may not")),
        "a 503 that says the write may have landed, not a wait of 10 s: {refused:?}"
    );
    faulty.heal();
    commit_numbers(&catalog, [2]).await;
    let seen = catalog.read(|n| n.seen.clone()).await;
    assert!(seen.contains(&2) && !seen.contains(&1), "{seen:?}");
}

#[tokio::test]
async fn a_read_waiting_for_another_readers_slow_look_is_answered_from_memory() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let catalog = create(&store, 1000).await;
    commit_numbers(&catalog, [5]).await;
    // Another reader's look at the store holds the advance lock (its store answers slowly).
    let looking = catalog.advance.lock().await;
    let request = crate::RequestContext::new(None)
        .reading_latest()
        .giving_up_after_a_stall(Duration::from_millis(300));
    let context = request.clone();
    let (seen, missed) = request
        .run(async {
            let seen = catalog.read(|n| n.seen.contains(&5)).await;
            // A miss cannot be confirmed without the store: perhaps made a moment ago elsewhere.
            let missed = catalog
                .read_found(|n| match n.seen.contains(&6) {
                    true => Ok(()),
                    false => Err(Error::not_found("number", "6")),
                })
                .await;
            (seen, missed)
        })
        .await;
    drop(looking);
    assert!(seen, "answered from what this process holds");
    let age = context.stale_for().expect("the answer says it may be old");
    assert!(
        age >= Duration::from_millis(300),
        "as old as the last look that succeeded, at least the wait: {age:?}"
    );
    assert!(
        matches!(&missed, Err(Error::Unavailable { .. })),
        "503, not 404: {missed:?}"
    );
}
