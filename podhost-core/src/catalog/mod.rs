//! The catalog: one partition's state kept as an append-only log in the object store.
//!
//! Layout under the partition's root:
//!
//! ```text
//! log/00000000000000000001.json        entry 1: {"v":1,"txn":…,"at":…,"changes":[…]}
//! log/00000000000000000002.json        …
//! segments/00000000000000000256.json   {"v":1,"first":1,"last":256,"entries":[…]}: entries 1..=256
//! snapshots/00000000000000004096.json  {"v":2,"seq":4096,"parts":["3f…",…]}: the state after
//!                                      entry 4096, as the parts it lists
//! snapshots/parts/3f….json             one part, named by the SHA-256 of its bytes
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
//! - Segments and snapshots are caches of the log: written after the fact, in the background
//!   ([`compact`]), from the store rather than from a live state, deterministic for their
//!   sequence numbers, never required. Opening reads the newest snapshot, then the segments
//!   after it, then the entries after those ([`load`]): the objects read on open are bounded by
//!   the number of parts, `snapshot_every / segment_every` segments and `segment_every` entries.
//! - A snapshot writes only the parts that changed since the one before (a part's name is its
//!   hash), so its cost grows with what changed rather than with the partition.
//! - The log is never truncated (see ARCHITECTURE.md: truncation would let a stale writer fork
//!   the history with put-if-absent).

mod codec;
mod compact;
mod entries;
mod journal;
mod load;
mod tuning;

use crate::lock::{Locked, Shared};
use std::{
    sync::{Arc, RwLock, atomic::Ordering},
    time::{Duration, Instant},
};

use jiff::Timestamp;
use object_store::{ObjectStore, path::Path};
use uuid::Uuid;

use crate::error::{Error, Result};
use codec::Entry;
use entries::{entry_path, put_if_absent, read_entry, read_entry_bytes};
pub(crate) use journal::Journal;
use load::Loaded;
pub use load::OpenStats;
pub use tuning::CatalogConfig;

/// What runs after an entry of this process landed, before its commit returns (the host keeps
/// its index of background work there). A failure is the hook's to log: the entry landed.
#[async_trait::async_trait]
pub(crate) trait AfterCommit<C>: Send + Sync {
    /// The entry's changes landed at `at`.
    async fn committed(&self, at: Timestamp, changes: &[C]);
}

/// A commit gives up after this many rounds of losing races.
const MAX_ROUNDS: u32 = 200;

/// How long a commit waits for an entry another writer took to become readable.
const TAKEN_PATIENCE: Duration = Duration::from_secs(10);

/// One partition's state, in memory, kept in step with its log in the store.
pub(crate) struct Catalog<S: Journal> {
    store: Arc<dyn ObjectStore>,
    root: Path,
    config: CatalogConfig,
    loaded: RwLock<Loaded<S>>,
    /// Serialises the writers of this process, so they don't race each other in the store.
    write: tokio::sync::Mutex<()>,
    /// Serialises advancing `loaded.seq` (catching up and applying one's own entry). Holds when
    /// the last successful look at the store for new entries began: the state holds every
    /// entry that landed before then.
    advance: tokio::sync::Mutex<Instant>,
    /// `advance`'s value, read without waiting for it: how old the state may be, for a reader
    /// answered from memory while another's look holds `advance`.
    looked: std::sync::Mutex<Instant>,
    /// When a paced miss ([`read_some`](Self::read_some)) last looked at the store.
    paced_look: std::sync::Mutex<Option<Instant>>,
    /// When a reader's look at the store for new entries last failed (a stalled store, a
    /// server cut off from it): readers that waited for that look are answered from memory
    /// rather than each trying again, one store timeout after another.
    failed_look: std::sync::Mutex<Option<Instant>>,
    /// Segments and snapshots, written in the background.
    compaction: Arc<compact::Compaction>,
    /// Where commits are counted, by outcome.
    metrics: Option<crate::metrics::Metrics>,
    /// What runs after each entry of this process landed.
    after_commit: Vec<Arc<dyn AfterCommit<S::Change>>>,
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
        let mut loaded = Loaded {
            seq: 0,
            state: Arc::new(S::default()),
            recent: Default::default(),
        };
        Arc::make_mut(&mut loaded.state).after_load();
        loaded.apply(1, &entry);
        Ok(Self::with_loaded(
            store,
            root,
            config,
            loaded,
            compact::Compaction::default(),
            Instant::now(),
        ))
    }

    /// Opens the partition: the newest readable snapshot, then every entry after it.
    /// `None` when the partition does not exist.
    pub(crate) async fn open(
        store: Arc<dyn ObjectStore>,
        root: Path,
        config: CatalogConfig,
    ) -> Result<Option<(Self, OpenStats)>> {
        // The state holds every entry that landed before the load began.
        let began = Instant::now();
        let (loaded, base) = load::load::<S>(&store, &root, config.segment_every, u64::MAX).await?;
        if loaded.seq == 0 {
            return Ok(None);
        }
        let compaction = compact::Compaction::new(base.segment_seq, base.stats.snapshot_seq);
        let catalog = Self::with_loaded(store, root, config, loaded, compaction, began);
        catalog.compact_if_due();
        Ok(Some((catalog, base.stats)))
    }

    fn with_loaded(
        store: Arc<dyn ObjectStore>,
        root: Path,
        config: CatalogConfig,
        loaded: Loaded<S>,
        compaction: compact::Compaction,
        read_at: Instant,
    ) -> Self {
        Catalog {
            store,
            root,
            config,
            loaded: RwLock::new(loaded),
            write: tokio::sync::Mutex::new(()),
            advance: tokio::sync::Mutex::new(read_at),
            looked: std::sync::Mutex::new(read_at),
            paced_look: Default::default(),
            failed_look: Default::default(),
            compaction: Arc::new(compaction),
            metrics: None,
            after_commit: Vec::new(),
        }
    }

    /// The catalog with its commits counted in `metrics`.
    pub(crate) fn counted(mut self, metrics: crate::metrics::Metrics) -> Self {
        self.metrics = Some(metrics);
        self
    }

    /// The catalog with `hook` run after each of its commits lands (after the hooks given
    /// before it).
    pub(crate) fn after_commit(mut self, hook: Arc<dyn AfterCommit<S::Change>>) -> Self {
        self.after_commit.push(hook);
        self
    }

    fn count(&self, outcome: &'static str) {
        if let Some(metrics) = &self.metrics {
            metrics.commit(outcome);
        }
    }

    /// About how many bytes the state holds ([`Journal::weight`]).
    pub(crate) fn weight(&self) -> usize {
        self.loaded.reading().state.weight()
    }

    /// The sequence number of the last applied entry.
    pub(crate) fn seq(&self) -> u64 {
        self.loaded.reading().seq
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
        let loaded = self.loaded.reading();
        f(&loaded.state)
    }

    /// The state as of now (refreshed like [`read`](Self::read)) and its version, to read at
    /// length without holding the lock writers wait for: a long read (a cold render of a large
    /// feed) takes a view, and a writer meanwhile applies its change to a copy of the state.
    pub(crate) async fn view(&self) -> (u64, Arc<S>) {
        self.refresh_if_stale().await;
        let loaded = self.loaded.reading();
        (loaded.seq, loaded.state.clone())
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
                let looked = self.look_after_miss().await;
                unconfirmed_miss(self.read(&f).await, looked)
            }
            other => other,
        }
    }

    /// Reads like [`read_found`](Self::read_found), from a [`view`](Self::view):
    /// for a long read, which writers must not wait for. With the version it read.
    pub(crate) async fn view_found<T>(&self, f: impl Fn(&S) -> Result<T>) -> Result<(u64, T)> {
        let (seq, state) = self.view().await;
        match f(&state) {
            Err(Error::NotFound { .. }) => {
                drop(state);
                let looked = self.look_after_miss().await;
                let (seq, state) = self.view().await;
                unconfirmed_miss(f(&state), looked).map(|value| (seq, value))
            }
            other => other.map(|value| (seq, value)),
        }
    }

    /// Reads like [`read`](Self::read); when `f` finds nothing (`None`), looks at the store for
    /// entries this process has not read yet and reads again, so that something made a moment
    /// ago by another process (a token made by the CLI or on another server) is found at once.
    /// Unlike [`read_found`](Self::read_found), misses are paced: the store is looked at for
    /// them at most once per `pace` (a miss soon after a look waits for the next one instead of
    /// being refused), so a flood of unknown names costs the store `1/pace` reads a second.
    pub(crate) async fn read_some<T>(
        &self,
        pace: Duration,
        f: impl Fn(&S) -> Option<T>,
    ) -> Option<T> {
        if let Some(found) = self.read(&f).await {
            return Some(found);
        }
        let missed = Instant::now();
        loop {
            let wait = self
                .paced_look
                .locked()
                .map_or(Duration::ZERO, |at| pace.saturating_sub(at.elapsed()));
            if !wait.is_zero() {
                tokio::time::sleep(wait).await;
            }
            let Ok(last) = self.advancing("look").await else {
                self.answered_from_memory();
                break;
            };
            if *last >= missed {
                // Someone read the store's new entries after the miss.
                break;
            }
            {
                let mut paced = self.paced_look.locked();
                if paced.is_some_and(|at| at.elapsed() < pace) {
                    // Another miss looked while this one waited for the lock.
                    continue;
                }
                *paced = Some(Instant::now());
            }
            if let Err(e) = self.catch_up_locked(last).await {
                tracing::warn!(error = %e, root = %self.root, "could not read new log entries");
            }
            break;
        }
        let loaded = self.loaded.reading();
        f(&loaded.state)
    }

    /// After a read found nothing: reads the store's new entries, unless someone did since
    /// the miss (concurrent misses share one look). `Err` when the look could not be made
    /// (the store did not answer, or the request's store time ran out).
    async fn look_after_miss(&self) -> Result<()> {
        let missed = Instant::now();
        let last = self.advancing("look").await?;
        if *last < missed
            && let Err(e) = self.catch_up_locked(last).await
        {
            tracing::warn!(error = %e, root = %self.root, "could not read new log entries");
            return Err(e);
        }
        Ok(())
    }

    /// Before a read: catches up with the store unless a look at it began recently enough for
    /// this read. A read for a request that reads the latest ([`crate::request::reads_latest`])
    /// needs a look that began after it was asked, so it sees every write that was answered
    /// before it, on any server (linearizable); any other read accepts a look that began within
    /// the refresh interval. Readers waiting together share one look: each look answers every
    /// reader that asked before it began.
    async fn refresh_if_stale(&self) {
        let asked = Instant::now();
        let interval = if crate::request::reads_latest() {
            Duration::ZERO
        } else {
            self.config.refresh_interval
        };
        // Whether a look that began at `read_at` is recent enough.
        let covers = |read_at: Instant| match asked.checked_sub(interval) {
            Some(oldest) => read_at > oldest,
            // The interval reaches back before this machine started.
            None => true,
        };
        match self.advance.try_lock() {
            Ok(last) if covers(*last) => return,
            // Someone is catching up or committing right now; wait for them below.
            _ => {}
        }
        let Ok(last) = self.advancing("look").await else {
            // The request's store time ran out waiting for another reader's look: answered
            // from memory, as after a failed look.
            self.answered_from_memory();
            return;
        };
        let read_at = *last;
        if covers(read_at) {
            return;
        }
        // A look that failed while this reader waited for it answers this reader too.
        let failed_meanwhile = self.failed_look.locked().is_some_and(|at| at >= asked);
        if !failed_meanwhile {
            match self.catch_up_locked(last).await {
                Ok(_) => return,
                Err(e) => {
                    *self.failed_look.locked() = Some(Instant::now());
                    tracing::warn!(error = %e, root = %self.root, "could not read new log entries; serving what is in memory");
                }
            }
        }
        // Answered from what this process holds: the answer says how old it may be.
        crate::request::served_stale(read_at.elapsed());
    }

    /// Reads and applies every entry after the current one; returns how many.
    pub(crate) async fn catch_up(&self) -> Result<u64> {
        let guard = self.advancing("catch up").await?;
        self.catch_up_locked(guard).await
    }

    /// The advance lock, for `what`: its holder reads the store, so an API request's wait for
    /// it counts as its store time ([`waiting_for`](crate::store::budget::waiting_for)); 503
    /// when the request's store time runs out first.
    async fn advancing(&self, what: &'static str) -> Result<tokio::sync::MutexGuard<'_, Instant>> {
        charged(what, self.advance.lock()).await
    }

    /// Notes that the current request is answered from memory, as old as the last look that
    /// succeeded.
    fn answered_from_memory(&self) {
        crate::request::served_stale(self.looked.locked().elapsed());
    }

    async fn catch_up_locked(
        &self,
        mut guard: tokio::sync::MutexGuard<'_, Instant>,
    ) -> Result<u64> {
        let began = Instant::now();
        let mut applied = 0;
        loop {
            let next = self.seq() + 1;
            let (entry, bytes) =
                match read_entry_bytes::<S::Change>(&self.store, &entry_path(&self.root, next))
                    .await
                {
                    Ok(read) => read,
                    Err(Error::NotFound { .. }) => break,
                    Err(e) => return Err(e),
                };
            self.loaded.writing().apply(next, &entry);
            self.compaction.remember(next, bytes, &self.config);
            applied += 1;
        }
        *guard = began;
        *self.looked.locked() = began;
        Ok(applied)
    }

    /// Decides and writes one change.
    ///
    /// `decide` sees the current state and returns the changes to write (none: nothing to do)
    /// and the value to return. It may run more than once: after losing a race to another
    /// writer it runs again on the newer state, so its checks always hold for the state the
    /// changes apply to. When the store's answer is lost, the log tells whether the write
    /// landed; it is never written twice.
    ///
    /// `by`, when given, is written first in the entry with the changes decided (the account's
    /// catalog records who made each change there; see `AccountCatalog::commit`).
    pub(crate) async fn commit_by<R: serde::Serialize + serde::de::DeserializeOwned>(
        &self,
        at: Timestamp,
        by: Option<S::Change>,
        mut decide: impl FnMut(&S) -> Result<(Vec<S::Change>, R)>,
    ) -> Result<R>
    where
        S::Change: Clone,
    {
        // Behind the account's earlier writes: a wait the request's store budget counts (each
        // of them waits on the store), so a write queued behind slow commits is refused (503)
        // within the store timeout, as one that waits on the store itself is.
        let _writer = charged("commit", self.write.lock()).await?;
        let txn = Uuid::new_v4();
        // A step of a keyed request: one that landed before is not decided again.
        let step = crate::request::RequestContext::next_step(self.root.as_ref());
        // Attempts that may have landed: the sequence number tried and the value decided. A put
        // that failed, and a put that found the entry taken (it may be ours: object stores'
        // clients retry a put whose answer was lost, and the retry finds our own entry).
        let mut maybe: Vec<(u64, R)> = Vec::new();
        let mut errors = 0;
        // Whether the state was read from the store since this call began.
        let mut fresh = false;
        // Since when the entry tried last is taken by another writer yet not readable.
        let mut unreadable_since: Option<Instant> = None;
        for _round in 0..MAX_ROUNDS {
            // Before deciding again: did an earlier attempt land after all?
            if let Some(value) = self.landed(txn, &mut maybe).await? {
                self.count("committed");
                self.compact_if_due();
                return Ok(value);
            }
            let decided = {
                let loaded = self.loaded.reading();
                if let Some((key, n)) = &step
                    && let Some(landed) = loaded.state.keyed_step(key, *n)
                {
                    return serde_json::from_value(landed.clone()).map_err(|e| {
                        Error::storage(format!("step {n} of request {key} does not read: {e}"))
                    });
                }
                decide(&loaded.state).map(|(mut changes, value)| {
                    if let Some(by) = &by
                        && !changes.is_empty()
                    {
                        changes.insert(0, by.clone());
                    }
                    if let Some((key, n)) = &step
                        && !changes.is_empty()
                    {
                        match serde_json::to_value(&value) {
                            Ok(landed) => changes.extend(S::keyed_step_change(key, *n, landed)),
                            // Unreachable for the core's values; were it reached, a repeat
                            // would decide this step again rather than fail the request.
                            Err(e) => {
                                tracing::warn!(error = %e, "a keyed step's value does not write")
                            }
                        }
                    }
                    (loaded.seq, changes, value)
                })
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
            let bytes = bytes::Bytes::from(codec::encode(&entry)?);
            let next = seq + 1;
            let taken = match put_if_absent(
                &self.store,
                &entry_path(&self.root, next),
                bytes.clone(),
            )
            .await
            {
                Ok(()) => {
                    self.count("committed");
                    self.apply_own(next, &entry).await;
                    self.compaction.remember(next, bytes, &self.config);
                    self.compact_if_due();
                    for hook in &self.after_commit {
                        hook.committed(at, &entry.changes).await;
                    }
                    return Ok(value);
                }
                Err(object_store::Error::AlreadyExists { .. }) => {
                    self.count("conflict");
                    maybe.push((next, value));
                    true
                }
                Err(e) => {
                    let e = Error::from(e);
                    match e {
                        // The store does not answer: trying again, or looking, would hold the
                        // caller another timeout each. Said at once; the key makes a retry safe.
                        Error::Unavailable { .. } => return Err(self.stalled(e)),
                        // A full disk keeps nothing of the entry: said at once, once the log
                        // shows that no earlier attempt of this commit landed (one that found
                        // its entry taken may have been ours).
                        Error::InsufficientStorage { .. } => {
                            let earlier = if maybe.is_empty() {
                                Ok(None)
                            } else {
                                match self.catch_up().await {
                                    Ok(_) => self.landed(txn, &mut maybe).await,
                                    Err(read) => Err(read),
                                }
                            };
                            match earlier {
                                Ok(Some(value)) => {
                                    self.count("committed");
                                    self.compact_if_due();
                                    return Ok(value);
                                }
                                Ok(None) => {
                                    self.count("failed");
                                    return Err(e);
                                }
                                // The log could not be read: decided below, like any error.
                                Err(_) => {}
                            }
                        }
                        _ => {}
                    }
                    tracing::warn!(error = %e, seq = next, "commit: store error of unknown outcome");
                    errors += 1;
                    maybe.push((next, value));
                    if errors >= self.config.max_attempts {
                        return self.give_up(txn, &mut maybe, e.to_string()).await;
                    }
                    self.backing_off(errors).await?;
                    false
                }
            };
            match self.catch_up().await {
                Ok(0) if taken => {
                    // Taken, yet nothing new to read: an entry still being written elsewhere
                    // (SeaweedFS refuses a second conditional put of a key before the first
                    // put's object can be read: seconds, under contention), or something that
                    // is not an entry. Waited for, up to TAKEN_PATIENCE, rather than spun on.
                    let since = *unreadable_since.get_or_insert_with(Instant::now);
                    if since.elapsed() >= TAKEN_PATIENCE {
                        return self
                            .give_up(
                                txn,
                                &mut maybe,
                                format!("entry {next} is taken but unreadable"),
                            )
                            .await;
                    }
                    self.backing_off(4).await?;
                }
                Ok(_) => {
                    fresh = true;
                    unreadable_since = None;
                }
                Err(e @ Error::Unavailable { .. }) => return Err(self.stalled(e)),
                Err(e) => {
                    errors += 1;
                    if errors >= self.config.max_attempts {
                        return self.give_up(txn, &mut maybe, e.to_string()).await;
                    }
                    self.backing_off(errors).await?;
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

    /// A commit's wait before it tries again (the store failed, or another writer's entry is
    /// not readable yet): store time for an API request, which is refused (503, the change
    /// may have landed) when its store time runs out first.
    async fn backing_off(&self, attempt: u32) -> Result<()> {
        charged("commit", backoff(attempt))
            .await
            .map_err(|e| self.stalled(e))
    }

    /// The end of a commit whose store stopped answering: `stalled` (an
    /// [`Error::Unavailable`]), saying the change may have landed.
    fn stalled(&self, stalled: Error) -> Error {
        self.count("failed");
        match stalled {
            Error::Unavailable {
                message,
                retry_after,
            } => Error::Unavailable {
                message: format!("{message}; the change may or may not have been applied"),
                retry_after,
            },
            other => other,
        }
    }

    /// The end of a commit that could not finish: one last look, then a storage error that
    /// says whether the write may still have landed.
    async fn give_up<R>(&self, txn: Uuid, maybe: &mut Vec<(u64, R)>, why: String) -> Result<R> {
        if self.catch_up().await.is_ok()
            && let Ok(Some(value)) = self.landed(txn, maybe).await
        {
            self.count("committed");
            self.compact_if_due();
            return Ok(value);
        }
        self.count("failed");
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
            let loaded = self.loaded.reading();
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
        let mut loaded = self.loaded.writing();
        // A reader may have caught up past our entry already (it read it from the store).
        if loaded.seq + 1 == seq {
            loaded.apply(seq, entry);
        }
    }

    /// Starts writing the segments and the snapshot that are due, in the background, unless a
    /// compaction is running already (the first commit after it ends starts the next one).
    fn compact_if_due(&self) {
        let seq = self.seq();
        self.compaction.latest.fetch_max(seq, Ordering::AcqRel);
        if !self.compaction.due(seq, &self.config) {
            return;
        }
        let Ok(running) = self.compaction.running.clone().try_lock_owned() else {
            return;
        };
        let (store, root, config) = (self.store.clone(), self.root.clone(), self.config.clone());
        let compaction = self.compaction.clone();
        tokio::spawn(async move {
            let mut running = Some(running);
            loop {
                let target = compaction.latest.load(Ordering::Acquire);
                if running.is_some() && compaction.due(target, &config) {
                    if let Err(e) =
                        compact::run::<S>(&store, &root, &config, &compaction, target, false).await
                    {
                        tracing::warn!(error = %e, %root, "could not compact the log; it is read whole instead");
                        return;
                    }
                    continue;
                }
                drop(running.take());
                // A commit that found this task running just now did not start another: look
                // once more, unlocked, and go on if there is work and nobody took it.
                if !compaction.due(compaction.latest.load(Ordering::Acquire), &config) {
                    return;
                }
                match compaction.running.clone().try_lock_owned() {
                    Ok(again) => running = Some(again),
                    Err(_) => return,
                }
            }
        });
    }

    /// Waits until the background compaction, if one runs, has finished.
    pub(crate) async fn settle(&self) {
        drop(self.compaction.running.lock().await);
    }

    /// Writes the segments that are due and a snapshot of the current entry now, after any
    /// running compaction.
    #[cfg(test)]
    pub(crate) async fn snapshot(&self) -> Result<()> {
        let _running = self.compaction.running.lock().await;
        let seq = self.seq();
        compact::run::<S>(
            &self.store,
            &self.root,
            &self.config,
            &self.compaction,
            seq,
            true,
        )
        .await
    }
}

/// `wait`, charged to the current request's store time
/// ([`waiting_for`](crate::store::budget::waiting_for)): 503 for `operation` when that time
/// runs out first.
async fn charged<F: std::future::Future>(operation: &'static str, wait: F) -> Result<F::Output> {
    crate::store::budget::waiting_for(wait)
        .await
        .map_err(|after| Error::from(crate::store::metered::wait_stalled(operation, after)))
}

/// The answer of a read that missed, then looked at the store and read again: a miss the
/// look could not confirm, because the store did not answer it, is the store's 503 rather
/// than a 404 (the record may have been made a moment ago on another server).
fn unconfirmed_miss<T>(read: Result<T>, looked: Result<()>) -> Result<T> {
    match (read, looked) {
        (Err(Error::NotFound { .. }), Err(e @ Error::Unavailable { .. })) => Err(e),
        (read, _) => read,
    }
}

async fn backoff(attempt: u32) {
    let ms = 10u64 << attempt.min(6);
    tokio::time::sleep(Duration::from_millis(ms)).await;
}

#[cfg(test)]
mod tests;
