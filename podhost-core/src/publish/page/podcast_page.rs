//! The podcast page: cover, title, author, the feed to subscribe to, the description and the
//! list of published episodes.

use maud::html;

use super::{
    Show, Site, cover, document, document::english, episode_label, rich_text, subscribe, web_url,
    when_and_how_long,
};
use crate::model::{EpisodeView, ShowType};

/// The longest excerpt of show notes in the episode list, in characters.
const EXCERPT: usize = 220;

/// Renders the podcast page; `episodes` are the published ones, newest first.
pub(crate) fn render(site: &Site<'_>, show: &Show<'_>, episodes: &[EpisodeView]) -> String {
    let feed = show.feed;
    let lang = show.lang();
    let en = english(lang);
    let urls = site.urls;
    let feed_url = show.subscribe_url(urls);
    let logo_url = show.logo.map(|m| urls.media(site.account, m));
    let description = if feed.description.trim().is_empty() {
        &feed.itunes.summary
    } else {
        &feed.description
    };
    let author = show.author();
    let it = &feed.itunes;
    let category = match (it.category.as_str(), it.subcategory.as_str()) {
        ("", _) => None,
        (c, "") => Some(c.to_string()),
        (c, s) => Some(format!("{c} › {s}")),
    };
    // Serial shows are listened to in order: oldest first, as apps list them.
    let ordered: Vec<&EpisodeView> = match it.show_type {
        ShowType::Episodic => episodes.iter().collect(),
        ShowType::Serial => episodes.iter().rev().collect(),
    };
    let summary = if it.subtitle.is_empty() {
        rich_text::excerpt(description, 160)
    } else {
        it.subtitle.clone()
    };
    let head = document::Head {
        lang,
        title: &feed.title,
        description: &summary,
        canonical: Some(&urls.feed_page(&feed.id)),
        feed: Some((&feed_url, &feed.title)),
        image: logo_url.as_deref(),
        kind: "website",
    };
    let body = html! {
        header.site-header {
            div.wrap { div.hero {
                (cover(site, show.logo, &format!("Cover art of {}", feed.title), &feed.title))
                div.hero-text {
                    p.kicker lang=[en] { "Podcast" }
                    h1 { (feed.title) }
                    @if !author.is_empty() { p.byline { (author) } }
                    @if !it.subtitle.is_empty() { p.subtitle { (it.subtitle) } }
                    @if category.is_some() || it.explicit || it.complete {
                        ul.chips aria-label="About this podcast" lang=[en] {
                            @if let Some(category) = &category { li { (category) } }
                            @if it.explicit { li { "Explicit" } }
                            @if it.complete { li { "Complete series" } }
                        }
                    }
                    (subscribe(lang, &feed_url, "feed-url"))
                }
            } }
        }
        main #main .wrap .below-hero {
            @if let Some(new_feed) = &it.new_feed_url {
                section.card.notice aria-labelledby="moved" lang=[en] {
                    h2 #moved { "This podcast has moved" }
                    p { "New episodes are published in its new feed: " a href=(new_feed) { (new_feed) } }
                }
            }
            @if !description.trim().is_empty() || web_url(&feed.link).is_some() || !feed.podcast.funding.is_empty() {
                section.card aria-labelledby="about" {
                    h2 #about lang=[en] { "About" }
                    div.notes { (rich_text::rich_text(description)) }
                    (links(feed, lang))
                }
            }
            section aria-labelledby="episodes" {
                h2 #episodes lang=[en] {
                    "Episodes" @if !ordered.is_empty() { " " span.count { "(" (ordered.len()) ")" } }
                }
                div.card {
                    @if ordered.is_empty() {
                        p lang=[en] { "No episodes have been published yet." }
                    } @else {
                        ol.episodes {
                            @for view in ordered {
                                (item(site, view))
                            }
                        }
                    }
                }
            }
        }
        @if feed.public_stats {
            div.wrap {
                p.meta lang=[en] { a href=(urls.feed_stats_page(&feed.id)) { "Download statistics" } }
            }
        }
        (document::footer(lang, &feed.copyright, Some(&feed_url)))
    };
    document::document(&head, body).into_string()
}

/// The podcast's website and its funding links (`podcast:funding`), when they are web links.
fn links(feed: &crate::model::Feed, lang: &str) -> maud::Markup {
    let website = web_url(&feed.link);
    let funding: Vec<_> = feed
        .podcast
        .funding
        .iter()
        .filter_map(|f| web_url(&f.url).map(|url| (url, f.text.as_str())))
        .collect();
    html! {
        @if website.is_some() || !funding.is_empty() {
            p.links.meta {
                @if let Some(url) = website {
                    a href=(url) rel=(rich_text::LINK_REL) lang=[english(lang)] { "Website" }
                }
                @for (url, text) in funding {
                    a href=(url) rel=(rich_text::LINK_REL) {
                        @if text.trim().is_empty() { "Support the show" } @else { (text) }
                    }
                }
            }
        }
    }
}

/// One episode in the list: its title linking to its page, date, duration, a short excerpt.
fn item(site: &Site<'_>, view: &EpisodeView) -> maud::Markup {
    let ep = &view.episode;
    let subtitle = if ep.subtitle.is_empty() {
        &ep.itunes.subtitle
    } else {
        &ep.subtitle
    };
    let excerpt = if subtitle.is_empty() {
        rich_text::excerpt(&ep.description, EXCERPT)
    } else {
        subtitle.clone()
    };
    html! {
        li {
            h3 { a href=(site.urls.episode_page(&ep.feed, ep.id)) { (ep.title) } }
            p.meta {
                (when_and_how_long(site, view))
                @if let Some(label) = episode_label(&ep.itunes) { span { (label) } }
            }
            @if !excerpt.is_empty() { p.excerpt { (excerpt) } }
        }
    }
}
