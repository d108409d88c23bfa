//! How dates, durations and sizes read on a page (English, like the rest of the page's chrome),
//! each with its machine-readable form for `<time datetime>`.

use jiff::{Timestamp, tz::TimeZone};

/// A publication date: "1 January 2025" and `2025-01-01`, in the deployment's time zone.
pub(super) fn date(at: Timestamp, zone: &TimeZone) -> (String, String) {
    let zoned = at.to_zoned(zone.clone());
    (
        zoned.strftime("%-d %B %Y").to_string(),
        zoned.strftime("%Y-%m-%d").to_string(),
    )
}

/// A duration: "1 h 5 min", "42 min", "45 s", and its ISO 8601 form (`PT1H5M3S`).
pub(super) fn duration(ms: u64) -> (String, String) {
    let seconds = ms / 1000;
    let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    let text = match (h, m) {
        (0, 0) => format!("{s} s"),
        (0, m) => format!("{} min", m + u64::from(s >= 30)),
        (h, m) => format!("{h} h {m} min"),
    };
    (text, format!("PT{h}H{m}M{s}S"))
}

/// A time in an episode (a chapter's start, a player's clock) as `m:ss` or `h:mm:ss`.
pub(super) fn clock(ms: u64) -> String {
    let s = ms / 1000;
    match s / 3600 {
        0 => format!("{}:{:02}", s / 60, s % 60),
        h => format!("{h}:{:02}:{:02}", s / 60 % 60, s % 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_read_in_the_display_time_zone() {
        let at: Timestamp = "2025-01-01T23:30:00Z".parse().unwrap();
        assert_eq!(
            date(at, &TimeZone::UTC),
            ("1 January 2025".into(), "2025-01-01".into())
        );
        let berlin = TimeZone::get("Europe/Berlin").unwrap();
        assert_eq!(
            date(at, &berlin),
            ("2 January 2025".into(), "2025-01-02".into())
        );
    }

    #[test]
    fn durations_round_to_what_a_listener_needs() {
        assert_eq!(duration(45_400), ("45 s".into(), "PT0H0M45S".into()));
        assert_eq!(duration(150_000).0, "3 min");
        assert_eq!(duration(149_000).0, "2 min");
        assert_eq!(duration(3_903_000), ("1 h 5 min".into(), "PT1H5M3S".into()));
    }
}
