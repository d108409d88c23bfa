//! Show notes and descriptions on a page: user HTML cleaned by the policy the feed shares
//! (`publish/notes.rs`), plain text turned into paragraphs, and short plain-text excerpts for
//! lists and `<meta name="description">`.

use std::cell::{Cell, RefCell};

use html5ever::{
    tendril::StrTendril,
    tokenizer::{
        BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
    },
};
use maud::{Markup, PreEscaped, html};

pub(crate) use crate::publish::notes::LINK_REL;
use crate::publish::notes::{INLINE, Medium, clean, is_html};

/// Paragraphs are taken for an excerpt until they hold this many characters.
const LEAD: usize = 60;

/// User HTML (or plain text) as safe markup: HTML is cleaned with the shared policy, links
/// getting `rel="`[`LINK_REL`]`"`; text without markup becomes paragraphs, a blank line between
/// two, a line break kept as `<br>`.
pub(super) fn rich_text(text: &str) -> Markup {
    if is_html(text) {
        return PreEscaped(clean(text, Medium::Page));
    }
    let normalized = text.replace("\r\n", "\n");
    html! {
        @for paragraph in normalized.split("\n\n").map(str::trim).filter(|p| !p.is_empty()) {
            p {
                @for (i, line) in paragraph.lines().enumerate() {
                    @if i > 0 { br; }
                    (line)
                }
            }
        }
    }
}

/// The lead of user HTML (or plain text) on one line: its first paragraph (or the first few,
/// while they are shorter than [`LEAD`] characters), cut at a word boundary to at most `max`
/// characters with an ellipsis. For episode lists and page descriptions.
pub(super) fn excerpt(text: &str, max: usize) -> String {
    let plain = plain_text(&clean(text, Medium::Page));
    if plain.chars().count() <= max {
        return plain;
    }
    let cut: String = plain.chars().take(max).collect();
    let cut = match cut.rfind(' ') {
        Some(space) if space > max / 2 => &cut[..space],
        _ => cut.as_str(),
    };
    format!("{}…", cut.trim_end_matches([' ', ',', ';', ':', '.', '-']))
}

/// The text of sanitized HTML up to the end of the block that completes the lead: entities
/// decoded, block ends and line breaks as spaces, whitespace collapsed.
fn plain_text(html: &str) -> String {
    let sink = TextSink::default();
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    let tokenizer = Tokenizer::new(sink, TokenizerOpts::default());
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    let text = tokenizer.sink.text.into_inner();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Collects the characters of a token stream until the lead is complete.
#[derive(Default)]
struct TextSink {
    text: RefCell<String>,
    done: Cell<bool>,
}

impl TokenSink for TextSink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        if self.done.get() {
            return TokenSinkResult::Continue;
        }
        match token {
            Token::CharacterTokens(chars) => self.text.borrow_mut().push_str(&chars),
            // Words on both sides of a tag stay apart where the tag is a break or starts or
            // ends a block (text left by a removed heading runs into the list after it);
            // inline tags (<b>, <a>) join what they surround.
            Token::TagToken(tag) if !INLINE.contains(&&*tag.name) => {
                let mut text = self.text.borrow_mut();
                let lead: usize = text.split_whitespace().map(|w| w.chars().count() + 1).sum();
                self.done.set(tag.kind == TagKind::EndTag && lead > LEAD);
                text.push(' ');
            }
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean(html: &str) -> String {
        rich_text(html).into_string()
    }

    #[test]
    fn scripts_styles_frames_and_handlers_are_removed() {
        let out = clean(
            "<p onclick=\"steal()\">Hi <script>alert(1)</script><style>p{}</style>\
             <iframe src=\"https://evil.example\">x</iframe><img src=x onerror=alert(2)></p>",
        );
        assert_eq!(out, "<p>Hi </p>");
    }

    #[test]
    fn links_keep_safe_schemes_and_get_a_rel() {
        let out = clean(
            "<a href=\"https://example.com/a?b=1&amp;c=2\">ok</a> \
             <a href=\"javascript:alert(1)\">js</a> <a href=\"JaVaScRiPt:alert(1)\">js2</a> \
             <a href=\"data:text/html,x\">data</a> <a href=\"/relative\">rel</a> \
             <a href=\"mailto:me@example.com\">mail</a>",
        );
        assert!(out.contains(
            "<a href=\"https://example.com/a?b=1&amp;c=2\" rel=\"noopener nofollow ugc\">ok</a>"
        ));
        assert!(!out.to_lowercase().contains("javascript"), "{out}");
        assert!(!out.contains("data:"), "{out}");
        assert!(!out.contains("/relative"), "{out}");
        assert!(out.contains("href=\"mailto:me@example.com\""), "{out}");
    }

    #[test]
    fn formatting_stays_and_headings_leave_their_text() {
        let out = clean("<h1>Big</h1><h3>Topics</h3><ul><li><strong>one</strong></li></ul>");
        assert_eq!(out, "BigTopics<ul><li><strong>one</strong></li></ul>");
    }

    #[test]
    fn plain_text_becomes_paragraphs_and_is_escaped() {
        assert_eq!(
            clean("First line\nsecond line\n\nNew paragraph & more"),
            "<p>First line<br>second line</p><p>New paragraph &amp; more</p>"
        );
    }

    #[test]
    fn excerpts_are_plain_text_cut_at_a_word() {
        assert_eq!(
            excerpt(
                "<p>Tom &amp; Jerry</p><p>talk <b>shop</b>.<script>x</script></p>",
                100
            ),
            "Tom & Jerry talk shop."
        );
        assert_eq!(excerpt("one two three four five six", 15), "one two three…");
        assert_eq!(
            excerpt(
                "<p>Alice visits Bob's shed workshop, where every tool hangs on the wall.</p>\
                 <h3>In this episode</h3><ul><li>Vices</li></ul>",
                200
            ),
            "Alice visits Bob's shed workshop, where every tool hangs on the wall.",
            "the first paragraph when it says enough"
        );
        assert_eq!(
            excerpt(
                "<p>Short.</p><h3>In this episode</h3><ul><li>Vices</li><li>Saws</li></ul>",
                200
            ),
            "Short. In this episode Vices Saws",
            "a removed heading's text stays apart from the list"
        );
    }
}
