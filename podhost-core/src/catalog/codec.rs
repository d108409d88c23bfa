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

/// The snapshot format this build writes: a manifest of content-addressed parts.
pub(super) const SNAPSHOT_VERSION: u32 = 2;

/// A snapshot file: the state after entry `seq`. Version 2 (written now) lists the hashes of
/// its parts; version 1 (written by earlier builds, still read) holds the whole state.
#[derive(Serialize, Deserialize)]
pub(super) struct Snapshot<S> {
    pub(super) v: u32,
    pub(super) seq: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) state: Option<S>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) parts: Vec<String>,
}

/// Refuses a snapshot this build cannot read (one from a newer podhost).
pub(super) fn check_snapshot_version(v: u32, path: &Path) -> Result<()> {
    if v == VERSION || v == SNAPSHOT_VERSION {
        Ok(())
    } else {
        Err(Error::storage(format!(
            "{path} has snapshot version {v}, this podhost reads versions {VERSION} and {SNAPSHOT_VERSION}"
        )))
    }
}

/// A log segment: entries `first..=last` in one object, as they are in the log.
#[derive(Deserialize)]
pub(super) struct Segment<C> {
    pub(super) v: u32,
    pub(super) first: u64,
    pub(super) last: u64,
    pub(super) entries: Vec<Entry<C>>,
}

/// Packs the bytes of entries `first..` (each an encoded [`Entry`], in order) into a segment,
/// without decoding them: a segment holds exactly what the log holds.
pub(super) fn encode_segment(first: u64, entries: &[bytes::Bytes]) -> Vec<u8> {
    let last = first + entries.len() as u64 - 1;
    let mut out =
        format!(r#"{{"v":{VERSION},"first":{first},"last":{last},"entries":["#).into_bytes();
    for (i, entry) in entries.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(entry);
    }
    out.extend_from_slice(b"]}");
    out
}

/// The name of a snapshot part: the lower-case hex SHA-256 of its bytes.
pub(super) fn part_hash(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
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
