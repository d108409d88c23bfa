//! The public web pages at the `links.web` URLs: `/podcasts/{feed_id}` (the podcast) and
//! `/podcasts/{feed_id}/{episode_id}` (a published episode). HTML rendered by the core, answered
//! like the feed (validators, 304, gzip: [`public::document`]) with a Content-Security-Policy
//! that allows nothing but the page's own stylesheet and the deployment's media.

use http::{HeaderValue, Method, Response, StatusCode, header, request::Parts};
use podhost_core::{
    EpisodeId, FeedId,
    publish::{
        PublicPage,
        page::{self, Notice},
    },
};

use crate::{
    api::Api,
    error::ApiError,
    public::{self, Document},
    response::{self, Body},
};

const HTML: &str = "text/html; charset=utf-8";

/// `GET`/`HEAD /podcasts/{feed_id}[/{episode_id}]`; `rest` is the path after `/podcasts/`.
pub(crate) async fn page(api: &Api, parts: &Parts, rest: &str) -> Response<Body> {
    if parts.method != Method::GET && parts.method != Method::HEAD {
        return response::error(&ApiError::MethodNotAllowed(vec![Method::GET, Method::HEAD]));
    }
    let Some((feed, episode)) = parse(rest) else {
        return notice(api, StatusCode::NOT_FOUND, Notice::NotFound);
    };
    let rendered = match api.host.public_page(&feed, episode).await {
        Ok(PublicPage::Live(rendered)) => rendered,
        Ok(PublicPage::Gone) => return notice(api, StatusCode::GONE, Notice::Gone),
        Err(podhost_core::Error::NotFound { .. }) => {
            return notice(api, StatusCode::NOT_FOUND, Notice::NotFound);
        }
        Err(e) => return response::error(&ApiError::Core(e)),
    };
    let mut answer = public::document(
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

/// The feed id and episode id of a page path; `None` when the path names no page.
fn parse(rest: &str) -> Option<(FeedId, Option<EpisodeId>)> {
    let mut segments = rest.split('/');
    let feed = segments.next()?;
    let episode = segments.next();
    if segments.next().is_some() {
        return None;
    }
    let decoded = percent_encoding::percent_decode_str(feed)
        .decode_utf8()
        .ok()?;
    let feed = FeedId::new(&decoded).ok()?;
    let episode = match episode {
        None => None,
        Some(id) => Some(id.parse::<EpisodeId>().ok()?),
    };
    Some((feed, episode))
}

/// A short HTML page saying why there is no page, never cached for long (a scheduled episode's
/// page appears by itself).
fn notice(api: &Api, status: StatusCode, notice: Notice) -> Response<Body> {
    let mut answer = Response::new(response::full(page::notice_page(notice)));
    *answer.status_mut() = status;
    let h = answer.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(HTML));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    protect(api, &mut answer);
    answer
}

/// The headers that keep a page to itself: its Content-Security-Policy, no content sniffing.
fn protect(api: &Api, answer: &mut Response<Body>) {
    let policy = api.host.page_policy();
    let h = answer.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&policy) {
        h.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("strict-origin-when-cross-origin"),
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn page_paths() {
        let ok = |rest: &str| {
            super::parse(rest).map(|(f, e)| (f.as_str().to_string(), e.map(|e| e.to_string())))
        };
        assert_eq!(ok("my%20show"), Some(("my show".into(), None)));
        assert_eq!(
            ok("show/pod-7"),
            Some(("show".into(), Some("pod-7".into())))
        );
        for bad in ["", "show/", "show/7", "show/pod-7/x", "%FF"] {
            assert_eq!(ok(bad), None, "{bad}");
        }
    }
}
