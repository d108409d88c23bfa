//! How a byte count is shown to people: 1024-based units with at most one
//! decimal, `512 B`, `13.4 KB`, `2 MB`. The API's `size_formatted` uses it; the public pages
//! write the same units in the reader's language ([`Locale::size`](crate::Locale::size)).

/// A byte count in 1024-based units with at most one decimal.
pub fn human_size(bytes: u64) -> String {
    let (value, unit) = in_units(bytes);
    let text = format!("{value:.1}");
    let text = text.strip_suffix(".0").unwrap_or(&text);
    format!("{text} {unit}")
}

/// A byte count as a number of the largest 1024-based unit it reaches (bytes below 1 KB).
pub(crate) fn in_units(bytes: u64) -> (f64, &'static str) {
    const UNITS: [&str; 5] = ["KB", "MB", "GB", "TB", "PB"];
    if bytes < 1024 {
        return (bytes as f64, "B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    (value, UNITS[unit])
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes() {
        for (bytes, shown) in [
            (0, "0 B"),
            (512, "512 B"),
            (1023, "1023 B"),
            (1024, "1 KB"),
            (13_722, "13.4 KB"),
            (2 << 20, "2 MB"),
            (2_202_010, "2.1 MB"),
            (3 << 30, "3 GB"),
        ] {
            assert_eq!(super::human_size(bytes), shown);
        }
    }
}
