//! Reading the summary of ffmpeg's `ebur128` filter (its stderr): shared by the mastering test
//! and the analysis and mastering benches (included with `#[path]`), so all compare with ffmpeg
//! the same way.

/// What the summary says, in LUFS, LU, dBTP and dBFS; `None` for what it does not print
/// (`peak=true` prints no sample peak).
#[derive(Clone, Copy, Debug, Default)]
#[allow(dead_code)] // each includer reads what it compares
pub struct Ebur128Summary {
    /// `Integrated loudness: I:`.
    pub integrated: Option<f64>,
    /// `Loudness range: LRA:`.
    pub range: Option<f64>,
    /// `True peak: Peak:`.
    pub true_peak: Option<f64>,
    /// `Sample peak: Peak:`.
    pub sample_peak: Option<f64>,
}

/// The last summary in an ffmpeg log.
pub fn parse_ebur128(log: &str) -> Ebur128Summary {
    let summary = &log[log.rfind("Summary:").unwrap_or(0)..];
    let after = |section: &str, key: &str| -> Option<f64> {
        let rest = &summary[summary.find(section)? + section.len()..];
        let line = rest.lines().find(|l| l.trim_start().starts_with(key))?;
        line.trim_start()[key.len()..]
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    };
    Ebur128Summary {
        integrated: after("Integrated loudness:", "I:"),
        range: after("Loudness range:", "LRA:"),
        true_peak: after("True peak:", "Peak:"),
        sample_peak: after("Sample peak:", "Peak:"),
    }
}
