//! This process's job workers: how idle workers are woken, what runs.

use std::collections::HashSet;

use crate::ids::JobId;

/// A process's worker state.
#[derive(Default)]
pub(crate) struct Workers {
    pub(crate) wake: tokio::sync::Notify,
    pub(crate) running: std::sync::Mutex<HashSet<JobId>>,
}
