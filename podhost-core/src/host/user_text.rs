//! Checks and clean-ups of user text shared by the operations: the limits live here, once.
//! The limits on text are Apple Podcasts' limits on feed values ("A Podcaster's Guide to RSS"):
//! what the core accepts, every app accepts whole, so the feed never cuts anything.

use crate::error::FieldErrors;

/// Longest single-line field (titles, names, authors), in characters: Apple Podcasts limits
/// tag values to 255 characters unless it says otherwise.
pub(crate) const MAX_LINE_CHARS: usize = 255;
/// Longest multi-line field (descriptions, show notes, summaries), in bytes of UTF-8: Apple
/// Podcasts' limit on a show's and an episode's `<description>`.
pub(crate) const MAX_TEXT_BYTES: usize = 4_000;
/// Longest file name, in bytes.
pub(crate) const MAX_FILE_NAME_BYTES: usize = 255;

/// Characters a feed cannot carry: XML 1.0 forbids the C0 controls (but for tab and line
/// breaks) and U+FFFE and U+FFFF, and discourages DEL and the C1 controls.
fn unwritable(c: char) -> bool {
    c.is_control() || matches!(c, '\u{FFFE}' | '\u{FFFF}')
}

/// A single-line field: no control characters, at most [`MAX_LINE_CHARS`].
pub(crate) fn check_line(errors: &mut FieldErrors, field: &str, value: &str) {
    let chars = value.chars().count();
    if chars > MAX_LINE_CHARS {
        errors.add(
            field,
            format!(
                "at most {MAX_LINE_CHARS} characters (Apple Podcasts' limit); this has {chars}"
            ),
        );
    }
    if value.chars().any(unwritable) {
        errors.add(
            field,
            "no control characters (line breaks, tabs, ...) and no U+FFFE or U+FFFF",
        );
    }
}

/// A multi-line field: at most [`MAX_TEXT_BYTES`], line breaks and tabs allowed, other control
/// characters not.
pub(crate) fn check_text(errors: &mut FieldErrors, field: &str, value: &str) {
    if value.len() > MAX_TEXT_BYTES {
        errors.add(
            field,
            format!(
                "at most {MAX_TEXT_BYTES} bytes of UTF-8 (Apple Podcasts' limit); this has {}",
                value.len()
            ),
        );
    }
    if value
        .chars()
        .any(|c| unwritable(c) && !matches!(c, '\n' | '\r' | '\t'))
    {
        errors.add(
            field,
            "no control characters other than line breaks and tabs, and no U+FFFE or U+FFFF",
        );
    }
}

/// An optional web address: empty, or `http(s)://` and a host.
pub(crate) fn check_url(errors: &mut FieldErrors, field: &str, value: &str) {
    if value.is_empty() {
        return;
    }
    let rest = value
        .strip_prefix("https://")
        .or_else(|| value.strip_prefix("http://"));
    let ok = matches!(rest, Some(r) if !r.is_empty() && !r.starts_with('/'))
        && !value.chars().any(|c| c.is_whitespace() || c.is_control())
        && value.len() <= 2_000;
    if !ok {
        errors.add(field, "a web address starting with http:// or https://");
    }
}

/// An optional email address.
pub(crate) fn check_email(errors: &mut FieldErrors, field: &str, value: &str) {
    if value.is_empty() {
        return;
    }
    let ok = matches!(value.split_once('@'), Some((user, host)) if !user.is_empty() && host.contains('.') && !host.starts_with('.') && !host.ends_with('.'))
        && !value.chars().any(|c| c.is_whitespace() || c.is_control())
        && value.len() <= 254;
    if !ok {
        errors.add(field, "an email address like name@example.com");
    }
}

/// Cleans a client's file name: the last path component, no control characters, trimmed,
/// at most [`MAX_FILE_NAME_BYTES`] bytes; `file` when nothing is left.
pub(crate) fn clean_file_name(name: &str) -> String {
    let last = name.rsplit(['/', '\\']).next().unwrap_or("");
    let cleaned: String = last.chars().filter(|c| !c.is_control()).collect();
    let mut cleaned = cleaned.trim().trim_start_matches('.').trim().to_string();
    if cleaned.len() > MAX_FILE_NAME_BYTES {
        let (stem, ext) = split_extension(&cleaned);
        let ext = if ext.len() <= 16 { ext } else { "" };
        let mut cut = MAX_FILE_NAME_BYTES.saturating_sub(ext.len() + 1);
        while !stem.is_char_boundary(cut.min(stem.len())) {
            cut -= 1;
        }
        let stem = &stem[..cut.min(stem.len())];
        cleaned = if ext.is_empty() {
            stem.to_string()
        } else {
            format!("{stem}.{ext}")
        };
    }
    if cleaned.is_empty() {
        "file".to_string()
    } else {
        cleaned
    }
}

/// `episode.mp3` -> (`episode`, `mp3`); no extension -> (name, "").
pub(crate) fn split_extension(name: &str) -> (&str, &str) {
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && !ext.is_empty() && !ext.contains(' ') => {
            (stem, ext)
        }
        _ => (name, ""),
    }
}

/// The first of `name`, `stem (2).ext`, `stem (3).ext`, ... that `taken` does not hold.
pub(crate) fn unique_name(name: &str, taken: impl Fn(&str) -> bool) -> String {
    if !taken(name) {
        return name.to_string();
    }
    let (stem, ext) = split_extension(name);
    (2u64..)
        .map(|n| {
            if ext.is_empty() {
                format!("{stem} ({n})")
            } else {
                format!("{stem} ({n}).{ext}")
            }
        })
        .find(|candidate| !taken(candidate))
        .unwrap_or_else(|| name.to_string())
}

/// An episode's guid: not empty, one line.
pub(super) fn check_guid(errors: &mut FieldErrors, guid: &str) {
    if guid.trim().is_empty() {
        errors.add("guid", "a guid may not be empty");
    }
    check_line(errors, "guid", guid);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_cleaned() {
        let cases = [
            ("episode.mp3", "episode.mp3"),
            ("../../etc/passwd", "passwd"),
            ("C:\\Users\\me\\talk.wav", "talk.wav"),
            ("bad\u{0}name\n.mp3", "badname.mp3"),
            ("  spaced  ", "spaced"),
            ("", "file"),
            ("...", "file"),
            (".hidden", "hidden"),
        ];
        for (input, expected) in cases {
            assert_eq!(clean_file_name(input), expected, "{input:?}");
        }
        let long = format!("{}.mp3", "é".repeat(300));
        let cleaned = clean_file_name(&long);
        assert!(
            cleaned.len() <= MAX_FILE_NAME_BYTES && cleaned.ends_with(".mp3"),
            "{cleaned}"
        );
    }

    #[test]
    fn clashing_names_get_a_number() {
        let taken = ["a.mp3", "a (2).mp3", "noext"];
        let is_taken = |n: &str| taken.contains(&n);
        assert_eq!(unique_name("b.mp3", is_taken), "b.mp3");
        assert_eq!(unique_name("a.mp3", is_taken), "a (3).mp3");
        assert_eq!(unique_name("noext", is_taken), "noext (2)");
    }

    #[test]
    fn limits_are_apples() {
        // (value, single-line field accepted, multi-line field accepted)
        let emoji_4000 = "🎙".repeat(1_000); // 4 bytes each
        let cases = [
            ("x".repeat(255), true, true),
            ("x".repeat(256), false, true),
            ("é".repeat(255), true, true), // 255 characters, 510 bytes
            ("x".repeat(4_000), false, true),
            ("x".repeat(4_001), false, false),
            (emoji_4000.clone(), false, true),
            (format!("{emoji_4000}x"), false, false),
            ("a\nb".to_string(), false, true),
            ("a\u{1b}b".to_string(), false, false),
            ("a\u{7f}b".to_string(), false, false),
            ("a\u{FFFF}b".to_string(), false, false),
        ];
        for (value, line_ok, text_ok) in cases {
            let mut e = FieldErrors::default();
            check_line(&mut e, "line", &value);
            check_text(&mut e, "text", &value);
            let fields = e.fields();
            let case = format!("{} bytes: {fields:?}", value.len());
            assert_eq!(!fields.contains_key("line"), line_ok, "{case}");
            assert_eq!(!fields.contains_key("text"), text_ok, "{case}");
        }
    }

    #[test]
    fn urls_and_emails() {
        let mut e = FieldErrors::default();
        check_url(&mut e, "ok", "https://example.com/x");
        check_url(&mut e, "empty", "");
        check_url(&mut e, "ftp", "ftp://example.com");
        check_url(&mut e, "space", "https://exa mple.com");
        check_email(&mut e, "mail_ok", "a@b.org");
        check_email(&mut e, "mail_bad", "a@b");
        let fields: Vec<_> = e.fields().keys().cloned().collect();
        assert_eq!(fields, ["ftp", "mail_bad", "space"]);
    }
}
