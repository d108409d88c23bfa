//! This process's job workers: how idle workers are woken, what runs, how far each is, and
//! what stops it.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use crate::ids::{AccountId, JobId};

/// A process's worker state.
#[derive(Default)]
pub(crate) struct Workers {
    pub(crate) wake: tokio::sync::Notify,
    pub(crate) running: std::sync::Mutex<HashSet<JobId>>,
    /// How much of each job running here is done (0 to 1), for the jobs that say.
    pub(crate) progress: std::sync::Mutex<HashMap<JobId, f64>>,
    /// What a job running here is stopped by when it is cancelled in this process.
    pub(crate) cancels: std::sync::Mutex<HashMap<JobId, Arc<tokio::sync::Notify>>>,
    /// Accounts whose delivery marker this process removed before a delivery round that then
    /// failed, and could not put back (a full disk): put back by its next pass over the work
    /// index, so that their waiting events do not wait for the repair.
    pub(crate) markers_to_restore: std::sync::Mutex<BTreeSet<AccountId>>,
}
