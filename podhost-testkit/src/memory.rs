//! This process's memory, for benchmarks (Linux `/proc/self`): resident set now and at its peak.

fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// The resident set size now, in KiB (0 where `/proc` is missing).
pub fn resident_kib() -> u64 {
    status_kib("VmRSS:")
}

/// The peak resident set size since start or the last [`reset_peak`], in KiB.
pub fn peak_kib() -> u64 {
    status_kib("VmHWM:")
}

/// Resets the peak to the current resident set size (Linux: `/proc/self/clear_refs`).
pub fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}
