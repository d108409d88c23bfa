//! The document around every page: `<head>` (title, description, feed discovery, canonical
//! link, social cards, the inline stylesheet), the skip link, and the footer.

use maud::{DOCTYPE, Markup, PreEscaped, html};

use super::style;
use crate::locale::Locale;

/// What the `<head>` of a page says.
pub(super) struct Head<'a> {
    /// The page's language (`<html lang>`): the podcast's, else the page's own words'.
    pub(super) lang: &'a str,
    /// The language of the page's own words (headings, buttons), as the reader chose it.
    pub(super) locale: Locale,
    /// `<title>`.
    pub(super) title: &'a str,
    /// `<meta name="description">`, plain text; none when empty.
    pub(super) description: &'a str,
    /// The page's own public URL (none for a notice).
    pub(super) canonical: Option<&'a str>,
    /// The podcast's RSS feed, announced for feed readers; with the podcast's title.
    pub(super) feed: Option<(&'a str, &'a str)>,
    /// A picture of the podcast or episode (favicon and social card).
    pub(super) image: Option<&'a str>,
    /// `og:type`.
    pub(super) kind: &'a str,
    /// The pages before and after this one in a list paged through (`rel=prev`, `rel=next`).
    pub(super) prev: Option<&'a str>,
    pub(super) next: Option<&'a str>,
    /// The episode's audio, for link previews (`og:audio`): its URL and MIME type.
    pub(super) audio: Option<(&'a str, &'a str)>,
    /// What the page is about, as schema.org JSON-LD ([`linked_data`](super::linked_data)).
    pub(super) linked_data: Option<serde_json::Value>,
    /// The embeddable player of what the page shows (X's player card), and the page's oEmbed
    /// answer (discovery).
    pub(super) player: Option<Player<'a>>,
}

/// An embeddable player, as a page's head announces it.
pub(super) struct Player<'a> {
    /// The player's URL (`/embed/...`).
    pub(super) url: &'a str,
    /// Its size in the `<iframe>` code.
    pub(super) width: u32,
    pub(super) height: u32,
    /// The oEmbed endpoint's URL for the page.
    pub(super) oembed: &'a str,
}

impl<'a> Head<'a> {
    /// The head of a page about no podcast (a notice, the site's pages): in the reader's
    /// language, a title only.
    pub(super) fn plain(locale: Locale, title: &'a str) -> Self {
        Head {
            lang: locale.tag(),
            locale,
            title,
            description: "",
            canonical: None,
            feed: None,
            image: None,
            kind: "website",
            prev: None,
            next: None,
            audio: None,
            linked_data: None,
            player: None,
        }
    }
}

/// A whole page: the head, a skip link to `main`, the page's own `body` content.
pub(super) fn document(head: &Head<'_>, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang=(head.lang) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (head.title) }
                @if !head.description.is_empty() {
                    meta name="description" content=(head.description);
                }
                @if let Some(url) = head.canonical {
                    link rel="canonical" href=(url);
                    meta property="og:url" content=(url);
                }
                @if let Some(url) = head.prev {
                    link rel="prev" href=(url);
                }
                @if let Some(url) = head.next {
                    link rel="next" href=(url);
                }
                @if let Some((url, title)) = head.feed {
                    link rel="alternate" type="application/rss+xml" title=(title) href=(url);
                }
                @if let Some(player) = &head.player {
                    link rel="alternate" type="application/json+oembed" title=(head.title) href=(player.oembed);
                }
                // A favicon the page allows itself (otherwise browsers ask for /favicon.ico).
                link rel="icon" href=(head.image.unwrap_or("data:,"));
                // Link previews: Open Graph, and X's card (which reads Open Graph for the rest).
                meta property="og:type" content=(head.kind);
                meta property="og:title" content=(head.title);
                @if !head.description.is_empty() {
                    meta property="og:description" content=(head.description);
                }
                @if let Some(image) = head.image {
                    meta property="og:image" content=(image);
                }
                @if let Some((url, mime)) = head.audio {
                    meta property="og:audio" content=(url);
                    meta property="og:audio:type" content=(mime);
                }
                // X's player card needs a picture; without one the page is a summary.
                @match (&head.player, head.image) {
                    (Some(player), Some(_)) => {
                        meta name="twitter:card" content="player";
                        meta name="twitter:player" content=(player.url);
                        meta name="twitter:player:width" content=(player.width);
                        meta name="twitter:player:height" content=(player.height);
                    }
                    _ => { meta name="twitter:card" content="summary"; }
                }
                meta name="twitter:title" content=(head.title);
                @if !head.description.is_empty() {
                    meta name="twitter:description" content=(head.description);
                }
                @if let Some(image) = head.image {
                    meta name="twitter:image" content=(image);
                }
                @if let Some(data) = &head.linked_data {
                    (super::linked_data::script(data))
                }
                meta name="generator" content="podhost";
                style { (PreEscaped(style::CSS)) }
            }
            body {
                a.skip href="#main" lang=[head.locale.mark(head.lang)] { (head.locale.text("skip-to-content")) }
                (body)
            }
        }
    }
}

/// The footer of every page about a podcast: its copyright, its feed, the switch between
/// languages (to the page at `here`).
pub(super) fn footer(
    locale: Locale,
    lang: &str,
    copyright: &str,
    feed: Option<&str>,
    here: Option<&str>,
) -> Markup {
    html! {
        footer.site-footer {
            div.wrap {
                @if !copyright.is_empty() { p { (copyright) } }
                p lang=[locale.mark(lang)] {
                    @if let Some(feed) = feed {
                        a href=(feed) type="application/rss+xml" { (locale.text("rss-feed")) }
                        " · "
                    }
                    (locale.text("hosted-with-podhost"))
                }
                @if let Some(here) = here { (language_switch(locale, here)) }
            }
        }
    }
}

/// The links to the page at `here` in every other language (`?lang=`): a reader's choice,
/// which the frontends remember. Each link is in its own language and says so.
pub(super) fn language_switch(locale: Locale, here: &str) -> Markup {
    html! {
        nav.languages aria-label=(locale.text("languages")) {
            ul {
                @for other in Locale::all() {
                    li {
                        @if other == locale {
                            span aria-current="true" lang=(other.tag()) { (other.name()) }
                        } @else {
                            a href=(with_lang(here, other)) hreflang=(other.tag()) lang=(other.tag()) {
                                (other.name())
                            }
                        }
                    }
                }
            }
        }
    }
}

/// `url` asking for `locale` (`?lang=de`, or `&lang=de` after a query of its own).
pub(super) fn with_lang(url: &str, locale: Locale) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}lang={}", locale.tag())
}

/// The RSS symbol, drawn inline (no file to fetch); decorative.
pub(super) fn rss_icon() -> Markup {
    html! {
        svg viewBox="0 0 24 24" aria-hidden="true" focusable="false" {
            circle cx="6" cy="18" r="2.25" {}
            path d="M4 10.5a9.5 9.5 0 0 1 9.5 9.5h-2.75A6.75 6.75 0 0 0 4 13.25zM4 4.5A15.5 15.5 0 0 1 19.5 20h-2.75A12.75 12.75 0 0 0 4 7.25z" {}
        }
    }
}
