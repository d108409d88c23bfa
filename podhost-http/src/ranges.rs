//! The `Range` header of a download: one range of bytes, or the whole file (RFC 9110, 14).

use std::ops::Range;

/// What a `Range` header asks of a file of `len` bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ranged {
    /// The whole file (no header, a malformed one, or several ranges: all may be ignored).
    Whole,
    /// These bytes.
    Part(Range<u64>),
    /// Nothing of the file: 416.
    Unsatisfiable,
}

/// Reads a `Range` header for a file of `len` bytes.
pub fn parse(header: Option<&str>, len: u64) -> Ranged {
    let Some(spec) = header.and_then(|h| h.trim().strip_prefix("bytes=")) else {
        return Ranged::Whole;
    };
    if spec.contains(',') {
        return Ranged::Whole;
    }
    let Some((first, last)) = spec.trim().split_once('-') else {
        return Ranged::Whole;
    };
    let number = |s: &str| -> Option<u64> {
        let s = s.trim();
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    match (first.trim().is_empty(), number(first), number(last)) {
        // bytes=-N: the last N bytes.
        (true, _, Some(n)) => {
            if n == 0 || len == 0 {
                Ranged::Unsatisfiable
            } else {
                Ranged::Part(len - n.min(len)..len)
            }
        }
        // bytes=A- and bytes=A-B.
        (false, Some(start), end) if last.trim().is_empty() || end.is_some() => {
            if let Some(end) = end
                && end < start
            {
                return Ranged::Whole;
            }
            if start >= len {
                return Ranged::Unsatisfiable;
            }
            let end = end.map_or(len, |e| e.saturating_add(1).min(len));
            Ranged::Part(start..end)
        }
        _ => Ranged::Whole,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_table() {
        let cases: [(Option<&str>, u64, Ranged); 16] = [
            (None, 1000, Ranged::Whole),
            (Some("bytes=0-1"), 1000, Ranged::Part(0..2)),
            (Some("bytes=100-"), 1000, Ranged::Part(100..1000)),
            (Some("bytes=-500"), 1000, Ranged::Part(500..1000)),
            (Some("bytes=-5000"), 1000, Ranged::Part(0..1000)),
            (Some("bytes=900-2000"), 1000, Ranged::Part(900..1000)),
            (Some("bytes=999-999"), 1000, Ranged::Part(999..1000)),
            (Some("bytes=1000-"), 1000, Ranged::Unsatisfiable),
            (Some("bytes=5000-6000"), 1000, Ranged::Unsatisfiable),
            (Some("bytes=-0"), 1000, Ranged::Unsatisfiable),
            (Some("bytes=0-"), 0, Ranged::Unsatisfiable),
            (Some("bytes=5-1"), 1000, Ranged::Whole),
            (Some("bytes=0-1,5-9"), 1000, Ranged::Whole),
            (Some("items=0-1"), 1000, Ranged::Whole),
            (Some("bytes=abc"), 1000, Ranged::Whole),
            (Some("bytes=-"), 1000, Ranged::Whole),
        ];
        for (header, len, expected) in cases {
            assert_eq!(parse(header, len), expected, "{header:?} of {len}");
        }
    }
}
