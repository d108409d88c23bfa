//! The rate limit: requests per token in fixed 60-second windows, counted across every process
//! on one store ([`Access::rate_check`](crate::Access::rate_check)).
//!
//! Windows are aligned to the host's clock (`floor(now / 60 s)`), so every process agrees on
//! them as far as their clocks agree. A window's budget of `limit` requests per key is cut into
//! [`LEASES_PER_WINDOW`] leases of `max(1, limit / 20)` requests (the last one smaller when the
//! division leaves a rest). A process claims lease `n` with put-if-absent of
//! `ratelimit/{window}/{key}/{n:04}` (the one conditional write every backend has), spends it
//! in memory, and claims the next number when it is spent; it remembers the lowest number it
//! has not seen taken, so it never tries a taken one twice. Once the last lease is taken, the
//! key is limited until the window ends. The store sees one write per lease, not per request.
//!
//! Accuracy: a lease is won by one process only, so at most `limit` requests are accepted per
//! window and key, whatever the number of processes. A process may end a window holding at most
//! one lease it did not spend up (less than a lease: it claims only when its budget is zero),
//! so with `P` processes at least `limit − P·(size − 1)` requests are accepted when they ask for
//! more than the limit. With `size = limit / 20`, two processes accept at least 90 % of the
//! limit (180: between 164 and 180).
//!
//! When the store fails (or takes longer than [`CLAIM_TIMEOUT`]), the process counts the lease
//! as its own (it may well have landed), logs, and for [`OFFLINE_FOR`] takes further leases
//! without asking the store: each process then enforces the limit on its own, as if it were
//! alone, and no request fails because of the limit's store.
//!
//! Cleanup: the first request a process sees in a new window starts, in the background, a
//! sweep of every window older than the previous one (the previous one stays for processes
//! whose clock is behind). One process per window does it: the one whose put-if-absent of
//! `ratelimit/{window}/swept` wins. A sweep cut short is finished by the next one.

use crate::lock::Locked;
use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use futures::{StreamExt, TryStreamExt};
use jiff::{SignedDuration, Timestamp};
use object_store::{ObjectStore, PutPayload};
use sha2::{Digest, Sha256};

use crate::{
    error::Result,
    principal::Principal,
    store::{layout, put_if_absent},
};

/// The length of a window, in seconds.
pub const WINDOW_SECONDS: u64 = 60;

/// Into how many leases a window's budget is cut (fewer when the limit is below this).
pub const LEASES_PER_WINDOW: u32 = 20;

/// How long a claim may take before the process stops waiting for the store.
pub const CLAIM_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a process counts alone after the store failed a claim.
pub const OFFLINE_FOR: Duration = Duration::from_secs(5);

/// What the limit says about one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    /// Requests allowed per window.
    pub limit: u32,
    /// Requests left in this window after this one, as far as this process knows: its own
    /// unspent budget and the leases it has not seen taken.
    pub remaining: u32,
    /// Seconds until the window ends (1 to 60).
    pub reset_in: u64,
    /// Unix time (seconds) of the window's end.
    pub reset_at: u64,
    /// Whether this request may proceed.
    pub allowed: bool,
}

/// How a window's budget of `limit` requests is cut into leases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Leases {
    limit: u32,
    /// Requests per lease (the last lease may hold fewer).
    size: u32,
    /// Leases per window.
    count: u32,
}

impl Leases {
    pub(crate) fn new(limit: u32) -> Self {
        let size = (limit / LEASES_PER_WINDOW).max(1);
        Leases {
            limit,
            size,
            count: limit.div_ceil(size),
        }
    }

    /// The requests lease `n` holds (0 past the last lease).
    pub(crate) fn size_of(self, n: u32) -> u32 {
        self.from(n).min(self.size)
    }

    /// The requests in leases `n` and after.
    pub(crate) fn from(self, n: u32) -> u32 {
        let start = u64::from(n) * u64::from(self.size);
        // At most `limit`, so it fits.
        u64::from(self.limit).saturating_sub(start) as u32
    }
}

/// A fixed window of the clock: `floor(unix seconds / 60)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Window(pub(crate) u64);

impl Window {
    pub(crate) fn of(now: Timestamp) -> Self {
        Window(unix_seconds(now) / WINDOW_SECONDS)
    }

    /// Unix time of the window's end.
    pub(crate) fn end(self) -> u64 {
        (self.0 + 1) * WINDOW_SECONDS
    }
}

fn unix_seconds(now: Timestamp) -> u64 {
    u64::try_from(now.as_second()).unwrap_or(0)
}

/// The key a caller is counted under: its token, or its account when it is the owner; hashed,
/// so that it is one path segment of one shape.
pub(crate) fn key_of(who: &Principal) -> String {
    let key = match who.token_id() {
        Some(token) => format!("token:{token}"),
        None => format!("account:{}", who.account()),
    };
    hex::encode(&Sha256::digest(key.as_bytes())[..16])
}

/// What a process knows of one key in one window.
#[derive(Debug, Default)]
struct KeyState {
    window: u64,
    /// The lowest lease number not known to be taken.
    next: u32,
    /// Unspent requests of the leases this process won.
    budget: u32,
}

/// This process's side of the rate limit: what it knows per key, and whether the store is
/// answering.
#[derive(Debug, Default)]
pub(crate) struct Limiter {
    keys: Mutex<HashMap<String, Arc<tokio::sync::Mutex<KeyState>>>>,
    /// The newest window a request was counted in.
    newest: Mutex<Option<u64>>,
    /// Until when leases are taken without asking the store (after a store failure).
    offline_until: Mutex<Option<Timestamp>>,
}

impl Limiter {
    /// Counts one request of `key` at `now` against `limit` per window.
    pub(crate) async fn check(
        &self,
        store: &Arc<dyn ObjectStore>,
        now: Timestamp,
        key: &str,
        limit: u32,
    ) -> Verdict {
        let leases = Leases::new(limit);
        let window = Window::of(now);
        self.enter(store, window);
        let state = {
            let mut keys = self.keys.locked();
            keys.entry(key.to_string()).or_default().clone()
        };
        let mut guard = state.lock().await;
        let state = &mut *guard;
        if state.window != window.0 {
            *state = KeyState {
                window: window.0,
                ..KeyState::default()
            };
        }
        if state.budget == 0 {
            state.budget = self
                .claim(store, now, window, key, leases, &mut state.next)
                .await;
        }
        let allowed = state.budget > 0;
        if allowed {
            state.budget -= 1;
        }
        let reset_at = window.end();
        Verdict {
            limit,
            remaining: state.budget.saturating_add(leases.from(state.next)),
            reset_in: reset_at.saturating_sub(unix_seconds(now)).max(1),
            reset_at,
            allowed,
        }
    }

    /// Claims the next lease not known to be taken; returns its size, or 0 when every lease of
    /// the window is taken.
    async fn claim(
        &self,
        store: &Arc<dyn ObjectStore>,
        now: Timestamp,
        window: Window,
        key: &str,
        leases: Leases,
        next: &mut u32,
    ) -> u32 {
        while *next < leases.count {
            let n = *next;
            *next += 1;
            if self.offline(now) {
                return leases.size_of(n);
            }
            let path = layout::rate_lease(window.0, key, n);
            let claimed = tokio::time::timeout(
                CLAIM_TIMEOUT,
                put_if_absent(store, &path, PutPayload::new()),
            )
            .await;
            match claimed {
                Ok(Ok(true)) => return leases.size_of(n),
                Ok(Ok(false)) => continue,
                Ok(Err(e)) => self.go_offline(now, &e),
                Err(_) => self.go_offline(now, &"no answer within the timeout"),
            }
            // Unknown outcome: the lease is counted as ours, landed or not.
            return leases.size_of(n);
        }
        0
    }

    fn offline(&self, now: Timestamp) -> bool {
        let until = self.offline_until.locked();
        until.is_some_and(|until| now < until)
    }

    fn go_offline(&self, now: Timestamp, error: &dyn std::fmt::Display) {
        let pause = SignedDuration::try_from(OFFLINE_FOR).unwrap_or(SignedDuration::ZERO);
        *self.offline_until.locked() = now.checked_add(pause).ok();
        tracing::warn!(
            %error,
            "rate limit: the store did not take a lease; this process counts requests alone for {} s",
            OFFLINE_FOR.as_secs()
        );
    }

    /// Notes that a request was counted in `window`: the first one of a newer window forgets
    /// what this process knew of older windows and sweeps old leases from the store.
    fn enter(&self, store: &Arc<dyn ObjectStore>, window: Window) {
        {
            let mut newest = self.newest.locked();
            if newest.is_some_and(|newest| newest >= window.0) {
                return;
            }
            *newest = Some(window.0);
        }
        // A state in use is kept; it resets itself on its next request.
        self.keys
            .locked()
            .retain(|_, state| state.try_lock().map_or(true, |s| s.window >= window.0));
        let store = store.clone();
        tokio::spawn(async move {
            if let Err(e) = sweep(&store, window).await {
                tracing::warn!(error = %e, "rate limit: sweeping old leases failed; the next window's sweep tries again");
            }
        });
    }
}

/// Deletes the leases of every window before `window`'s previous one, unless another process
/// took this window's sweep. Returns how many objects were deleted.
pub(crate) async fn sweep(store: &Arc<dyn ObjectStore>, window: Window) -> Result<usize> {
    if !put_if_absent(store, &layout::rate_sweep(window.0), PutPayload::new()).await? {
        return Ok(0);
    }
    let listed = store
        .list_with_delimiter(Some(&layout::rate_windows()))
        .await?;
    let mut deleted = 0;
    for folder in listed.common_prefixes {
        let Some(old) = layout::rate_window_of(&folder) else {
            continue;
        };
        if old + 1 >= window.0 {
            continue;
        }
        let locations = store.list(Some(&folder)).map_ok(|meta| meta.location);
        let mut results = store.delete_stream(locations.boxed());
        while let Some(result) = results.next().await {
            match result {
                Ok(_) => deleted += 1,
                Err(object_store::Error::NotFound { .. }) => {}
                Err(e) => return Err(e.into()),
            }
        }
    }
    Ok(deleted)
}

#[cfg(test)]
mod tests {
    use object_store::memory::InMemory;

    use super::*;

    #[test]
    fn a_window_is_cut_into_leases() {
        // (limit, size, count, the size of each lease)
        let check = |limit: u32, size: u32, sizes: &[u32]| {
            let leases = Leases::new(limit);
            assert_eq!(leases.size, size, "limit {limit}");
            assert_eq!(leases.count as usize, sizes.len(), "limit {limit}");
            let got: Vec<u32> = (0..leases.count).map(|n| leases.size_of(n)).collect();
            assert_eq!(got, sizes, "limit {limit}");
            assert_eq!(got.iter().sum::<u32>(), limit, "limit {limit}");
            assert_eq!(leases.size_of(leases.count), 0, "limit {limit}");
            assert_eq!(leases.from(0), limit);
            assert_eq!(leases.from(leases.count), 0);
        };
        check(180, 9, &[9; 20]);
        check(3, 1, &[1, 1, 1]);
        check(1, 1, &[1]);
        check(0, 1, &[]);
        check(20, 1, &[1; 20]);
        check(50, 2, &[2; 25]);
        check(101, 5, &[[5; 20].as_slice(), &[1]].concat());
        let huge = Leases::new(u32::MAX);
        assert_eq!(huge.from(0), u32::MAX);
        assert_eq!(huge.from(huge.count), 0);
        assert_eq!(
            (0..huge.count)
                .map(|n| u64::from(huge.size_of(n)))
                .sum::<u64>(),
            u64::from(u32::MAX)
        );
    }

    /// Two processes at most: at least 90 % of the limit, for every limit up to 10,000.
    #[test]
    fn two_processes_lose_at_most_a_tenth() {
        for limit in 1..=10_000u32 {
            let leases = Leases::new(limit);
            let worst = limit - (2 * (leases.size - 1)).min(limit);
            assert!(
                u64::from(worst) * 10 >= u64::from(limit) * 9,
                "limit {limit}: {worst}"
            );
        }
    }

    #[test]
    fn windows_are_aligned_to_the_minute() {
        let at = |s: &str| s.parse::<Timestamp>().unwrap();
        let w = Window::of(at("2026-01-01T00:00:00Z"));
        assert_eq!(w.end(), unix_seconds(at("2026-01-01T00:01:00Z")));
        assert_eq!(Window::of(at("2026-01-01T00:00:59.999Z")), w);
        assert_eq!(Window::of(at("2026-01-01T00:01:00Z")), Window(w.0 + 1));
        assert_eq!(Window::of(at("1969-12-31T23:59:00Z")), Window(0));
    }

    fn limiter() -> (Limiter, Arc<dyn ObjectStore>, crate::ManualClock) {
        let clock = crate::ManualClock::new("2026-01-01T00:00:00Z".parse().unwrap());
        (Limiter::default(), Arc::new(InMemory::new()), clock)
    }

    async fn leases_in_store(store: &Arc<dyn ObjectStore>) -> Vec<String> {
        let mut paths: Vec<String> = store
            .list(Some(&layout::rate_windows()))
            .map_ok(|m| m.location.to_string())
            .try_collect()
            .await
            .unwrap();
        paths.sort();
        paths.retain(|p| !p.ends_with("/swept"));
        paths
    }

    #[tokio::test]
    async fn a_process_counts_down_claiming_a_lease_at_a_time() {
        use crate::Clock;
        let (limiter, store, clock) = limiter();
        let mut seen = Vec::new();
        for _ in 0..7 {
            let v = limiter.check(&store, clock.now(), "k", 6).await;
            seen.push((v.allowed, v.remaining));
        }
        let allowed = |r| (true, r);
        assert_eq!(
            seen,
            [
                allowed(5),
                allowed(4),
                allowed(3),
                allowed(2),
                allowed(1),
                allowed(0),
                (false, 0)
            ]
        );
        let window = Window::of(clock.now()).0;
        let expected: Vec<String> = (0..6)
            .map(|n| layout::rate_lease(window, "k", n).to_string())
            .collect();
        assert_eq!(
            leases_in_store(&store).await,
            expected,
            "one lease per request"
        );
        // The window's last second, then the next window.
        clock.advance(SignedDuration::from_millis(59_999));
        let v = limiter.check(&store, clock.now(), "k", 6).await;
        assert_eq!((v.allowed, v.reset_in), (false, 1));
        clock.advance(SignedDuration::from_millis(1));
        let v = limiter.check(&store, clock.now(), "k", 6).await;
        assert_eq!((v.allowed, v.remaining, v.reset_in), (true, 5, 60));
        assert_eq!(v.reset_at, unix_seconds(clock.now()) + 60);
    }

    #[tokio::test]
    async fn processes_share_the_leases_of_a_window() {
        use crate::Clock;
        let (a, store, clock) = limiter();
        let b = Limiter::default();
        // 180: leases of 9. `a` takes lease 0, `b` lease 1.
        let v = a.check(&store, clock.now(), "k", 180).await;
        assert_eq!(v.remaining, 8 + 171);
        let v = b.check(&store, clock.now(), "k", 180).await;
        assert_eq!(v.remaining, 8 + 162);
        // `a` spends its lease, then skips lease 1 (taken) and takes 2.
        for _ in 0..8 {
            a.check(&store, clock.now(), "k", 180).await;
        }
        let v = a.check(&store, clock.now(), "k", 180).await;
        assert_eq!(v.remaining, 8 + 153);
        // Alternating until refused: both together accept between 164 and 180.
        let mut accepted = 1 + 1 + 8 + 1;
        for i in 0..400 {
            let limiter = if i % 2 == 0 { &a } else { &b };
            if limiter.check(&store, clock.now(), "k", 180).await.allowed {
                accepted += 1;
            }
        }
        assert!((164..=180).contains(&accepted), "{accepted}");
        assert_eq!(leases_in_store(&store).await.len(), 20);
        // Other keys are not affected.
        assert!(a.check(&store, clock.now(), "other", 180).await.allowed);
    }

    /// The lower bound: a process that stops asking keeps its unspent lease out of the others'
    /// reach until the window ends.
    #[tokio::test]
    async fn an_idle_process_holds_at_most_one_lease() {
        use crate::Clock;
        let (idle, store, clock) = limiter();
        let busy = Limiter::default();
        assert!(idle.check(&store, clock.now(), "k", 180).await.allowed);
        let mut accepted = 1;
        while busy.check(&store, clock.now(), "k", 180).await.allowed {
            accepted += 1;
        }
        assert_eq!(accepted, 180 - 8);
        let v = busy.check(&store, clock.now(), "k", 180).await;
        assert_eq!((v.allowed, v.remaining), (false, 0));
        // The idle process still has its lease's 8; it believes the other leases free (its
        // `remaining` is what it knows) until it tries them.
        let v = idle.check(&store, clock.now(), "k", 180).await;
        assert_eq!((v.allowed, v.remaining), (true, 7 + 171));
        for _ in 0..7 {
            assert!(idle.check(&store, clock.now(), "k", 180).await.allowed);
        }
        let v = idle.check(&store, clock.now(), "k", 180).await;
        assert_eq!((v.allowed, v.remaining), (false, 0));
    }

    #[tokio::test]
    async fn old_windows_are_swept() {
        use crate::Clock;
        let (limiter, store, clock) = limiter();
        let first = Window::of(clock.now());
        // A limit of 3: a lease per request.
        for _ in 0..3 {
            limiter.check(&store, clock.now(), "k", 3).await;
        }
        clock.advance(SignedDuration::from_secs(60));
        limiter.check(&store, clock.now(), "k", 3).await;
        assert_eq!(sweep(&store, Window(first.0 + 1)).await.unwrap(), 0);
        assert_eq!(
            leases_in_store(&store).await.len(),
            4,
            "the previous window stays"
        );
        // Two windows on, the first window's leases (and its marker) go; one sweep per window.
        let third = Window(first.0 + 2);
        assert!(sweep(&store, third).await.unwrap() >= 3);
        assert_eq!(sweep(&store, third).await.unwrap(), 0);
        assert_eq!(
            leases_in_store(&store).await,
            [layout::rate_lease(first.0 + 1, "k", 0).to_string()]
        );
    }
}
