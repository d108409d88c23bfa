//! The on-store encoding of log entries and snapshots (JSON, versioned).

use jiff::Timestamp;
use object_store::path::Path;
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use uuid::Uuid;

use crate::error::{Error, Result};

/// The format version this build writes and reads.
pub(super) const VERSION: u32 = 1;

/// Refuses what a newer podhost wrote: reading it with this build would drop what it does
/// not understand.
pub(super) fn check_version(v: u32, path: &Path) -> Result<()> {
    if v == VERSION {
        Ok(())
    } else {
        Err(Error::storage(format!(
            "{path} has format version {v}, this podhost reads version {VERSION}: upgrade this process"
        )))
    }
}

/// One log entry: the changes of one logical transaction.
#[derive(Serialize, Deserialize)]
pub(super) struct Entry<C> {
    /// Format version.
    pub(super) v: u32,
    /// The logical transaction; the same across retries of one write.
    pub(super) txn: Uuid,
    /// When the writer decided the change.
    pub(super) at: Timestamp,
    pub(super) changes: Vec<C>,
}

/// A snapshot: the state after entry `seq`.
#[derive(Serialize, Deserialize)]
pub(super) struct Snapshot<S> {
    pub(super) v: u32,
    pub(super) seq: u64,
    pub(super) state: S,
}

pub(super) fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>> {
    serde_json::to_vec(value).map_err(|e| Error::storage(format!("could not encode: {e}")))
}

pub(super) fn decode<T: DeserializeOwned>(bytes: &[u8], path: &Path) -> Result<T> {
    serde_json::from_slice(bytes).map_err(|e| {
        Error::storage(format!(
            "{path} is unreadable ({e}); the store was changed by something other than podhost"
        ))
    })
}
