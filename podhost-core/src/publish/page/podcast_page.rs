//! The podcast page: cover, title, author, the feed to subscribe to, the description and the
//! published episodes, [`EPISODES_PER_PAGE`](super::EPISODES_PER_PAGE) a page (`?page=`).

use maud::html;

use super::{
    PLAYER_WIDTH, Paging, Show, Site, announced_player, cover, document, embed_code, embed_section,
    episode_label, linked_data, rich_text, subscribe, web_url, when_and_how_long,
};
use crate::{locale::Locale, model::EpisodeView};

/// The longest excerpt of show notes in the episode list, in characters.
const EXCERPT: usize = 220;

/// Renders the podcast page; `episodes` are the published ones of the page `paging` says, in
/// the order listed (newest first; a serial show's oldest first, as apps list it).
pub(crate) fn render(
    site: &Site<'_>,
    show: &Show<'_>,
    episodes: &[EpisodeView],
    paging: Paging,
) -> String {
    let feed = show.feed;
    let lang = show.lang();
    let locale = site.locale;
    let en = locale.mark(lang);
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
    let page_url = |n: usize| urls.feed_page_number(&feed.id, n);
    let canonical = page_url(paging.number);
    let prev = (paging.number > 1).then(|| page_url(paging.number - 1));
    let next = (paging.number < paging.pages()).then(|| page_url(paging.number + 1));
    let title = match paging.number {
        1 => feed.title.clone(),
        n => format!(
            "{} · {}",
            feed.title,
            locale.text_with(
                "page-of",
                &[("page", n.into()), ("pages", paging.pages().into())]
            )
        ),
    };
    let summary = if it.subtitle.is_empty() {
        rich_text::excerpt(description, 160)
    } else {
        it.subtitle.clone()
    };
    let podcast_page = urls.feed_page(&feed.id);
    let (player_url, player_height, oembed) = announced_player(urls, feed, None, &podcast_page);
    let embed = embed_code(
        locale,
        &player_url,
        &feed.title,
        PLAYER_WIDTH,
        player_height,
    );
    let head = document::Head {
        lang,
        locale,
        title: &title,
        description: &summary,
        canonical: Some(&canonical),
        feed: Some((&feed_url, &feed.title)),
        image: logo_url.as_deref(),
        kind: "website",
        prev: prev.as_deref(),
        next: next.as_deref(),
        audio: None,
        linked_data: Some(
            linked_data::Series {
                name: &feed.title,
                description: &summary,
                url: &podcast_page,
                feed: &feed_url,
                image: logo_url.as_deref(),
                author,
                lang,
            }
            .data(),
        ),
        // The newest episode's player, once there is one.
        player: (paging.total > 0).then_some(document::Player {
            url: &player_url,
            width: PLAYER_WIDTH,
            height: player_height,
            oembed: &oembed,
        }),
    };
    let body = html! {
        header.site-header {
            div.wrap { div.hero {
                (cover(site, show.logo, &locale.text_with("cover-of", &[("title", (&feed.title).into())]), &feed.title))
                div.hero-text {
                    p.kicker lang=[en] { (locale.text("podcast")) }
                    h1 { (feed.title) }
                    @if !author.is_empty() { p.byline { (author) } }
                    @if !it.subtitle.is_empty() { p.subtitle { (it.subtitle) } }
                    @if category.is_some() || it.explicit || it.complete {
                        ul.chips aria-label=(locale.text("about-this-podcast")) lang=[en] {
                            @if let Some(category) = &category { li { (category) } }
                            @if it.explicit { li { (locale.text("explicit")) } }
                            @if it.complete { li { (locale.text("complete-series")) } }
                        }
                    }
                    (subscribe(locale, lang, &feed_url, "feed-url"))
                }
            } }
        }
        main #main .wrap .below-hero {
            @if let Some(new_feed) = &it.new_feed_url {
                section.card.notice aria-labelledby="moved" lang=[en] {
                    h2 #moved { (locale.text("moved-heading")) }
                    p { (locale.text("moved-text")) " " a href=(new_feed) { (new_feed) } }
                }
            }
            @if !description.trim().is_empty() || web_url(&feed.link).is_some() || !feed.podcast.funding.is_empty() {
                section.card aria-labelledby="about" {
                    h2 #about lang=[en] { (locale.text("about")) }
                    div.notes { (rich_text::rich_text(description)) }
                    (links(locale, feed, lang))
                }
            }
            section aria-labelledby="episodes" {
                h2 #episodes lang=[en] {
                    (locale.text("episodes")) @if paging.total > 0 { " " span.count { "(" (locale.number(paging.total as u64)) ")" } }
                }
                div.card {
                    @if episodes.is_empty() {
                        p lang=[en] { (locale.text("no-episodes-yet")) }
                    } @else {
                        ol.episodes start=[first_number(paging)] {
                            @for view in episodes {
                                (item(site, view))
                            }
                        }
                    }
                }
                @if prev.is_some() || next.is_some() {
                    nav.pager aria-label=(locale.text("pages-of-episodes")) lang=[en] {
                        @if let Some(url) = &prev { a href=(url) rel="prev" { "← " (locale.text("previous-page")) } }
                        span { (locale.text_with("page-of", &[("page", paging.number.into()), ("pages", paging.pages().into())])) }
                        @if let Some(url) = &next { a href=(url) rel="next" { (locale.text("next-page")) " →" } }
                    }
                }
            }
        }
        @if paging.total > 0 {
            div.wrap { (embed_section(locale, lang, &embed)) }
        }
        @if feed.public_stats {
            div.wrap {
                p.meta lang=[en] { a href=(urls.feed_stats_page(&feed.id)) { (locale.text("download-statistics")) } }
            }
        }
        (document::footer(locale, lang, &feed.copyright, Some(&feed_url), Some(&canonical)))
    };
    document::document(&head, body).into_string()
}

/// The number of the page's first item in the whole list, past the first page (`<ol start>`).
fn first_number(paging: Paging) -> Option<usize> {
    (paging.number > 1).then(|| (paging.number - 1) * super::EPISODES_PER_PAGE + 1)
}

/// The podcast's website and its funding links (`podcast:funding`), when they are web links.
fn links(locale: Locale, feed: &crate::model::Feed, lang: &str) -> maud::Markup {
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
                    a href=(url) rel=(rich_text::LINK_REL) lang=[locale.mark(lang)] { (locale.text("website")) }
                }
                @for (url, text) in funding {
                    a href=(url) rel=(rich_text::LINK_REL) {
                        @if text.trim().is_empty() { (locale.text("support-the-show")) } @else { (text) }
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
                @if let Some(label) = episode_label(site.locale, &ep.itunes) { span { (label) } }
            }
            @if !excerpt.is_empty() { p.excerpt { (excerpt) } }
        }
    }
}
