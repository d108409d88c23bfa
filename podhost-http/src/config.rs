//! The HTTP frontend's settings.

use std::time::Duration;

/// Limits and settings of the REST API. (The rate limit is the core's:
/// [`HostConfig::rate_limit`](podhost_core::HostConfig).)
#[derive(Clone, Debug)]
pub struct HttpConfig {
    /// The largest JSON body (default 1 MiB). Uploads are limited by the core's upload limit.
    pub max_json_bytes: usize,
    /// How long a client may take to send its request headers (default 10 s).
    pub header_read_timeout: Duration,
    /// The largest request head (default 16 KiB).
    pub max_header_bytes: usize,
    /// Whether the server sits behind a proxy it trusts: download statistics then take the
    /// client address from the last `X-Forwarded-For` entry (default false: the peer address).
    pub trust_forwarded_for: bool,
    /// How much of a request body left unread by an early answer (401, 403, 404, 413, ...) is
    /// still read and discarded, so that a client sending it without `Expect: 100-continue`
    /// gets the answer instead of a connection reset (default 64 MiB; a body with more left is
    /// not read).
    pub drain_max_bytes: u64,
    /// How long, from the answer on, such a body is read (default 10 s).
    pub drain_max_time: Duration,
    /// Whether list answers are reused while the account is unchanged (default true; off,
    /// every list is rendered afresh, as the benchmark of the render path runs it).
    pub cache_lists: bool,
    /// Whether each episode's JSON as a list item is kept until the episode changes, so that
    /// a list page no cached answer covers is put together rather than serialized (default
    /// true; off, every item is serialized afresh).
    pub cache_list_items: bool,
    /// Requests this server works on at once (default 1024; a download counts until its
    /// answer starts): past it a request is shed at once with 503 and `Retry-After`, so a store
    /// that stalls cannot pile requests, and their memory, up without bound. The operator's
    /// routes (`/healthz`, `/readyz`, `/metrics`) are never shed.
    pub max_in_flight: usize,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            max_json_bytes: 1 << 20,
            header_read_timeout: Duration::from_secs(10),
            max_header_bytes: 16 << 10,
            trust_forwarded_for: false,
            drain_max_bytes: 64 << 20,
            drain_max_time: Duration::from_secs(10),
            cache_lists: true,
            cache_list_items: true,
            max_in_flight: 1024,
        }
    }
}
