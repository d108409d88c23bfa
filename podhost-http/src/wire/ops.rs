//! The answers of the probes.

use schemars::JsonSchema;
use serde::Serialize;

/// A probe's answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Probe {
    /// `ok`, `ready` or `unavailable`.
    pub status: &'static str,
    /// Why the process cannot serve (only when `unavailable`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The store's format and this server's release (`/readyz`, when the store answered).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store: Option<ProbeStore>,
}

/// What `/readyz` says of the store's format, for an operator upgrading servers one at a time.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ProbeStore {
    /// The format the store holds (1 when never raised).
    pub format: u32,
    /// The newest format this server reads.
    pub reads: u32,
    /// This server's release.
    pub release: &'static str,
}

impl Probe {
    /// A probe that passed.
    pub fn ok(status: &'static str) -> Self {
        Probe {
            status,
            reason: None,
            store: None,
        }
    }
}
