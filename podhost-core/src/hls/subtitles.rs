//! WebVTT subtitles of a stream, made from the episode's transcript (WebVTT, SubRip or
//! Podcasting 2.0 JSON): its cues, cut into segments on the stream's grid (each segment the
//! cues that show during it), and their media playlist.

use std::fmt::Write;

use super::package::names;
use super::splice::{self, Insert, Run};
use crate::stitch::transcript::{Timed, timestamp, write as clock};

/// The rendition's name in URIs.
pub const TRACK: &str = "subtitles";

/// One cue: when it shows, and its WebVTT text.
#[derive(Clone, Debug, PartialEq)]
pub struct Cue {
    /// Milliseconds from the start.
    pub start_ms: u64,
    /// Milliseconds from the start.
    pub end_ms: u64,
    /// Its text, as WebVTT carries it.
    pub text: String,
}

/// Whether a transcript of MIME type `mime` has times (WebVTT, SubRip, Podcasting 2.0 JSON).
pub fn cues_possible(mime: &str) -> bool {
    Timed::of(mime).is_some()
}

/// The cues of a transcript of MIME type `mime`; `None` for a format without times or a file
/// that cannot be read.
pub fn cues(mime: &str, bytes: &[u8]) -> Option<Vec<Cue>> {
    let cues = match Timed::of(mime)? {
        Timed::WebVtt => blocks(std::str::from_utf8(bytes).ok()?, false),
        Timed::SubRip => blocks(std::str::from_utf8(bytes).ok()?, true),
        Timed::Json => json(bytes)?,
    };
    (!cues.is_empty()).then_some(cues)
}

/// The cue blocks of a WebVTT or SubRip text: a timing line, then the text up to a blank line.
/// SubRip's text is escaped for WebVTT; WebVTT's is kept.
fn blocks(text: &str, escape_text: bool) -> Vec<Cue> {
    let mut out = Vec::new();
    let mut lines = text.lines().map(|l| l.trim_end_matches('\r')).peekable();
    while let Some(line) = lines.next() {
        let Some((start, rest)) = line.split_once("-->") else {
            continue;
        };
        let end = rest.split_whitespace().next().unwrap_or("");
        let (Some(start_ms), Some(end_ms)) = (timestamp(start.trim()), timestamp(end)) else {
            continue;
        };
        let mut body = Vec::new();
        while let Some(next) = lines.peek() {
            if next.trim().is_empty() {
                break;
            }
            body.push(if escape_text {
                escape(next)
            } else {
                next.to_string()
            });
            lines.next();
        }
        if end_ms > start_ms && !body.is_empty() {
            out.push(Cue {
                start_ms,
                end_ms,
                text: body.join("\n"),
            });
        }
    }
    out
}

/// The segments of a Podcasting 2.0 JSON transcript (`startTime`, `endTime`, `body`, and the
/// `speaker` as a voice).
fn json(bytes: &[u8]) -> Option<Vec<Cue>> {
    let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let segments = value.get("segments")?.as_array()?;
    let ms = |v: Option<&serde_json::Value>| {
        v.and_then(serde_json::Value::as_f64)
            .filter(|t| *t >= 0.0)
            .map(|t| (t * 1000.0).round() as u64)
    };
    Some(
        segments
            .iter()
            .filter_map(|s| {
                let (start_ms, end_ms) = (ms(s.get("startTime"))?, ms(s.get("endTime"))?);
                let body = s.get("body")?.as_str()?.trim();
                if end_ms <= start_ms || body.is_empty() {
                    return None;
                }
                let text = match s.get("speaker").and_then(|v| v.as_str()) {
                    Some(speaker) if !speaker.trim().is_empty() => {
                        format!("<v {}>{}", escape(speaker.trim()), escape(body))
                    }
                    _ => escape(body),
                };
                Some(Cue {
                    start_ms,
                    end_ms,
                    text,
                })
            })
            .collect(),
    )
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace("-->", "--&gt;")
}

/// The stream's subtitle segments: `seconds` cut every `every` seconds.
pub fn grid(seconds: f64, every: u32) -> Vec<f64> {
    let every = f64::from(every.max(1));
    let mut out = Vec::new();
    let mut at = 0.0;
    while at < seconds {
        out.push((seconds - at).min(every));
        at += every;
    }
    out
}

/// Subtitle segment `n` of the grid of `every` seconds: the cues showing during it, as a WebVTT
/// file whose times are the stream's.
pub fn segment(cues: &[Cue], n: usize, every: u32) -> String {
    let from = n as u64 * u64::from(every) * 1000;
    let to = from + u64::from(every) * 1000;
    let mut out = String::from(EMPTY_SEGMENT);
    for cue in cues.iter().filter(|c| c.start_ms < to && c.end_ms > from) {
        let _ = write!(
            out,
            "\n{} --> {}\n{}\n",
            clock(cue.start_ms, '.'),
            clock(cue.end_ms, '.'),
            cue.text
        );
    }
    out
}

/// The subtitles' media playlist: the grid's segments (`{n:05}.vtt`), with `inserts` spliced
/// in as the other renditions have them (each ad's span as empty segments of its audio's
/// durations, between two `EXT-X-DISCONTINUITY`s). Cue times stay the episode's: a player maps
/// them through the same discontinuities as the episode's own segments.
pub fn playlist(durations: &[f64], target: u32, inserts: &[Insert]) -> String {
    let target = inserts
        .iter()
        .map(|i| i.package.target_duration)
        .fold(target, u32::max);
    let mut out = format!(
        "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:{target}\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n"
    );
    for (i, run) in splice::runs(durations, inserts).into_iter().enumerate() {
        if i > 0 {
            out.push_str("#EXT-X-DISCONTINUITY\n");
        }
        match run {
            Run::Own(range) => {
                for n in range {
                    let _ = writeln!(out, "#EXTINF:{:.6},\n{}", durations[n], file_name(n));
                }
            }
            Run::Ad(insert) => {
                for (n, d) in ad_durations(insert).iter().enumerate() {
                    let name = names::ad_file(&insert.name, &file_name(n));
                    let _ = writeln!(out, "#EXTINF:{d:.6},\n{name}");
                }
            }
        }
    }
    out.push_str("#EXT-X-ENDLIST\n");
    out
}

/// The subtitle segments of an ad's span: its audio rendition's segments (else its top video
/// rendition's).
pub fn ad_durations(insert: &Insert) -> Vec<f64> {
    let package = &insert.package;
    package
        .audio
        .as_ref()
        .or(package.top())
        .map(|t| t.segments.iter().map(|s| s.duration).collect())
        .unwrap_or_default()
}

/// A subtitle segment of an ad: no cue.
pub const EMPTY_SEGMENT: &str = "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n";

/// Subtitle segment `n`'s file name.
pub fn file_name(n: usize) -> String {
    format!("{n:05}.vtt")
}

/// The number of a subtitle segment's file name.
pub fn file_number(name: &str) -> Option<usize> {
    super::package::names::numbered(name, ".vtt")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_timed_format_gives_its_cues() {
        let vtt = "WEBVTT\n\nNOTE a note\n\n1\n00:00:01.000 --> 00:00:04.500 align:start\nHello <b>there</b>\n\n00:07.000 --> 00:08.000\nLater\n";
        let srt = "1\r\n00:00:01,000 --> 00:00:04,500\r\nHello & <there>\r\n\r\n2\r\n00:00:07,000 --> 00:00:08,000\r\nLater\r\n";
        let json = r#"{"version":"1.0","segments":[{"speaker":"Ana","startTime":1,"endTime":4.5,"body":"Hello"},{"startTime":7,"endTime":8,"body":"Later"}]}"#;
        let cases: [(&str, &str, &str); 3] = [
            ("text/vtt", vtt, "Hello <b>there</b>"),
            ("application/x-subrip", srt, "Hello &amp; &lt;there&gt;"),
            ("application/json", json, "<v Ana>Hello"),
        ];
        for (mime, text, first) in cases {
            let got = cues(mime, text.as_bytes()).unwrap();
            assert_eq!(got.len(), 2, "{mime}");
            assert_eq!((got[0].start_ms, got[0].end_ms), (1000, 4500), "{mime}");
            assert_eq!(got[0].text, first, "{mime}");
            assert_eq!((got[1].start_ms, got[1].end_ms), (7000, 8000), "{mime}");
        }
        assert_eq!(cues("text/html", b"<p>hi</p>"), None);
        assert_eq!(cues("text/vtt", b"WEBVTT\n"), None);
    }

    #[test]
    fn a_segment_holds_the_cues_showing_during_it() {
        let cues = cues("text/vtt", b"WEBVTT\n\n00:00:01.000 --> 00:00:07.000\nAcross\n\n00:00:08.000 --> 00:00:09.000\nSecond\n").unwrap();
        let first = segment(&cues, 0, 6);
        assert!(first.starts_with("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n"));
        assert!(first.contains("00:00:01.000 --> 00:00:07.000\nAcross\n"));
        assert!(!first.contains("Second"));
        let second = segment(&cues, 1, 6);
        assert!(
            second.contains("Across") && second.contains("00:00:08.000 --> 00:00:09.000\nSecond\n")
        );
        assert_eq!(grid(14.0, 6), [6.0, 6.0, 2.0]);
        assert_eq!(file_number(&file_name(12)), Some(12));
    }
}
