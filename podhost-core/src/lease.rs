//! Leases on units of work shared by the servers of one store (an account's deliveries, its
//! announcements): at any moment at most one server believes it holds a unit.
//!
//! ```text
//! work/leases/{unit}/{epoch:020}   one holding of the unit: its holder, until when
//! ```
//!
//! **Epochs.** Each holding, and each renewal of one, is a new epoch written with
//! put-if-absent, so of two servers taking a unit at once (or one renewing while another takes
//! it over) exactly one wins. The winner lists once more and gives up when a later epoch
//! exists: an old epoch, removed, can be written again by a server that listed long before.
//! Epochs older than the one won are removed; the newest stays, so epochs never go back. A
//! holding given back is rewritten as expired, and the next taker takes the next epoch.
//!
//! **Belief.** A holder believes it holds the unit until its deadline: the moment it asked plus
//! the lease, less [`LeaseConfig::MARGIN`], by the monotonic clock, which runs on while the
//! process is stopped and is not moved by corrections of the time of day. Another server takes the unit over only
//! once the lease ran out by its own clock, and the servers' clocks are kept to the store's
//! within [`StoreClock::TOLERANCE`](crate::StoreClock::TOLERANCE), smaller than the margin: a
//! holder's belief ends before a successor's can begin. The work done under a lease
//! ([`Held::run`]) is checked before every step it takes: past the deadline (a server paused
//! longer than its lease, then resumed; a store that stalled a renewal) it takes no further
//! step, and its holding ended at the deadline. While the work runs the holder renews every
//! third of the lease.
//!
//! A [`LeaseWitness`] is told of every holding as it ends, which is how a recorded history of a
//! deployment's run shows that no two servers held one unit at once.

use std::{
    future::Future,
    sync::Arc,
    task::Poll,
    time::{Duration, Instant},
};

use futures::{TryStreamExt, future::BoxFuture};
use jiff::SignedDuration;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload, path::Path};
use serde::{Deserialize, Serialize};

use crate::{
    clock::Clock,
    error::{Error, Result},
    store::{delete_quietly, get_json, layout, put_if_absent},
};

/// Told of every holding of a lease by this server as it ends: for the history of a
/// deployment's run, whose checker finds two servers holding one lease at once.
pub trait LeaseWitness: Send + Sync + 'static {
    /// `holder` held `lease` (renewals included) from `from` until `until`, by the monotonic
    /// clock its belief goes by: from when it knew it won to when it gave the lease back or its
    /// deadline passed.
    fn held(&self, lease: &str, holder: &str, from: Instant, until: Instant);
}

/// One holding as a witness may keep it, a line of JSON in `podhost serve --lease-journal`'s
/// file: `{"lease":"deliver/alice","holder":"…","from_us":…,"until_us":…}`, times in µs of the
/// system's monotonic clock (`CLOCK_MONOTONIC`), which every process of one machine shares and
/// no correction of the time of day moves: the journals of the servers of one machine (the
/// fault harness's) compare exactly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseHeld {
    /// The unit of work (`deliver/{account}`, `due/{account}`).
    pub lease: String,
    /// The server that held it.
    pub holder: String,
    /// Since when.
    pub from_us: i64,
    /// Until when.
    pub until_us: i64,
}

impl LeaseHeld {
    /// The holding a witness is told of ([`LeaseWitness::held`]).
    pub fn new(lease: &str, holder: &str, from: Instant, until: Instant) -> Self {
        LeaseHeld {
            lease: lease.to_string(),
            holder: holder.to_string(),
            from_us: Self::monotonic_us(from),
            until_us: Self::monotonic_us(until),
        }
    }

    /// `at` in µs of the system's monotonic clock (`CLOCK_MONOTONIC`).
    pub fn monotonic_us(at: Instant) -> i64 {
        // The clock read once beside an `Instant` (which the standard library takes from the
        // same clock, but does not show), then every instant from there.
        static BASE: std::sync::OnceLock<(Instant, i64)> = std::sync::OnceLock::new();
        let (base, base_us) = *BASE.get_or_init(|| {
            let now = Instant::now();
            let ts = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
            (now, ts.tv_sec * 1_000_000 + ts.tv_nsec / 1_000)
        });
        let micros = |d: Duration| i64::try_from(d.as_micros()).unwrap_or(i64::MAX);
        match at.checked_duration_since(base) {
            Some(after) => base_us + micros(after),
            None => base_us - micros(base.duration_since(at)),
        }
    }
}

/// How the servers hold units of work.
#[derive(Clone)]
pub struct LeaseConfig {
    /// How long a holding lasts unless renewed (default 15 s): a server that stops (killed,
    /// paused, cut off from the store) holds up its units this long at most.
    pub hold: Duration,
    /// Told of every holding as it ends (default none).
    pub witness: Option<Arc<dyn LeaseWitness>>,
    /// A deliberately broken build, for the history checker's own test: the holder never
    /// checks its deadline, so after a pause it goes on as if it still held the lease.
    #[doc(hidden)]
    pub unchecked: bool,
}

impl LeaseConfig {
    /// The default lease: 15 s.
    pub const DEFAULT_HOLD: Duration = Duration::from_secs(15);

    /// How much earlier than the lease's end its holder stops believing it holds it: more than
    /// the servers' clocks may differ once kept to the store's (a third of a lease shorter than
    /// 15 s, which only a test on one clock takes).
    pub const MARGIN: Duration = Duration::from_secs(5);

    fn belief(&self) -> Duration {
        self.hold.saturating_sub(Self::MARGIN.min(self.hold / 3))
    }
}

impl Default for LeaseConfig {
    fn default() -> Self {
        LeaseConfig {
            hold: Self::DEFAULT_HOLD,
            witness: None,
            unchecked: false,
        }
    }
}

impl std::fmt::Debug for LeaseConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LeaseConfig")
            .field("hold", &self.hold)
            .field("witness", &self.witness.is_some())
            .field("unchecked", &self.unchecked)
            .finish()
    }
}

/// One holding as the store keeps it.
#[derive(Debug, Serialize, Deserialize)]
struct Holding {
    owner: String,
    expires_ms: i64,
}

fn epoch_path(unit: &str, epoch: u64) -> Path {
    layout::work_leases(unit).join(format!("{epoch:020}"))
}

/// The unit's epochs, oldest first.
async fn epochs(store: &Arc<dyn ObjectStore>, unit: &str) -> Result<Vec<(u64, Path)>> {
    let listed: Vec<_> = store
        .list(Some(&layout::work_leases(unit)))
        .try_collect()
        .await?;
    let mut epochs: Vec<_> = listed
        .into_iter()
        .filter_map(|meta| {
            let epoch = meta.location.filename()?.parse().ok()?;
            Some((epoch, meta.location))
        })
        .collect();
    epochs.sort_by_key(|(epoch, _)| *epoch);
    Ok(epochs)
}

/// A unit of work this server holds.
pub(crate) struct Held<'a> {
    store: &'a Arc<dyn ObjectStore>,
    clock: &'a dyn Clock,
    config: &'a LeaseConfig,
    unit: String,
    owner: String,
    epoch: u64,
    /// Since when this server knows it holds the unit.
    since: Instant,
    /// Until when it believes it does.
    deadline: Instant,
}

/// Takes `unit` for `owner` unless another server holds it: `None` then.
pub(crate) async fn take<'a>(
    store: &'a Arc<dyn ObjectStore>,
    clock: &'a dyn Clock,
    config: &'a LeaseConfig,
    unit: &str,
    owner: &str,
) -> Result<Option<Held<'a>>> {
    let now = clock.now();
    let next = match epochs(store, unit).await?.pop() {
        None => 1,
        Some((epoch, path)) => {
            let holding: Option<Holding> = get_json(store, &path).await?;
            match holding {
                Some(h) if h.owner != owner && h.expires_ms > now.as_millisecond() => {
                    return Ok(None);
                }
                // Expired, given back, ours, or gone meanwhile.
                _ => epoch + 1,
            }
        }
    };
    let Some(deadline) = claim(store, clock, config, unit, owner, next).await? else {
        return Ok(None);
    };
    Ok(Some(Held {
        store,
        clock,
        config,
        unit: unit.to_string(),
        owner: owner.to_string(),
        epoch: next,
        since: Instant::now(),
        deadline,
    }))
}

/// Writes epoch `epoch` of `unit` for `owner`: its deadline when this server won it (the lease
/// written says until when by the clock, for the other servers to compare with theirs).
async fn claim(
    store: &Arc<dyn ObjectStore>,
    clock: &dyn Clock,
    config: &LeaseConfig,
    unit: &str,
    owner: &str,
    epoch: u64,
) -> Result<Option<Instant>> {
    let asked = clock.now();
    let asked_here = Instant::now();
    let hold = SignedDuration::try_from(config.hold).unwrap_or_default();
    let holding = Holding {
        owner: owner.to_string(),
        expires_ms: (asked + hold).as_millisecond(),
    };
    let body = serde_json::to_vec(&holding).map_err(|e| Error::storage(e.to_string()))?;
    if !put_if_absent(store, &epoch_path(unit, epoch), PutPayload::from(body)).await? {
        return Ok(None);
    }
    let epochs = epochs(store, unit).await?;
    if epochs.iter().any(|(e, _)| *e > epoch) {
        // A later epoch exists: this one was removed and written again late.
        return Ok(None);
    }
    for (_, path) in epochs.iter().filter(|(e, _)| *e < epoch) {
        delete_quietly(store, path).await?;
    }
    Ok(Some(asked_here + config.belief()))
}

impl Held<'_> {
    /// Whether this server still believes it holds the unit.
    fn believed(&self) -> bool {
        self.config.unchecked || Instant::now() < self.deadline
    }

    /// Runs `work` under the lease, then gives the lease back: `None` when the lease was lost
    /// first (its deadline passed, or a renewal found it taken over), and `work` was dropped
    /// before its next step. The lease is renewed beside the work, every third of its length;
    /// a renewal the store fails is logged, and the work stops at the deadline unless the next
    /// one takes.
    pub(crate) async fn run<T>(mut self, work: impl Future<Output = T>) -> Result<Option<T>> {
        let (store, clock, config) = (self.store, self.clock, self.config);
        let mut work = std::pin::pin!(work);
        let every = config.hold / 3;
        let mut renew = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        renew.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut renewal: Option<BoxFuture<'_, (u64, Result<Option<Instant>>)>> = None;
        let done = std::future::poll_fn(|cx| {
            loop {
                // Checked before every step: a server that wakes from a pause stops here.
                if !self.believed() {
                    return Poll::Ready(None);
                }
                if renewal.is_none() && renew.poll_tick(cx).is_ready() {
                    let (next, unit, owner) = (self.epoch + 1, self.unit.clone(), self.owner.clone());
                    renewal = Some(Box::pin(async move {
                        (next, claim(store, clock, config, &unit, &owner, next).await)
                    }));
                }
                if let Some(pending) = renewal.as_mut()
                    && let Poll::Ready((next, renewed)) = pending.as_mut().poll(cx)
                {
                    renewal = None;
                    match renewed {
                        Ok(Some(deadline)) => {
                            self.epoch = next;
                            self.deadline = deadline;
                        }
                        // Taken over.
                        Ok(None) if !config.unchecked => return Poll::Ready(None),
                        Ok(None) => {}
                        Err(e) => tracing::warn!(unit = %self.unit, error = %e, "renewing a lease failed; the work stops at the lease's deadline unless the next renewal takes"),
                    }
                    continue;
                }
                return work.as_mut().poll(cx).map(Some);
            }
        })
        .await;
        drop(renewal);
        match done {
            Some(done) => {
                self.give_back().await?;
                Ok(Some(done))
            }
            None => {
                self.ended(self.deadline);
                Ok(None)
            }
        }
    }

    /// Gives the unit back: its holding rewritten as expired, so that the next taker need not
    /// wait (a later epoch written meanwhile stays the newest).
    async fn give_back(self) -> Result<()> {
        let now = Instant::now();
        // The belief ends as the lease is given back, or at the deadline if that came first.
        self.ended(if self.config.unchecked {
            now
        } else {
            now.min(self.deadline)
        });
        let holding = Holding {
            owner: String::new(),
            expires_ms: 0,
        };
        let body = serde_json::to_vec(&holding).map_err(|e| Error::storage(e.to_string()))?;
        self.store
            .put(&epoch_path(&self.unit, self.epoch), PutPayload::from(body))
            .await?;
        Ok(())
    }

    /// Tells the witness of the holding, which ended at `until`.
    fn ended(&self, until: Instant) {
        if let Some(witness) = &self.config.witness {
            witness.held(&self.unit, &self.owner, self.since, until.max(self.since));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;

    fn memory() -> Arc<dyn ObjectStore> {
        Arc::new(object_store::memory::InMemory::new())
    }

    #[derive(Default)]
    struct Journal(std::sync::Mutex<Vec<(String, Instant, Instant)>>);

    impl LeaseWitness for Journal {
        fn held(&self, _lease: &str, holder: &str, from: Instant, until: Instant) {
            self.0.lock().unwrap().push((holder.into(), from, until));
        }
    }

    #[tokio::test]
    async fn a_unit_is_held_by_one_server_until_it_is_given_back_or_its_lease_runs_out() {
        let store = memory();
        let clock = ManualClock::new("2026-01-01T00:00:00Z".parse().unwrap());
        let config = LeaseConfig::default();
        let one = take(&store, &clock, &config, "deliver/alice", "one")
            .await
            .unwrap()
            .expect("a free unit is taken");
        assert!(
            take(&store, &clock, &config, "deliver/alice", "two")
                .await
                .unwrap()
                .is_none(),
            "a unit held is not taken"
        );
        assert!(
            take(&store, &clock, &config, "deliver/bob", "two")
                .await
                .unwrap()
                .is_some(),
            "another unit is"
        );
        assert_eq!(one.run(async { 7 }).await.unwrap(), Some(7));
        let two = take(&store, &clock, &config, "deliver/alice", "two")
            .await
            .unwrap()
            .expect("a unit given back is taken at once");
        assert_eq!(two.epoch, 2);
        // Two never gives it back (killed): three waits for the lease to run out.
        drop(two);
        clock.advance(SignedDuration::from_secs(14));
        assert!(
            take(&store, &clock, &config, "deliver/alice", "three")
                .await
                .unwrap()
                .is_none()
        );
        clock.advance(SignedDuration::from_secs(2));
        let three = take(&store, &clock, &config, "deliver/alice", "three")
            .await
            .unwrap()
            .expect("an expired lease is taken over");
        assert_eq!(three.epoch, 3);
        // Only the newest epoch stays.
        assert_eq!(epochs(&store, "deliver/alice").await.unwrap().len(), 1);
    }

    #[tokio::test]
    async fn of_two_servers_taking_an_expired_unit_at_once_one_wins() {
        let store = memory();
        let clock = ManualClock::new("2026-01-01T00:00:00Z".parse().unwrap());
        let config = LeaseConfig::default();
        drop(
            take(&store, &clock, &config, "due/a", "dead")
                .await
                .unwrap(),
        );
        clock.advance(SignedDuration::from_secs(60));
        // Both read the dead holder's expired epoch and write the next one.
        let (a, b) = tokio::join!(
            claim(&store, &clock, &config, "due/a", "one", 2),
            claim(&store, &clock, &config, "due/a", "two", 2),
        );
        assert_eq!(
            [a.unwrap().is_some(), b.unwrap().is_some()]
                .iter()
                .filter(|won| **won)
                .count(),
            1
        );
        // A late writer of an epoch already removed loses to the later one.
        claim(&store, &clock, &config, "due/a", "three", 3)
            .await
            .unwrap()
            .unwrap();
        assert!(
            claim(&store, &clock, &config, "due/a", "late", 2)
                .await
                .unwrap()
                .is_none()
        );
    }

    #[tokio::test]
    async fn work_longer_than_the_lease_keeps_it_by_renewing() {
        let store = memory();
        let clock = crate::SystemClock;
        // A lease of 3 s, renewed every second, for 6 s of work.
        let config = LeaseConfig {
            hold: Duration::from_secs(3),
            ..LeaseConfig::default()
        };
        let held = take(&store, &clock, &config, "deliver/alice", "one")
            .await
            .unwrap()
            .unwrap();
        let work = async {
            for _ in 0..6 {
                tokio::time::sleep(Duration::from_secs(1)).await;
                // Every second, another server finds the unit held.
                assert!(
                    take(&store, &clock, &config, "deliver/alice", "two")
                        .await
                        .unwrap()
                        .is_none()
                );
            }
        };
        assert_eq!(held.run(work).await.unwrap(), Some(()));
        let epochs = epochs(&store, "deliver/alice").await.unwrap();
        assert!(epochs[0].0 >= 5, "renewed every second: {epochs:?}");
    }

    #[tokio::test]
    async fn a_holder_that_wakes_past_its_deadline_takes_no_further_step() {
        let store = memory();
        let clock = crate::SystemClock;
        let journal = Arc::new(Journal::default());
        for unchecked in [false, true] {
            // A lease of 1.5 s: believed for 1 s, renewed every 0.5 s.
            let config = LeaseConfig {
                hold: Duration::from_millis(1500),
                witness: Some(journal.clone()),
                unchecked,
            };
            let unit = format!("deliver/{unchecked}");
            let held = take(&store, &clock, &config, &unit, "one")
                .await
                .unwrap()
                .unwrap();
            let steps = std::sync::atomic::AtomicU32::new(0);
            let (paused, wake) = tokio::sync::oneshot::channel::<()>();
            let work = async {
                steps.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                // The process stopped past its lease (SIGSTOP): nothing of it runs, renewals
                // included.
                std::thread::sleep(Duration::from_secs(2));
                let _ = wake.await;
                steps.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            };
            let (ran, ()) = tokio::join!(held.run(work), async {
                // Meanwhile the lease ran out, and another server takes the unit over.
                let two = take(&store, &clock, &config, &unit, "two")
                    .await
                    .unwrap()
                    .expect("the lease ran out");
                two.run(async {}).await.unwrap();
                paused.send(()).unwrap();
            });
            let holdings = std::mem::take(&mut *journal.0.lock().unwrap());
            let one = holdings.iter().find(|(h, ..)| h == "one").unwrap();
            let two = holdings.iter().find(|(h, ..)| h == "two").unwrap();
            if unchecked {
                // The broken build takes its second step and believes it held on throughout.
                assert_eq!(ran.unwrap(), Some(()));
                assert_eq!(steps.load(std::sync::atomic::Ordering::SeqCst), 2);
                assert!(one.2 > two.1, "{holdings:?}");
            } else {
                assert_eq!(ran.unwrap(), None);
                assert_eq!(steps.load(std::sync::atomic::Ordering::SeqCst), 1);
                assert!(one.2 < two.1, "the holdings do not overlap: {holdings:?}");
            }
        }
    }
}
