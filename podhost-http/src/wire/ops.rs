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
}

impl Probe {
    /// A probe that passed.
    pub fn ok(status: &'static str) -> Self {
        Probe {
            status,
            reason: None,
        }
    }
}
