//! Plain-text detection: UTF-8 text, with WebVTT, SubRip and JSON recognised (transcripts and
//! chapters).

use super::extension::extension_of;

/// What a text file was recognised as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TextType {
    /// MIME type.
    pub mime: String,
    /// Canonical extension.
    pub extension: String,
    /// Human label.
    pub label: String,
}

/// Recognises `head` (the first bytes of a file, possibly cut mid-character) as text.
pub(crate) fn detect(head: &[u8], file_name: &str) -> Option<TextType> {
    let body = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let text = match std::str::from_utf8(body) {
        Ok(t) => t,
        // Accept a multi-byte character cut off at the end of the head.
        Err(e) if e.error_len().is_none() && body.len() - e.valid_up_to() < 4 => {
            std::str::from_utf8(body.get(..e.valid_up_to())?).ok()?
        }
        Err(_) => return None,
    };
    let printable = |c: char| !c.is_control() || matches!(c, '\t' | '\n' | '\r' | '\x0c');
    if text.trim().is_empty() || !text.chars().all(printable) {
        return None;
    }
    let trimmed = text.trim_start();
    let make = |mime: &str, extension: &str, label: &str| {
        Some(TextType {
            mime: mime.to_owned(),
            extension: extension.to_owned(),
            label: label.to_owned(),
        })
    };
    if trimmed.starts_with("WEBVTT") {
        return make("text/vtt", "vtt", "WebVTT subtitles");
    }
    if is_subrip(trimmed) {
        return make("application/x-subrip", "srt", "SubRip subtitles");
    }
    if (trimmed.starts_with('{') || trimmed.starts_with('[')) && looks_like_json(trimmed) {
        return make("application/json", "json", "JSON text");
    }
    let label = if text.is_ascii() {
        "ASCII text"
    } else {
        "UTF-8 text"
    };
    // Plain text has many conventional extensions (.txt, .md, .csv, ...): keep the given one.
    let ext = extension_of(file_name);
    let ext = if ext.is_empty() {
        "txt".to_owned()
    } else {
        ext
    };
    make("text/plain", &ext, label)
}

fn is_subrip(text: &str) -> bool {
    let mut lines = text.lines();
    let index_ok = lines
        .next()
        .is_some_and(|l| !l.trim().is_empty() && l.trim().chars().all(|c| c.is_ascii_digit()));
    let timing_ok = lines
        .next()
        .is_some_and(|l| l.contains("-->") && l.contains(':') && l.contains(','));
    index_ok && timing_ok
}

fn looks_like_json(text: &str) -> bool {
    // Cheap structural check: the next significant character after the opener is plausible.
    let mut chars = text.chars().filter(|c| !c.is_whitespace());
    let _opener = chars.next();
    matches!(
        chars.next(),
        Some('"' | '{' | '[' | ']' | '}' | '-' | '0'..='9' | 't' | 'f' | 'n')
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(
            detect(b"WEBVTT\n\n00:00.000 --> 00:01.000\nHi", "t")
                .unwrap()
                .extension,
            "vtt"
        );
        assert_eq!(
            detect(b"1\n00:00:00,000 --> 00:00:01,000\nHi\n", "t")
                .unwrap()
                .mime,
            "application/x-subrip"
        );
        assert_eq!(
            detect(b"{\"chapters\": []}", "c").unwrap().mime,
            "application/json"
        );
        let t = detect("caf\u{e9}\n".as_bytes(), "notes.MD").unwrap();
        assert_eq!(
            (t.mime.as_str(), t.extension.as_str()),
            ("text/plain", "md")
        );
        assert_eq!(detect(b"hello", "x").unwrap().extension, "txt");
        assert!(detect(b"\x00\x01binary", "x").is_none());
        assert!(detect(b"   ", "x").is_none());
        // A character cut at the end of the head is fine.
        assert!(detect(&"é".as_bytes()[..1], "x").is_none());
        assert!(detect(b"ok \xC3", "x").is_some());
    }
}
