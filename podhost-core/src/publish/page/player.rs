//! The embeddable player (`/embed/{feed}[/{episode}]`): a small page for an `<iframe>` on any
//! site, with the episode's cover, title, its own controls (play, seek, speed: the browser's
//! controls without the script), the chapters to jump to and the transcript followed as it
//! plays. Its one script (`player.js`) is allowed by hash ([`player_policy`]); it reads its
//! words and addresses from the page. Nothing is fetched but from this deployment: the audio,
//! the listener's chapters (moved by their ads) and the transcript.
//!
//! Also what links to it: the `<iframe>` code the pages give to copy ([`embed_code`]), and what
//! an oEmbed consumer gets ([`Embedding`]).

use maud::{DOCTYPE, PreEscaped, html};

use super::{
    Show, Site, clock, cover, style, summary,
    watch::{PLAYER_BOX, page_video},
};
use crate::{locale::Locale, model::EpisodeView, probe::MediaKind, urls::Urls};

/// The player's width in the `<iframe>` code, in CSS pixels (it fills a narrower column).
pub const PLAYER_WIDTH: u32 = 600;

/// The player's height: the controls alone.
const HEIGHT_COMPACT: u32 = 180;

/// The player's height when it lists chapters or a transcript, or shows a video.
const HEIGHT_TALL: u32 = 420;

/// The transcript formats the player follows (others are linked).
const FOLLOWED_TRANSCRIPTS: [&str; 3] = ["text/vtt", "application/x-subrip", "application/json"];

/// How tall the player of `view` is; a podcast's player (`None`, its newest episode, which
/// changes) is always the taller.
pub(crate) fn player_height(view: Option<&EpisodeView>) -> u32 {
    let Some(view) = view else {
        return HEIGHT_TALL;
    };
    let media = view.media.as_ref();
    let tall = media.is_some_and(|m| !m.chapters.is_empty())
        || shown_video(view).is_some()
        || view.transcript.is_some();
    if tall { HEIGHT_TALL } else { HEIGHT_COMPACT }
}

/// The video the player of `view` shows: the episode's video, else its media when that is a
/// video file; `None` for an episode of audio alone.
fn shown_video(view: &EpisodeView) -> Option<&crate::model::Media> {
    view.video
        .as_ref()
        .filter(|v| v.kind() == MediaKind::Video)
        .or(view.media.as_ref().filter(|m| m.kind() == MediaKind::Video))
}

/// The `<iframe>` code that embeds the player at `src` (titled for screen readers, in
/// `locale`).
pub(crate) fn embed_code(
    locale: Locale,
    src: &str,
    title: &str,
    width: u32,
    height: u32,
) -> String {
    html! {
        iframe src=(src) title=(locale.text_with("player-of", &[("title", title.into())])) width=(width) height=(height)
            loading="lazy" style=(format!("border:0;max-width:100%;width:{width}px")) {}
    }
    .into_string()
}

/// The Content-Security-Policy of the player: the site's pages' policy, and its own script by
/// hash, fetches of this deployment's chapters and files, and any site may frame it.
pub fn player_policy(urls: &Urls, media_redirects: bool) -> String {
    let base = urls.base();
    let media = format!("{base}/media/");
    let media = if media_redirects {
        " *".to_string()
    } else if base.contains(|c: char| c.is_whitespace() || c == ';' || c == ',') {
        String::new()
    } else {
        format!(" {media}")
    };
    let chapters = if media.is_empty() {
        String::new()
    } else {
        format!(" {base}/chapters/")
    };
    let (style, script) = style::player_sources();
    format!(
        "default-src 'none'; script-src {script}; style-src {style}; img-src 'self' data:{media}; \
         media-src 'self'{media}; connect-src 'self'{chapters}{media}; base-uri 'none'; \
         form-action 'none'; frame-ancestors *"
    )
}

/// Renders the player of a published episode.
pub(crate) fn render(site: &Site<'_>, show: &Show<'_>, view: &EpisodeView) -> String {
    let feed = show.feed;
    let ep = &view.episode;
    let lang = show.lang();
    let locale = site.locale;
    let en = locale.mark(lang);
    let urls = site.urls;
    let page_url = urls.episode_page(&feed.id, ep.id);
    let picture = view.logo.as_ref().or(show.logo);
    let title = format!("{} · {}", ep.title, feed.title);
    let summary = summary(ep);
    let media = view.media.as_ref();
    let chapters = media.filter(|m| !m.chapters.is_empty());
    let transcript = view.transcript.as_ref();
    let followed = transcript.filter(|t| FOLLOWED_TRANSCRIPTS.contains(&t.facts.mime.as_str()));
    let video = shown_video(view);
    let seconds = media
        .and_then(|m| m.facts.audio.as_ref())
        .map(|a| a.duration_ms)
        .or_else(|| {
            video
                .and_then(|v| v.facts.video.as_ref())
                .map(|v| v.duration_ms)
        })
        .map_or(0, |ms| ms.div_ceil(1000));
    let watched = video.map(|v| page_video(urls, site.account, v, PLAYER_BOX));
    let poster = picture.map(|m| urls.media(site.account, m));
    html! {
        (DOCTYPE)
        html lang=(lang) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                @if !summary.is_empty() { meta name="description" content=(summary); }
                link rel="canonical" href=(page_url);
                link rel="icon" href=(picture.map(|m| urls.media(site.account, m)).as_deref().unwrap_or("data:,"));
                style { (PreEscaped(style::PLAYER_CSS)) }
            }
            body {
                main {
                    div.top {
                        (cover(site, picture, "", &ep.title))
                        div {
                            p.show { a href=(urls.feed_page(&feed.id)) target="_blank" rel="noopener" { (feed.title) } }
                            h1 { a href=(page_url) target="_blank" rel="noopener" { (ep.title) } }
                        }
                    }
                    @if media.is_some() || watched.is_some() {
                        // A video episode plays its video (from the rung that fits the player,
                        // then the file), an audio one its audio.
                        @if let Some(shown) = &watched {
                            @let label = locale.text_with("watch-title", &[("title", (&ep.title).into())]);
                            video #media controls preload="metadata" playsinline aria-label=(label)
                                poster=[poster.as_deref()] width=(shown.width) height=(shown.height) {
                                @if let Some(stream) = &shown.stream {
                                    source src=(stream) type=(crate::publish::HLS_TYPE);
                                }
                                source src=(shown.file) type=(shown.mime);
                                a href=(shown.file) lang=[en] { (locale.text("download-the-episode")) }
                            }
                        } @else if let Some(media) = media {
                            @let url = urls.media(site.account, media);
                            @let label = locale.text_with("listen-title", &[("title", (&ep.title).into())]);
                            audio #media controls preload="metadata" aria-label=(label) src=(url) {
                                a href=(url) lang=[en] { (locale.text("download-the-episode")) }
                            }
                        }
                        @let play = locale.text("play");
                        @let speed = locale.text("playback-speed");
                        div #controls .controls hidden lang=[en]
                            data-play=(play) data-pause=(locale.text("pause")) data-speed=(speed)
                            data-chapters=[chapters.map(|m| urls.chapters(site.account, m))] {
                            button #play type="button" aria-label=(play) data-state="paused" {
                                svg.icon-play viewBox="0 0 24 24" aria-hidden="true" focusable="false" { path d="M7 4.5v15l12.5-7.5z" {} }
                                svg.icon-pause viewBox="0 0 24 24" aria-hidden="true" focusable="false" { path d="M6 4.5h4v15H6zm8 0h4v15h-4z" {} }
                            }
                            input #seek type="range" min="0" max=(seconds) step="any" value="0" aria-label=(locale.text("seek"));
                            span #clock { "0:00 / " (clock(seconds * 1000)) }
                            button #speed type="button" aria-label=(format!("{speed} 1×")) { "1×" }
                        }
                    }
                    @if let Some(media) = chapters {
                        h2 #chapters-title lang=[en] { (locale.text("chapters")) }
                        ol #chapters .chapters aria-labelledby="chapters-title" {
                            @for chapter in &media.chapters {
                                li {
                                    button type="button" data-start=(chapter.start_ms) {
                                        span.time { (clock(chapter.start_ms)) }
                                        span { (chapter.title) }
                                    }
                                }
                            }
                        }
                    }
                    @if let Some(transcript) = transcript {
                        @let url = urls.media(site.account, transcript);
                        h2 #transcript-title lang=[en] { (locale.text("transcript")) }
                        div #transcript-text role="region" aria-labelledby="transcript-title" tabindex="0"
                            data-src=[followed.map(|_| url.as_str())] data-type=(transcript.facts.mime) {
                            p lang=[en] { a href=(url) target="_blank" rel="noopener" { (locale.text("read-the-transcript")) } }
                        }
                    }
                }
                script { (PreEscaped(style::PLAYER_JS)) }
            }
        }
    }
    .into_string()
}

/// What an oEmbed consumer gets for a page's URL: the player to embed and what it plays.
/// Frontends answer it in oEmbed's own shape (the `rich` type).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Embedding {
    /// The episode's title (a podcast's page: the podcast's).
    pub title: String,
    /// Who makes the podcast (its title when no author is named).
    pub author_name: String,
    /// The podcast's page.
    pub author_url: String,
    /// The deployment's name for itself (`podhost`).
    pub provider_name: String,
    /// The deployment's URL.
    pub provider_url: String,
    /// The `<iframe>` code.
    pub html: String,
    /// The player's width, in CSS pixels.
    pub width: u32,
    /// The player's height, in CSS pixels.
    pub height: u32,
    /// The cover of the episode (or the podcast), if it has one.
    pub thumbnail: Option<Thumbnail>,
}

/// A cover picture and its size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thumbnail {
    /// Its public URL.
    pub url: String,
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
}

/// The embedding of `view`'s player, for the episode's page (`episode`) or the podcast's, sized
/// within `max` (a consumer's `maxwidth`, `maxheight`).
pub(crate) fn embedding(
    site: &Site<'_>,
    show: &Show<'_>,
    view: &EpisodeView,
    episode: bool,
    max: (Option<u32>, Option<u32>),
) -> Embedding {
    let urls = site.urls;
    let feed = show.feed;
    let width = max.0.map_or(PLAYER_WIDTH, |m| m.min(PLAYER_WIDTH));
    let tall = player_height(episode.then_some(view));
    let height = max.1.map_or(tall, |m| m.min(tall));
    let (title, src) = if episode {
        (
            &view.episode.title,
            urls.embed(&feed.id, Some(view.episode.id)),
        )
    } else {
        (&feed.title, urls.embed(&feed.id, None))
    };
    let picture = if episode {
        view.logo.as_ref().or(show.logo)
    } else {
        show.logo
    };
    let size = picture.and_then(|m| m.facts.image.as_ref());
    let author = show.author();
    Embedding {
        title: title.clone(),
        author_name: if author.is_empty() {
            feed.title.clone()
        } else {
            author.to_string()
        },
        author_url: urls.feed_page(&feed.id),
        provider_name: "podhost".into(),
        provider_url: urls.base().to_string(),
        html: embed_code(site.locale, &src, title, width, height),
        width,
        height,
        // oEmbed gives a thumbnail with its size, or none.
        thumbnail: picture.zip(size).map(|(m, size)| Thumbnail {
            url: urls.media(site.account, m),
            width: size.width,
            height: size.height,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_player_may_run_its_own_script_and_be_framed_anywhere() {
        let urls = Urls::new("https://pod.example");
        let policy = player_policy(&urls, false);
        let (style, script) = style::player_sources();
        assert!(
            policy.starts_with(&format!(
                "default-src 'none'; script-src {script}; style-src {style};"
            )),
            "{policy}"
        );
        assert!(script.starts_with("'sha256-") && !policy.contains("unsafe"));
        assert!(policy.contains(
            "; connect-src 'self' https://pod.example/chapters/ https://pod.example/media/;"
        ));
        assert!(policy.ends_with("; frame-ancestors *"), "{policy}");
    }

    #[test]
    fn the_embed_code_is_an_iframe_titled_for_screen_readers() {
        let code = embed_code(
            Locale::ENGLISH,
            "https://pod.example/embed/f?x=<1>",
            "A \"b\"",
            600,
            180,
        );
        assert_eq!(
            code,
            "<iframe src=\"https://pod.example/embed/f?x=&lt;1&gt;\" title=\"Player: A &quot;b&quot;\" \
             width=\"600\" height=\"180\" loading=\"lazy\" style=\"border:0;max-width:100%;width:600px\"></iframe>"
        );
    }
}
