//! The chapters of a stream, in the JSON Apple's players read from a multivariant playlist's
//! `EXT-X-SESSION-DATA` (`DATA-ID="com.apple.hls.chapters"`): each chapter's start and duration
//! in seconds of the listener's stream (moved by their ads) and its title.

use serde_json::json;

use crate::tags::Chapter;

/// The rendition-like folder of the chapters' file in URIs.
pub const TRACK: &str = "chapters";

/// The chapters' file.
pub const FILE: &str = "index.json";

/// The `EXT-X-SESSION-DATA` line naming the chapters (relative to the multivariant playlist).
pub fn session_data() -> String {
    format!("#EXT-X-SESSION-DATA:DATA-ID=\"com.apple.hls.chapters\",URI=\"{TRACK}/{FILE}\"")
}

/// `chapters` (of an episode lasting `total_ms`) as Apple's HLS chapter JSON, in `language`,
/// each moment moved by `moved` (the listener's ads before it). A chapter lasts until its end,
/// else the next one's start, else the episode's end.
pub fn json(
    chapters: &[Chapter],
    language: &str,
    total_ms: u64,
    moved: impl Fn(u64) -> u64,
) -> String {
    let entries: Vec<serde_json::Value> = chapters
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let end = c
                .end_ms
                .or_else(|| chapters.get(i + 1).map(|n| n.start_ms))
                .unwrap_or(total_ms)
                .max(c.start_ms);
            let (start, end) = (moved(c.start_ms), moved(end.saturating_sub(1)) + 1);
            let mut entry = json!({
                "chapter": i + 1,
                "start-time": start as f64 / 1000.0,
                "titles": [{"language": language, "title": c.title}],
            });
            if end > start {
                entry["duration"] = json!((end - start) as f64 / 1000.0);
            }
            entry
        })
        .collect();
    serde_json::Value::Array(entries).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chapter(start_ms: u64, title: &str) -> Chapter {
        Chapter {
            start_ms,
            end_ms: None,
            title: title.into(),
            url: None,
        }
    }

    #[test]
    fn chapters_are_apples_json_moved_by_the_ads_before_them() {
        let chapters = [chapter(0, "Intro"), chapter(8000, "Main")];
        // A 5 s ad before the stream and a 3 s ad at 6 s.
        let moved = |ms: u64| ms + 5000 + if ms >= 6000 { 3000 } else { 0 };
        let text = json(&chapters, "en", 14_000, moved);
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value,
            json!([
                {"chapter": 1, "start-time": 5.0, "duration": 11.0,
                 "titles": [{"language": "en", "title": "Intro"}]},
                {"chapter": 2, "start-time": 16.0, "duration": 6.0,
                 "titles": [{"language": "en", "title": "Main"}]},
            ])
        );
    }
}
