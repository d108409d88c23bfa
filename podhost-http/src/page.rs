//! The public web pages at the `links.web` URLs: `/podcasts/{feed_id}` (the podcast) and
//! `/podcasts/{feed_id}/{episode_id}` (a published episode), and `/podcasts/{feed_id}/stats` (the
//! podcast's public statistics, when its podcaster published them). HTML rendered by the core, answered
//! like the feed (validators, 304, gzip: `documents.rs`) with a Content-Security-Policy
//! that allows nothing but the page's own stylesheet and the deployment's media.
//!
//! The embeddable players (`/embed/{feed_id}[/{episode_id}]`), answered the same way with the
//! player's policy (its own script; any site may frame it), and oEmbed (`/oembed`).

use crate::headers::{self, HTML, SetHeader, TEXT};
use http::{Response, StatusCode, header, request::Parts};
use podhost_core::{
    EpisodeId, FeedId, Locale,
    publish::{
        PublicPage,
        page::{self, Notice},
    },
};

use crate::{
    context::Api,
    documents::{self, Document},
    error::ApiError,
    language::{self, Chosen},
    response::{self, Body},
    routes::{
        pages::PageEndpoint,
        query::{OEMBED_FORMAT, OEMBED_MAX_HEIGHT, OEMBED_MAX_WIDTH, OEMBED_URL, PAGE},
    },
    wire::oembed::OEmbed,
};

/// `/robots.txt`: crawlers may read the public pages, the players and the feeds, but not the
/// API, a private podcast's subscribers' feeds and files (their keys are in the path), or the
/// signed-in site.
const ROBOTS: &str =
    "User-agent: *\nDisallow: /api/\nDisallow: /private/\nDisallow: /account\nDisallow: /oauth/\n";

/// Answers a request for a web page.
pub(crate) async fn answer(api: &Api, endpoint: PageEndpoint, parts: &Parts) -> Response<Body> {
    let chosen = language::chosen(parts);
    let mut answer = answer_in(api, endpoint, parts, chosen).await;
    language::answered_in(&mut answer, chosen, api.host.urls().is_https());
    answer
}

/// Answers a request for a web page, in `chosen`'s language.
async fn answer_in(
    api: &Api,
    endpoint: PageEndpoint,
    parts: &Parts,
    chosen: Chosen,
) -> Response<Body> {
    let locale = chosen.locale;
    match endpoint {
        PageEndpoint::PodcastPage { feed_id } => match page_number(parts) {
            Some(number) => page(api, parts, &feed_id, None, number, locale).await,
            None => notice(
                StatusCode::BAD_REQUEST,
                Notice::BadPageNumber,
                locale,
                api.host.delivery().page_policy(),
            ),
        },
        PageEndpoint::EpisodePage { feed_id, show_id } => {
            page(api, parts, &feed_id, Some(show_id), 1, locale).await
        }
        PageEndpoint::PodcastPlayer { feed_id } => player(api, parts, &feed_id, None, locale).await,
        PageEndpoint::EpisodePlayer { feed_id, show_id } => {
            player(api, parts, &feed_id, Some(show_id), locale).await
        }
        PageEndpoint::OEmbed {} => oembed(api, parts, locale).await,
        PageEndpoint::Robots {} => {
            let mut answer = response::document(StatusCode::OK, TEXT, ROBOTS.into());
            answer
                .headers_mut()
                .put(header::CACHE_CONTROL, "max-age=86400");
            answer
        }
        PageEndpoint::PodcastStats { feed_id } => {
            let found = api
                .host
                .analytics()
                .public_stats_page(&feed_id, locale)
                .await;
            let policy = api.host.delivery().page_policy();
            let mut answer = answer_page(api, parts, found, locale, policy);
            // Asked again each time (a 304 while unchanged): taken down, it is gone at once
            // from browsers and shared caches too.
            answer.headers_mut().put(header::CACHE_CONTROL, "no-cache");
            answer
        }
    }
}

/// The `page` of the query (`PAGE`): 1 when absent, `None` when it is not a whole number
/// from 1.
fn page_number(parts: &Parts) -> Option<usize> {
    let query = parts.uri.query().unwrap_or("");
    match form_urlencoded::parse(query.as_bytes()).find(|(name, _)| name == PAGE.name) {
        None => Some(1),
        Some((_, value)) => value.parse::<usize>().ok().filter(|n| *n >= 1),
    }
}

/// `GET /podcasts/{feed_id}[/{episode_id}]`, the `number`th page of the podcast's episodes.
async fn page(
    api: &Api,
    parts: &Parts,
    feed: &FeedId,
    episode: Option<EpisodeId>,
    number: usize,
    locale: Locale,
) -> Response<Body> {
    let found = api
        .host
        .delivery()
        .public_page(feed, episode, number, locale)
        .await;
    answer_page(api, parts, found, locale, api.host.delivery().page_policy())
}

/// `GET /embed/{feed_id}[/{episode_id}]`: the player, framed by any site (its notices too, so
/// that a framing site shows why there is none).
async fn player(
    api: &Api,
    parts: &Parts,
    feed: &FeedId,
    episode: Option<EpisodeId>,
    locale: Locale,
) -> Response<Body> {
    let found = api
        .host
        .delivery()
        .public_player(feed, episode, locale)
        .await;
    answer_page(
        api,
        parts,
        found,
        locale,
        api.host.delivery().player_policy(),
    )
}

/// `GET /oembed?url=...&format=json`: the player for a page's URL, in oEmbed's shape; open to
/// scripts of any origin.
async fn oembed(api: &Api, parts: &Parts, locale: Locale) -> Response<Body> {
    let query = parts.uri.query().unwrap_or("");
    let param = |name: &str| {
        form_urlencoded::parse(query.as_bytes())
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.into_owned())
    };
    let size = |name: &str| match param(name) {
        None => Ok(None),
        Some(v) => v
            .parse::<u32>()
            .ok()
            .filter(|n| *n >= 1)
            .map(Some)
            .ok_or_else(|| ApiError::BadRequest(format!("{name} is a whole number from 1"))),
    };
    let answer = async {
        let url = param(OEMBED_URL.name)
            .ok_or_else(|| ApiError::BadRequest("url: the page to embed is required".into()))?;
        match param(OEMBED_FORMAT.name).as_deref() {
            None | Some("json") => {}
            Some(other) => {
                return Err(ApiError::NotImplemented(format!(
                    "format \"{other}\": only json is answered"
                )));
            }
        }
        let max = (size(OEMBED_MAX_WIDTH.name)?, size(OEMBED_MAX_HEIGHT.name)?);
        let embedding = api.host.delivery().embedding(&url, max, locale).await?;
        Ok(response::json(StatusCode::OK, &OEmbed::from(embedding)))
    };
    let mut answer = answer.await.unwrap_or_else(|e| response::error(&e));
    headers::any_origin(answer.headers_mut());
    answer
}

/// A page as found: the document (validators, 304), or the notice of why there is none, kept
/// to `policy`.
fn answer_page(
    api: &Api,
    parts: &Parts,
    found: podhost_core::Result<PublicPage>,
    locale: Locale,
    policy: &str,
) -> Response<Body> {
    let rendered = match found {
        Ok(PublicPage::Live(rendered)) => rendered,
        Ok(PublicPage::Gone) => return notice(StatusCode::GONE, Notice::Gone, locale, policy),
        Err(podhost_core::Error::NotFound { .. }) => {
            return notice(StatusCode::NOT_FOUND, Notice::NotFound, locale, policy);
        }
        Err(e) => return response::error(&ApiError::Core(e)),
    };
    let mut answer = documents::document(
        api,
        parts,
        &Document {
            bytes: &rendered.html,
            etag: &rendered.etag,
            last_modified: rendered.last_modified,
            content_type: HTML,
        },
    );
    protect(&mut answer, policy);
    answer
}

/// The page answered for a path that names no page, in the browser's language.
pub(crate) fn not_found(api: &Api, parts: &Parts) -> Response<Body> {
    let chosen = language::chosen(parts);
    let mut answer = notice(
        StatusCode::NOT_FOUND,
        Notice::NotFound,
        chosen.locale,
        api.host.delivery().page_policy(),
    );
    language::answered_in(&mut answer, chosen, api.host.urls().is_https());
    answer
}

/// A short HTML page saying why there is no page, never cached for long (a scheduled episode's
/// page appears by itself).
fn notice(status: StatusCode, notice: Notice, locale: Locale, policy: &str) -> Response<Body> {
    let mut answer = Response::new(response::full(page::notice_page(notice, locale)));
    *answer.status_mut() = status;
    answer
        .headers_mut()
        .put(header::CONTENT_TYPE, HTML)
        .put(header::CACHE_CONTROL, "no-cache");
    protect(&mut answer, policy);
    answer
}

/// The headers that keep a page to itself: its Content-Security-Policy, no content sniffing.
fn protect(answer: &mut Response<Body>, policy: &str) {
    headers::kept_to(answer.headers_mut(), policy)
        .put(header::REFERRER_POLICY, "strict-origin-when-cross-origin");
}
