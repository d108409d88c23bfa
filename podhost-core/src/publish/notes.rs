//! The one policy for HTML in show notes and descriptions, for the feed and the public pages
//! alike: which tags, attributes and link schemes of a podcaster's HTML reach podcast apps and
//! listeners (ammonia), and the clean function both call.
//!
//! What is kept is the subset podcast apps render (Apple Podcasts documents `p`, `ol`, `ul`,
//! `li` and `a`; the others are the line break and the inline emphasis every app shows): `p`,
//! `br`, `ul`, `ol`, `li`, `a`, `b`, `strong`, `i` and `em`, links only to `http`, `https` and
//! `mailto` URLs, and no attribute but a link's `href`. The content of `script`, `style`,
//! `iframe`, `object`, `embed`, `template`, `noscript`, `svg`, `math`, `select`, `textarea` and
//! `title` goes with the element (a script's code is no show note); any other tag outside the
//! subset goes and leaves its text. Comments go.
//!
//! Text without markup is not HTML and is not cleaned: the feed carries it as it is, and the
//! pages make paragraphs of it (`page/rich_text.rs`). Records are never changed by cleaning: the API
//! returns what was written. The feed's cleaned notes are kept beside each episode in the
//! account's state (derived when the notes change, see `POLICY_VERSION`), so that rendering a
//! feed of 10,000 episodes cleans nothing.

use std::{collections::HashSet, sync::LazyLock};

use super::xml_text::clean_value;

/// The version of the policy below. Show notes cleaned for the feed are kept with the account's
/// state (in snapshots, see `state/parts.rs`) tagged with it: bump it with any change to what
/// cleaning keeps, and notes cleaned with the old policy are cleaned again on load.
pub(crate) const POLICY_VERSION: u32 = 1;

/// Block structure kept: paragraphs, line breaks and lists.
const BLOCK: [&str; 5] = ["p", "br", "ul", "ol", "li"];

/// Inline tags kept: links and emphasis. The words around them belong together (excerpts join
/// them, see `page/rich_text.rs`).
pub(crate) const INLINE: [&str; 5] = ["a", "b", "strong", "i", "em"];

/// Tags removed with everything inside them (the rest keep their text when the tag goes).
const DROPPED_WITH_CONTENT: [&str; 12] = [
    "script", "style", "iframe", "object", "embed", "template", "noscript", "svg", "math",
    "select", "textarea", "title",
];

/// The URL schemes a link may have; relative links go too (they would resolve against whatever
/// app or page shows them).
const SCHEMES: [&str; 3] = ["http", "https", "mailto"];

/// The `rel` of every link in user HTML on a page: no `window.opener`, no endorsement, user
/// content.
pub(crate) const LINK_REL: &str = "noopener nofollow ugc";

/// Where cleaned HTML goes; the policy is the same, only links differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Medium {
    /// The RSS feed: links as written. `rel` speaks to browsers and search engines about a page
    /// we serve; podcast apps show notes in their own views and ignore it, and every byte of a
    /// description counts against Apple's 4,000-byte limit, so the feed stays minimal.
    Feed,
    /// A public web page: links get `rel="`[`LINK_REL`]`"`.
    Page,
}

fn policy(rel: Option<&'static str>) -> ammonia::Builder<'static> {
    let mut builder = ammonia::Builder::empty();
    builder
        .add_tags(BLOCK)
        .add_tags(INLINE)
        .clean_content_tags(HashSet::from(DROPPED_WITH_CONTENT))
        .generic_attributes(HashSet::new())
        .tag_attributes([("a", HashSet::from(["href"]))].into())
        .url_schemes(HashSet::from(SCHEMES))
        .url_relative(ammonia::UrlRelative::Deny)
        .link_rel(rel)
        .strip_comments(true);
    builder
}

static FEED: LazyLock<ammonia::Builder<'static>> = LazyLock::new(|| policy(None));
static PAGE: LazyLock<ammonia::Builder<'static>> = LazyLock::new(|| policy(Some(LINK_REL)));

/// Whether `text` holds markup (a tag, a comment, a doctype) and is HTML to clean, rather than
/// plain text. Character references alone (`Tom &amp; Jerry`) do not make HTML.
pub(crate) fn is_html(text: &str) -> bool {
    ammonia::is_html(text)
}

/// `html` cleaned with the policy, for `medium`.
pub(crate) fn clean(html: &str, medium: Medium) -> String {
    let builder = match medium {
        Medium::Feed => &FEED,
        Medium::Page => &PAGE,
    };
    builder.clean(html).to_string()
}

/// Show notes or a description as the feed carries them: HTML cleaned with the policy of this
/// module, plain text as written; then, like all feed text, without what XML 1.0 cannot carry
/// (character references such as `&#x1b;` decode to such characters), line breaks as `\n`, no
/// outer white space. Empty when nothing is left (the feed then leaves the element out).
pub fn feed_notes(text: &str) -> String {
    let text = clean_value(text);
    if is_html(&text) {
        clean_value(&clean(&text, Medium::Feed)).into_owned()
    } else {
        text.into_owned()
    }
}

/// A comment from the fediverse as the episode's page shows it: its HTML always cleaned by the
/// policy for pages (links with `rel`), text escaped; a comment is never taken as written.
pub fn comment_html(html: &str) -> String {
    clean_value(&clean(&clean_value(html), Medium::Page)).into_owned()
}

/// One-line text (a title) standing in for an HTML field: escaped where it would read as
/// markup, else as written, like plain-text notes.
pub(crate) fn text_as_notes(text: &str) -> String {
    let text = clean_value(text);
    if !is_html(&text) {
        return text.into_owned();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Input, then what the feed carries, then what a page carries where it differs (links).
    const CASES: &[(&str, &str, Option<&str>)] = &[
        ("<script>alert(1)</script>", "", None),
        (
            "<p>Hi<script>alert(1)</script> there</p>",
            "<p>Hi there</p>",
            None,
        ),
        (
            "<iframe src=\"https://evil.example/\">inside</iframe>after",
            "after",
            None,
        ),
        (
            "<object data=x>o</object><embed src=x><svg><a href=\"https://x.example\">s</a></svg>ok",
            "ok",
            None,
        ),
        (
            "<style>p{color:red}</style><noscript>n</noscript><template>t</template>x",
            "x",
            None,
        ),
        ("<img src=x onerror=alert(1)>", "", None),
        (
            "<p>a<img src=\"https://tracker.example/t.gif\">b</p>",
            "<p>ab</p>",
            None,
        ),
        (
            "<a href=\"javascript:alert(1)\">js</a>",
            "<a>js</a>",
            Some("<a rel=\"noopener nofollow ugc\">js</a>"),
        ),
        (
            "<a href=\" JaVaScRiPt:alert(1)\">js</a>",
            "<a>js</a>",
            Some("<a rel=\"noopener nofollow ugc\">js</a>"),
        ),
        (
            "<a href=\"data:text/html,x\">d</a><a href=\"/relative\">r</a>",
            "<a>d</a><a>r</a>",
            Some("<a rel=\"noopener nofollow ugc\">d</a><a rel=\"noopener nofollow ugc\">r</a>"),
        ),
        (
            "<a href=\"http://example.com/a?b=1&amp;c=2\" onclick=\"steal()\" target=\"_blank\" title=\"t\">ok</a>",
            "<a href=\"http://example.com/a?b=1&amp;c=2\">ok</a>",
            Some(
                "<a href=\"http://example.com/a?b=1&amp;c=2\" rel=\"noopener nofollow ugc\">ok</a>",
            ),
        ),
        (
            "<a href=\"https://example.com/\" rel=\"me\">s</a>",
            "<a href=\"https://example.com/\">s</a>",
            Some("<a href=\"https://example.com/\" rel=\"noopener nofollow ugc\">s</a>"),
        ),
        (
            "<a href=\"mailto:x@y.example\">mail</a>",
            "<a href=\"mailto:x@y.example\">mail</a>",
            Some("<a href=\"mailto:x@y.example\" rel=\"noopener nofollow ugc\">mail</a>"),
        ),
        (
            "<p style=\"color:red\" class=\"c\" id=\"i\" lang=\"en\" onmouseover=\"x()\">styled</p>",
            "<p>styled</p>",
            None,
        ),
        (
            "<h1>Big</h1><h3>Topics</h3><p>text</p>",
            "BigTopics<p>text</p>",
            None,
        ),
        (
            "<blockquote>q</blockquote><pre><code>c</code></pre><hr><span>s</span><div>d</div>",
            "qcsd",
            None,
        ),
        (
            "<ul><li>one<ol><li>a</li><li>b</li></ol></li><li>two</li></ul>",
            "<ul><li>one<ol><li>a</li><li>b</li></ol></li><li>two</li></ul>",
            None,
        ),
        (
            "<ol start=\"3\" reversed><li>x</ol>",
            "<ol><li>x</li></ol>",
            None,
        ),
        (
            "<b>b</b> <strong>s</strong> <i>i</i> <em>e</em><br/>next",
            "<b>b</b> <strong>s</strong> <i>i</i> <em>e</em><br>next",
            None,
        ),
        ("<u>u</u><sub>2</sub><mark>m</mark>", "u2m", None),
        (
            "<p>Tom &amp; Jerry &lt;3 &eacute;&#8217;&nbsp;x</p>",
            "<p>Tom &amp; Jerry &lt;3 é’&nbsp;x</p>",
            None,
        ),
        // A reference to a character XML cannot carry: the feed drops it like any such character.
        (
            "<p>&#x1b;x&#xFFFE;</p>",
            "<p>x</p>",
            Some("<p>\u{1b}x\u{FFFE}</p>"),
        ),
        (
            "<p>a & b < c > d \"q\"</p>",
            "<p>a &amp; b &lt; c &gt; d \"q\"</p>",
            None,
        ),
        (
            "<p>CDATA ends ]]> here</p>",
            "<p>CDATA ends ]]&gt; here</p>",
            None,
        ),
        ("<!-- secret --><p>x</p>", "<p>x</p>", None),
        ("<p>unclosed <b>bold", "<p>unclosed <b>bold</b></p>", None),
        (
            "  <script>x</script>\r\n <p>trimmed</p>\n",
            "<p>trimmed</p>",
            None,
        ),
        // Plain text is not HTML: as written (but trimmed), whatever it holds.
        ("Plain text, untouched.", "Plain text, untouched.", None),
        (
            "Tom & Jerry <3 ]]> a < b &amp; \"q\"\nline two",
            "Tom & Jerry <3 ]]> a < b &amp; \"q\"\nline two",
            None,
        ),
        ("  padded\r\n", "padded", None),
    ];

    #[test]
    fn the_policy_keeps_the_subset_apps_render() {
        for (input, feed, page) in CASES {
            assert_eq!(feed_notes(input), *feed, "feed: {input:?}");
            if is_html(input) {
                let page = page.unwrap_or(feed);
                assert_eq!(clean(input, Medium::Page).trim(), page, "page: {input:?}");
            }
        }
    }

    #[test]
    fn nothing_hostile_survives_in_either_medium() {
        for (input, _, _) in CASES {
            for medium in [Medium::Feed, Medium::Page] {
                let out = clean(input, medium).to_lowercase();
                for gone in [
                    "<script",
                    "<iframe",
                    "<img",
                    "<object",
                    "<embed",
                    "<svg",
                    "<style",
                    "onerror",
                    "onclick",
                    "onmouseover",
                    "javascript:",
                    "data:",
                    "style=",
                    "<h1",
                ] {
                    assert!(
                        !out.contains(gone),
                        "{medium:?}: {gone} in {out:?} of {input:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_title_standing_in_is_text() {
        assert_eq!(text_as_notes("Just a title"), "Just a title");
        assert_eq!(text_as_notes("Tom & Jerry"), "Tom & Jerry");
        assert_eq!(
            text_as_notes("Tech & <Talk> <script>x</script>"),
            "Tech &amp; &lt;Talk&gt; &lt;script&gt;x&lt;/script&gt;"
        );
    }
}
