//! Requests a client may send again (an `Idempotency-Key`, as the IETF httpapi draft and
//! Stripe's API define it): what the account's state keeps of each key for 24 hours.
//!
//! A keyed request is carried out once. Every commit it makes is a **step**, recorded with the
//! value the commit returned in the same log entry as its changes, so a step lands with its
//! effect or not at all. A request run again under the key (after its server died, or by a
//! client's retry that reached another server) replays the recorded steps, returning their
//! values without deciding again, and carries out only what never landed: nothing is done
//! twice. Its answer is kept once it is given, and a repeat gets that answer again.

use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::error::{Error, Result};

/// The request header carrying a key.
pub const HEADER: &str = "Idempotency-Key";

/// How long a key's record is kept after its first request.
pub const KEEP_KEYS: SignedDuration = SignedDuration::from_hours(24);

/// The longest key.
pub const MAX_KEY: usize = 255;

/// How long a server's claim of a running keyed request holds without being renewed: a repeat
/// that arrives meanwhile is told to wait (409); past it, the request is taken over.
pub const KEY_LEASE: SignedDuration = SignedDuration::from_secs(10);

/// Checks an `Idempotency-Key`: 1 to 255 visible ASCII characters.
pub fn check_key(key: &str) -> Result<()> {
    if (1..=MAX_KEY).contains(&key.len()) && key.bytes().all(|b| b.is_ascii_graphic()) {
        Ok(())
    } else {
        Err(Error::invalid(
            HEADER,
            format!("a key is 1 to {MAX_KEY} visible ASCII characters"),
        ))
    }
}

/// The answer given to a keyed request, as a repeat gets it again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredAnswer {
    /// Its status.
    pub status: u16,
    /// Its `Location`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// Its `Content-Type`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// Its body (text: the API answers JSON).
    pub body: String,
    /// The SHA-256 of the request's body, hex: a repeat must send the same.
    pub request_sha256: String,
}

/// A key's record in the account's state.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct KeyRecord {
    /// When its first request began (kept for [`KEEP_KEYS`] from then).
    pub(crate) at: Timestamp,
    /// The method and path it was used for.
    pub(crate) target: String,
    /// The server running it, while one does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) owner: Option<String>,
    /// Until when that server's claim holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) until: Option<Timestamp>,
    /// The value of each step (commit) that landed, by number.
    #[serde(default)]
    pub(crate) steps: BTreeMap<u32, serde_json::Value>,
    /// The answer, once given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) answer: Option<StoredAnswer>,
}

/// The changes of keyed requests (variants of the account's `Change`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "snake_case")]
pub(crate) enum KeyChange {
    /// A server runs (or takes over) the request: records older than [`KEEP_KEYS`] before
    /// `at` go.
    Begun {
        key: String,
        target: String,
        owner: String,
        at: Timestamp,
        until: Timestamp,
    },
    /// A step landed, with its value.
    Step {
        key: String,
        n: u32,
        value: serde_json::Value,
    },
    /// The answer was given.
    Answered { key: String, answer: StoredAnswer },
    /// The server gave up on it (an internal error): a repeat runs it again, at once.
    Released { key: String },
}

impl KeyChange {
    /// Applies the change to the records.
    pub(crate) fn apply(&self, keys: &mut BTreeMap<String, KeyRecord>) {
        match self {
            KeyChange::Begun {
                key,
                target,
                owner,
                at,
                until,
            } => {
                let horizon = *at - KEEP_KEYS;
                keys.retain(|_, record| record.at >= horizon);
                let record = keys.entry(key.clone()).or_insert_with(|| KeyRecord {
                    at: *at,
                    target: target.clone(),
                    owner: None,
                    until: None,
                    steps: BTreeMap::new(),
                    answer: None,
                });
                record.owner = Some(owner.clone());
                record.until = Some(*until);
            }
            KeyChange::Step { key, n, value } => {
                if let Some(record) = keys.get_mut(key) {
                    record.steps.insert(*n, value.clone());
                }
            }
            KeyChange::Answered { key, answer } => {
                if let Some(record) = keys.get_mut(key) {
                    record.answer = Some(answer.clone());
                    record.owner = None;
                    record.until = None;
                }
            }
            KeyChange::Released { key } => {
                if let Some(record) = keys.get_mut(key) {
                    record.owner = None;
                    record.until = None;
                }
            }
        }
    }
}

/// What to do with a keyed request.
#[derive(Debug, Serialize, Deserialize)]
pub enum Begin {
    /// Carry it out (steps that landed before are replayed): give the answer to
    /// [`PodcastHost::answer_keyed`](crate::PodcastHost::answer_keyed).
    Run(KeyedRun),
    /// It was answered: the same answer again, if the request is the same
    /// ([`StoredAnswer::replay`]).
    Replay(StoredAnswer),
}

impl StoredAnswer {
    /// This answer again, for a repeat whose body has the SHA-256 `request_sha256` (hex);
    /// refused (422, naming the key) when the body is another.
    pub fn replay(self, request_sha256: &str) -> Result<StoredAnswer> {
        if self.request_sha256 == request_sha256 {
            Ok(self)
        } else {
            Err(Error::invalid(
                HEADER,
                "this key was used for a request with another body; a key names one request",
            ))
        }
    }
}

/// A keyed request this server carries out.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KeyedRun {
    pub(crate) account: crate::ids::AccountId,
    pub(crate) key: String,
}

impl KeyedRun {
    /// The key.
    pub fn key(&self) -> &str {
        &self.key
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_visible_ascii() {
        for ok in ["a", "8e0f-41c2", "key:with/punct.", &"k".repeat(255)] {
            assert!(check_key(ok).is_ok(), "{ok}");
        }
        for bad in ["", " lead", "a b", "tab\t", "ünï", &"k".repeat(256)] {
            assert!(check_key(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn records_older_than_a_day_go_when_a_key_begins() {
        let mut keys = BTreeMap::new();
        let t0: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let begun = |key: &str, at: Timestamp| KeyChange::Begun {
            key: key.into(),
            target: "POST /api/feeds".into(),
            owner: "p".into(),
            at,
            until: at + KEY_LEASE,
        };
        begun("old", t0).apply(&mut keys);
        begun("new", t0 + SignedDuration::from_hours(23)).apply(&mut keys);
        assert_eq!(keys.len(), 2);
        begun("newer", t0 + SignedDuration::from_hours(25)).apply(&mut keys);
        assert_eq!(keys.keys().collect::<Vec<_>>(), ["new", "newer"]);
    }
}
