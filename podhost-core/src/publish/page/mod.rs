//! The public web pages of a podcast, at its `links.web` URLs: the podcast page (cover,
//! description, the feed to subscribe to, the published episodes) and one page per published
//! episode (player, download, show notes). Rendered on the server with maud (the compiler checks
//! the templates and every interpolation is escaped); user HTML goes through the ammonia policy
//! the feed shares (`publish/notes.rs`, via `rich_text.rs`). A page is self-contained: one inline
//! stylesheet, no script (its schema.org JSON-LD is a data block, never run), and nothing loaded from elsewhere than the deployment's own media
//! URLs, which [`content_security_policy`] states for the frontends to send.
//!
//! The episode page lists the chapters written into the episode's audio file, if any.

pub mod chart;
mod document;
mod episode_page;
mod linked_data;
mod notice;
mod player;
mod podcast_page;
mod rich_text;
mod stats_page;
mod style;
mod watch;

use jiff::tz::TimeZone;
use maud::{Markup, html};

pub use notice::{Notice, notice_page};

use crate::{
    ids::AccountId,
    locale::Locale,
    model::{Episode, EpisodeType, EpisodeView, Feed, ItunesEpisode, Media},
    urls::Urls,
};

pub(crate) use episode_page::{Conversation, render as episode_page};
pub use player::{Embedding, PLAYER_WIDTH, Thumbnail, player_policy};
pub(crate) use player::{embed_code, embedding, player_height, render as player};
pub(crate) use podcast_page::render as podcast_page;
pub use stats_page::PublicStats;
pub(crate) use stats_page::render as stats_page;

/// How many episodes the podcast page lists on each of its pages: its size and its cost
/// stay the same whatever the number of episodes (`?page=` pages through the rest).
pub const EPISODES_PER_PAGE: usize = 20;

/// Where the podcast page's list of episodes is: the page shown (from 1) and how many
/// episodes are published in all.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Paging {
    pub(crate) number: usize,
    pub(crate) total: usize,
}

impl Paging {
    /// How many pages the list has (one, even when empty).
    pub(crate) fn pages(self) -> usize {
        self.total.div_ceil(EPISODES_PER_PAGE).max(1)
    }

    /// Whether the page shown is one of them.
    pub(crate) fn exists(self) -> bool {
        (1..=self.pages()).contains(&self.number)
    }
}

/// Where a page is rendered for: the URL builder, the account (media URLs), the time zone dates
/// are shown in, and the language of the page's own words (the reader's).
pub(crate) struct Site<'a> {
    pub(crate) urls: &'a Urls,
    pub(crate) account: &'a AccountId,
    pub(crate) time_zone: &'a TimeZone,
    pub(crate) locale: Locale,
}

/// The podcast a page belongs to.
pub(crate) struct Show<'a> {
    pub(crate) feed: &'a Feed,
    pub(crate) logo: Option<&'a Media>,
}

impl Show<'_> {
    /// The language of the page: the podcast's, else English.
    fn lang(&self) -> &str {
        match self.feed.language.trim() {
            "" => "en",
            lang => lang,
        }
    }

    /// The feed a listener subscribes to: the new one when the podcast moved.
    fn subscribe_url(&self, urls: &Urls) -> String {
        self.feed
            .itunes
            .new_feed_url
            .clone()
            .unwrap_or_else(|| urls.rss(&self.feed.id))
    }

    /// Who makes it, as the feed says it.
    fn author(&self) -> &str {
        self.feed.author()
    }
}

/// The Content-Security-Policy of the pages: nothing but the inline stylesheet, images and
/// sound from this deployment, links out. When downloads are redirected to presigned store URLs
/// (`media_redirects`), images and sound come from the store's own host, which only the store
/// knows: any host is allowed for them then. Frontends send it with every page
/// ([`Delivery::page_policy`](crate::Delivery::page_policy)).
pub fn content_security_policy(urls: &Urls, media_redirects: bool) -> String {
    // The media URLs' prefix, when it is a plain URL a policy can carry (no spaces, `;` or `,`).
    let media = format!("{}/media/", urls.base());
    let media = if media_redirects {
        " *".to_string()
    } else if media.contains(|c: char| c.is_whitespace() || c == ';' || c == ',') {
        String::new()
    } else {
        format!(" {media}")
    };
    // `connect-src 'self'` lets nothing new happen (no script runs), but tools that read a page
    // from inside it, as Lighthouse reads the site's robots.txt, fetch under the page's policy.
    format!(
        "default-src 'none'; style-src {style}; img-src 'self' data:{media}; \
         media-src 'self'{media}; connect-src 'self'; base-uri 'none'; form-action 'none'; \
         frame-ancestors 'none'",
        style = style::csp_source()
    )
}

/// A page of the site around the podcasts (the home page, the key-management site, the OAuth
/// consent page): `body` in the pages' layout and stylesheet, in `locale`, with the switch to
/// the page at `here` (its path and query) in the other languages, when it has them. Frontends
/// render what goes in `body` (their forms post to their routes) with `locale`'s messages.
pub fn site_page(locale: Locale, here: Option<&str>, title: &str, body: Markup) -> String {
    let head = document::Head::plain(locale, title);
    let body = html! {
        div.site {
            (body)
            @if let Some(here) = here {
                footer.site-footer { div.wrap { (document::language_switch(locale, here)) } }
            }
        }
    };
    document::document(&head, body).into_string()
}

/// The Content-Security-Policy of [`site_page`]s: nothing but the inline stylesheet, forms that
/// post to this site, and to `form_targets` (an OAuth client's redirect URI, which a consent
/// form's answer redirects to: browsers apply `form-action` to that redirect too).
pub fn site_policy(form_targets: &[&str]) -> String {
    let mut targets = String::new();
    for target in form_targets {
        // Only what a policy can carry: no spaces, `;` or `,`.
        if !target.contains(|c: char| c.is_whitespace() || c == ';' || c == ',') {
            targets.push(' ');
            targets.push_str(target);
        }
    }
    format!(
        "default-src 'none'; style-src {style}; img-src 'self' data:; base-uri 'none'; \
         form-action 'self'{targets}; frame-ancestors 'none'",
        style = style::csp_source()
    )
}

/// A link a page may follow: `http` and `https` only (never `javascript:` and the like).
fn web_url(url: &str) -> Option<&str> {
    let url = url.trim();
    let scheme = url.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
    matches!(scheme.as_deref(), Some("http" | "https")).then_some(url)
}

/// An episode's show notes (HTML): its description, else its iTunes summary.
fn show_notes(ep: &Episode) -> &str {
    if ep.description.trim().is_empty() {
        &ep.itunes.summary
    } else {
        &ep.description
    }
}

/// An episode's subtitle: its own, else its iTunes one (may be empty).
fn subtitle(ep: &Episode) -> &str {
    if ep.subtitle.is_empty() {
        &ep.itunes.subtitle
    } else {
        &ep.subtitle
    }
}

/// What an episode is, in a line (a page's description, a link preview's): its subtitle, else
/// the start of its show notes as plain text.
fn summary(ep: &Episode) -> String {
    match subtitle(ep) {
        "" => rich_text::excerpt(show_notes(ep), 160),
        subtitle => subtitle.to_string(),
    }
}

/// "Season 2 · Episode 5", "Episode 5", "Trailer", "Bonus"; `None` for a plain full episode.
fn episode_label(locale: Locale, it: &ItunesEpisode) -> Option<String> {
    let season = |s: u32| locale.text_with("season-number", &[("season", s.into())]);
    let episode = |e: u32| locale.text_with("episode-number", &[("episode", e.into())]);
    let number = match (it.season, it.episode) {
        (Some(s), Some(e)) => Some(format!("{} · {}", season(s), episode(e))),
        (None, Some(e)) => Some(episode(e)),
        (Some(s), None) => Some(season(s)),
        (None, None) => None,
    };
    let kind = match it.episode_type {
        EpisodeType::Full => None,
        EpisodeType::Trailer => Some(locale.text("episode-type-trailer")),
        EpisodeType::Bonus => Some(locale.text("episode-type-bonus")),
    };
    match (kind, number) {
        (Some(kind), Some(number)) => Some(format!("{kind} · {number}")),
        (Some(kind), None) => Some(kind),
        (None, number) => number,
    }
}

/// A time in an episode (a chapter's start, a player's clock) as `m:ss` or `h:mm:ss`: the same
/// in every language.
fn clock(ms: u64) -> String {
    let s = ms / 1000;
    match s / 3600 {
        0 => format!("{}:{:02}", s / 60, s % 60),
        h => format!("{h}:{:02}:{:02}", s / 60 % 60, s % 60),
    }
}

/// Date and duration of an episode, as `<time>` elements (the `.meta` line separates them).
fn when_and_how_long(site: &Site<'_>, view: &EpisodeView) -> Markup {
    let (date, datetime) = site.locale.date(view.episode.publish_at, site.time_zone);
    let duration = view
        .media
        .as_ref()
        .and_then(|m| m.facts.audio.as_ref())
        .map(|a| site.locale.duration(a.duration_ms));
    html! {
        time datetime=(datetime) { (date) }
        @if let Some((text, iso)) = duration {
            time datetime=(iso) { (text) }
        }
    }
}

/// The header of a page about something of a podcast (an episode, its statistics): the
/// podcast's cover and title, linking to its page.
fn show_bar(site: &Site<'_>, show: &Show<'_>) -> Markup {
    let feed = show.feed;
    html! {
        header.site-header {
            div.wrap.bar {
                a.show-link href=(site.urls.feed_page(&feed.id)) {
                    @match show.logo {
                        Some(logo) => img src=(site.urls.media(site.account, logo)) alt="" width="36" height="36";
                        None => (cover(site, None, "", &feed.title)),
                    }
                    span { (feed.title) }
                }
            }
        }
    }
}

/// A cover picture, or a lettered tile when there is none (decorative: the title follows).
fn cover(site: &Site<'_>, image: Option<&Media>, alt: &str, title: &str) -> Markup {
    match image {
        Some(media) => {
            let size = media.facts.image;
            html! {
                img.cover src=(site.urls.media(site.account, media)) alt=(alt)
                    width=[size.map(|s| s.width)] height=[size.map(|s| s.height)];
            }
        }
        None => html! {
            div.art aria-hidden="true" {
                (title.chars().find(|c| c.is_alphanumeric()).map(|c| c.to_uppercase().to_string()).unwrap_or_default())
            }
        },
    }
}

/// The player of a podcast's newest episode (`episode` none) or of one episode, as a page's
/// head announces it: its URL, its size and the page's oEmbed URL.
fn announced_player(
    urls: &Urls,
    feed: &Feed,
    episode: Option<&EpisodeView>,
    page_url: &str,
) -> (String, u32, String) {
    (
        urls.embed(&feed.id, episode.map(|v| v.episode.id)),
        player_height(episode),
        urls.oembed(page_url),
    )
}

/// The section giving a player's `<iframe>` code to copy.
fn embed_section(locale: Locale, lang: &str, code: &str) -> Markup {
    html! {
        section.card aria-labelledby="embed" lang=[locale.mark(lang)] {
            h2 #embed { (locale.text("embed-heading")) }
            div.feed-url {
                label for="embed-code" { (locale.text("embed-code-label")) }
                textarea #embed-code readonly rows="3" spellcheck="false" { (code) }
            }
        }
    }
}

/// The subscribe button and the feed address to copy into an app.
fn subscribe(locale: Locale, lang: &str, feed_url: &str, field_id: &str) -> Markup {
    let mark = locale.mark(lang);
    html! {
        a.button href=(feed_url) type="application/rss+xml" lang=[mark] {
            (document::rss_icon()) (locale.text("subscribe"))
        }
        div.feed-url {
            label for=(field_id) lang=[mark] { (locale.text("subscribe-feed-label")) }
            input id=(field_id) type="url" readonly value=(feed_url) spellcheck="false";
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ItunesEpisode;

    #[test]
    fn the_policy_allows_only_the_stylesheet_and_the_deployments_media() {
        let urls = Urls::new("https://pod.example");
        let policy = content_security_policy(&urls, false);
        assert!(policy.starts_with("default-src 'none'; style-src 'sha256-"));
        assert!(policy.contains("; img-src 'self' data: https://pod.example/media/;"));
        assert!(policy.contains("; media-src 'self' https://pod.example/media/;"));
        assert!(!policy.contains("script-src"), "no script may run");
        let redirected = content_security_policy(&urls, true);
        assert!(redirected.contains("; media-src 'self' *;"), "{redirected}");
    }

    #[test]
    fn only_web_links_are_followed() {
        assert_eq!(
            web_url(" https://a.example/x "),
            Some("https://a.example/x")
        );
        assert_eq!(web_url("HTTP://a.example"), Some("HTTP://a.example"));
        for bad in [
            "javascript:alert(1)",
            "javascript://x%0aalert(1)",
            "data:text/html,x",
            "ftp://x",
            "",
        ] {
            assert_eq!(web_url(bad), None, "{bad}");
        }
    }

    #[test]
    fn episode_labels() {
        let label = |season, episode, episode_type| {
            episode_label(
                Locale::ENGLISH,
                &ItunesEpisode {
                    season,
                    episode,
                    episode_type,
                    ..Default::default()
                },
            )
        };
        assert_eq!(
            label(Some(2), Some(5), EpisodeType::Full).as_deref(),
            Some("Season 2 · Episode 5")
        );
        assert_eq!(
            label(None, Some(5), EpisodeType::Bonus).as_deref(),
            Some("Bonus · Episode 5")
        );
        assert_eq!(
            label(None, None, EpisodeType::Trailer).as_deref(),
            Some("Trailer")
        );
        assert_eq!(label(None, None, EpisodeType::Full), None);
    }
}
