//! The catalog: one partition's state kept as an append-only log in the object store.
//!
//! Layout under the partition's root:
//!
//! ```text
//! log/00000000000000000001.json        entry 1: {"v":1,"txn":…,"at":…,"changes":[…]}
//! log/00000000000000000002.json        …
//! snapshots/00000000000000000256.json  {"v":1,"seq":256,"state":{…}}: the state after entry 256
//! ```
//!
//! Invariants:
//! - An entry is written once, with put-if-absent, and never changed. Entry `n + 1` is only
//!   written by a writer whose state is exactly the state after entry `n`; a writer that loses
//!   the race gets `AlreadyExists`, reads the new entries, re-runs its decision on the new state
//!   and tries `n + 2`. So the log is a serial history and no update is lost.
//! - Applying an entry is deterministic and infallible; every process that reads the same
//!   entries holds the same state.
//! - Every entry carries the id of the logical transaction that wrote it. A put whose outcome is
//!   unknown (an error after the bytes may have landed) is resolved by reading the log: finding
//!   the transaction id there means it committed, and it is not written twice.
//! - A snapshot is a cache of the log: written after the fact, deterministic for its sequence
//!   number, never required. Opening reads the newest snapshot and then the entries after it, so
//!   the objects read on open are bounded by the snapshot interval.
//! - The log is never truncated (see ARCHITECTURE.md: truncation would let a stale writer fork
//!   the history with put-if-absent).

mod codec;

use std::{
    sync::{Arc, RwLock},
    time::{Duration, Instant},
};

use jiff::Timestamp;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, path::Path};
use serde::{Serialize, de::DeserializeOwned};
use uuid::Uuid;

use crate::error::{Error, Result};
use crate::store::layout;
use codec::{Entry, Snapshot};

/// A state that is built by applying changes in log order.
pub(crate) trait Journal:
    Default + Serialize + DeserializeOwned + Send + Sync + 'static
{
    /// One change; an entry holds a list of them, applied in order.
    type Change: Serialize + DeserializeOwned + Send + Sync + 'static;

    /// Applies one change. Must be deterministic and must not fail: a change is validated
    /// against the state before it is written.
    fn apply(&mut self, change: &Self::Change);

    /// Rebuilds derived indexes after the state was read from a snapshot.
    fn after_load(&mut self) {}
}

/// How a catalog trades freshness against reads and snapshot size against replay length.
#[derive(Clone, Debug)]
pub struct CatalogConfig {
    /// A read that finds its state older than this first reads new entries from the store, so
    /// other processes' writes are seen within this interval.
    pub refresh_interval: Duration,
    /// A snapshot is written after this many entries since the last one.
    pub snapshot_every: u64,
    /// How often one logical write tries again after store errors of unknown outcome.
    pub max_attempts: u32,
}

impl Default for CatalogConfig {
    fn default() -> Self {
        CatalogConfig {
            refresh_interval: Duration::from_millis(500),
            snapshot_every: 256,
            max_attempts: 6,
        }
    }
}

/// Counters of what a catalog did in the store; for benchmarks and tests.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct OpenStats {
    /// The snapshot's sequence number (0: none).
    pub snapshot_seq: u64,
    /// Entries replayed after the snapshot.
    pub entries_replayed: u64,
}

struct Loaded<S> {
    seq: u64,
    snapshot_seq: u64,
    state: S,
    /// The transactions of the last applied entries, newest last: how a writer whose put had
    /// an unknown outcome learns that it landed, however it was read back.
    recent: std::collections::VecDeque<(Uuid, u64)>,
}

/// A commit gives up after this many rounds of losing races.
const MAX_ROUNDS: u32 = 200;

/// How many applied transactions [`Loaded::recent`] remembers.
const RECENT_TXNS: usize = 1024;

impl<S: Journal> Loaded<S> {
    fn apply(&mut self, seq: u64, entry: &Entry<S::Change>) {
        for change in &entry.changes {
            self.state.apply(change);
        }
        self.seq = seq;
        if self.recent.len() == RECENT_TXNS {
            self.recent.pop_front();
        }
        self.recent.push_back((entry.txn, seq));
    }
}

/// One partition's state, in memory, kept in step with its log in the store.
pub(crate) struct Catalog<S: Journal> {
    store: Arc<dyn ObjectStore>,
    root: Path,
    config: CatalogConfig,
    loaded: RwLock<Loaded<S>>,
    /// Serialises the writers of this process, so they don't race each other in the store.
    write: tokio::sync::Mutex<()>,
    /// Serialises advancing `loaded.seq` (catching up and applying one's own entry).
    advance: tokio::sync::Mutex<Instant>,
}

impl<S: Journal> Catalog<S> {
    /// Creates the partition with its first entry; `Conflict` when it exists already.
    pub(crate) async fn create(
        store: Arc<dyn ObjectStore>,
        root: Path,
        config: CatalogConfig,
        at: Timestamp,
        changes: Vec<S::Change>,
    ) -> Result<Self> {
        let txn = Uuid::new_v4();
        let entry = Entry {
            v: codec::VERSION,
            txn,
            at,
            changes,
        };
        let bytes = codec::encode(&entry)?;
        let path = entry_path(&root, 1);
        let mut attempts = 0;
        loop {
            attempts += 1;
            match put_if_absent(&store, &path, bytes.clone()).await {
                Ok(()) => break,
                Err(object_store::Error::AlreadyExists { .. }) => {
                    // Ours, from an attempt whose answer was lost, or someone else's.
                    let theirs: Entry<S::Change> = read_entry(&store, &path).await?;
                    if theirs.txn == txn {
                        break;
                    }
                    return Err(Error::conflict("it exists already"));
                }
                Err(e) if attempts < config.max_attempts => {
                    tracing::warn!(error = %e, "create: store error, trying again");
                    backoff(attempts).await;
                }
                Err(e) => return Err(e.into()),
            }
        }
        let mut state = S::default();
        for change in &entry.changes {
            state.apply(change);
        }
        Ok(Self::with_state(store, root, config, 1, 0, state))
    }

    /// Opens the partition: the newest readable snapshot, then every entry after it.
    /// `None` when the partition does not exist.
    pub(crate) async fn open(
        store: Arc<dyn ObjectStore>,
        root: Path,
        config: CatalogConfig,
    ) -> Result<Option<(Self, OpenStats)>> {
        let (snapshot_seq, state) = match load_newest_snapshot::<S>(&store, &root).await? {
            Some((seq, state)) => (seq, state),
            None => (0, S::default()),
        };
        let catalog = Self::with_state(store, root, config, snapshot_seq, snapshot_seq, state);
        let replayed = catalog.catch_up().await?;
        let seq = catalog.seq();
        if seq == 0 {
            return Ok(None);
        }
        if replayed >= catalog.config.snapshot_every {
            catalog.write_snapshot().await;
        }
        Ok(Some((
            catalog,
            OpenStats {
                snapshot_seq,
                entries_replayed: replayed,
            },
        )))
    }

    fn with_state(
        store: Arc<dyn ObjectStore>,
        root: Path,
        config: CatalogConfig,
        seq: u64,
        snapshot_seq: u64,
        mut state: S,
    ) -> Self {
        state.after_load();
        Catalog {
            store,
            root,
            config,
            loaded: RwLock::new(Loaded {
                seq,
                snapshot_seq,
                state,
                recent: Default::default(),
            }),
            write: tokio::sync::Mutex::new(()),
            advance: tokio::sync::Mutex::new(Instant::now()),
        }
    }

    /// The sequence number of the last applied entry.
    pub(crate) fn seq(&self) -> u64 {
        self.loaded.read().unwrap_or_else(|e| e.into_inner()).seq
    }

    /// The sequence number after catching up when the state is older than the refresh
    /// interval: the version a frontend may key reused answers on.
    pub(crate) async fn fresh_seq(&self) -> u64 {
        self.refresh_if_stale().await;
        self.seq()
    }

    /// Reads the state, first catching up with the store when the state is older than the
    /// refresh interval. When catching up fails the read is served from memory (and logged):
    /// a store hiccup does not take reads down.
    pub(crate) async fn read<R>(&self, f: impl FnOnce(&S) -> R) -> R {
        self.refresh_if_stale().await;
        let loaded = self.loaded.read().unwrap_or_else(|e| e.into_inner());
        f(&loaded.state)
    }

    /// Reads like [`read`](Self::read), but an answer of `NotFound` is checked against the store
    /// first: when the store has entries this process has not read yet (another server's write
    /// within the refresh interval), they are applied and `f` runs again. So a client that
    /// wrote through one server and reads through another finds what it wrote. Concurrent
    /// misses share one look at the store: a miss waits for a catch-up that began after it
    /// instead of starting its own (a flood of requests for things that do not exist costs the
    /// store one read at a time).
    pub(crate) async fn read_found<T>(&self, f: impl Fn(&S) -> Result<T>) -> Result<T> {
        match self.read(&f).await {
            Err(Error::NotFound { .. }) => {
                let missed = Instant::now();
                let last = self.advance.lock().await;
                if *last < missed {
                    // A failed look is logged here; the answer is then from memory.
                    if let Err(e) = self.catch_up_locked(last).await {
                        tracing::warn!(error = %e, root = %self.root, "could not read new log entries");
                    }
                } else {
                    // Someone read the store after this miss: their state is the answer.
                    drop(last);
                }
                self.read(&f).await
            }
            other => other,
        }
    }

    async fn refresh_if_stale(&self) {
        let stale = {
            match self.advance.try_lock() {
                Ok(last) => last.elapsed() >= self.config.refresh_interval,
                // Someone is catching up or committing right now; wait for them below.
                Err(_) => true,
            }
        };
        if stale
            && let Err(e) = self
                .catch_up_if_older_than(self.config.refresh_interval)
                .await
        {
            tracing::warn!(error = %e, root = %self.root, "could not read new log entries; serving what is in memory");
        }
    }

    async fn catch_up_if_older_than(&self, age: Duration) -> Result<()> {
        let last = self.advance.lock().await;
        if last.elapsed() < age {
            return Ok(());
        }
        self.catch_up_locked(last).await.map(drop)
    }

    /// Reads and applies every entry after the current one; returns how many.
    pub(crate) async fn catch_up(&self) -> Result<u64> {
        let guard = self.advance.lock().await;
        self.catch_up_locked(guard).await
    }

    async fn catch_up_locked(
        &self,
        mut guard: tokio::sync::MutexGuard<'_, Instant>,
    ) -> Result<u64> {
        let mut applied = 0;
        loop {
            let next = self.seq() + 1;
            let entry: Entry<S::Change> =
                match read_entry(&self.store, &entry_path(&self.root, next)).await {
                    Ok(entry) => entry,
                    Err(Error::NotFound { .. }) => break,
                    Err(e) => return Err(e),
                };
            self.loaded
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .apply(next, &entry);
            applied += 1;
        }
        *guard = Instant::now();
        Ok(applied)
    }

    /// Decides and writes one change.
    ///
    /// `decide` sees the current state and returns the changes to write (none: nothing to do)
    /// and the value to return. It may run more than once: after losing a race to another
    /// writer it runs again on the newer state, so its checks always hold for the state the
    /// changes apply to. When the store's answer is lost, the log tells whether the write
    /// landed; it is never written twice.
    pub(crate) async fn commit<R>(
        &self,
        at: Timestamp,
        mut decide: impl FnMut(&S) -> Result<(Vec<S::Change>, R)>,
    ) -> Result<R> {
        let _writer = self.write.lock().await;
        let txn = Uuid::new_v4();
        // Attempts that may have landed: the sequence number tried and the value decided. A put
        // that failed, and a put that found the entry taken (it may be ours: object stores'
        // clients retry a put whose answer was lost, and the retry finds our own entry).
        let mut maybe: Vec<(u64, R)> = Vec::new();
        let mut errors = 0;
        // Whether the state was read from the store since this call began.
        let mut fresh = false;
        for _round in 0..MAX_ROUNDS {
            // Before deciding again: did an earlier attempt land after all?
            if let Some(value) = self.landed(txn, &mut maybe).await? {
                self.snapshot_if_due().await;
                return Ok(value);
            }
            let decided = {
                let loaded = self.loaded.read().unwrap_or_else(|e| e.into_inner());
                decide(&loaded.state).map(|(changes, value)| (loaded.seq, changes, value))
            };
            let (seq, changes, value) = match decided {
                Ok((seq, changes, value)) if !changes.is_empty() => (seq, changes, value),
                // A refusal, or nothing to do: decided on a state that may be stale, so read the
                // store once and decide again before answering.
                other => {
                    if !fresh && self.catch_up().await.is_ok() {
                        fresh = true;
                        continue;
                    }
                    return other.map(|(_, _, value)| value);
                }
            };
            let entry = Entry {
                v: codec::VERSION,
                txn,
                at,
                changes,
            };
            let bytes = codec::encode(&entry)?;
            let next = seq + 1;
            let taken = match put_if_absent(&self.store, &entry_path(&self.root, next), bytes).await
            {
                Ok(()) => {
                    self.apply_own(next, &entry).await;
                    self.snapshot_if_due().await;
                    return Ok(value);
                }
                Err(object_store::Error::AlreadyExists { .. }) => {
                    maybe.push((next, value));
                    true
                }
                Err(e) => {
                    errors += 1;
                    tracing::warn!(error = %e, seq = next, "commit: store error of unknown outcome");
                    maybe.push((next, value));
                    if errors >= self.config.max_attempts {
                        return self.give_up(txn, &mut maybe, e.to_string()).await;
                    }
                    backoff(errors).await;
                    false
                }
            };
            match self.catch_up().await {
                Ok(0) if taken => {
                    // Taken, yet nothing new to read (an entry still being written elsewhere,
                    // or something that is not an entry): wait rather than spin.
                    errors += 1;
                    if errors >= self.config.max_attempts {
                        return self
                            .give_up(
                                txn,
                                &mut maybe,
                                format!("entry {next} is taken but unreadable"),
                            )
                            .await;
                    }
                    backoff(errors).await;
                }
                Ok(_) => fresh = true,
                Err(e) => {
                    errors += 1;
                    if errors >= self.config.max_attempts {
                        return self.give_up(txn, &mut maybe, e.to_string()).await;
                    }
                    backoff(errors).await;
                }
            }
        }
        self.give_up(
            txn,
            &mut maybe,
            format!("still contended after {MAX_ROUNDS} rounds"),
        )
        .await
    }

    /// The end of a commit that could not finish: one last look, then a storage error that
    /// says whether the write may still have landed.
    async fn give_up<R>(&self, txn: Uuid, maybe: &mut Vec<(u64, R)>, why: String) -> Result<R> {
        if self.catch_up().await.is_ok()
            && let Ok(Some(value)) = self.landed(txn, maybe).await
        {
            self.snapshot_if_due().await;
            return Ok(value);
        }
        let outcome = if maybe.is_empty() {
            "nothing was written"
        } else {
            "the change may or may not have been applied; read before retrying"
        };
        Err(Error::storage(format!("could not write: {why}; {outcome}")))
    }

    /// If transaction `txn` has been applied, the value decided for the attempt that landed.
    /// The ring of recent transactions answers at once; attempts older than the ring are read
    /// back from the store.
    async fn landed<R>(&self, txn: Uuid, maybe: &mut Vec<(u64, R)>) -> Result<Option<R>> {
        if maybe.is_empty() {
            return Ok(None);
        }
        let (found, oldest, current) = {
            let loaded = self.loaded.read().unwrap_or_else(|e| e.into_inner());
            let found = loaded
                .recent
                .iter()
                .rev()
                .find(|(t, _)| *t == txn)
                .map(|(_, seq)| *seq);
            let oldest = loaded
                .recent
                .front()
                .map_or(loaded.seq.saturating_add(1), |(_, seq)| *seq);
            (found, oldest, loaded.seq)
        };
        let mut seq = found;
        if seq.is_none() {
            let evicted: Vec<u64> = maybe
                .iter()
                .map(|(s, _)| *s)
                .filter(|s| *s < oldest && *s <= current)
                .collect();
            for candidate in evicted {
                let entry: Entry<S::Change> =
                    read_entry(&self.store, &entry_path(&self.root, candidate)).await?;
                if entry.txn == txn {
                    seq = Some(candidate);
                    break;
                }
            }
        }
        let Some(seq) = seq else { return Ok(None) };
        match maybe.iter().position(|(s, _)| *s == seq) {
            Some(i) => Ok(Some(maybe.swap_remove(i).1)),
            None => Err(Error::storage(format!(
                "transaction {txn} landed at entry {seq}, which it never tried"
            ))),
        }
    }

    async fn apply_own(&self, seq: u64, entry: &Entry<S::Change>) {
        // Our own write is the newest state we know of, but others may have written before
        // it: the refresh clock is left as it is.
        let _advance = self.advance.lock().await;
        let mut loaded = self.loaded.write().unwrap_or_else(|e| e.into_inner());
        // A reader may have caught up past our entry already (it read it from the store).
        if loaded.seq + 1 == seq {
            loaded.apply(seq, entry);
        }
    }

    async fn snapshot_if_due(&self) {
        let due = {
            let loaded = self.loaded.read().unwrap_or_else(|e| e.into_inner());
            loaded.seq
                >= loaded
                    .snapshot_seq
                    .saturating_add(self.config.snapshot_every)
        };
        if due {
            self.write_snapshot().await;
        }
    }

    /// Writes a snapshot of the current state and prunes all but the newest two. Failures are
    /// logged, not returned: the log is the truth and a snapshot only a shortcut.
    pub(crate) async fn write_snapshot(&self) {
        let (seq, bytes) = {
            let loaded = self.loaded.read().unwrap_or_else(|e| e.into_inner());
            let snapshot = Snapshot {
                v: codec::VERSION,
                seq: loaded.seq,
                state: &loaded.state,
            };
            (loaded.seq, codec::encode(&snapshot))
        };
        let bytes = match bytes {
            Ok(bytes) => bytes,
            Err(e) => {
                tracing::error!(error = %e, "could not encode a snapshot");
                return;
            }
        };
        match put_if_absent(&self.store, &snapshot_path(&self.root, seq), bytes).await {
            Ok(()) | Err(object_store::Error::AlreadyExists { .. }) => {}
            Err(e) => {
                tracing::warn!(error = %e, seq, "could not write a snapshot");
                return;
            }
        }
        {
            let mut loaded = self.loaded.write().unwrap_or_else(|e| e.into_inner());
            loaded.snapshot_seq = loaded.snapshot_seq.max(seq);
        }
        if let Ok(mut seqs) = list_snapshots(&self.store, &self.root).await {
            seqs.sort_unstable();
            let keep = seqs.len().saturating_sub(2);
            for old in &seqs[..keep] {
                let _ = self.store.delete(&snapshot_path(&self.root, *old)).await;
            }
        }
    }
}

async fn backoff(attempt: u32) {
    let ms = 10u64 << attempt.min(6);
    tokio::time::sleep(Duration::from_millis(ms)).await;
}

pub(crate) fn entry_path(root: &Path, seq: u64) -> Path {
    layout::log_entry(root, seq)
}

fn snapshot_path(root: &Path, seq: u64) -> Path {
    layout::snapshot(root, seq)
}

async fn put_if_absent(
    store: &Arc<dyn ObjectStore>,
    path: &Path,
    bytes: Vec<u8>,
) -> Result<(), object_store::Error> {
    let opts = PutOptions {
        mode: PutMode::Create,
        ..Default::default()
    };
    store
        .put_opts(path, PutPayload::from(bytes), opts)
        .await
        .map(drop)
}

async fn read_entry<C: DeserializeOwned>(
    store: &Arc<dyn ObjectStore>,
    path: &Path,
) -> Result<Entry<C>> {
    let bytes = match store.get(path).await {
        Ok(got) => got.bytes().await?,
        Err(object_store::Error::NotFound { .. }) => {
            return Err(Error::not_found("log entry", path));
        }
        Err(e) => return Err(e.into()),
    };
    let entry: Entry<C> = codec::decode(&bytes, path)?;
    codec::check_version(entry.v, path)?;
    Ok(entry)
}

async fn list_snapshots(store: &Arc<dyn ObjectStore>, root: &Path) -> Result<Vec<u64>> {
    let listed = store
        .list_with_delimiter(Some(&layout::snapshots(root)))
        .await?;
    Ok(listed
        .objects
        .iter()
        .filter_map(|meta| layout::snapshot_seq(&meta.location))
        .collect())
}

async fn load_newest_snapshot<S: Journal>(
    store: &Arc<dyn ObjectStore>,
    root: &Path,
) -> Result<Option<(u64, S)>> {
    let mut seqs = list_snapshots(store, root).await?;
    seqs.sort_unstable_by(|a, b| b.cmp(a));
    for seq in seqs {
        let path = snapshot_path(root, seq);
        let bytes = match store.get(&path).await {
            Ok(got) => got.bytes().await?,
            // Pruned by another process between list and get: try the next one.
            Err(object_store::Error::NotFound { .. }) => continue,
            Err(e) => return Err(e.into()),
        };
        match codec::decode::<Snapshot<S>>(&bytes, &path) {
            Ok(snapshot)
                if snapshot.seq == seq && codec::check_version(snapshot.v, &path).is_ok() =>
            {
                return Ok(Some((seq, snapshot.state)));
            }
            Ok(_) | Err(_) => {
                tracing::warn!(%path, "skipping an unreadable snapshot; the log has the same facts");
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests;
