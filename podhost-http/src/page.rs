//! The public web pages at the `links.web` URLs: `/podcasts/{feed_id}` (the podcast) and
//! `/podcasts/{feed_id}/{episode_id}` (a published episode), and `/podcasts/{feed_id}/stats` (the
//! podcast's public statistics, when its podcaster published them). HTML rendered by the core, answered
//! like the feed (validators, 304, gzip: `documents.rs`) with a Content-Security-Policy
//! that allows nothing but the page's own stylesheet and the deployment's media.

use crate::headers::{self, HTML, SetHeader};
use http::{Response, StatusCode, header, request::Parts};
use podhost_core::{
    EpisodeId, FeedId,
    publish::{
        PublicPage,
        page::{self, Notice},
    },
};

use crate::{
    context::Api,
    documents::{self, Document},
    error::ApiError,
    response::{self, Body},
    routes::{pages::PageEndpoint, query::PAGE},
};

/// Answers a request for a web page.
pub(crate) async fn answer(api: &Api, endpoint: PageEndpoint, parts: &Parts) -> Response<Body> {
    match endpoint {
        PageEndpoint::PodcastPage { feed_id } => match page_number(parts) {
            Some(number) => page(api, parts, &feed_id, None, number).await,
            None => notice(api, StatusCode::BAD_REQUEST, Notice::BadPageNumber),
        },
        PageEndpoint::EpisodePage { feed_id, show_id } => {
            page(api, parts, &feed_id, Some(show_id), 1).await
        }
        PageEndpoint::PodcastStats { feed_id } => {
            let found = api.host.analytics().public_stats_page(&feed_id).await;
            let mut answer = answer_page(api, parts, found);
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
) -> Response<Body> {
    let found = api.host.delivery().public_page(feed, episode, number).await;
    answer_page(api, parts, found)
}

/// A page as found: the document (validators, 304), or the notice of why there is none.
fn answer_page(
    api: &Api,
    parts: &Parts,
    found: podhost_core::Result<PublicPage>,
) -> Response<Body> {
    let rendered = match found {
        Ok(PublicPage::Live(rendered)) => rendered,
        Ok(PublicPage::Gone) => return notice(api, StatusCode::GONE, Notice::Gone),
        Err(podhost_core::Error::NotFound { .. }) => {
            return notice(api, StatusCode::NOT_FOUND, Notice::NotFound);
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
    protect(api, &mut answer);
    answer
}

/// The page answered for a path that names no page.
pub(crate) fn not_found(api: &Api) -> Response<Body> {
    notice(api, StatusCode::NOT_FOUND, Notice::NotFound)
}

/// A short HTML page saying why there is no page, never cached for long (a scheduled episode's
/// page appears by itself).
fn notice(api: &Api, status: StatusCode, notice: Notice) -> Response<Body> {
    let mut answer = Response::new(response::full(page::notice_page(notice)));
    *answer.status_mut() = status;
    answer
        .headers_mut()
        .put(header::CONTENT_TYPE, HTML)
        .put(header::CACHE_CONTROL, "no-cache");
    protect(api, &mut answer);
    answer
}

/// The headers that keep a page to itself: its Content-Security-Policy, no content sniffing.
fn protect(api: &Api, answer: &mut Response<Body>) {
    headers::kept_to(answer.headers_mut(), &api.host.delivery().page_policy())
        .put(header::REFERRER_POLICY, "strict-origin-when-cross-origin");
}
