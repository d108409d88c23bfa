//! Catalog engine tests on a counter journal: races, snapshots, bounded opens.

use std::{collections::BTreeSet, sync::Arc, time::Duration};

use object_store::{ObjectStore, memory::InMemory, path::Path};
use serde::{Deserialize, Serialize};

use super::*;

/// A set of numbers; a change adds one. Lost updates show up as missing numbers.
#[derive(Default, Serialize, Deserialize)]
struct Numbers {
    seen: BTreeSet<u64>,
    applied: u64,
}

impl Journal for Numbers {
    type Change = u64;
    fn apply(&mut self, n: &u64) {
        self.seen.insert(*n);
        self.applied += 1;
    }
}

fn config(snapshot_every: u64) -> CatalogConfig {
    CatalogConfig {
        refresh_interval: Duration::from_millis(0),
        snapshot_every,
        max_attempts: 6,
    }
}

async fn create(store: &Arc<dyn ObjectStore>, snapshot_every: u64) -> Catalog<Numbers> {
    Catalog::create(
        store.clone(),
        Path::from("p"),
        config(snapshot_every),
        Timestamp::UNIX_EPOCH,
        vec![0],
    )
    .await
    .unwrap()
}

async fn open(store: &Arc<dyn ObjectStore>, snapshot_every: u64) -> (Catalog<Numbers>, OpenStats) {
    Catalog::open(store.clone(), Path::from("p"), config(snapshot_every))
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
                    .commit(Timestamp::UNIX_EPOCH, |_| Ok((vec![n], ())))
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
    a.commit(Timestamp::UNIX_EPOCH, |_| Ok((vec![7], ())))
        .await
        .unwrap();
    // b has not seen 7 yet; its rule "add 7 unless present" must see it before writing.
    let mut runs = 0;
    let added = b
        .commit(Timestamp::UNIX_EPOCH, |s| {
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
    for n in 1..=25u64 {
        catalog
            .commit(Timestamp::UNIX_EPOCH, |_| Ok((vec![n], ())))
            .await
            .unwrap();
    }
    let (reopened, stats) = open(&store, 10).await;
    assert_eq!(
        stats,
        OpenStats {
            snapshot_seq: 20,
            entries_replayed: 6
        }
    );
    assert_eq!(reopened.read(|s| s.seen.len()).await, 26);
    let snapshots = list_snapshots(&store, &Path::from("p")).await.unwrap();
    assert_eq!(
        snapshots.len(),
        2,
        "older snapshots are pruned: {snapshots:?}"
    );
}

#[tokio::test]
async fn an_unreadable_snapshot_falls_back_to_the_log() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let catalog = create(&store, 5).await;
    for n in 1..=12u64 {
        catalog
            .commit(Timestamp::UNIX_EPOCH, |_| Ok((vec![n], ())))
            .await
            .unwrap();
    }
    use object_store::ObjectStoreExt;
    store
        .put(
            &snapshot_path(&Path::from("p"), 10),
            b"garbage".to_vec().into(),
        )
        .await
        .unwrap();
    let (reopened, stats) = open(&store, 5).await;
    assert_eq!(stats.snapshot_seq, 5);
    assert_eq!(reopened.read(|s| s.seen.len()).await, 13);
}

#[tokio::test]
async fn a_rejected_decision_writes_nothing() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let catalog = create(&store, 10).await;
    let result: Result<()> = catalog
        .commit(Timestamp::UNIX_EPOCH, |_| Err(Error::conflict("no")))
        .await;
    assert!(result.is_err());
    assert_eq!(catalog.seq(), 1);
    assert_eq!(open(&store, 10).await.0.seq(), 1);
}
