//! The specification's text formats, each written once: dates, sizes, durations.

use jiff::{Timestamp, tz::TimeZone};

/// `DD.MM.YYYY HH:MM:SS`.
pub fn date_time(t: Timestamp, tz: &TimeZone) -> String {
    t.to_zoned(tz.clone())
        .strftime("%d.%m.%Y %H:%M:%S")
        .to_string()
}

/// `HH:MM:SS DD.MM.YYYY`.
pub fn time_date(t: Timestamp, tz: &TimeZone) -> String {
    t.to_zoned(tz.clone())
        .strftime("%H:%M:%S %d.%m.%Y")
        .to_string()
}

/// `DD.MM.YYYY`.
pub fn date(t: Timestamp, tz: &TimeZone) -> String {
    t.to_zoned(tz.clone()).strftime("%d.%m.%Y").to_string()
}

/// `HH:MM`.
pub fn hour_minute(t: Timestamp, tz: &TimeZone) -> String {
    t.to_zoned(tz.clone()).strftime("%H:%M").to_string()
}

/// `DD.MM.YYYY, HH:MM Uhr`.
pub fn publish_date_formatted(t: Timestamp, tz: &TimeZone) -> String {
    t.to_zoned(tz.clone())
        .strftime("%d.%m.%Y, %H:%M Uhr")
        .to_string()
}

/// 1024-based units with at most one decimal: `512 B`, `13.4 KB`, `2 MB` (the core's format).
pub fn size(bytes: u64) -> String {
    podhost_core::model::human_size(bytes)
}

/// `HH:MM:SS` (hours may exceed 24).
pub fn hms(duration_ms: u64) -> String {
    let s = duration_ms / 1000;
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// `<m>m <s>s`.
pub fn minutes_seconds(duration_ms: u64) -> String {
    let s = duration_ms / 1000;
    format!("{}m {}s", s / 60, s % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_as_the_specification_shows() {
        let tz = TimeZone::UTC;
        let t: Timestamp = "2026-03-04T05:06:07Z".parse().unwrap();
        assert_eq!(date_time(t, &tz), "04.03.2026 05:06:07");
        assert_eq!(time_date(t, &tz), "05:06:07 04.03.2026");
        assert_eq!(date(t, &tz), "04.03.2026");
        assert_eq!(hour_minute(t, &tz), "05:06");
        assert_eq!(publish_date_formatted(t, &tz), "04.03.2026, 05:06 Uhr");
        let vienna = TimeZone::get("Europe/Vienna").unwrap();
        assert_eq!(date_time(t, &vienna), "04.03.2026 06:06:07");
        for (bytes, text) in [
            (0, "0 B"),
            (512, "512 B"),
            (1024, "1 KB"),
            (13_722, "13.4 KB"),
            (2_202_010, "2.1 MB"),
            (3 << 30, "3 GB"),
        ] {
            assert_eq!(size(bytes), text, "{bytes}");
        }
        assert_eq!(hms(3_725_400), "01:02:05");
        assert_eq!(minutes_seconds(3_725_400), "62m 5s");
        assert_eq!(minutes_seconds(999), "0m 0s");
    }
}
