//! `pubDate` as real feeds write it: RFC 2822, and the broken variants hosts and hand-written
//! feeds produce (no or a wrong weekday, full or odd month names, two-digit years, no seconds,
//! zone names and abbreviations, ISO 8601).

use jiff::{Timestamp, civil::Date};

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

/// Offsets of the zone names feeds use (RFC 822's, and common North American, European and
/// Australian abbreviations).
fn zone_offset(name: &str) -> Option<i32> {
    let hours = match name {
        "Z" | "UT" | "UTC" | "GMT" | "WET" => 0,
        "BST" | "CET" | "WEST" => 1,
        "CEST" | "EET" => 2,
        "EEST" | "MSK" => 3,
        "IST" => return Some(5 * 60 + 30),
        "AEST" => 10,
        "AEDT" => 11,
        "EST" => -5,
        "EDT" => -4,
        "CST" => -6,
        "CDT" => -5,
        "MST" => -7,
        "MDT" => -6,
        "PST" => -8,
        "PDT" => -7,
        "AKST" => -9,
        "AKDT" => -8,
        "HST" => -10,
        _ => return None,
    };
    Some(hours * 60)
}

/// A `+hhmm`, `-hh:mm` or `+hh` offset in minutes.
fn numeric_offset(text: &str) -> Option<i32> {
    let (sign, rest) = match text.as_bytes().first()? {
        b'+' => (1, &text[1..]),
        b'-' => (-1, &text[1..]),
        _ => return None,
    };
    let digits: String = rest.chars().filter(|c| *c != ':').collect();
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (h, m) = match digits.len() {
        4 => (
            digits[..2].parse::<i32>().ok()?,
            digits[2..].parse::<i32>().ok()?,
        ),
        2 => (digits.parse::<i32>().ok()?, 0),
        _ => return None,
    };
    (h <= 14 && m < 60).then_some(sign * (h * 60 + m))
}

fn month(word: &str) -> Option<i8> {
    let lower = word.to_ascii_lowercase();
    let stem = lower.get(..3)?;
    MONTHS.iter().position(|m| *m == stem).map(|i| i as i8 + 1)
}

/// Parses a `pubDate`; `None` when it cannot be read.
pub(crate) fn parse_date(text: &str) -> Option<Timestamp> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    if let Ok(at) = text.parse::<Timestamp>() {
        return Some(at);
    }
    // Words: "Tue, 5 Mar 2024 10:00:00 +0000", "5 March 2024 10:00 GMT", "Tue,05 Mar 24 ...".
    let cleaned = text.replace([',', '\u{a0}'], " ");
    let mut words: Vec<&str> = cleaned.split_whitespace().collect();
    // A leading weekday (right or wrong) says nothing the date does not.
    if words
        .first()
        .is_some_and(|w| w.chars().all(|c| c.is_ascii_alphabetic()) && month(w).is_none())
    {
        words.remove(0);
    }
    // "Mar 5 2024": the month first.
    if words.len() >= 2 && month(words[0]).is_some() && words[1].parse::<u8>().is_ok() {
        words.swap(0, 1);
    }
    let day: i8 = words.first()?.trim_end_matches('.').parse().ok()?;
    let month = month(words.get(1)?)?;
    let year: i16 = match words.get(2)?.parse::<i16>().ok()? {
        y @ 0..=49 => 2000 + y,
        y @ 50..=99 => 1900 + y,
        y => y,
    };
    let date = Date::new(year, month, day).ok()?;
    let (mut hour, mut minute, mut second) = (0i8, 0i8, 0i8);
    let mut offset_minutes = 0;
    if let Some(time) = words.get(3) {
        // "10:00:00", "10:00", "10:00:00.000", and a zone glued on: "10:00:00Z".
        let (clock, glued_zone) = match time.find(['Z', '+', '-']) {
            Some(i) => (&time[..i], Some(&time[i..])),
            None => (*time, None),
        };
        let mut parts = clock.split(':');
        hour = parts.next()?.parse().ok()?;
        minute = parts.next().unwrap_or("0").parse().ok()?;
        second = parts
            .next()
            .unwrap_or("0")
            .split('.')
            .next()?
            .parse()
            .ok()?;
        let zone = glued_zone.or(words.get(4).copied());
        if let Some(zone) = zone {
            offset_minutes = numeric_offset(zone)
                .or_else(|| zone_offset(&zone.to_ascii_uppercase()))
                .unwrap_or(0);
        }
    }
    let time = jiff::civil::Time::new(hour, minute, second.min(59), 0).ok()?;
    let offset = jiff::tz::Offset::from_seconds(offset_minutes * 60).ok()?;
    offset.to_timestamp(date.to_datetime(time)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dates_real_feeds_write() {
        let utc = |s: &str| Some(s.parse::<Timestamp>().unwrap());
        let cases = [
            (
                "Tue, 05 Mar 2024 10:00:00 +0000",
                utc("2024-03-05T10:00:00Z"),
            ),
            ("Tue, 5 Mar 2024 10:00:00 GMT", utc("2024-03-05T10:00:00Z")),
            // A wrong weekday (it was a Tuesday).
            (
                "Mon, 05 Mar 2024 10:00:00 +0000",
                utc("2024-03-05T10:00:00Z"),
            ),
            ("05 Mar 2024 10:00:00 -0500", utc("2024-03-05T15:00:00Z")),
            ("Tue, 05 March 2024 10:00 EST", utc("2024-03-05T15:00:00Z")),
            (
                "Tue, 05 Sept 2023 10:00:00 PDT",
                utc("2023-09-05T17:00:00Z"),
            ),
            ("Tue,05 Mar 24 10:00:00 +01:00", utc("2024-03-05T09:00:00Z")),
            (
                "Tuesday, 5 Mar 2024 10:00:00 +0000",
                utc("2024-03-05T10:00:00Z"),
            ),
            ("Mar 5, 2024 10:00:00 +0000", utc("2024-03-05T10:00:00Z")),
            ("5 Mar 2024", utc("2024-03-05T00:00:00Z")),
            (
                "Tue, 05 Mar 2024 10:00:00.000Z",
                utc("2024-03-05T10:00:00Z"),
            ),
            ("2024-03-05T10:00:00+02:00", utc("2024-03-05T08:00:00Z")),
            ("2024-03-05T10:00:00Z", utc("2024-03-05T10:00:00Z")),
            ("", None),
            ("yesterday", None),
            ("31 Feb 2024 10:00:00 +0000", None),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_date(text), expected, "{text:?}");
        }
    }
}
