//! The rate limit: a fixed 60-second window of requests per token, in this process.

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

const WINDOW: Duration = Duration::from_secs(60);

/// What the limit says about one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    /// Requests allowed per window.
    pub limit: u32,
    /// Requests left in this window after this one.
    pub remaining: u32,
    /// Seconds until the window resets.
    pub reset_in: u64,
    /// Unix time of the reset.
    pub reset_at: u64,
    /// Whether this request may proceed.
    pub allowed: bool,
}

/// Counts requests per key (a token id) in fixed windows.
#[derive(Debug)]
pub struct RateLimiter {
    limit: u32,
    windows: Mutex<HashMap<String, (Instant, u32)>>,
}

impl RateLimiter {
    /// A limiter of `limit` requests per minute per key.
    pub fn new(limit: u32) -> Self {
        RateLimiter {
            limit,
            windows: Mutex::new(HashMap::new()),
        }
    }

    /// Counts one request of `key` at `now`.
    pub fn check(&self, key: &str, now: Instant) -> Verdict {
        let mut windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        if windows.len() > 100_000 {
            windows.retain(|_, (start, _)| now.duration_since(*start) < WINDOW);
        }
        let (start, count) = windows.entry(key.to_string()).or_insert((now, 0));
        if now.duration_since(*start) >= WINDOW {
            *start = now;
            *count = 0;
        }
        let allowed = *count < self.limit;
        if allowed {
            *count += 1;
        }
        let reset_in = WINDOW
            .saturating_sub(now.duration_since(*start))
            .as_secs()
            .max(1);
        let unix = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        Verdict {
            limit: self.limit,
            remaining: self.limit - *count,
            reset_in,
            reset_at: unix + reset_in,
            allowed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_down_refuses_and_resets() {
        let limiter = RateLimiter::new(3);
        let t0 = Instant::now();
        let remaining: Vec<_> = (0..4)
            .map(|_| limiter.check("a", t0))
            .map(|v| (v.remaining, v.allowed))
            .collect();
        assert_eq!(remaining, [(2, true), (1, true), (0, true), (0, false)]);
        assert!(limiter.check("b", t0).allowed, "keys are separate");
        assert!(limiter.check("a", t0 + WINDOW).allowed, "a new window");
    }
}
