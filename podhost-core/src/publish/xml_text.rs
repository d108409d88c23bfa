//! Text that XML 1.0 can carry: no control characters other than tab and line breaks, no
//! non-characters. Everything podhost writes into a feed goes through here.

use std::borrow::Cow;

fn allowed(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}

/// `text` without the characters XML 1.0 cannot carry.
pub(crate) fn clean(text: &str) -> Cow<'_, str> {
    if text.chars().all(allowed) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.chars().filter(|c| allowed(*c)).collect())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn control_characters_go_and_everything_else_stays() {
        assert_eq!(super::clean("a\u{0}b\u{1b}c\td\ne"), "abc\td\ne");
        assert_eq!(super::clean("emoji 🎙 and עברית"), "emoji 🎙 and עברית");
        assert_eq!(super::clean("x\u{FFFE}y"), "xy");
    }
}
