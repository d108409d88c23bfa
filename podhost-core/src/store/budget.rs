//! The store time a request may spend: a request that gives up after a stall
//! ([`RequestContext::giving_up_after_a_stall`](crate::RequestContext::giving_up_after_a_stall),
//! the API's) carries a budget, which the timed store ([`metered`](super::metered)) charges
//! with the time its store requests take and asks before each next one.
//!
//! A request's store requests together get the store timeout, and a second more for each MiB
//! they move (sent or received), counted while at least one of them is waiting (requests made
//! side by side are charged once). Once one did not answer within its own deadline, or the
//! budget ran out, the request gave up on the store: the rest fail at once, and the request
//! answers 503 within about one store timeout whether the store stopped answering (one long
//! wait) or answers slowly (a write makes ten store requests in turn; at 2 s each it would
//! take 20 s). Work outside such a request (jobs, which nobody waits for) carries no budget
//! and waits out each store request's own deadline.

use std::{
    future::Future,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

tokio::task_local! {
    static BUDGET: Option<Arc<Budget>>;
}

/// One request's store time: see the module's documentation.
#[derive(Debug)]
pub(crate) struct Budget {
    /// The store timeout: the budget before the per-MiB allowance.
    base: Duration,
    state: Mutex<State>,
}

impl Budget {
    /// The budget of a request, for a store timeout of `base`.
    pub(crate) fn new(base: Duration) -> Self {
        Budget {
            base,
            state: Mutex::default(),
        }
    }
}

#[derive(Debug, Default)]
struct State {
    /// Whether the request gave up on the store.
    given_up: bool,
    /// Its store requests waiting now.
    waiting: u32,
    /// Since when at least one has been waiting (while `waiting > 0`).
    since: Option<Instant>,
    /// The time charged before `since`.
    spent: Duration,
    /// The bytes its store requests moved (sent, or received so far).
    moved: u64,
}

impl State {
    /// The time charged so far, at `now`.
    fn charged(&self, now: Instant) -> Duration {
        self.spent + self.since.map_or(Duration::ZERO, |since| now - since)
    }

    /// The budget, for a store timeout of `base`: a second more per MiB moved.
    fn allowed(&self, base: Duration) -> Duration {
        base + Duration::from_secs_f64(self.moved as f64 / f64::from(1 << 20))
    }
}

/// Runs `work` with `budget` as its request's (none: the request never gives up).
pub(crate) async fn scope<F: Future>(budget: Option<Arc<Budget>>, work: F) -> F::Output {
    BUDGET.scope(budget, work).await
}

/// A store request of the current request, charged to its budget while it waits (until
/// dropped).
pub(crate) struct Waiting {
    budget: Option<Arc<Budget>>,
}

/// Why a store request is not to be made: the request gave up on the store.
pub(crate) struct GivenUp;

/// The current request's budget, if it has one.
fn current() -> Option<Arc<Budget>> {
    BUDGET.try_with(|b| b.clone()).ok().flatten()
}

/// A store request of the current request begins, sending `sent` bytes, with a deadline of
/// its own `own` (the store timeout and its per-MiB allowance): how long it may wait, `own`
/// or what is left of the request's budget if less; refused when the request gave up on the
/// store (or its budget is spent, which gives it up).
pub(crate) fn begin(own: Duration, sent: usize) -> Result<(Waiting, Duration), GivenUp> {
    match current() {
        None => Ok((Waiting { budget: None }, own)),
        Some(budget) => begin_in(budget, own, sent),
    }
}

/// Waits for `what`, a lock whose holder may be waiting on the store (the account's earlier
/// writes, a look at the store another reader began), charged to the current request's budget
/// as its own store requests are: a request queued behind others' slow commits is answered
/// 503 within its store timeout too, not after its turn. `Err` with the time it was given when
/// the budget ran out first (the request then gave up on the store), or at once when the
/// request had given up before.
pub(crate) async fn waiting_for<F: Future>(what: F) -> Result<F::Output, Duration> {
    let Some(budget) = current() else {
        return Ok(what.await);
    };
    let own = budget.base;
    let Ok((waiting, left)) = begin_in(budget, own, 0) else {
        return Err(Duration::ZERO);
    };
    match tokio::time::timeout(left, what).await {
        Ok(done) => Ok(done),
        Err(_) => {
            waiting.stalled();
            Err(left)
        }
    }
}

fn begin_in(
    budget: Arc<Budget>,
    own: Duration,
    sent: usize,
) -> Result<(Waiting, Duration), GivenUp> {
    let base = budget.base;
    let now = Instant::now();
    let mut state = budget.state.lock().expect("not poisoned");
    if state.given_up {
        return Err(GivenUp);
    }
    state.moved += sent as u64;
    let left = state.allowed(base).saturating_sub(state.charged(now));
    if left.is_zero() {
        state.given_up = true;
        return Err(GivenUp);
    }
    if state.waiting == 0 {
        state.since = Some(now);
    }
    state.waiting += 1;
    drop(state);
    Ok((
        Waiting {
            budget: Some(budget),
        },
        own.min(left),
    ))
}

impl Waiting {
    /// The store request got `bytes` more of its answer (a body's piece): they add to the
    /// request's allowance.
    pub(crate) fn received(&self, bytes: usize) {
        if let Some(budget) = &self.budget {
            budget.state.lock().expect("not poisoned").moved += bytes as u64;
        }
    }

    /// The store request did not answer in time: the request gives up on the store.
    pub(crate) fn stalled(&self) {
        if let Some(budget) = &self.budget {
            budget.state.lock().expect("not poisoned").given_up = true;
        }
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Some(budget) = &self.budget {
            let mut state = budget.state.lock().expect("not poisoned");
            state.waiting -= 1;
            if state.waiting == 0
                && let Some(since) = state.since.take()
            {
                state.spent += since.elapsed();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: Duration = Duration::from_secs(10);

    fn budget() -> Arc<Budget> {
        Arc::new(Budget::new(BASE))
    }

    fn within<T>(budget: &Arc<Budget>, f: impl FnOnce() -> T) -> T {
        BUDGET.sync_scope(Some(budget.clone()), f)
    }

    fn charge(budget: &Arc<Budget>, spent: Duration) {
        budget.state.lock().unwrap().spent += spent;
    }

    #[test]
    fn store_requests_in_turn_share_one_store_timeout() {
        let budget = budget();
        within(&budget, || {
            let (_waiting, left) = begin(BASE, 0).ok().unwrap();
            assert_eq!(left, BASE, "the first request gets its own deadline");
        });
        charge(&budget, Duration::from_secs(7));
        within(&budget, || {
            let (_waiting, left) = begin(BASE, 0).ok().unwrap();
            assert!(left <= Duration::from_secs(3), "{left:?}");
        });
        charge(&budget, Duration::from_secs(3));
        within(&budget, || {
            assert!(begin(BASE, 0).is_err(), "the budget is spent");
            assert!(begin(BASE, 0).is_err(), "and the request gave up");
        });
    }

    #[test]
    fn bytes_moved_add_a_second_per_mib() {
        let budget = budget();
        charge(&budget, Duration::from_secs(11));
        within(&budget, || {
            let (waiting, left) = begin(BASE + Duration::from_secs(4), 4 << 20).ok().unwrap();
            assert!(left <= Duration::from_secs(3) && left > Duration::from_secs(2));
            waiting.received(2 << 20);
        });
        // 10 s, and 6 MiB moved: 16 s, of which 11 s are spent (and a few µs of waiting).
        within(&budget, || {
            let (_waiting, left) = begin(BASE, 0).ok().unwrap();
            assert!(left > Duration::from_millis(4900), "{left:?}");
        });
    }

    #[test]
    fn requests_side_by_side_are_charged_once() {
        let budget = budget();
        let began = Instant::now();
        within(&budget, || {
            let a = begin(BASE, 0).ok().unwrap();
            let b = begin(BASE, 0).ok().unwrap();
            std::thread::sleep(Duration::from_millis(50));
            drop(a);
            drop(b);
        });
        let took = began.elapsed();
        let spent = budget.state.lock().unwrap().spent;
        // Charged for each, it would be about twice what the two took together.
        assert!(
            spent >= Duration::from_millis(50) && spent <= took,
            "{spent:?} of {took:?}"
        );
    }

    #[test]
    fn without_a_budget_a_request_has_its_own_deadline() {
        let (_waiting, left) = begin(Duration::from_secs(14), 4 << 20).ok().unwrap();
        assert_eq!(left, Duration::from_secs(14));
    }

    #[tokio::test]
    async fn a_wait_behind_others_is_charged_and_given_up_with_the_budget() {
        let budget = Arc::new(Budget::new(Duration::from_millis(300)));
        let lock = tokio::sync::Mutex::new(());
        let held = lock.lock().await;
        let waited = scope(Some(budget.clone()), async {
            let first = waiting_for(lock.lock()).await.map(drop);
            let then = begin(Duration::from_secs(10), 0).is_ok();
            (first, then)
        })
        .await;
        drop(held);
        assert_eq!(
            waited.0,
            Err(Duration::from_millis(300)),
            "given up with the budget"
        );
        assert!(!waited.1, "and the request asks the store nothing more");
        // Without a budget, the wait is a plain wait.
        assert!(waiting_for(lock.lock()).await.is_ok());
    }
}
