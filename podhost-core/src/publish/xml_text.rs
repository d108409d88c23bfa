//! Text that XML 1.0 can carry: no control characters other than tab and line breaks, no
//! non-characters. Everything podhost writes into a feed goes through here.
//!
//! The core refuses control characters on input, so for what it accepted this only matters to
//! element text: line breaks become `\n` (what every XML parser makes of them anyway, CDATA
//! included) and leading and trailing white space goes (Apple Podcasts asks for values without
//! it; most parsers trim it).

use std::borrow::Cow;

/// XML 1.0's `Char`, without what section 2.2 discourages: the C1 controls and DEL.
fn allowed(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{7E}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}

/// `text` without the characters XML 1.0 cannot carry (or discourages).
pub(crate) fn clean(text: &str) -> Cow<'_, str> {
    if text.chars().all(allowed) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.chars().filter(|c| allowed(*c)).collect())
    }
}

/// An element's text: [`clean`], line breaks as `\n`, no leading or trailing white space.
pub(crate) fn clean_value(text: &str) -> Cow<'_, str> {
    let cleaned = clean(text);
    if !cleaned.contains('\r') && cleaned.trim() == cleaned {
        return cleaned;
    }
    Cow::Owned(
        cleaned
            .replace("\r\n", "\n")
            .replace('\r', "\n")
            .trim()
            .to_string(),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn control_characters_go_and_everything_else_stays() {
        assert_eq!(super::clean("a\u{0}b\u{1b}c\td\ne"), "abc\td\ne");
        assert_eq!(
            super::clean("del\u{7f} c1\u{85}\u{9f} nbsp\u{a0}"),
            "del c1 nbsp\u{a0}"
        );
        assert_eq!(super::clean("emoji 🎙 and עברית"), "emoji 🎙 and עברית");
        assert_eq!(super::clean("x\u{FFFE}y\u{FFFF}"), "xy");
        assert_eq!(super::clean(" keeps\r\nlines "), " keeps\r\nlines ");
    }

    #[test]
    fn values_lose_outer_white_space_and_carriage_returns() {
        let cases = [
            ("plain", "plain"),
            ("  padded \t\n", "padded"),
            ("a\r\nb\rc\nd", "a\nb\nc\nd"),
            ("\u{1b} \u{0}x\u{7f} ", "x"),
            ("\r\n", ""),
        ];
        for (input, expected) in cases {
            assert_eq!(super::clean_value(input), expected, "{input:?}");
        }
    }
}
