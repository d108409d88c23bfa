//! How a catalog trades freshness against reads and snapshot size against replay length.

use std::time::Duration;

/// How a catalog trades freshness against reads and snapshot size against replay length.
#[derive(Clone, Debug)]
pub struct CatalogConfig {
    /// A read that finds its state older than this first reads new entries from the store, so
    /// other processes' writes are seen within this interval.
    pub refresh_interval: Duration,
    /// A snapshot is written after this many entries since the last one.
    pub snapshot_every: u64,
    /// The entries are packed into one log segment per this many.
    pub segment_every: u64,
    /// A snapshot part no kept snapshot names is deleted once it is this old (a compaction in
    /// another process may be about to name it).
    pub keep_unused_parts: Duration,
    /// How often one logical write tries again after store errors of unknown outcome.
    pub max_attempts: u32,
    /// How many bytes of open catalogs one process keeps, estimated from their states
    /// (default 256 MiB): past it, the least recently used account's catalog is let go and
    /// opened again from the store when next needed.
    pub cache_bytes: usize,
}

impl CatalogConfig {
    /// The default bound of open catalogs: 256 MiB.
    pub const DEFAULT_CACHE_BYTES: usize = 256 << 20;
}

impl Default for CatalogConfig {
    fn default() -> Self {
        CatalogConfig {
            refresh_interval: Duration::from_millis(500),
            snapshot_every: 4096,
            segment_every: 256,
            keep_unused_parts: Duration::from_secs(3600),
            max_attempts: 6,
            cache_bytes: Self::DEFAULT_CACHE_BYTES,
        }
    }
}
