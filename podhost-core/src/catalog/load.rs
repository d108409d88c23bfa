//! Reading a partition's state from the store: the newest readable snapshot, then the log
//! segments after it, then the log entries after those.
//!
//! Used to open a catalog and by the compactor, which builds each snapshot from the store
//! rather than from a process's live state (so encoding one never holds the live state's
//! lock). Objects are fetched concurrently: opening an account of 10,000 episodes on S3 reads
//! a few dozen objects, not thousands one after another.

use std::{collections::BTreeSet, sync::Arc};

use futures::{StreamExt, TryStreamExt, stream};
use object_store::{ObjectStore, ObjectStoreExt, path::Path};

use super::{
    codec::{self, Entry},
    entries::{entry_path, read_entry},
    journal::Journal,
};
use crate::error::{Error, Result};
use crate::store::layout;

/// How many objects a load fetches at once.
const CONCURRENT_READS: usize = 16;

/// What a load read besides the state: where it started and how far the segments reached.
pub(super) struct Base {
    /// The parts of the snapshot it started from (empty: none, or a whole-state snapshot).
    pub(super) parts: BTreeSet<String>,
    /// The last entry known to be in a segment.
    pub(super) segment_seq: u64,
    pub(super) stats: OpenStats,
}

/// Reads the state after entry `up_to` (or after the newest entry, if there are fewer).
pub(super) async fn load<S: Journal>(
    store: &Arc<dyn ObjectStore>,
    root: &Path,
    segment_every: u64,
    up_to: u64,
) -> Result<(Loaded<S>, Base)> {
    // None: start from the empty state and entry 1.
    let (snapshot_seq, state, parts) = newest_snapshot::<S>(store, root, up_to)
        .await?
        .unwrap_or_default();
    let mut loaded = Loaded {
        seq: snapshot_seq,
        state: std::sync::Arc::new(state),
        recent: Default::default(),
    };
    std::sync::Arc::make_mut(&mut loaded.state).after_load();
    let (segments_read, reached) = apply_segments(store, root, &mut loaded, up_to).await?;
    apply_tail(store, root, &mut loaded, up_to).await?;
    let stats = OpenStats {
        snapshot_seq,
        segments_read,
        entries_replayed: loaded.seq - snapshot_seq,
    };
    // Segments that end before the snapshot are not needed by anyone who opens from it.
    let every = segment_every.max(1);
    let segment_seq = reached.max(snapshot_seq / every * every);
    Ok((
        loaded,
        Base {
            parts,
            segment_seq,
            stats,
        },
    ))
}

/// The newest snapshot at or before `up_to` that reads whole: its sequence number, its state
/// and the hashes of its parts. An unreadable one (garbage, a missing part, a newer format) is
/// skipped for the next older one: the log has the same facts.
async fn newest_snapshot<S: Journal>(
    store: &Arc<dyn ObjectStore>,
    root: &Path,
    up_to: u64,
) -> Result<Option<(u64, S, BTreeSet<String>)>> {
    let mut seqs = list_snapshots(store, root).await?;
    seqs.retain(|seq| *seq <= up_to);
    seqs.sort_unstable_by(|a, b| b.cmp(a));
    for seq in seqs {
        let path = layout::snapshot(root, seq);
        let bytes = match store.get(&path).await {
            Ok(got) => got.bytes().await?,
            // Pruned by another process between list and get: try the next one.
            Err(object_store::Error::NotFound { .. }) => continue,
            Err(e) => return Err(e.into()),
        };
        let snapshot = match codec::decode::<codec::Snapshot<S>>(&bytes, &path) {
            Ok(s) if s.seq == seq && codec::check_snapshot_version(s.v, &path).is_ok() => s,
            Ok(_) | Err(_) => {
                tracing::warn!(%path, "skipping an unreadable snapshot; the log has the same facts");
                continue;
            }
        };
        if let Some(state) = snapshot.state {
            return Ok(Some((seq, state, BTreeSet::new())));
        }
        match read_parts::<S>(store, root, &snapshot.parts).await {
            Ok(state) => return Ok(Some((seq, state, snapshot.parts.into_iter().collect()))),
            Err(e @ Error::Storage { .. }) => {
                tracing::warn!(%path, error = %e, "skipping a snapshot whose parts do not read");
            }
            Err(e) => return Err(e),
        }
    }
    Ok(None)
}

/// Fetches and decodes a snapshot's parts, concurrently, and joins them. A missing or
/// unreadable part is a storage error (the caller tries an older snapshot).
async fn read_parts<S: Journal>(
    store: &Arc<dyn ObjectStore>,
    root: &Path,
    hashes: &[String],
) -> Result<S> {
    let parts: Vec<S::Part> = stream::iter(hashes.iter().cloned())
        .map(|hash| async move {
            let path = layout::snapshot_part(root, &hash);
            let bytes = match store.get(&path).await {
                Ok(got) => got.bytes().await?,
                Err(object_store::Error::NotFound { .. }) => {
                    return Err(Error::storage(format!("{path} is missing")));
                }
                Err(e) => return Err(e.into()),
            };
            if codec::part_hash(&bytes) != hash {
                return Err(Error::storage(format!("{path} does not match its hash")));
            }
            // Decoding is the CPU-heavy half: off the async workers, parts side by side.
            tokio::task::spawn_blocking(move || codec::decode::<S::Part>(&bytes, &path))
                .await
                .map_err(|e| Error::storage(format!("decoding a snapshot part failed: {e}")))?
        })
        .buffer_unordered(CONCURRENT_READS)
        .try_collect()
        .await?;
    S::from_parts(parts).map_err(|why| Error::storage(format!("a snapshot does not fit: {why}")))
}

pub(super) async fn list_snapshots(store: &Arc<dyn ObjectStore>, root: &Path) -> Result<Vec<u64>> {
    let listed = store
        .list_with_delimiter(Some(&layout::snapshots(root)))
        .await?;
    Ok(listed
        .objects
        .iter()
        .filter_map(|meta| layout::snapshot_seq(&meta.location))
        .collect())
}

/// Applies the entries of the segments after the state's entry, up to `up_to`: how many
/// segments it read, and the last entry of the last one (0: none).
async fn apply_segments<S: Journal>(
    store: &Arc<dyn ObjectStore>,
    root: &Path,
    loaded: &mut Loaded<S>,
    up_to: u64,
) -> Result<(u64, u64)> {
    let offset = layout::segment(root, loaded.seq);
    let mut lasts: Vec<u64> = store
        .list_with_offset(Some(&layout::segments(root)), &offset)
        .map_ok(|meta| layout::segment_last(&meta.location))
        .try_collect::<Vec<_>>()
        .await?
        .into_iter()
        .flatten()
        .filter(|last| *last > loaded.seq)
        .collect();
    lasts.sort_unstable();
    // Fetched and decoded side by side (decoding off the async workers), applied in order.
    let mut fetched = stream::iter(lasts)
        .map(|last| async move {
            let path = layout::segment(root, last);
            let bytes = match store.get(&path).await {
                Ok(got) => got.bytes().await?,
                Err(object_store::Error::NotFound { .. }) => return Ok(None),
                Err(e) => return Err(Error::from(e)),
            };
            let decoded = tokio::task::spawn_blocking(move || {
                match codec::decode::<codec::Segment<S::Change>>(&bytes, &path) {
                    Ok(s) if codec::check_version(s.v, &path).is_ok() => Some(s),
                    _ => {
                        tracing::warn!(%path, "skipping an unreadable log segment");
                        None
                    }
                }
            })
            .await
            .map_err(|e| Error::storage(format!("decoding a log segment failed: {e}")))?;
            Ok(Some(decoded))
        })
        .buffered(CONCURRENT_READS);
    let (mut read, mut reached) = (0, 0);
    while let Some(next) = fetched.next().await {
        // Missing (pruned since the listing), or unreadable: the entries are in the log too.
        let Some(Some(segment)) = next? else { break };
        if segment.first > loaded.seq + 1
            || segment.last != segment.first + segment.entries.len() as u64 - 1
        {
            break;
        }
        read += 1;
        reached = segment.last;
        for (seq, entry) in (segment.first..).zip(&segment.entries) {
            if seq > loaded.seq && seq <= up_to {
                loaded.apply(seq, entry);
            }
        }
        if loaded.seq >= up_to {
            break;
        }
    }
    Ok((read, reached))
}

/// Applies the log entries after the state's entry, up to `up_to`, fetching a window of them
/// at once (the entries past the end answer "not found").
async fn apply_tail<S: Journal>(
    store: &Arc<dyn ObjectStore>,
    root: &Path,
    loaded: &mut Loaded<S>,
    up_to: u64,
) -> Result<()> {
    loop {
        let first = loaded.seq + 1;
        let last = up_to.min(first.saturating_add(CONCURRENT_READS as u64 - 1));
        if first > last {
            return Ok(());
        }
        let window: Vec<_> = stream::iter(first..=last)
            .map(|seq| async move {
                match read_entry::<S::Change>(store, &entry_path(root, seq)).await {
                    Ok(entry) => Ok(Some(entry)),
                    Err(Error::NotFound { .. }) => Ok(None),
                    Err(e) => Err(e),
                }
            })
            .buffered(CONCURRENT_READS)
            .try_collect()
            .await?;
        for (seq, entry) in (first..).zip(window) {
            match entry {
                Some(entry) => loaded.apply(seq, &entry),
                None => return Ok(()),
            }
        }
    }
}

/// Counters of what a catalog did in the store; for benchmarks and tests.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct OpenStats {
    /// The snapshot's sequence number (0: none).
    pub snapshot_seq: u64,
    /// Log segments read after the snapshot.
    pub segments_read: u64,
    /// Entries replayed after the snapshot, from segments and from the log.
    pub entries_replayed: u64,
}

pub(super) struct Loaded<S> {
    pub(super) seq: u64,
    /// Shared with the readers that took a view ([`Catalog::view`]); a change is applied in
    /// place, or to a copy while a view is held.
    ///
    /// [`Catalog::view`]: super::Catalog::view
    pub(super) state: std::sync::Arc<S>,
    /// The transactions of the last applied entries, newest last: how a writer whose put had
    /// an unknown outcome learns that it landed, however it was read back.
    pub(super) recent: std::collections::VecDeque<(uuid::Uuid, u64)>,
}

/// How many applied transactions [`Loaded::recent`] remembers.
const RECENT_TXNS: usize = 1024;

impl<S: Journal> Loaded<S> {
    pub(super) fn apply(&mut self, seq: u64, entry: &Entry<S::Change>) {
        std::sync::Arc::make_mut(&mut self.state).apply_entry(entry.at, &entry.changes);
        self.seq = seq;
        if self.recent.len() == RECENT_TXNS {
            self.recent.pop_front();
        }
        self.recent.push_back((entry.txn, seq));
    }
}
