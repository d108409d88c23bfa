//! JSON chapters (Podcasting 2.0, `application/json+chapters`, version 1.2.0): what
//! `podcast:chapters` links to. Times in seconds.

use serde_json::{Value, json};

use crate::tags::Chapter;

/// The MIME type of JSON chapters.
pub const MIME: &str = "application/json+chapters";

/// The JSON chapters document of `chapters`.
pub fn render(chapters: &[Chapter]) -> Vec<u8> {
    let seconds = |ms: u64| ms as f64 / 1000.0;
    let list: Vec<Value> = chapters
        .iter()
        .map(|c| {
            let mut chapter = json!({ "startTime": seconds(c.start_ms), "title": c.title });
            if let Some(end) = c.end_ms {
                chapter["endTime"] = json!(seconds(end));
            }
            if let Some(url) = &c.url {
                chapter["url"] = json!(url);
            }
            chapter
        })
        .collect();
    serde_json::to_vec(&json!({ "version": "1.2.0", "chapters": list })).unwrap_or_default()
}

/// Reads a JSON chapters document (what another host's `podcast:chapters` links to): chapters
/// in start order, `toc: false` ones (not for the table of contents) left out. The error says
/// what is wrong with the document.
pub fn parse(bytes: &[u8]) -> Result<Vec<Chapter>, String> {
    let doc: Value =
        serde_json::from_slice(bytes).map_err(|e| format!("the chapters are not JSON ({e})"))?;
    let list = doc
        .get("chapters")
        .and_then(Value::as_array)
        .ok_or("the chapters document has no \"chapters\" list")?;
    let ms = |v: &Value| -> Option<u64> {
        let seconds = v.as_f64().or_else(|| v.as_str()?.trim().parse().ok())?;
        (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).round() as u64)
    };
    let mut chapters = Vec::new();
    for chapter in list {
        if chapter.get("toc").and_then(Value::as_bool) == Some(false) {
            continue;
        }
        let start_ms = chapter
            .get("startTime")
            .and_then(ms)
            .ok_or("a chapter has no readable startTime")?;
        chapters.push(Chapter {
            start_ms,
            end_ms: chapter.get("endTime").and_then(ms),
            title: chapter
                .get("title")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .trim()
                .to_string(),
            url: chapter
                .get("url")
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|u| !u.is_empty())
                .map(str::to_string),
        });
    }
    chapters.sort_by_key(|c| c.start_ms);
    Ok(chapters)
}

#[cfg(test)]
mod tests {
    #[test]
    fn read_back_as_written() {
        let chapters = vec![
            super::Chapter {
                start_ms: 0,
                end_ms: Some(61_500),
                title: "Intro".into(),
                url: None,
            },
            super::Chapter {
                start_ms: 61_500,
                end_ms: None,
                title: "News".into(),
                url: Some("https://example.com/".into()),
            },
        ];
        assert_eq!(super::parse(&super::render(&chapters)).unwrap(), chapters);
        let hidden = br#"{"version":"1.2.0","chapters":[{"startTime":"5","title":"B"},{"startTime":0,"title":"A"},{"startTime":3,"title":"ad","toc":false}]}"#;
        let read = super::parse(hidden).unwrap();
        assert_eq!(
            read.iter().map(|c| c.title.as_str()).collect::<Vec<_>>(),
            ["A", "B"]
        );
        assert!(super::parse(b"{}").is_err());
        assert!(super::parse(b"[").is_err());
    }

    #[test]
    fn the_podcasting_2_0_form() {
        let chapters = [
            super::Chapter {
                start_ms: 0,
                end_ms: Some(61_500),
                title: "Intro".into(),
                url: None,
            },
            super::Chapter {
                start_ms: 61_500,
                end_ms: None,
                title: "News".into(),
                url: Some("https://example.com/".into()),
            },
        ];
        let doc: serde_json::Value = serde_json::from_slice(&super::render(&chapters)).unwrap();
        assert_eq!(
            doc,
            serde_json::json!({"version": "1.2.0", "chapters": [
                {"startTime": 0.0, "endTime": 61.5, "title": "Intro"},
                {"startTime": 61.5, "title": "News", "url": "https://example.com/"},
            ]})
        );
    }
}
