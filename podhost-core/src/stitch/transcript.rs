//! A transcript moved by the ads of an answer: the cue times of WebVTT and SubRip files and the
//! segment times of Podcasting 2.0 JSON transcripts, each moved as the answer moves the episode's
//! time ([`Stitched::retime`](super::Stitched::retime)); everything else kept byte for byte.

/// A transcript format with times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timed {
    /// WebVTT (`text/vtt`).
    WebVtt,
    /// SubRip (`application/x-subrip`).
    SubRip,
    /// Podcasting 2.0 JSON (`application/json`).
    Json,
}

impl Timed {
    /// The format of MIME type `mime`, when it has times.
    pub fn of(mime: &str) -> Option<Timed> {
        match mime {
            "text/vtt" => Some(Timed::WebVtt),
            "application/x-subrip" => Some(Timed::SubRip),
            "application/json" => Some(Timed::Json),
            _ => None,
        }
    }
}

/// `text` (a transcript of MIME type `mime`) with its times moved by `retime` (milliseconds of
/// the episode, whether it is a start → milliseconds of the answer). `None` for a format without
/// times (HTML, plain text) or that cannot be read: it is served as it is.
pub fn retime_transcript(
    mime: &str,
    text: &[u8],
    retime: impl Fn(u64, bool) -> u64,
) -> Option<Vec<u8>> {
    match Timed::of(mime)? {
        Timed::WebVtt => cues(std::str::from_utf8(text).ok()?, '.', &retime),
        Timed::SubRip => cues(std::str::from_utf8(text).ok()?, ',', &retime),
        Timed::Json => json(text, &retime),
    }
}

/// The cue timing lines (`start --> end [settings]`) of a WebVTT or SubRip file moved; the
/// times written with `separator` before the milliseconds.
fn cues(text: &str, separator: char, retime: &impl Fn(u64, bool) -> u64) -> Option<Vec<u8>> {
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let moved = line.split_once("-->").and_then(|(start, rest)| {
            let start_ms = timestamp(start.trim())?;
            let rest = rest.trim_start();
            let end_len = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let end_ms = timestamp(&rest[..end_len])?;
            let tail = &rest[end_len..];
            Some(format!(
                "{} --> {}{tail}",
                write(retime(start_ms, true), separator),
                write(retime(end_ms, false), separator)
            ))
        });
        out.push_str(moved.as_deref().unwrap_or(line));
    }
    Some(out.into_bytes())
}

/// `HH:MM:SS.mmm`, `MM:SS.mmm` (WebVTT) or `HH:MM:SS,mmm` (SubRip), in milliseconds.
pub(crate) fn timestamp(text: &str) -> Option<u64> {
    let (clock, millis) = text.rsplit_once(['.', ','])?;
    if millis.len() != 3 {
        return None;
    }
    let millis: u64 = millis.parse().ok()?;
    let mut seconds = 0u64;
    let parts: Vec<&str> = clock.split(':').collect();
    if !(2..=3).contains(&parts.len()) {
        return None;
    }
    for part in parts {
        seconds = seconds * 60 + part.parse::<u64>().ok()?;
    }
    Some(seconds * 1000 + millis)
}

pub(crate) fn write(ms: u64, separator: char) -> String {
    let (h, m, s, f) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
    format!("{h:02}:{m:02}:{s:02}{separator}{f:03}")
}

/// A Podcasting 2.0 JSON transcript's `segments[].startTime`/`endTime` (seconds) moved.
fn json(text: &[u8], retime: &impl Fn(u64, bool) -> u64) -> Option<Vec<u8>> {
    let mut value: serde_json::Value = serde_json::from_slice(text).ok()?;
    let segments = value.get_mut("segments")?.as_array_mut()?;
    for segment in segments {
        for (key, start) in [("startTime", true), ("endTime", false)] {
            if let Some(time) = segment.get(key).and_then(serde_json::Value::as_f64)
                && time >= 0.0
            {
                let moved = retime((time * 1000.0).round() as u64, start) as f64 / 1000.0;
                segment[key] = serde_json::json!(moved);
            }
        }
    }
    serde_json::to_vec(&value).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ad of 30 s at 10 s of the episode: a start at the break moves after the ad.
    fn retime(ms: u64, start: bool) -> u64 {
        let reach = if start { ms + 1 } else { ms };
        if reach > 10_000 { ms + 30_000 } else { ms }
    }

    #[test]
    fn cue_times_move_and_the_rest_stays() {
        let vtt = "WEBVTT\n\n1\n00:00:01.000 --> 00:00:04.500 align:start\nHello -- there\n\n00:09.000 --> 00:12.250\nAfter the break\n";
        let got = retime_transcript("text/vtt", vtt.as_bytes(), retime).unwrap();
        assert_eq!(
            String::from_utf8(got).unwrap(),
            "WEBVTT\n\n1\n00:00:01.000 --> 00:00:04.500 align:start\nHello -- there\n\n00:00:09.000 --> 00:00:42.250\nAfter the break\n"
        );
        let srt = "1\r\n00:00:10,000 --> 00:00:11,000\r\nAt the break\r\n";
        let got = retime_transcript("application/x-subrip", srt.as_bytes(), retime).unwrap();
        assert_eq!(
            String::from_utf8(got).unwrap(),
            "1\r\n00:00:40,000 --> 00:00:41,000\r\nAt the break\r\n"
        );
    }

    #[test]
    fn json_segments_move() {
        let json = br#"{"version":"1.0.0","segments":[{"startTime":2.5,"endTime":3.0,"body":"a"},{"startTime":12,"endTime":13.25,"body":"b"}]}"#;
        let got = retime_transcript("application/json", json, retime).unwrap();
        let value: serde_json::Value = serde_json::from_slice(&got).unwrap();
        assert_eq!(value["segments"][0]["startTime"], 2.5);
        assert_eq!(value["segments"][1]["startTime"], 42.0);
        assert_eq!(value["segments"][1]["endTime"], 43.25);
        assert_eq!(value["segments"][1]["body"], "b");
    }

    #[test]
    fn formats_without_times_are_left_alone() {
        assert_eq!(retime_transcript("text/html", b"<p>hi</p>", retime), None);
        assert_eq!(
            retime_transcript("application/json", b"not json", retime),
            None
        );
    }
}
