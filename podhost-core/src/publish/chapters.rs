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

#[cfg(test)]
mod tests {
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
