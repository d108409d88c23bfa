//! The request a piece of work is done for. A frontend runs each request's work inside
//! [`RequestContext::run`]; the core then writes the request's id into what outlives it (a job
//! it asks for, an event it records), so that every log line of the request, and of the jobs
//! and deliveries it starts, carries one id.

use std::{
    future::Future,
    sync::{
        Arc,
        atomic::{AtomicU32, AtomicU64, Ordering},
    },
};

use crate::{idempotency::KeyedRun, store::layout};

tokio::task_local! {
    static CURRENT: RequestContext;
}

/// The longest request id kept; a longer one is replaced by a new one.
pub const MAX_REQUEST_ID: usize = 128;

/// What the core knows of the request it works for.
#[derive(Debug, Clone)]
pub struct RequestContext {
    id: String,
    keyed: Option<Arc<Keyed>>,
    /// The account records its work touched so far (see [`touched`](Self::touched)).
    touched: Arc<AtomicU64>,
    /// How old, in ms, the oldest copy of an account its answer was read from may be, when the
    /// store could not be read for newer entries (see [`stale_for`](Self::stale_for)); 0: fresh.
    stale_ms: Arc<AtomicU64>,
    /// What the frontend says of the request on every log line of it (see
    /// [`labelled`](Self::labelled)).
    labels: Arc<[(&'static str, &'static str)]>,
    /// Whether its reads see every write answered before they began (see
    /// [`reading_latest`](Self::reading_latest)).
    latest: bool,
    /// Set when it gives up on the store after a stall (see
    /// [`giving_up_after_a_stall`](Self::giving_up_after_a_stall)): the store time its store
    /// requests may spend, and whether they gave up.
    budget: Option<Arc<crate::store::budget::Budget>>,
}

/// A keyed request's steps: its commits to its account's catalog, numbered in order.
#[derive(Debug)]
struct Keyed {
    /// The account catalog's root.
    root: String,
    key: String,
    next: AtomicU32,
}

impl RequestContext {
    /// A context with the request id `given` when it is sane (1 to 128 visible ASCII
    /// characters, no quotes or backslashes), else with a new random id.
    pub fn new(given: Option<&str>) -> Self {
        let sane = given.filter(|id| {
            (1..=MAX_REQUEST_ID).contains(&id.len())
                && id
                    .bytes()
                    .all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\')
        });
        RequestContext {
            id: sane.map_or_else(|| uuid::Uuid::new_v4().simple().to_string(), str::to_string),
            keyed: None,
            touched: Arc::default(),
            stale_ms: Arc::default(),
            labels: Arc::new([]),
            latest: false,
            budget: None,
        }
    }

    /// The context of a request that gives up on the store after a stall: once one of its
    /// store requests did not answer within the store timeout, or its store requests together
    /// took longer than that (a second more per MiB they moved), the rest fail at once, and
    /// the request is refused as [`Error::Unavailable`](crate::Error::Unavailable) (HTTP 503
    /// with `Retry-After`) within about one store timeout, instead of waiting it out for each
    /// of its store requests in turn. What a client waits for (the API) gives up; a job, which
    /// nobody waits for, does not.
    /// `store_timeout` is the host's ([`HostConfig::store_timeout`](crate::HostConfig::store_timeout)).
    /// Its waits for the account's earlier writes count as its store time too: a write queued
    /// behind slow commits is refused the same way.
    pub fn giving_up_after_a_stall(mut self, store_timeout: std::time::Duration) -> Self {
        self.budget = Some(Arc::new(crate::store::budget::Budget::new(store_timeout)));
        self
    }

    /// The context of a request whose reads must see every write answered before they began,
    /// by this process or any other on the store (linearizable reads: a client that wrote
    /// through one server and reads through another finds what it wrote). Each read then looks
    /// at the store for new entries first (one store read, shared by the reads waiting
    /// together), unless the store does not answer: then the read is served from memory and
    /// [`stale_for`](Self::stale_for) says how old it may be. Without it a read may be as old as
    /// the catalog's refresh interval (what feeds and downloads are served with: the cost of a
    /// look per request would be theirs, and caches in front of them are older anyway).
    pub fn reading_latest(mut self) -> Self {
        self.latest = true;
        self
    }

    /// Whether the request reads the latest (see [`reading_latest`](Self::reading_latest)).
    pub fn reads_latest(&self) -> bool {
        self.latest
    }

    /// The context with `labels`, the frontend's names of what the request is (an HTTP
    /// server's method and route template): a log line made while the request's work runs
    /// carries them, beside the id (a subscriber writes them from
    /// [`with_current`](Self::with_current): no span is made per request).
    pub fn labelled(mut self, labels: impl Into<Arc<[(&'static str, &'static str)]>>) -> Self {
        self.labels = labels.into();
        self
    }

    /// The labels (see [`labelled`](Self::labelled)).
    pub fn labels(&self) -> &[(&'static str, &'static str)] {
        &self.labels
    }

    /// The context of the keyed request `run`: each commit to its account's catalog is a step
    /// of it (see [`idempotency`](crate::idempotency)).
    pub fn keyed(mut self, run: &KeyedRun) -> Self {
        self.keyed = Some(Arc::new(Keyed {
            root: layout::account(&run.account).to_string(),
            key: run.key.clone(),
            next: AtomicU32::new(0),
        }));
        self
    }

    /// For a commit to the catalog at `root`: the key and number of the step it is, when the
    /// current task works for a keyed request of that account.
    pub(crate) fn next_step(root: &str) -> Option<(String, u32)> {
        CURRENT
            .try_with(|c| {
                c.keyed
                    .as_ref()
                    .filter(|k| k.root == root)
                    .map(|k| (k.key.clone(), k.next.fetch_add(1, Ordering::Relaxed)))
            })
            .ok()
            .flatten()
    }

    /// The request's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// How many records of accounts (podcasts, episodes, media files) the request's work has
    /// touched so far: found by a lookup, passed by a walk, or copied. A request whose work
    /// does not grow with the account touches as many on an account of 10 episodes as on one of
    /// 10,000; the HTTP frontend logs and measures it per route.
    pub fn touched(&self) -> u64 {
        self.touched.load(Ordering::Relaxed)
    }

    /// How old what the request's answer was read from may be, when the store did not answer
    /// a look for newer entries (a stalled store, a server cut off from it) and the answer came
    /// from what this process held: the time since it last read the store. `None`: every read
    /// was fresh. The HTTP frontend answers it as `Age`.
    pub fn stale_for(&self) -> Option<std::time::Duration> {
        match self.stale_ms.load(Ordering::Relaxed) {
            0 => None,
            ms => Some(std::time::Duration::from_millis(ms)),
        }
    }

    /// Runs `work` as this request's.
    pub async fn run<F: Future>(self, work: F) -> F::Output {
        let budget = self.budget.clone();
        CURRENT
            .scope(self, crate::store::budget::scope(budget, work))
            .await
    }

    /// `f` of the context of the request the current task works for, if any, without copying
    /// it (what a log line's formatter asks, for every line).
    pub fn with_current<R>(f: impl FnOnce(Option<&RequestContext>) -> R) -> R {
        let mut f = Some(f);
        match CURRENT.try_with(|c| (f.take().expect("called once"))(Some(c))) {
            Ok(answer) => answer,
            Err(_) => (f.take().expect("not called"))(None),
        }
    }

    /// The context of the request the current task works for, if any.
    pub fn current() -> Option<RequestContext> {
        CURRENT.try_with(Clone::clone).ok()
    }

    /// The id of the request the current task works for, if any.
    pub fn current_id() -> Option<String> {
        CURRENT.try_with(|c| c.id.clone()).ok()
    }
}

/// Counts `n` records as touched by the request the current task works for (none: nothing).
pub(crate) fn touch(n: usize) {
    if n > 0 {
        let _ = CURRENT.try_with(|c| c.touched.fetch_add(n as u64, Ordering::Relaxed));
    }
}

/// Whether the request the current task works for reads the latest (outside a request: no).
pub(crate) fn reads_latest() -> bool {
    CURRENT.try_with(|c| c.latest).unwrap_or(false)
}

/// Notes that the request the current task works for was answered from a copy `age` old.
pub(crate) fn served_stale(age: std::time::Duration) {
    let ms = (age.as_millis() as u64).max(1);
    let _ = CURRENT.try_with(|c| c.stale_ms.fetch_max(ms, Ordering::Relaxed));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sane_id_is_kept_and_any_other_replaced() {
        for kept in ["abc", "0f8e-41", "req:1/2.3_x", &"x".repeat(128)] {
            assert_eq!(RequestContext::new(Some(kept)).id(), kept);
        }
        for replaced in [
            "",
            "two words",
            "quote\"",
            "back\\slash",
            "tab\t",
            "ünï",
            &"x".repeat(129),
        ] {
            let id = RequestContext::new(Some(replaced));
            assert_ne!(id.id(), replaced);
            assert_eq!(id.id().len(), 32, "a new id: {}", id.id());
        }
        assert_ne!(
            RequestContext::new(None).id(),
            RequestContext::new(None).id()
        );
    }

    #[tokio::test]
    async fn work_knows_its_request() {
        assert_eq!(RequestContext::current_id(), None);
        let id = RequestContext::new(Some("r-1"))
            .run(async { RequestContext::current_id() })
            .await;
        assert_eq!(id.as_deref(), Some("r-1"));
    }
}
