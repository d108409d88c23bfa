//! Running ffmpeg's tools: a command that must succeed, the summary of the `ebur128` filter on
//! a file, and one value ffprobe reads. Shared by the tag and mastering tests and the analysis and mastering benches
//! (included with `#[path]`), so all compare with ffmpeg the same way.

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
#[allow(dead_code)] // each includer reads what it compares
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

/// One value ffprobe reads of a file's first audio stream or its container, as text:
/// `entry` is `stream=channels`, `format=duration` and the like.
#[allow(dead_code)] // each includer reads what it compares
pub fn probe(path: &std::path::Path, entry: &str) -> String {
    let out = std::process::Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-select_streams",
            "a:0",
            "-show_entries",
            entry,
        ])
        .args(["-of", "csv=p=0"])
        .arg(path)
        .output()
        .expect("ffprobe runs");
    assert!(out.status.success(), "ffprobe {}: {entry}", path.display());
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Runs ffmpeg quietly with `args`, overwriting outputs; a failure panics with its message.
#[allow(dead_code)] // each includer reads what it compares
pub fn ffmpeg(args: &[&str]) {
    let out = std::process::Command::new("ffmpeg")
        .args(["-hide_banner", "-v", "error", "-y"])
        .args(args)
        .output()
        .expect("ffmpeg runs");
    assert!(
        out.status.success(),
        "ffmpeg {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// ffmpeg's `ebur128` filter (true and sample peaks) over a whole file.
#[allow(dead_code)] // each includer reads what it compares
pub fn ffmpeg_loudness(path: &std::path::Path) -> Ebur128Summary {
    let out = std::process::Command::new("ffmpeg")
        .args(["-hide_banner", "-nostats", "-i"])
        .arg(path)
        .args(["-af", "ebur128=peak=sample+true", "-f", "null", "-"])
        .output()
        .expect("ffmpeg runs");
    parse_ebur128(&String::from_utf8_lossy(&out.stderr))
}

/// `Ok` when ffmpeg and ffprobe run, else which is missing.
#[allow(dead_code)] // not every includer needs both
pub fn ffmpeg_and_ffprobe() -> Result<(), String> {
    for tool in ["ffmpeg", "ffprobe"] {
        let ok = std::process::Command::new(tool)
            .arg("-version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            return Err(format!("no {tool}"));
        }
    }
    Ok(())
}
