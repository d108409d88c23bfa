//! A fault-injecting [`ObjectStore`] wrapper: errors, ambiguous successes, delays, gates that
//! hold chosen calls until a test lets them through, and counters of what went through.

use podhost_core::lock::Locked;
use std::{
    fmt,
    ops::Range,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use async_trait::async_trait;
use futures::{StreamExt, stream::BoxStream};
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, Result, path::Path,
};
use rand::Rng;

/// Which faults to inject, as probabilities per call.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Faults {
    /// The call fails before reaching the store.
    pub error: f64,
    /// A write reaches the store, then the caller is told it failed (a lost answer).
    pub ambiguous: f64,
    /// A put-if-absent reaches the store, then the caller is told the object exists: what an
    /// object store client's own retry of a put whose answer was lost reports (S3 answers the
    /// retry 412, which object_store reports as `AlreadyExists`).
    pub retried_put: f64,
    /// A put is answered as done and never written: an acknowledgement before the write is
    /// durable, as a broken build (or a store that lies) gives one. No correct podhost survives
    /// it: the history checker must find what it loses.
    pub lost_write: f64,
    /// Every call waits this long first.
    pub delay: Option<Duration>,
    /// Creates overwrite what exists, as an S3-compatible server that ignores
    /// `If-None-Match: *` does (not a probability: always, while set).
    pub ignore_conditional_writes: bool,
    /// Creates are refused as taken and nothing is written, so nothing can be read there:
    /// what SeaweedFS answers a conditional put while another client's put of the same key
    /// is still in flight (that client paused mid-put). Not a probability: always, while set.
    pub taken_elsewhere: bool,
}

/// Counts of calls and bytes, read with [`FaultStore::counts`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Successful and failed `get`/`head` calls.
    pub gets: u64,
    /// Puts (single and multipart creations).
    pub puts: u64,
    /// Bytes in single puts.
    pub bytes_put: u64,
    /// Lists.
    pub lists: u64,
    /// Deletes.
    pub deletes: u64,
    /// Injected failures.
    pub injected: u64,
}

#[derive(Default)]
struct Counters {
    gets: AtomicU64,
    puts: AtomicU64,
    bytes_put: AtomicU64,
    lists: AtomicU64,
    deletes: AtomicU64,
    injected: AtomicU64,
}

/// The kind of a store call, as a [`Gate`]'s predicate sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// A single put (plain or conditional).
    Put,
    /// The start of a multipart upload.
    PutMultipart,
    /// A get or a ranged read.
    Get,
    /// A delete.
    Delete,
    /// A copy.
    Copy,
}

type GatePredicate = dyn Fn(Call, &Path) -> bool + Send + Sync;

/// Holds the store calls that match its predicate until [`open`](Gate::open)ed: how a test stops
/// a background job (or an upload) at a chosen point, acts meanwhile, then lets it finish.
/// Made by [`FaultStore::gate`]; closed when made.
#[derive(Clone)]
pub struct Gate {
    matches: Arc<GatePredicate>,
    open: Arc<tokio::sync::watch::Sender<bool>>,
    /// How many calls are waiting at the gate now.
    waiting: Arc<tokio::sync::watch::Sender<usize>>,
}

impl Gate {
    /// Waits until at least one call is held at the gate.
    pub async fn reached(&self) {
        let mut waiting = self.waiting.subscribe();
        let _ = waiting.wait_for(|n| *n > 0).await;
    }

    /// Whether a call is held at the gate now.
    pub fn is_holding(&self) -> bool {
        *self.waiting.borrow() > 0
    }

    /// Lets the held calls, and every later one, through.
    pub fn open(&self) {
        self.open.send_replace(true);
    }

    /// Holds matching calls again from now on.
    pub fn close(&self) {
        self.open.send_replace(false);
    }

    async fn pass(&self, call: Call, path: &Path) {
        if *self.open.borrow() || !(self.matches)(call, path) {
            return;
        }
        let mut open = self.open.subscribe();
        self.waiting.send_modify(|n| *n += 1);
        let _ = open.wait_for(|open| *open).await;
        self.waiting.send_modify(|n| *n -= 1);
    }
}

/// Wraps a store and injects [`Faults`]; healthy until told otherwise.
#[derive(Clone)]
pub struct FaultStore {
    inner: Arc<dyn ObjectStore>,
    faults: Arc<Mutex<Faults>>,
    counters: Arc<Counters>,
    gates: Arc<Mutex<Vec<Gate>>>,
}

impl fmt::Debug for FaultStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FaultStore({})", self.inner)
    }
}

impl fmt::Display for FaultStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FaultStore({})", self.inner)
    }
}

fn injected(what: &str) -> object_store::Error {
    object_store::Error::Generic {
        store: "FaultStore",
        source: format!("injected fault: {what}").into(),
    }
}

impl FaultStore {
    /// A healthy wrapper around `inner`.
    pub fn new(inner: Arc<dyn ObjectStore>) -> Self {
        FaultStore {
            inner,
            faults: Default::default(),
            counters: Default::default(),
            gates: Default::default(),
        }
    }

    /// A new gate, closed: from now on, calls for which `matches` is true wait until it is
    /// opened.
    pub fn gate(&self, matches: impl Fn(Call, &Path) -> bool + Send + Sync + 'static) -> Gate {
        let gate = Gate {
            matches: Arc::new(matches),
            open: Arc::new(tokio::sync::watch::channel(false).0),
            waiting: Arc::new(tokio::sync::watch::channel(0).0),
        };
        self.gates.locked().push(gate.clone());
        gate
    }

    /// Waits at every closed gate that holds this call.
    async fn pass_gates(&self, call: Call, path: &Path) {
        let gates = self.gates.locked().clone();
        for gate in gates {
            gate.pass(call, path).await;
        }
    }

    /// Injects these faults from now on.
    pub fn set(&self, faults: Faults) {
        *self.faults.locked() = faults;
    }

    /// Stops injecting faults.
    pub fn heal(&self) {
        self.set(Faults::default());
    }

    /// What went through so far.
    pub fn counts(&self) -> Counts {
        let c = &self.counters;
        Counts {
            gets: c.gets.load(Ordering::Relaxed),
            puts: c.puts.load(Ordering::Relaxed),
            bytes_put: c.bytes_put.load(Ordering::Relaxed),
            lists: c.lists.load(Ordering::Relaxed),
            deletes: c.deletes.load(Ordering::Relaxed),
            injected: c.injected.load(Ordering::Relaxed),
        }
    }

    /// Sets all counters to zero.
    pub fn reset_counts(&self) {
        let c = &self.counters;
        for counter in [
            &c.gets,
            &c.puts,
            &c.bytes_put,
            &c.lists,
            &c.deletes,
            &c.injected,
        ] {
            counter.store(0, Ordering::Relaxed);
        }
    }

    /// Whether a fault of probability `p` (read from the faults now) hits this call, counted.
    fn roll_chance(&self, p: impl Fn(&Faults) -> f64) -> bool {
        let p = p(&self.faults.locked());
        let hit = p > 0.0 && rand::rng().random_bool(p.min(1.0));
        if hit {
            self.counters.injected.fetch_add(1, Ordering::Relaxed);
        }
        hit
    }

    fn roll_lost_write(&self) -> bool {
        self.roll_chance(|f| f.lost_write)
    }

    fn roll_retried_put(&self) -> bool {
        self.roll_chance(|f| f.retried_put)
    }

    /// Waits the delay, then says whether this call fails before reaching the store, and
    /// whether a write should be reported failed after it landed.
    async fn roll(&self) -> (bool, bool) {
        let faults = self.faults.locked().clone();
        if let Some(delay) = faults.delay {
            tokio::time::sleep(delay).await;
        }
        let mut rng = rand::rng();
        let fail = faults.error > 0.0 && rng.random_bool(faults.error.min(1.0));
        let ambiguous = faults.ambiguous > 0.0 && rng.random_bool(faults.ambiguous.min(1.0));
        if fail || ambiguous {
            self.counters.injected.fetch_add(1, Ordering::Relaxed);
        }
        (fail, ambiguous)
    }
}

#[async_trait]
impl ObjectStore for FaultStore {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> Result<PutResult> {
        self.pass_gates(Call::Put, location).await;
        self.counters.puts.fetch_add(1, Ordering::Relaxed);
        self.counters
            .bytes_put
            .fetch_add(payload.content_length() as u64, Ordering::Relaxed);
        let (fail, ambiguous) = self.roll().await;
        if fail {
            return Err(injected("put failed"));
        }
        if self.roll_lost_write() {
            return Ok(PutResult {
                e_tag: Some(format!("lost-{:016x}", rand::random::<u64>())),
                version: None,
                extensions: Default::default(),
            });
        }
        let create = matches!(opts.mode, object_store::PutMode::Create);
        if create && self.faults.locked().taken_elsewhere {
            self.counters.injected.fetch_add(1, Ordering::Relaxed);
            return Err(object_store::Error::AlreadyExists {
                path: location.to_string(),
                source: "injected fault: another client's put of this key is in flight".into(),
            });
        }
        let mut opts = opts;
        if create && self.faults.lock().unwrap().ignore_conditional_writes {
            opts.mode = object_store::PutMode::Overwrite;
        }
        let result = self.inner.put_opts(location, payload, opts).await;
        if ambiguous && result.is_ok() {
            return Err(injected("put landed, answer lost"));
        }
        if create && result.is_ok() && self.roll_retried_put() {
            return Err(object_store::Error::AlreadyExists {
                path: location.to_string(),
                source: "injected fault: put landed, the client's retry found it".into(),
            });
        }
        result
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        self.pass_gates(Call::PutMultipart, location).await;
        self.counters.puts.fetch_add(1, Ordering::Relaxed);
        if self.roll().await.0 {
            return Err(injected("multipart upload failed"));
        }
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        self.pass_gates(Call::Get, location).await;
        self.counters.gets.fetch_add(1, Ordering::Relaxed);
        if self.roll().await.0 {
            return Err(injected("get failed"));
        }
        self.inner.get_opts(location, options).await
    }

    async fn get_ranges(
        &self,
        location: &Path,
        ranges: &[Range<u64>],
    ) -> Result<Vec<bytes::Bytes>> {
        self.pass_gates(Call::Get, location).await;
        self.counters.gets.fetch_add(1, Ordering::Relaxed);
        if self.roll().await.0 {
            return Err(injected("get failed"));
        }
        self.inner.get_ranges(location, ranges).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        let this = self.clone();
        locations
            .then(move |location| {
                let this = this.clone();
                async move {
                    let location = location?;
                    this.pass_gates(Call::Delete, &location).await;
                    this.counters.deletes.fetch_add(1, Ordering::Relaxed);
                    let (fail, ambiguous) = this.roll().await;
                    if fail {
                        return Err(injected("delete failed"));
                    }
                    let mut done = this
                        .inner
                        .delete_stream(futures::stream::iter([Ok(location)]).boxed());
                    let result = done
                        .next()
                        .await
                        .unwrap_or_else(|| Err(injected("delete gave no answer")));
                    if ambiguous && result.is_ok() {
                        return Err(injected("delete landed, answer lost"));
                    }
                    result
                }
            })
            .boxed()
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        self.counters.lists.fetch_add(1, Ordering::Relaxed);
        let fail = {
            let faults = self.faults.locked();
            faults.error > 0.0 && rand::rng().random_bool(faults.error.min(1.0))
        };
        if fail {
            self.counters.injected.fetch_add(1, Ordering::Relaxed);
            return futures::stream::once(async { Err(injected("list failed")) }).boxed();
        }
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        self.counters.lists.fetch_add(1, Ordering::Relaxed);
        if self.roll().await.0 {
            return Err(injected("list failed"));
        }
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.pass_gates(Call::Copy, to).await;
        self.counters.puts.fetch_add(1, Ordering::Relaxed);
        let (fail, ambiguous) = self.roll().await;
        if fail {
            return Err(injected("copy failed"));
        }
        let result = self.inner.copy_opts(from, to, options).await;
        if ambiguous && result.is_ok() {
            return Err(injected("copy landed, answer lost"));
        }
        result
    }
}
