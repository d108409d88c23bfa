//! Compaction: log segments and snapshots, written in the background from the store.
//!
//! - Every `segment_every` entries, the entries of that stretch are packed into one segment
//!   object, as they are in the log (a few hundred bytes per entry written a second time).
//! - Every `snapshot_every` entries, a snapshot: the state is split into parts
//!   ([`Journal::into_parts`]), each stored under the SHA-256 of its bytes, and a manifest
//!   lists them. A part that did not change has the same name as before and is not written
//!   again, so a snapshot writes what changed since the last one plus a manifest.
//!
//! The compactor builds the state it snapshots by loading it from the store (the previous
//! snapshot, then the segments and entries after it), in its own memory: it never reads, and
//! so never locks, a process's live state. Its work is a cache: a crash halfway leaves parts
//! no manifest names (pruned later) and the log says the same.

use crate::lock::Locked;
use std::{
    collections::{BTreeMap, BTreeSet},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
};

use bytes::Bytes;

use futures::{StreamExt, TryStreamExt, stream};
use jiff::Timestamp;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload, path::Path};

use super::{
    codec,
    entries::{entry_path, put_if_absent},
    journal::Journal,
    load,
    tuning::CatalogConfig,
};
use crate::error::{Error, Result};
use crate::store::layout;

/// How many objects compaction writes or reads at once.
const CONCURRENT: usize = 8;

/// What a catalog shares with its compaction task.
#[derive(Default)]
pub(super) struct Compaction {
    /// Held while a compaction runs: at most one per catalog, and a way to wait for it.
    pub(super) running: Arc<tokio::sync::Mutex<()>>,
    /// The last entry known to be in a segment.
    pub(super) segment_seq: AtomicU64,
    /// The entry of the newest snapshot known to exist.
    pub(super) snapshot_seq: AtomicU64,
    /// The newest entry the catalog has applied, as of its last commit.
    pub(super) latest: AtomicU64,
    /// The bytes of entries this process wrote or read that no segment holds yet: a segment is
    /// packed from them, reading from the store only what is missing.
    recent: Mutex<BTreeMap<u64, Bytes>>,
}

impl Compaction {
    pub(super) fn new(segment_seq: u64, snapshot_seq: u64) -> Self {
        Compaction {
            running: Default::default(),
            segment_seq: AtomicU64::new(segment_seq),
            snapshot_seq: AtomicU64::new(snapshot_seq),
            latest: AtomicU64::new(0),
            recent: Default::default(),
        }
    }

    /// Keeps the bytes of entry `seq` for its segment (at most four segments' worth: past
    /// that, while packing fails, the oldest are read from the store again).
    pub(super) fn remember(&self, seq: u64, bytes: Bytes, config: &CatalogConfig) {
        if seq <= self.segment_seq.load(Ordering::Acquire) {
            return;
        }
        let mut recent = self.recent.locked();
        recent.insert(seq, bytes);
        while recent.len() as u64 > 4 * config.segment_every.max(1) {
            recent.pop_first();
        }
    }

    /// Whether a partition at entry `seq` has a segment or a snapshot to write.
    pub(super) fn due(&self, seq: u64, config: &CatalogConfig) -> bool {
        seq >= self
            .segment_seq
            .load(Ordering::Acquire)
            .saturating_add(config.segment_every.max(1))
            || seq
                >= self
                    .snapshot_seq
                    .load(Ordering::Acquire)
                    .saturating_add(config.snapshot_every.max(1))
    }
}

/// Writes the segments due up to entry `target`, then a snapshot at `target` when one is due
/// (or `force`d).
pub(super) async fn run<S: Journal>(
    store: &Arc<dyn ObjectStore>,
    root: &Path,
    config: &CatalogConfig,
    compaction: &Compaction,
    target: u64,
    force: bool,
) -> Result<()> {
    write_segments(store, root, config, compaction, target).await?;
    let snapshot_seq = compaction.snapshot_seq.load(Ordering::Acquire);
    if force || target >= snapshot_seq.saturating_add(config.snapshot_every.max(1)) {
        write_snapshot::<S>(store, root, config, compaction, target).await?;
    }
    Ok(())
}

/// Packs each stretch of `segment_every` entries up to `target` that has no segment yet.
async fn write_segments(
    store: &Arc<dyn ObjectStore>,
    root: &Path,
    config: &CatalogConfig,
    compaction: &Compaction,
    target: u64,
) -> Result<()> {
    let every = config.segment_every.max(1);
    loop {
        let last = compaction.segment_seq.load(Ordering::Acquire) + every;
        if last > target {
            return Ok(());
        }
        let path = layout::segment(root, last);
        match store.head(&path).await {
            // Another process packed it.
            Ok(_) => {}
            Err(object_store::Error::NotFound { .. }) => {
                let first = last - every + 1;
                let kept: BTreeMap<u64, Bytes> = compaction
                    .recent
                    .locked()
                    .range(first..=last)
                    .map(|(seq, bytes)| (*seq, bytes.clone()))
                    .collect();
                let kept = &kept;
                let entries: Vec<Bytes> = stream::iter(first..=last)
                    .map(|seq| async move {
                        if let Some(bytes) = kept.get(&seq) {
                            return Ok(bytes.clone());
                        }
                        let got = store.get(&entry_path(root, seq)).await?;
                        Ok::<_, Error>(got.bytes().await?)
                    })
                    .buffered(CONCURRENT * 2)
                    .try_collect()
                    .await?;
                match put_if_absent(store, &path, codec::encode_segment(first, &entries)).await {
                    Ok(()) | Err(object_store::Error::AlreadyExists { .. }) => {}
                    Err(e) => return Err(e.into()),
                }
            }
            Err(e) => return Err(e.into()),
        }
        compaction.segment_seq.fetch_max(last, Ordering::AcqRel);
        let mut recent = compaction.recent.locked();
        *recent = recent.split_off(&(last + 1));
    }
}

/// Writes a snapshot of the state after entry `target`: the parts that are not in the newest
/// snapshot already, then the manifest; then prunes.
async fn write_snapshot<S: Journal>(
    store: &Arc<dyn ObjectStore>,
    root: &Path,
    config: &CatalogConfig,
    compaction: &Compaction,
    target: u64,
) -> Result<()> {
    let (loaded, base) = load::load::<S>(store, root, config.segment_every, target).await?;
    let seq = loaded.seq;
    if base.stats.snapshot_seq == seq {
        compaction.snapshot_seq.fetch_max(seq, Ordering::AcqRel);
        return Ok(());
    }
    // Splitting, encoding and hashing are the CPU-heavy half: off the async workers.
    let state = std::sync::Arc::unwrap_or_clone(loaded.state);
    let encoded = tokio::task::spawn_blocking(move || -> Result<Vec<(String, Vec<u8>)>> {
        state
            .into_parts()
            .iter()
            .map(|part| {
                let bytes = codec::encode(part)?;
                Ok((codec::part_hash(&bytes), bytes))
            })
            .collect()
    })
    .await
    .map_err(|e| Error::storage(format!("encoding a snapshot failed: {e}")))??;
    let hashes: Vec<String> = encoded.iter().map(|(hash, _)| hash.clone()).collect();
    stream::iter(
        encoded
            .into_iter()
            .filter(|(hash, _)| !base.parts.contains(hash)),
    )
    .map(|(hash, bytes)| async move {
        // A plain put: writing an existing part again refreshes its age, so a prune that is
        // deciding right now keeps it.
        store
            .put(&layout::snapshot_part(root, &hash), PutPayload::from(bytes))
            .await
            .map(drop)
    })
    .buffer_unordered(CONCURRENT)
    .try_collect::<Vec<()>>()
    .await?;
    let manifest = codec::Snapshot::<S> {
        v: codec::SNAPSHOT_VERSION,
        seq,
        state: None,
        parts: hashes,
    };
    match put_if_absent(
        store,
        &layout::snapshot(root, seq),
        codec::encode(&manifest)?,
    )
    .await
    {
        Ok(()) | Err(object_store::Error::AlreadyExists { .. }) => {}
        Err(e) => return Err(e.into()),
    }
    compaction.snapshot_seq.fetch_max(seq, Ordering::AcqRel);
    prune(store, root, config).await
}

/// Keeps the newest two snapshots and what opening from them needs: older manifests go, then
/// parts neither kept manifest names (once they are older than
/// [`CatalogConfig::keep_unused_parts`], so a compaction elsewhere that is about to name one
/// finds it), then segments that end before the older kept snapshot.
async fn prune(store: &Arc<dyn ObjectStore>, root: &Path, config: &CatalogConfig) -> Result<()> {
    let mut seqs = load::list_snapshots(store, root).await?;
    seqs.sort_unstable();
    let keep = seqs.split_off(seqs.len().saturating_sub(2));
    for old in &seqs {
        let _ = store.delete(&layout::snapshot(root, *old)).await;
    }
    let mut named = BTreeSet::new();
    for seq in &keep {
        let path = layout::snapshot(root, *seq);
        let bytes = match store.get(&path).await {
            Ok(got) => got.bytes().await?,
            Err(object_store::Error::NotFound { .. }) => continue,
            Err(e) => return Err(e.into()),
        };
        // An unreadable manifest names nothing; what it would have named ages out.
        if let Ok(manifest) = codec::decode::<codec::Snapshot<serde::de::IgnoredAny>>(&bytes, &path)
        {
            named.extend(manifest.parts);
        }
    }
    let now = Timestamp::now().as_second();
    let grace = config.keep_unused_parts.as_secs() as i64;
    let unused: Vec<Path> = store
        .list(Some(&layout::snapshot_parts(root)))
        .try_filter(|meta| {
            let named =
                layout::snapshot_part_hash(&meta.location).is_some_and(|h| named.contains(h));
            let old = now - meta.last_modified.timestamp() >= grace;
            std::future::ready(!named && old)
        })
        .map_ok(|meta| meta.location)
        .try_collect()
        .await?;
    for path in unused {
        let _ = store.delete(&path).await;
    }
    if let Some(oldest) = keep.first() {
        let listed = store
            .list_with_delimiter(Some(&layout::segments(root)))
            .await?;
        for meta in listed.objects {
            if layout::segment_last(&meta.location).is_some_and(|last| last <= *oldest) {
                let _ = store.delete(&meta.location).await;
            }
        }
    }
    Ok(())
}
