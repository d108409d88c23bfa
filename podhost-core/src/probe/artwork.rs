//! Apple Podcasts' artwork rule: square, 1400 to 3000 pixels a side. Checked for uploaded
//! images (their `info` says what breaks it) and for covers embedded in audio files.

/// A picture's size and what of Apple's artwork rule it breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArtworkCheck {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// What breaks the rule, in words; empty when it is met.
    pub problems: Vec<String>,
}

/// The smallest side Apple Podcasts accepts.
pub const MIN_SIDE: u32 = 1400;
/// The largest side Apple Podcasts accepts.
pub const MAX_SIDE: u32 = 3000;

impl ArtworkCheck {
    /// Checks a picture's size.
    pub fn of(width: u32, height: u32) -> Self {
        let mut problems = Vec::new();
        if width != height {
            problems.push("not square".to_string());
        }
        if width.min(height) < MIN_SIDE {
            problems.push(format!("smaller than {MIN_SIDE} x {MIN_SIDE}"));
        } else if width.max(height) > MAX_SIDE {
            problems.push(format!("larger than {MAX_SIDE} x {MAX_SIDE}"));
        }
        ArtworkCheck {
            width,
            height,
            problems,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ArtworkCheck;

    #[test]
    fn apples_rule() {
        let cases: [(u32, u32, &[&str]); 6] = [
            (1400, 1400, &[]),
            (3000, 3000, &[]),
            (1399, 1399, &["smaller than 1400 x 1400"]),
            (3001, 3001, &["larger than 3000 x 3000"]),
            (1600, 1400, &["not square"]),
            (600, 400, &["not square", "smaller than 1400 x 1400"]),
        ];
        for (w, h, problems) in cases {
            assert_eq!(ArtworkCheck::of(w, h).problems, problems, "{w} x {h}");
        }
    }
}
