//! Reading `ffmpeg -af silencedetect` logs: shared by the analysis tests and the analysis bench
//! (included with `#[path]`), so both compare with ffmpeg the same way.

/// The `(start, end)` intervals of a silencedetect log, in seconds.
pub fn parse_silencedetect(log: &str) -> Vec<(f64, f64)> {
    let value = |line: &str, key: &str| -> Option<f64> {
        let rest = &line[line.find(key)? + key.len()..];
        rest.split_whitespace().next()?.parse().ok()
    };
    let mut out = Vec::new();
    let mut start = None;
    for line in log.lines() {
        if let Some(s) = value(line, "silence_start: ") {
            start = Some(s);
        } else if let Some(e) = value(line, "silence_end: ") {
            out.push((start.take().expect("an end after a start"), e));
        }
    }
    out
}
