//! The clock: injected so that tests can move time, and kept to the store's time so that the
//! servers of one store agree on it.

use std::sync::{
    Arc, Mutex,
    atomic::{AtomicI64, Ordering},
};

use jiff::{SignedDuration, Timestamp};
use object_store::{ObjectStore, ObjectStoreExt, PutPayload, path::Path};

/// A source of the current time.
pub trait Clock: Send + Sync + std::fmt::Debug + 'static {
    /// The current time.
    fn now(&self) -> Timestamp;

    /// The clock as a [`StoreClock`], when it is one (it can then be set to the store's time).
    fn store_synced(&self) -> Option<&StoreClock> {
        None
    }
}

/// The system's clock, corrected to the store's: what a server of a shared store goes by.
/// Schedules, leases and the times records carry are compared across servers, so a server whose
/// clock is off (a VM's clock 30 s ahead) would publish early, take over work units before
/// they expire and stamp subscriptions in the future. [`measure`](Self::measure) reads the
/// store's time from the modification time of an object it writes and keeps the difference,
/// when it is larger than the measure's own error ([`StoreClock::TOLERANCE`]).
#[derive(Debug, Default)]
pub struct StoreClock {
    /// What is added to the system's time, in ms.
    offset_ms: AtomicI64,
}

impl StoreClock {
    /// Differences from the store's time smaller than this are left alone: S3 gives an object's
    /// time to the second, and the request takes its round trip.
    pub const TOLERANCE: SignedDuration = SignedDuration::from_secs(2);

    /// The correction applied now.
    pub fn offset(&self) -> SignedDuration {
        SignedDuration::from_millis(self.offset_ms.load(Ordering::Relaxed))
    }

    /// Writes `probe`, reads its modification time (the store's clock when it landed), removes
    /// it, and keeps the difference to the system's time halfway through, when beyond
    /// [`TOLERANCE`](Self::TOLERANCE) (else none); a round trip over a second tells nothing and
    /// keeps the last correction. Returns the correction now applied.
    pub async fn measure(
        &self,
        store: &dyn ObjectStore,
        probe: &Path,
    ) -> crate::error::Result<SignedDuration> {
        let before = Timestamp::now();
        store.put(probe, PutPayload::from_static(b"clock")).await?;
        let meta = store.head(probe).await?;
        let after = Timestamp::now();
        let _ = store.delete(probe).await;
        let landed = Timestamp::from_millisecond(meta.last_modified.timestamp_millis())
            .map_err(|e| crate::error::Error::storage(e.to_string()))?;
        let Some(offset) = correction(before, after, landed) else {
            // Too slow a round trip to tell (a stalled store): the last correction stays.
            return Ok(self.offset());
        };
        self.offset_ms
            .store(offset.as_millis() as i64, Ordering::Relaxed);
        Ok(offset)
    }
}

/// The correction to the system's time from a probe written between `before` and `after` (by
/// the system's clock) that the store says landed at `landed`, given to the second: none when
/// within [`StoreClock::TOLERANCE`]; `None` when the round trip took too long to tell (over a
/// second: the probe may have landed anywhere in it).
fn correction(before: Timestamp, after: Timestamp, landed: Timestamp) -> Option<SignedDuration> {
    if before.duration_until(after) > SignedDuration::from_secs(1) {
        return None;
    }
    let midway = before + before.duration_until(after) / 2;
    // It landed within the second the store names.
    let landed = landed + SignedDuration::from_millis(500);
    let off = midway.duration_until(landed);
    Some(if off.abs() < StoreClock::TOLERANCE {
        SignedDuration::ZERO
    } else {
        off
    })
}

impl Clock for StoreClock {
    fn now(&self) -> Timestamp {
        let now = Timestamp::now();
        now.checked_add(self.offset()).unwrap_or(now)
    }

    fn store_synced(&self) -> Option<&StoreClock> {
        Some(self)
    }
}

/// The system's clock, as it is.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::now()
    }
}

/// A clock that stands still until told to move; for tests.
#[derive(Debug, Clone)]
pub struct ManualClock(Arc<Mutex<Timestamp>>);

impl ManualClock {
    /// A clock showing `at`.
    pub fn new(at: Timestamp) -> Self {
        ManualClock(Arc::new(Mutex::new(at)))
    }

    /// Moves the clock forward (or back, with a negative duration).
    pub fn advance(&self, by: SignedDuration) {
        let mut now = self.0.lock().unwrap_or_else(|e| e.into_inner());
        *now = now.checked_add(by).unwrap_or(*now);
    }

    /// Sets the clock.
    pub fn set(&self, at: Timestamp) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = at;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clock_off_the_store_by_more_than_the_tolerance_is_corrected_and_one_within_it_is_not() {
        let at = |s: i64, ms: i64| Timestamp::from_millisecond(s * 1000 + ms).unwrap();
        let secs = |s: i64| SignedDuration::from_secs(s);
        // (written from, to, by this machine's clock; the store's second) -> correction
        let cases = [
            (
                (at(100, 0), at(100, 40)),
                at(100, 0),
                Some(SignedDuration::ZERO),
            ),
            (
                (at(100, 900), at(101, 100)),
                at(101, 0),
                Some(SignedDuration::ZERO),
            ),
            // A stalled store: 4 s to write and read the probe tells nothing.
            ((at(100, 0), at(104, 0)), at(102, 0), None),
            // This machine 30 s ahead of the store: 30 s taken off.
            (
                (at(130, 200), at(130, 400)),
                at(100, 0),
                Some(secs(-30) + SignedDuration::from_millis(200)),
            ),
            // 30 s behind.
            (
                (at(70, 200), at(70, 400)),
                at(100, 0),
                Some(secs(30) + SignedDuration::from_millis(200)),
            ),
        ];
        for ((before, after), landed, expected) in cases {
            assert_eq!(
                correction(before, after, landed),
                expected,
                "{before} {after} {landed}"
            );
        }
    }

    #[tokio::test]
    async fn a_store_on_this_machine_needs_no_correction_and_keeps_no_probe() {
        use futures::TryStreamExt;
        let store = object_store::memory::InMemory::new();
        let clock = StoreClock::default();
        let probe = Path::from("work/clock/me");
        assert_eq!(
            clock.measure(&store, &probe).await.unwrap(),
            SignedDuration::ZERO
        );
        assert_eq!(clock.offset(), SignedDuration::ZERO);
        let left: Vec<_> = store.list(None).try_collect().await.unwrap();
        assert!(left.is_empty(), "{left:?}");
    }
}
