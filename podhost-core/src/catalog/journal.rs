//! What a catalog keeps: a state built by applying changes in log order, split into parts for
//! its snapshots.

use serde::{Serialize, de::DeserializeOwned};

/// A state that is built by applying changes in log order.
pub(crate) trait Journal:
    Default + Clone + Serialize + DeserializeOwned + Send + Sync + 'static
{
    /// One change; an entry holds a list of them, applied in order.
    type Change: Serialize + DeserializeOwned + Send + Sync + 'static;

    /// Applies one change. Must be deterministic and must not fail: a change is validated
    /// against the state before it is written.
    fn apply(&mut self, change: &Self::Change);

    /// Applies one entry's changes, written at `at`, in order (a journal that records
    /// something of each entry as a whole overrides it).
    fn apply_entry(&mut self, at: jiff::Timestamp, changes: &[Self::Change]) {
        let _ = at;
        for change in changes {
            self.apply(change);
        }
    }

    /// Rebuilds derived indexes after the state was read from a snapshot.
    fn after_load(&mut self) {}

    /// About how many bytes of memory the state holds: what a cache of open catalogs weighs
    /// it at (an estimate from its sizes, not a measurement).
    fn weight(&self) -> usize {
        std::mem::size_of_val(self)
    }

    /// The value step `n` of the keyed request `key` landed with, if it did (see
    /// [`idempotency`](crate::idempotency)). A journal without keyed requests has none.
    fn keyed_step(&self, _key: &str, _n: u32) -> Option<&serde_json::Value> {
        None
    }

    /// The change that records step `n` of the keyed request `key` with its value, written in
    /// the entry of the step's own changes.
    fn keyed_step_change(_key: &str, _n: u32, _value: serde_json::Value) -> Option<Self::Change> {
        None
    }

    /// One piece of a snapshot.
    type Part: Serialize + DeserializeOwned + Send + 'static;

    /// Splits the state into the parts a snapshot stores. A part whose content did not change
    /// encodes to the same bytes and is not written again, so a split where one change touches
    /// few small parts makes snapshots cheap.
    fn into_parts(self) -> Vec<Self::Part>;

    /// Joins parts made by [`into_parts`](Self::into_parts), in any order; an error when they
    /// do not make one state.
    fn from_parts(parts: Vec<Self::Part>) -> std::result::Result<Self, String>;
}
