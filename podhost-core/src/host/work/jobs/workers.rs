//! This process's job workers: its name in leases, how idle workers are woken, what runs.

use std::collections::HashSet;

use crate::ids::JobId;

/// A process's worker state.
pub(crate) struct Workers {
    /// This process's name in leases.
    pub(crate) owner: String,
    pub(crate) wake: tokio::sync::Notify,
    pub(crate) running: std::sync::Mutex<HashSet<JobId>>,
}

impl Default for Workers {
    fn default() -> Self {
        Workers {
            owner: uuid::Uuid::new_v4().simple().to_string(),
            wake: tokio::sync::Notify::new(),
            running: Default::default(),
        }
    }
}
