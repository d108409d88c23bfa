//! One kind of cache for everything rendered from the catalog (feeds, pages, list answers, list
//! items, compressed documents): values by key, each kept with the **stamp** of what it was made
//! from and, for a value that changes by itself (a scheduled episode publishing), the moment it
//! does. A value is served only while the stamp asked with is its own and that moment has not
//! come, so a cached value is never staler than a fresh read. At most a **bound** of bytes is
//! kept; past it the cache starts over (rendering again is cheap next to holding a stale heap).

use crate::lock::Locked;
use std::{
    collections::HashMap,
    hash::Hash,
    sync::{Mutex, MutexGuard},
};

use bytes::Bytes;
use jiff::Timestamp;

use crate::metrics::CacheCounts;

/// What a value weighs against its cache's bound, in bytes.
pub trait Weigh {
    /// The bytes it holds.
    fn weight(&self) -> usize;
}

impl Weigh for Bytes {
    fn weight(&self) -> usize {
        self.len()
    }
}

/// Values by key with their stamps, at most `bound` bytes of them.
pub struct Cache<K, S, V> {
    entries: Mutex<Entries<K, S, V>>,
}

struct Entry<S, V> {
    stamp: S,
    changes_at: Option<Timestamp>,
    value: V,
}

/// The entries of a cache, locked: several reads and writes under one lock (a page of items).
pub struct Entries<K, S, V> {
    map: HashMap<K, Entry<S, V>>,
    bytes: usize,
    bound: usize,
    counts: CacheCounts,
}

impl<K: Eq + Hash, S: PartialEq, V: Clone + Weigh> Cache<K, S, V> {
    /// An empty cache of at most `bound` bytes.
    pub fn new(bound: usize) -> Self {
        Self::counted(bound, CacheCounts::default())
    }

    /// An empty cache of at most `bound` bytes whose lookups count in `counts` (hits and
    /// misses, from [`Metrics::cache_counts`](crate::metrics::Metrics::cache_counts)).
    pub fn counted(bound: usize, counts: CacheCounts) -> Self {
        Cache {
            entries: Mutex::new(Entries {
                map: HashMap::new(),
                bytes: 0,
                bound,
                counts,
            }),
        }
    }

    /// The entries, locked.
    pub fn lock(&self) -> MutexGuard<'_, Entries<K, S, V>> {
        self.entries.locked()
    }

    /// The value of `key` made at `stamp`, unless its moment to change has come by `now`.
    pub fn get(&self, key: &K, stamp: &S, now: Timestamp) -> Option<V> {
        self.lock().get(key, stamp, now).cloned()
    }

    /// Keeps `value` for `key`, made at `stamp`, until `changes_at` (if it ever changes by
    /// itself).
    pub fn put(&self, key: K, stamp: S, changes_at: Option<Timestamp>, value: V) {
        self.lock().put(key, stamp, changes_at, value);
    }
}

impl<K: Eq + Hash, S: PartialEq, V: Weigh> Entries<K, S, V> {
    /// See [`Cache::get`].
    pub fn get(&self, key: &K, stamp: &S, now: Timestamp) -> Option<&V> {
        let found = self
            .map
            .get(key)
            .filter(|entry| entry.stamp == *stamp && entry.changes_at.is_none_or(|at| now < at));
        self.counts.count(found.is_some());
        found.map(|entry| &entry.value)
    }

    /// See [`Cache::put`].
    pub fn put(&mut self, key: K, stamp: S, changes_at: Option<Timestamp>, value: V) {
        if let Some(old) = self.map.remove(&key) {
            self.bytes -= old.value.weight();
        }
        let weight = value.weight();
        if self.bytes + weight > self.bound {
            self.map.clear();
            self.bytes = 0;
        }
        self.bytes += weight;
        self.map.insert(
            key,
            Entry {
                stamp,
                changes_at,
                value,
            },
        );
    }

    /// The bytes held.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(n: usize) -> Bytes {
        Bytes::from(vec![b'x'; n])
    }

    #[test]
    fn a_value_serves_its_stamp_until_its_moment_comes() {
        let cache = Cache::new(1000);
        let t0 = Timestamp::UNIX_EPOCH;
        let later = Timestamp::from_second(60).unwrap();
        cache.put("a", 7, Some(later), bytes(10));
        cache.put("b", 7, None, bytes(10));
        assert!(cache.get(&"a", &7, t0).is_some());
        assert!(cache.get(&"a", &8, t0).is_none(), "another stamp: changed");
        assert!(cache.get(&"a", &7, later).is_none(), "its moment came");
        assert!(cache.get(&"b", &7, later).is_some(), "no moment: kept");
        assert!(cache.get(&"c", &7, t0).is_none(), "never kept");
    }

    #[test]
    fn the_cache_stays_within_its_bound() {
        let cache = Cache::new(100);
        let t0 = Timestamp::UNIX_EPOCH;
        cache.put("a", 1, None, bytes(60));
        cache.put("a", 2, None, bytes(60));
        assert!(
            cache.get(&"a", &2, t0).is_some(),
            "a replaced value is not counted twice"
        );
        assert_eq!(cache.lock().bytes(), 60);
        cache.put("b", 1, None, bytes(60));
        assert!(cache.get(&"a", &2, t0).is_none(), "started over");
        assert!(cache.get(&"b", &1, t0).is_some());
        assert_eq!(cache.lock().bytes(), 60);
    }
}
