//! The episode page: the podcast it belongs to, title, date and duration, a player with the
//! enclosure and a download link, the show notes.

use maud::html;

use super::{
    PLAYER_WIDTH, Show, Site, announced_player, clock, cover, document, embed_code, embed_section,
    episode_label, linked_data, rich_text, show_bar, show_notes, subscribe, subtitle, summary,
    watch::{CARD_WIDTH, page_video},
    web_url, when_and_how_long,
};
use crate::{
    locale::Locale,
    model::{EpisodeView, social::Comment},
    probe::MediaKind,
};

/// An episode's conversation on the fediverse, as its page shows it.
pub(crate) struct Conversation<'a> {
    /// The podcast's handle (`@{feed}@{host}`), to follow and reply to.
    pub(crate) handle: String,
    /// The comments shown (not hidden), in the order they arrived.
    pub(crate) comments: Vec<&'a Comment>,
}

/// How deep replies to replies are indented; deeper ones are listed at this depth.
const THREAD_INDENT: usize = 4;

/// The comments answering `parent` (none: the episode), each followed by its own answers.
fn thread(
    locale: Locale,
    comments: &[&Comment],
    parent: Option<&str>,
    depth: usize,
) -> maud::Markup {
    let answers: Vec<&&Comment> = comments
        .iter()
        .filter(|c| c.parent.as_deref() == parent)
        .collect();
    html! {
        @if !answers.is_empty() {
            ol.comments {
                @for comment in answers {
                    li {
                        article.comment aria-label=(comment.author.name) {
                            p.meta {
                                a href=(comment.author.url) rel="nofollow ugc noopener" {
                                    (locale.text_with("comment-by", &[("name", (&comment.author.name).into()), ("handle", (&comment.author.handle).into())]))
                                }
                                // `.meta` puts its separators between the parts.
                                time datetime=(comment.published.to_string()) { (locale.date_time(comment.published)) }
                                @if let Some(url) = comment.url.as_deref().and_then(web_url) {
                                    a href=(url) rel="nofollow ugc noopener" { (locale.text("comment-on-instance")) }
                                }
                            }
                            div.notes { (maud::PreEscaped(&comment.content)) }
                        }
                        @if depth < THREAD_INDENT {
                            (thread(locale, comments, Some(&comment.id), depth + 1))
                        }
                    }
                }
            }
            // Past the indent, deeper answers follow their thread's last indented comment.
            @if depth >= THREAD_INDENT {
                @for comment in comments.iter().filter(|c| c.parent.as_deref() == parent) {
                    (thread(locale, comments, Some(&comment.id), depth))
                }
            }
        }
    }
}

/// Renders the page of a published episode.
pub(crate) fn render(
    site: &Site<'_>,
    show: &Show<'_>,
    view: &EpisodeView,
    conversation: Option<&Conversation<'_>>,
) -> String {
    let feed = show.feed;
    let ep = &view.episode;
    let lang = show.lang();
    let locale = site.locale;
    let en = locale.mark(lang);
    let urls = site.urls;
    let feed_url = show.subscribe_url(urls);
    let podcast_page = urls.feed_page(&feed.id);
    let picture = view.logo.as_ref().or(show.logo);
    let picture_url = picture.map(|m| urls.media(site.account, m));
    let notes_html = show_notes(ep);
    let subtitle = subtitle(ep);
    let summary = summary(ep);
    let explicit = ep.itunes.explicit.unwrap_or(feed.itunes.explicit);
    let title = format!("{} · {}", ep.title, feed.title);
    let page_url = urls.episode_page(&feed.id, ep.id);
    let audio = view
        .media
        .as_ref()
        .map(|m| (urls.media(site.account, m), m.facts.mime.clone()));
    let (_, published) = locale.date(ep.publish_at, site.time_zone);
    let duration = view
        .media
        .as_ref()
        .and_then(|m| m.facts.audio.as_ref())
        .map(|a| locale.duration(a.duration_ms).1);
    let podcast_logo = show.logo.map(|m| urls.media(site.account, m));
    let series = linked_data::Series {
        name: &feed.title,
        description: "",
        url: &podcast_page,
        feed: &feed_url,
        image: podcast_logo.as_deref(),
        author: show.author(),
        lang,
    };
    let linked = linked_data::Episode {
        name: &ep.title,
        description: &summary,
        url: &page_url,
        published: &published,
        duration: duration.as_deref(),
        image: picture_url.as_deref(),
        audio: audio.as_ref().map(|(u, m)| (u.as_str(), m.as_str())),
    }
    .data(&series);
    let (player_url, player_height, oembed) = announced_player(urls, feed, Some(view), &page_url);
    let embed = embed_code(locale, &player_url, &ep.title, PLAYER_WIDTH, player_height);
    let head = document::Head {
        lang,
        locale,
        title: &title,
        description: &summary,
        canonical: Some(&page_url),
        feed: Some((&feed_url, &feed.title)),
        image: picture_url.as_deref(),
        kind: "article",
        prev: None,
        next: None,
        audio: audio.as_ref().map(|(u, m)| (u.as_str(), m.as_str())),
        linked_data: Some(linked),
        player: view.media.is_some().then_some(document::Player {
            url: &player_url,
            width: PLAYER_WIDTH,
            height: player_height,
            oembed: &oembed,
        }),
    };
    let body = html! {
        (show_bar(site, show))
        main #main .wrap {
            article aria-labelledby="title" {
                div.hero {
                    (cover(site, picture, &locale.text_with("cover-of", &[("title", (&ep.title).into())]), &ep.title))
                    div.hero-text {
                        p.kicker lang=[en] {
                            (episode_label(locale, &ep.itunes).unwrap_or_else(|| locale.text("episode")))
                        }
                        h1 #title { (ep.title) }
                        p.meta {
                            (when_and_how_long(site, view))
                            @if explicit { span lang=[en] { (locale.text("explicit")) } }
                        }
                        @if !subtitle.is_empty() { p.subtitle { (subtitle) } }
                    }
                }
                @if let Some(video) = view.video.as_ref().filter(|v| v.kind() == MediaKind::Video) {
                    @let shown = page_video(urls, site.account, video, (CARD_WIDTH, u32::MAX));
                    @let watch = locale.text_with("watch-title", &[("title", (&ep.title).into())]);
                    // The HLS stream from the rung that fits the card first (Safari, Chromium
                    // and every HLS player), the stored file after it (every other browser
                    // plays MP4 or WebM): no script. Its width and height give it the video's
                    // aspect at the card's full width.
                    section.card.watch aria-label=(locale.text("watch")) lang=[en] {
                        video class=[(shown.height > shown.width).then_some("upright")] controls preload="metadata" playsinline
                            poster=[picture_url.as_deref()] aria-label=(watch) width=(shown.width) height=(shown.height) {
                            @if let Some(stream) = &shown.stream {
                                source src=(stream) type=(crate::publish::HLS_TYPE);
                            }
                            source src=(shown.file) type=(shown.mime);
                            (player_fallback(locale, &shown.file, en))
                        }
                    }
                }
                @if let Some(media) = &view.media {
                    @let url = urls.media(site.account, media);
                    @let listen = locale.text_with("listen-title", &[("title", (&ep.title).into())]);
                    section.card aria-label=(locale.text("listen")) lang=[en] {
                        @if media.kind() == MediaKind::Video {
                            video controls preload="metadata" aria-label=(listen) {
                                source src=(url) type=(media.facts.mime);
                                (player_fallback(locale, &url, en))
                            }
                        } @else {
                            audio controls preload="metadata" aria-label=(listen) {
                                source src=(url) type=(media.facts.mime);
                                (player_fallback(locale, &url, en))
                            }
                        }
                        @if !media.results.outline.is_empty() {
                            (outline(&media.results.outline))
                        }
                        p.meta lang=[en] {
                            a href=(url) download { (locale.text("download")) }
                            span { (download_label(locale, media)) }
                            @if let Some(transcript) = &view.transcript {
                                a href=(urls.media(site.account, transcript)) { (locale.text("transcript")) }
                            }
                            @if let Some(link) = web_url(&ep.link) {
                                a href=(link) rel=(rich_text::LINK_REL) { (locale.text("episode-website")) }
                            }
                        }
                    }
                }
                @if !notes_html.trim().is_empty() {
                    section.card aria-labelledby="notes" {
                        h2 #notes lang=[en] { (locale.text("show-notes")) }
                        div.notes { (rich_text::rich_text(notes_html)) }
                    }
                }
                @if let Some(talk) = conversation {
                    section.card aria-labelledby="comments" {
                        h2 #comments lang=[en] { (locale.text("comments")) }
                        p.muted lang=[en] { (locale.text_with("comments-how", &[("handle", (&talk.handle).into())])) }
                        @if talk.comments.is_empty() {
                            p lang=[en] { (locale.text("comments-none")) }
                        } @else {
                            (thread(locale, &talk.comments, None, 0))
                        }
                    }
                }
                @if let Some(media) = view.media.as_ref().filter(|m| !m.chapters.is_empty()) {
                    section.card aria-labelledby="chapters" {
                        h2 #chapters lang=[en] { (locale.text("chapters")) }
                        ol.chapters {
                            @for chapter in &media.chapters {
                                li {
                                    span.time { (clock(chapter.start_ms)) }
                                    " "
                                    @match web_url(chapter.url.as_deref().unwrap_or("")) {
                                        Some(link) => a href=(link) rel=(rich_text::LINK_REL) { (chapter.title) },
                                        None => span { (chapter.title) },
                                    }
                                }
                            }
                        }
                    }
                }
                @if !ep.podcast.soundbite.is_empty() {
                    section.card aria-labelledby="soundbites" {
                        h2 #soundbites lang=[en] { (locale.text("soundbites")) }
                        ol.chapters {
                            @for bite in &ep.podcast.soundbite {
                                li {
                                    span.time { (clock((bite.start_time.max(0.0) * 1000.0) as u64)) }
                                    " "
                                    span { (bite.text.as_deref().unwrap_or("")) }
                                    span.muted lang=[en] { " (" (locale.duration((bite.duration.max(0.0) * 1000.0) as u64).0) ")" }
                                }
                            }
                        }
                    }
                }
                @if !ep.podcast.person.is_empty() {
                    section.card aria-labelledby="people" {
                        h2 #people lang=[en] { (locale.text("people")) }
                        ul.people {
                            @for person in &ep.podcast.person {
                                li {
                                    @match web_url(person.href.as_deref().unwrap_or("")) {
                                        Some(link) => a href=(link) rel=(rich_text::LINK_REL) { (person.name) },
                                        None => span { (person.name) },
                                    }
                                    @if let Some(role) = &person.role {
                                        span.muted lang=[en] { ", " (role) }
                                    }
                                }
                            }
                        }
                    }
                }
                @if !ep.podcast.transcripts.is_empty() {
                    section.card aria-labelledby="transcripts" {
                        h2 #transcripts lang=[en] { (locale.text("transcripts")) }
                        ul {
                            @for t in &ep.podcast.transcripts {
                                @if let Some(link) = web_url(&t.url) {
                                    li {
                                        a href=(link) rel=(rich_text::LINK_REL) {
                                            (transcript_label(locale, t))
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            @if view.media.is_some() {
                (embed_section(locale, lang, &embed))
            }
            section.card aria-labelledby="follow" {
                h2 #follow lang=[en] { (locale.text("follow")) " " span lang=(lang) { (feed.title) } }
                p lang=[en] {
                    (locale.text("follow-text")) " "
                    a href=(podcast_page) { (locale.text("see-all-episodes")) }
                }
                (subscribe(locale, lang, &feed_url, "feed-url"))
            }
        }
        (document::footer(locale, lang, &feed.copyright, Some(&feed_url), Some(&page_url)))
    };
    document::document(&head, body).into_string()
}

/// How a transcript's link reads: its kind and language, e.g. "Captions (WebVTT, en)".
fn transcript_label(locale: Locale, t: &crate::model::podcast::Transcript) -> String {
    let kind = match t.mime.as_str() {
        "text/vtt" => "WebVTT",
        "application/x-subrip" => "SRT",
        "application/json" => "JSON",
        "text/html" => "HTML",
        _ => "text",
    };
    let what = if t.rel.as_deref() == Some("captions") {
        locale.text("captions")
    } else {
        locale.text("transcript")
    };
    match &t.language {
        Some(lang) => format!("{what} ({kind}, {lang})"),
        None => format!("{what} ({kind})"),
    }
}

/// The waveform's outline as an inline SVG of bars (decorative: the player is the control).
fn outline(peaks: &[u8]) -> maud::Markup {
    let width = peaks.len();
    html! {
        svg.waveform viewBox=(format!("0 0 {width} 100")) preserveAspectRatio="none" aria-hidden="true" focusable="false" {
            @for (i, peak) in peaks.iter().enumerate() {
                @let h = u32::from(*peak).max(1);
                rect x=(i) y=(50 - h / 2) width="0.72" height=(h) {}
            }
        }
    }
}

/// What a browser without a player shows instead: the download.
fn player_fallback(locale: Locale, url: &str, en: Option<&str>) -> maud::Markup {
    html! {
        p lang=[en] { (locale.text("cannot-play")) " " a href=(url) { (locale.text("download-it")) } }
    }
}

/// "MP3, 12.3 MB": the file's type and size.
fn download_label(locale: Locale, media: &crate::model::Media) -> String {
    let kind = match media.facts.extension.as_str() {
        "" => String::new(),
        ext => format!("{}, ", ext.to_uppercase()),
    };
    format!("{kind}{}", locale.size(media.size))
}
