//! The public side: what podcast apps fetch without a token. The RSS feed at
//! `/feeds/{feed_id}/rss`, with validators, conditional requests and gzip (`documents.rs`, which
//! the web pages of `page.rs` share); downloads at `/media/{account}/{blob}/{name}`; chapters at
//! `/chapters/{account}/{blob}.json`; a private podcast's subscriber's feed, files and chapters
//! under `/private/{feed_id}/{key}/`, each answered `Cache-Control: private` and 410 once the
//! subscriber is revoked. Routing, `405` and `HEAD` are the API's (the route table).

use bytes::Bytes;
use std::ops::Range;

use futures::StreamExt;
use http::{HeaderValue, Method, Response, StatusCode, header, request::Parts};
use http_body_util::{BodyExt, StreamBody};
use podhost_core::{FeedId, Private, publish::PublicFeed};

use crate::{
    context::Api,
    documents::{self, Document, not_modified},
    downloads,
    error::ApiError,
    response::{self, Body},
    routes::public::PublicEndpoint,
};

/// Answers a request of the public side.
pub(crate) async fn answer(api: &Api, endpoint: PublicEndpoint, parts: &Parts) -> Response<Body> {
    use PublicEndpoint as E;
    match endpoint {
        E::Rss { feed_id } => feed(api, parts, &feed_id).await,
        // The name is the file's, for people and players; the blob names the bytes.
        E::Download {
            account,
            blob,
            name: _,
        } => media(api, parts, &account, &blob).await,
        E::PrivateRss { feed_id, key } => private_feed(api, parts, &feed_id, &key).await,
        E::PrivateDownload {
            feed_id,
            key,
            blob,
            name: _,
        } => private_media(api, parts, &feed_id, &key, &blob).await,
        E::Chapters { account, blob } => {
            let listener = downloads::listener(api, parts);
            let heard = api.host.listener_chapters(&account, &blob, &listener).await;
            chapters(heard.map(Private::Live), Audience::Public)
        }
        E::PrivateChapters { feed_id, key, blob } => {
            let listener = downloads::listener(api, parts);
            let heard = api
                .host
                .private_chapters(&feed_id, &key, &blob, &listener)
                .await;
            chapters(heard, Audience::Subscriber)
        }
    }
}

/// Whom an answer of the public side is for: anyone (a shared cache may keep it), or one
/// subscriber of a private podcast (only their own client may).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Audience {
    Public,
    Subscriber,
}

impl Audience {
    /// `Cache-Control` of what never changes (a stored file's bytes).
    fn immutable(self) -> &'static str {
        match self {
            Audience::Public => "public, max-age=31536000, immutable",
            Audience::Subscriber => "private, max-age=31536000, immutable",
        }
    }

    /// `Cache-Control` of what changes only with a new file (its chapters).
    fn for_a_day(self) -> &'static str {
        match self {
            Audience::Public => "public, max-age=86400",
            Audience::Subscriber => "private, max-age=86400",
        }
    }
}

/// `GET /feeds/{feed_id}/rss`.
async fn feed(api: &Api, parts: &Parts, id: &FeedId) -> Response<Body> {
    let rendered = match api.host.public_feed(id).await {
        Ok(PublicFeed::Live(rendered)) => rendered,
        Ok(PublicFeed::Moved(url)) => {
            let mut moved = plain(StatusCode::MOVED_PERMANENTLY, "this podcast moved");
            if let Ok(location) = HeaderValue::from_str(&url) {
                moved.headers_mut().insert(header::LOCATION, location);
            }
            return moved;
        }
        Ok(PublicFeed::Gone) => return plain(StatusCode::GONE, "this podcast was deleted"),
        Err(e) => return response::error(&ApiError::Core(e)),
    };
    documents::document(
        api,
        parts,
        &Document {
            bytes: &rendered.xml,
            etag: &rendered.etag,
            last_modified: rendered.last_modified,
            content_type: "application/rss+xml; charset=utf-8",
        },
    )
}

/// `GET /private/{feed_id}/{key}/rss`: a subscriber's copy of a private podcast's feed, as the
/// public feed is answered (validators, 304, gzip); 410 once the subscriber was revoked.
async fn private_feed(api: &Api, parts: &Parts, id: &FeedId, key: &str) -> Response<Body> {
    let rendered = match api.host.private_feed(id, key).await {
        Ok(Private::Live(rendered)) => rendered,
        Ok(Private::Gone) => {
            return plain(StatusCode::GONE, "this subscription was revoked");
        }
        Err(e) => return response::error(&ApiError::Core(e)),
    };
    let mut answer = documents::document(
        api,
        parts,
        &Document {
            bytes: &rendered.xml,
            etag: &rendered.etag,
            last_modified: rendered.last_modified,
            content_type: "application/rss+xml; charset=utf-8",
        },
    );
    // One subscriber's feed is theirs alone: no shared cache keeps it.
    answer.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, max-age=300"),
    );
    answer
}

/// `GET /private/{feed_id}/{key}/media/{blob}/{name}`: a private podcast's file through a
/// subscriber's key, answered as public downloads are; 410 once the subscriber was revoked.
async fn private_media(
    api: &Api,
    parts: &Parts,
    feed: &FeedId,
    key: &str,
    blob: &str,
) -> Response<Body> {
    match api.host.private_media(feed, key, blob).await {
        Ok(Private::Live((account, media))) => {
            // The key begins with the subscriber's id (`sub_` and 16 characters).
            let subscriber = key.get(..20);
            serve_media(api, parts, account.as_str(), blob, media, subscriber).await
        }
        Ok(Private::Gone) => plain(StatusCode::GONE, "this subscription was revoked"),
        Err(e) => response::error(&ApiError::Core(e)),
    }
}

fn plain(status: StatusCode, message: &str) -> Response<Body> {
    response::json(status, &serde_json::json!({ "message": message }))
}

/// The Content-Security-Policy of every uploaded file served: a document is sandboxed (an
/// opaque origin, no scripts) and loads nothing.
const UPLOADED_FILE_POLICY: &str = "sandbox; default-src 'none'; style-src 'unsafe-inline'";

/// A file's JSON chapters (`podcast:chapters`): `GET /chapters/{account}/{blob}.json`, or a
/// subscriber's `GET /private/{feed_id}/{key}/chapters/{blob}.json` (410 once revoked). A file's
/// chapters change only with a new file (a new blob), so they may be kept a day; those of an
/// episode with ads are the listener's (moved by the ads their download carries).
fn chapters(
    heard: podhost_core::Result<Private<(Bytes, bool)>>,
    audience: Audience,
) -> Response<Body> {
    let (json, shifted) = match heard {
        Ok(Private::Live(heard)) => heard,
        Ok(Private::Gone) => return plain(StatusCode::GONE, "this subscription was revoked"),
        Err(e) => return response::error(&ApiError::Core(e)),
    };
    let length = json.len();
    let mut answer = Response::new(response::full(json));
    let h = answer.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(podhost_core::publish::chapters::MIME),
    );
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(match shifted {
            false => audience.for_a_day(),
            true => "private, no-cache",
        }),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    answer
}

/// `GET /media/{account}/{blob}/{name}`: a download, with single ranges, validators and
/// `If-Range`; never compressed; streamed from the store. The API answers `HEAD` with the `GET`
/// answer's head; here `HEAD` only spares the store read (and so records no delivery).
async fn media(api: &Api, parts: &Parts, account: &str, blob: &str) -> Response<Body> {
    match api.host.public_media(account, blob).await {
        Ok(media) => serve_media(api, parts, account, blob, media, None).await,
        Err(e) => response::error(&ApiError::Core(e)),
    }
}

/// Answers a download of `media` (found by its account and blob): the file as stored, or the
/// episode with ads at its breaks for this listener (never redirected: the store does not hold
/// it). A subscriber's download is never redirected either: a presigned URL would open the file
/// without their key for its lifetime, and a revocation must hold at once.
async fn serve_media(
    api: &Api,
    parts: &Parts,
    account: &str,
    blob: &str,
    media: podhost_core::publish::PublicMedia,
    subscriber: Option<&str>,
) -> Response<Body> {
    let listener = downloads::listener(api, parts);
    let enclosure = match podhost_core::AccountId::new(account) {
        Ok(id) => api.host.enclosure_for(&id, media, &listener).await,
        Err(_) => Ok(podhost_core::Enclosure::File(media)),
    };
    let audience = match subscriber {
        Some(_) => Audience::Subscriber,
        None => Audience::Public,
    };
    let answer = match enclosure {
        Ok(podhost_core::Enclosure::File(media)) if audience == Audience::Subscriber => {
            Served::File(media)
        }
        Ok(podhost_core::Enclosure::File(media)) => match api.host.media_redirect(&media).await {
            Ok(Some(url)) => {
                return downloads::redirect(api, parts, account, blob, &media, &url, subscriber);
            }
            Ok(None) => Served::File(media),
            Err(e) => return response::error(&ApiError::Core(e)),
        },
        Ok(podhost_core::Enclosure::Stitched(stitched)) => Served::Stitched(stitched),
        Ok(podhost_core::Enclosure::Retimed(text)) => Served::Retimed(text),
        Err(e) => return response::error(&ApiError::Core(e)),
    };
    let served = &answer;
    let (status, range) = status_and_range(parts, served);
    let body = match (&range, parts.method == Method::HEAD) {
        (Some(r), false) if r.end > r.start => {
            let stream = match served {
                Served::File(media) => match api.host.media_bytes(media, r.clone()).await {
                    Ok(stream) => stream,
                    Err(e) => return response::error(&ApiError::Core(e)),
                },
                Served::Stitched(answer) => api.host.stitched_bytes(answer, r.clone()),
                Served::Retimed(text) => {
                    let part = text.bytes.slice(r.start as usize..r.end as usize);
                    futures::stream::once(async move { Ok(part) }).boxed()
                }
            };
            let mut delivery =
                downloads::delivery(api, parts, account, blob, r.clone(), subscriber);
            if let Served::Stitched(answer) = served {
                delivery.stitched = Some(answer.delivery());
            }
            let stream = downloads::Counted::new(stream, api.host.clone(), delivery);
            let frames = stream.map(|chunk| {
                chunk
                    .map(hyper::body::Frame::data)
                    .map_err(std::io::Error::other)
            });
            BodyExt::boxed_unsync(StreamBody::new(frames))
        }
        _ => response::full(Bytes::new()),
    };
    let mut answer = Response::new(body);
    *answer.status_mut() = status;
    download_headers(answer.headers_mut(), served, status, range, audience);
    answer
}

/// The status of a download and the bytes it sends, by its validators and `Range`: a stored
/// file is validated by its ETag or its date, a listener's answer (with ads, or a transcript
/// moved by them: it changes with the campaigns, not with the file's date) by its ETag alone.
fn status_and_range(parts: &Parts, served: &Served) -> (StatusCode, Option<Range<u64>>) {
    let (size, etag) = (served.size(), served.quoted_etag());
    let headers = &parts.headers;
    let header = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    let not_modified = match served {
        Served::File(media) => not_modified(headers, &etag, media.last_modified),
        _ => header(header::IF_NONE_MATCH).is_some_and(|tags| {
            tags.split(',')
                .map(str::trim)
                .any(|t| t == "*" || t == etag.as_str())
        }),
    };
    // If-Range: the range holds only for the same validator (a strong ETag or the exact date).
    let range_applies = header(header::IF_RANGE)
        .is_none_or(|v| v == etag.as_str() || served.last_modified().is_some_and(|date| v == date));
    let ranged = if range_applies {
        crate::ranges::parse(header(header::RANGE), size)
    } else {
        crate::ranges::Ranged::Whole
    };
    match (not_modified, ranged) {
        (true, _) => (StatusCode::NOT_MODIFIED, None),
        (false, crate::ranges::Ranged::Whole) => (StatusCode::OK, Some(0..size)),
        (false, crate::ranges::Ranged::Part(r)) => (StatusCode::PARTIAL_CONTENT, Some(r)),
        (false, crate::ranges::Ranged::Unsatisfiable) => (StatusCode::RANGE_NOT_SATISFIABLE, None),
    }
}

/// The headers of a download answered `status` with the bytes `range` of `served`.
fn download_headers(
    h: &mut http::HeaderMap,
    served: &Served,
    status: StatusCode,
    range: Option<Range<u64>>,
    audience: Audience,
) {
    h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    // Uploaded files share the site's origin (and its session cookie): an HTML transcript or
    // an SVG must never run as a page of it. Sandboxed, it is an opaque origin without scripts.
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(UPLOADED_FILE_POLICY),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    // A stored file never changes (a subscriber's is kept by their client alone); a
    // listener's answer changes with the campaigns: no shared cache keeps it, and a client asks
    // again (its ETag answers 304).
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(match served {
            Served::File(_) => audience.immutable(),
            _ => "private, no-cache",
        }),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    if let Ok(v) = HeaderValue::from_str(&served.quoted_etag()) {
        h.insert(header::ETAG, v);
    }
    if let Some(Ok(v)) = served.last_modified().map(|d| HeaderValue::from_str(&d)) {
        h.insert(header::LAST_MODIFIED, v);
    }
    if status != StatusCode::NOT_MODIFIED
        && let Ok(v) = HeaderValue::from_str(&served.media().mime)
    {
        h.insert(header::CONTENT_TYPE, v);
    }
    let size = served.size();
    match (range, status) {
        (Some(r), _) => {
            h.insert(header::CONTENT_LENGTH, HeaderValue::from(r.end - r.start));
            if status == StatusCode::PARTIAL_CONTENT {
                let value = format!("bytes {}-{}/{}", r.start, r.end - 1, size);
                if let Ok(v) = HeaderValue::from_str(&value) {
                    h.insert(header::CONTENT_RANGE, v);
                }
            }
        }
        (None, StatusCode::RANGE_NOT_SATISFIABLE) => {
            if let Ok(v) = HeaderValue::from_str(&format!("bytes */{size}")) {
                h.insert(header::CONTENT_RANGE, v);
            }
        }
        _ => {}
    }
}

/// What a download answers: the stored file, or a listener's stitched answer.
enum Served {
    File(podhost_core::publish::PublicMedia),
    Stitched(Box<podhost_core::StitchedEnclosure>),
    Retimed(Box<podhost_core::RetimedText>),
}

impl Served {
    fn size(&self) -> u64 {
        match self {
            Served::File(media) => media.size,
            Served::Stitched(answer) => answer.len(),
            Served::Retimed(text) => text.bytes.len() as u64,
        }
    }

    fn etag(&self) -> &str {
        match self {
            Served::File(media) => &media.etag,
            Served::Stitched(answer) => &answer.etag,
            Served::Retimed(text) => &text.etag,
        }
    }

    /// The ETag, quoted as the header carries it.
    fn quoted_etag(&self) -> String {
        format!("\"{}\"", self.etag())
    }

    /// `Last-Modified` of a stored file; none for a listener's answer (a date cannot tell
    /// arrangements apart).
    fn last_modified(&self) -> Option<String> {
        match self {
            Served::File(media) => jiff::fmt::rfc2822::DateTimePrinter::new()
                .timestamp_to_rfc9110_string(&media.last_modified)
                .ok(),
            _ => None,
        }
    }

    /// The stored file (its type).
    fn media(&self) -> &podhost_core::publish::PublicMedia {
        match self {
            Served::File(media) => media,
            Served::Stitched(answer) => &answer.media,
            Served::Retimed(text) => &text.media,
        }
    }
}
