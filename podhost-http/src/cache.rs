//! Rendered answers of list endpoints, reused while they cannot have changed: same account,
//! same request, same account version, and before the moment the answer changes by itself (a
//! scheduled episode publishing). A write anywhere in the account changes its version, so a
//! cached answer is never staler than the core's own reads.

use std::{collections::HashMap, sync::Mutex};

use bytes::Bytes;
use jiff::Timestamp;

/// At most this many bytes of answers are kept; past it the cache starts over.
const CAPACITY_BYTES: usize = 64 << 20;

#[derive(Clone)]
struct Cached {
    version: u64,
    changes_at: Option<Timestamp>,
    body: Bytes,
}

/// Rendered answers by account and request line.
#[derive(Default)]
pub(crate) struct ResponseCache {
    entries: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    map: HashMap<(String, String), Cached>,
    bytes: usize,
}

impl ResponseCache {
    /// The answer for `request` of `account` rendered at `version`, unless it changed by itself
    /// before `now`.
    pub(crate) fn get(
        &self,
        account: &str,
        request: &str,
        version: u64,
        now: Timestamp,
    ) -> Option<Bytes> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let cached = entries
            .map
            .get(&(account.to_string(), request.to_string()))?;
        let fresh = cached.version == version && cached.changes_at.is_none_or(|at| now < at);
        fresh.then(|| cached.body.clone())
    }

    /// Keeps an answer rendered at `version`.
    pub(crate) fn put(
        &self,
        account: &str,
        request: &str,
        version: u64,
        changes_at: Option<Timestamp>,
        body: Bytes,
    ) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.bytes + body.len() > CAPACITY_BYTES {
            entries.map.clear();
            entries.bytes = 0;
        }
        entries.bytes += body.len();
        let key = (account.to_string(), request.to_string());
        let cached = Cached {
            version,
            changes_at,
            body,
        };
        if let Some(old) = entries.map.insert(key, cached) {
            entries.bytes -= old.body.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_reused_only_at_its_version_and_before_it_changes() {
        let cache = ResponseCache::default();
        let t0: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let later: Timestamp = "2026-01-02T00:00:00Z".parse().unwrap();
        cache.put("a", "/api/media", 5, None, Bytes::from_static(b"x"));
        cache.put(
            "a",
            "/api/feed/f/shows",
            5,
            Some(later),
            Bytes::from_static(b"y"),
        );
        assert_eq!(
            cache.get("a", "/api/media", 5, t0).as_deref(),
            Some(&b"x"[..])
        );
        assert!(
            cache.get("a", "/api/media", 6, t0).is_none(),
            "a write changed the account"
        );
        assert!(
            cache.get("b", "/api/media", 5, t0).is_none(),
            "another account"
        );
        assert!(
            cache
                .get("a", "/api/media?page%5Bsize%5D=1", 5, t0)
                .is_none(),
            "another request"
        );
        assert!(cache.get("a", "/api/feed/f/shows", 5, t0).is_some());
        assert!(
            cache.get("a", "/api/feed/f/shows", 5, later).is_none(),
            "a scheduled episode published"
        );
    }
}
