//! The public side: what podcast apps fetch without a token. The RSS feed at
//! `/feeds/{feed_id}/rss`, with validators, conditional requests and gzip (`documents.rs`, which
//! the web pages of `page.rs` share); downloads at `/media/{account}/{blob}/{name}`; chapters at
//! `/chapters/{account}/{blob}.json`; a private podcast's subscriber's feed, files and chapters
//! under `/private/{feed_id}/{key}/`, each answered `Cache-Control: private` and 410 once the
//! subscriber is revoked. Routing, `405` and `HEAD` are the API's (the route table).

use crate::headers::{self, SetHeader};
use bytes::Bytes;
use std::ops::Range;

use futures::StreamExt;
use http::{HeaderValue, Method, Response, StatusCode, header, request::Parts};
use http_body_util::{BodyExt, StreamBody};
use podhost_core::{
    Caching, Download, DownloadAnswer, DownloadUrl, FeedId, Private, StreamFile,
    publish::{PublicFeed, RenderedFeed},
};

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
            let heard = api
                .host
                .ads()
                .listener_chapters(&account, &blob, &listener)
                .await;
            chapters(heard.map(Private::Live), Audience::Public)
        }
        E::Stream { account, blob } => {
            let url = DownloadUrl::Public {
                account: &account,
                blob: &blob,
            };
            // `?from={rendition}`: the episode page's playlist, from the rung that fits it.
            let from = parts
                .uri
                .query()
                .into_iter()
                .flat_map(|q| q.split('&'))
                .find_map(|pair| pair.strip_prefix("from="));
            let file = match from {
                Some(from) => StreamFile::MultivariantFrom(from),
                None => StreamFile::Multivariant,
            };
            stream(api, parts, url, file).await
        }
        E::StreamFile {
            account,
            blob,
            track,
            file,
        } => {
            let url = DownloadUrl::Public {
                account: &account,
                blob: &blob,
            };
            stream(
                api,
                parts,
                url,
                StreamFile::Track {
                    track: &track,
                    file: &file,
                },
            )
            .await
        }
        E::PrivateStream { feed_id, key, blob } => {
            let url = DownloadUrl::Subscriber {
                feed: &feed_id,
                key: &key,
                blob: &blob,
            };
            stream(api, parts, url, StreamFile::Multivariant).await
        }
        E::PrivateStreamFile {
            feed_id,
            key,
            blob,
            track,
            file,
        } => {
            let url = DownloadUrl::Subscriber {
                feed: &feed_id,
                key: &key,
                blob: &blob,
            };
            stream(
                api,
                parts,
                url,
                StreamFile::Track {
                    track: &track,
                    file: &file,
                },
            )
            .await
        }
        E::PrivateChapters { feed_id, key, blob } => {
            let listener = downloads::listener(api, parts);
            let heard = api
                .host
                .delivery()
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

    /// `Cache-Control` of what changes rarely (a video's playlists, with a new package).
    fn for_a_minute(self) -> &'static str {
        match self {
            Audience::Public => "public, max-age=60",
            Audience::Subscriber => "private, max-age=60",
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
    let rendered = match api.host.delivery().public_feed(id).await {
        Ok(PublicFeed::Live(rendered)) => rendered,
        Ok(PublicFeed::Moved(url)) => {
            let mut moved = plain(StatusCode::MOVED_PERMANENTLY, "this podcast moved");
            moved.headers_mut().put_text(header::LOCATION, &url);
            return moved;
        }
        Ok(PublicFeed::Gone) => return plain(StatusCode::GONE, "this podcast was deleted"),
        Err(e) => return response::error(&ApiError::Core(e)),
    };
    feed_document(api, parts, &rendered)
}

/// A rendered feed as a document: its validators, 304, gzip.
fn feed_document(api: &Api, parts: &Parts, rendered: &RenderedFeed) -> Response<Body> {
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
    let rendered = match api.host.delivery().private_feed(id, key).await {
        Ok(Private::Live(rendered)) => rendered,
        Ok(Private::Gone) => {
            return plain(StatusCode::GONE, "this subscription was revoked");
        }
        Err(e) => return response::error(&ApiError::Core(e)),
    };
    let mut answer = feed_document(api, parts, &rendered);
    // One subscriber's feed is theirs alone: no shared cache keeps it.
    answer
        .headers_mut()
        .put(header::CACHE_CONTROL, "private, max-age=300");
    answer
}

/// `GET /private/{feed_id}/{key}/media/{blob}/{name}`: a private podcast's file through a
/// subscriber's key, answered as public downloads are (never redirected: a presigned URL would
/// open the file without their key for its lifetime); 410 once the subscriber was revoked.
async fn private_media(
    api: &Api,
    parts: &Parts,
    feed: &FeedId,
    key: &str,
    blob: &str,
) -> Response<Body> {
    let url = DownloadUrl::Subscriber { feed, key, blob };
    serve_download(api, parts, url).await
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
    h.put(header::CONTENT_TYPE, podhost_core::publish::chapters::MIME);
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    h.put(
        header::CACHE_CONTROL,
        match shifted {
            false => audience.for_a_day(),
            true => "private, no-cache",
        },
    );
    headers::any_origin(h);
    answer
}

/// `GET /media/{account}/{blob}/{name}`: a download, with single ranges, validators and
/// `If-Range`; never compressed; streamed from the store. The API answers `HEAD` with the `GET`
/// answer's head; here `HEAD` only spares the store read (and so records no delivery).
async fn media(api: &Api, parts: &Parts, account: &str, blob: &str) -> Response<Body> {
    serve_download(api, parts, DownloadUrl::Public { account, blob }).await
}

/// Answers a download by what the core says it is (one call): a redirect to the store, the
/// stored file, or the listener's own answer (the episode with their ads, a transcript moved by
/// them); 410 for a revoked subscriber.
async fn serve_download(api: &Api, parts: &Parts, url: DownloadUrl<'_>) -> Response<Body> {
    let listener = downloads::listener(api, parts);
    let found = api.host.delivery().download(url, &listener).await;
    serve(parts, found).await
}

/// `GET …/media/{blob}/hls/master.m3u8` and `GET …/media/{blob}/hls/{track}/{file}`: a video's
/// HLS stream, answered as downloads are (ranges, validators, redirects, 410), a playlist kept
/// a minute and a segment for good.
async fn stream(
    api: &Api,
    parts: &Parts,
    url: DownloadUrl<'_>,
    file: StreamFile<'_>,
) -> Response<Body> {
    let listener = downloads::listener(api, parts);
    let found = api.host.delivery().stream(url, file, &listener).await;
    serve(parts, found).await
}

/// Answers what the core found for a download or a stream's file.
async fn serve(parts: &Parts, found: podhost_core::Result<Download>) -> Response<Body> {
    let answer = match found {
        Ok(Download::Answer(answer)) => answer,
        Ok(Download::Redirect(redirect)) => return downloads::redirect(parts, &redirect),
        Ok(Download::Revoked) => return plain(StatusCode::GONE, "this subscription was revoked"),
        Err(e) => return response::error(&ApiError::Core(e)),
    };
    let (status, range) = status_and_range(parts, &answer);
    let body = match (&range, parts.method == Method::HEAD) {
        (Some(r), false) if r.end > r.start => match answer.bytes(r.clone()).await {
            Ok(stream) => {
                let frames = stream.map(|chunk| {
                    chunk
                        .map(hyper::body::Frame::data)
                        .map_err(std::io::Error::other)
                });
                BodyExt::boxed_unsync(StreamBody::new(frames))
            }
            Err(e) => return response::error(&ApiError::Core(e)),
        },
        _ => response::full(Bytes::new()),
    };
    let mut response = Response::new(body);
    *response.status_mut() = status;
    download_headers(response.headers_mut(), &answer, status, range);
    response
}

/// The status of a download and the bytes it sends, by its validators and `Range`: a stored
/// file is validated by its ETag or its date, a listener's answer (with ads, or a transcript
/// moved by them: it changes with the campaigns, not with the file's date) by its ETag alone.
fn status_and_range(parts: &Parts, served: &DownloadAnswer) -> (StatusCode, Option<Range<u64>>) {
    let (size, etag) = (served.size(), quoted_etag(served));
    let headers = &parts.headers;
    let header = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    let not_modified = match served.last_modified() {
        Some(date) => not_modified(headers, &etag, date),
        None => header(header::IF_NONE_MATCH).is_some_and(|tags| {
            tags.split(',')
                .map(str::trim)
                .any(|t| t == "*" || t == etag.as_str())
        }),
    };
    // If-Range: the range holds only for the same validator (a strong ETag or the exact date).
    let date = http_date(served);
    let range_applies =
        header(header::IF_RANGE).is_none_or(|v| v == etag.as_str() || date.as_deref() == Some(v));
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
    served: &DownloadAnswer,
    status: StatusCode,
    range: Option<Range<u64>>,
) {
    h.put(header::ACCEPT_RANGES, "bytes");
    // Uploaded files share the site's origin (and its session cookie): an HTML transcript or
    // an SVG must never run as a page of it. Sandboxed, it is an opaque origin without scripts.
    h.put(header::CONTENT_SECURITY_POLICY, UPLOADED_FILE_POLICY);
    h.put(header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    // A stored file never changes (a subscriber's is kept by their client alone); a
    // listener's answer changes with the campaigns: no shared cache keeps it, and a client asks
    // again (its ETag answers 304).
    let audience = match served.private() {
        true => Audience::Subscriber,
        false => Audience::Public,
    };
    h.put(
        header::CACHE_CONTROL,
        match served.caching() {
            Caching::Immutable => audience.immutable(),
            Caching::Short => audience.for_a_minute(),
            Caching::Listener => "private, no-cache",
        },
    );
    headers::any_origin(h);
    h.put_text(header::ETAG, &quoted_etag(served));
    if let Some(date) = http_date(served) {
        h.put_text(header::LAST_MODIFIED, &date);
    }
    if status != StatusCode::NOT_MODIFIED {
        h.put_text(header::CONTENT_TYPE, served.mime());
    }
    let size = served.size();
    match (range, status) {
        (Some(r), _) => {
            h.insert(header::CONTENT_LENGTH, HeaderValue::from(r.end - r.start));
            if status == StatusCode::PARTIAL_CONTENT {
                let value = format!("bytes {}-{}/{}", r.start, r.end - 1, size);
                h.put_text(header::CONTENT_RANGE, &value);
            }
        }
        (None, StatusCode::RANGE_NOT_SATISFIABLE) => {
            h.put_text(header::CONTENT_RANGE, &format!("bytes */{size}"));
        }
        _ => {}
    }
}

/// The ETag, quoted as the header carries it.
fn quoted_etag(served: &DownloadAnswer) -> String {
    format!("\"{}\"", served.etag())
}

/// `Last-Modified` of a stored file, as the header carries it; none for a listener's answer.
fn http_date(served: &DownloadAnswer) -> Option<String> {
    served.last_modified().and_then(|date| {
        jiff::fmt::rfc2822::DateTimePrinter::new()
            .timestamp_to_rfc9110_string(&date)
            .ok()
    })
}
