//! This process's job workers: how idle workers are woken, what runs; and the packages of
//! videos read for serving (they never change once stored).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::hls::Package;
use crate::ids::JobId;
use crate::lock::Locked;

/// Packages kept in memory at most (a few KiB each).
const PACKAGES_KEPT: usize = 1024;

/// A process's worker state.
#[derive(Default)]
pub(crate) struct Workers {
    pub(crate) wake: tokio::sync::Notify,
    pub(crate) running: std::sync::Mutex<HashSet<JobId>>,
    pub(crate) packages: Packages,
    /// How much of each job running here is done (0 to 1), for the jobs that say.
    pub(crate) progress: std::sync::Mutex<HashMap<JobId, f64>>,
    /// What a job running here is stopped by when it is cancelled in this process.
    pub(crate) cancels: std::sync::Mutex<HashMap<JobId, Arc<tokio::sync::Notify>>>,
}

/// The packages read, by `{account}/{job}`.
#[derive(Default)]
pub(crate) struct Packages(std::sync::Mutex<HashMap<String, Arc<Package>>>);

impl Packages {
    pub(crate) fn get(&self, key: &str) -> Option<Arc<Package>> {
        self.0.locked().get(key).cloned()
    }

    pub(crate) fn insert(&self, key: String, package: Arc<Package>) {
        let mut map = self.0.locked();
        if map.len() >= PACKAGES_KEPT {
            map.clear();
        }
        map.insert(key, package);
    }
}
