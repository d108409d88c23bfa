//! The public side: what podcast apps fetch without a token. The RSS feed at
//! `/feeds/{feed_id}/rss`, with validators, conditional requests and gzip ([`document`], which
//! the web pages of `page.rs` share); downloads at `/media/{account}/{blob}/{name}`; chapters at
//! `/chapters/{account}/{blob}.json`. Routing, `405` and `HEAD` are the API's (the route table).

use std::io::Write;

use bytes::Bytes;
use http::{HeaderValue, Method, Response, StatusCode, header, request::Parts};
use podhost_core::{FeedId, Private, publish::PublicFeed};

use crate::{
    api::Api,
    error::ApiError,
    response::{self, Body},
};

/// How long apps, browsers and proxies may reuse a feed or a page without asking.
const PUBLIC_MAX_AGE: &str = "public, max-age=300";

/// `GET /feeds/{feed_id}/rss`.
pub(crate) async fn feed(api: &Api, parts: &Parts, id: &FeedId) -> Response<Body> {
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
    document(
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
pub(crate) async fn private_feed(
    api: &Api,
    parts: &Parts,
    id: &FeedId,
    key: &str,
) -> Response<Body> {
    let rendered = match api.host.private_feed(id, key).await {
        Ok(Private::Live(rendered)) => rendered,
        Ok(Private::Gone) => {
            return plain(StatusCode::GONE, "this subscription was revoked");
        }
        Err(e) => return response::error(&ApiError::Core(e)),
    };
    let mut answer = document(
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
pub(crate) async fn private_media(
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

/// A document rendered by the core (an RSS feed, a web page) with what HTTP caching needs.
pub(crate) struct Document<'a> {
    /// The bytes, uncompressed.
    pub(crate) bytes: &'a Bytes,
    /// The core's strong validator of the bytes, unquoted.
    pub(crate) etag: &'a str,
    /// When the document last changed.
    pub(crate) last_modified: jiff::Timestamp,
    /// Its `Content-Type`.
    pub(crate) content_type: &'static str,
}

/// The answer with a rendered document: ETag (one per encoding) and Last-Modified, 304 for a
/// conditional request that matches, gzip when accepted (compressed once per ETag), public
/// caching for five minutes.
pub(crate) fn document(api: &Api, parts: &Parts, doc: &Document<'_>) -> Response<Body> {
    let headers = &parts.headers;
    let gzip = accepts_gzip(
        headers
            .get(header::ACCEPT_ENCODING)
            .and_then(|v| v.to_str().ok())
            .unwrap_or(""),
    );
    // Each encoding is its own representation with its own strong validator (RFC 9110, 8.8.3).
    let etag = if gzip {
        format!("\"{}-gz\"", doc.etag)
    } else {
        format!("\"{}\"", doc.etag)
    };
    let last_modified = jiff::fmt::rfc2822::DateTimePrinter::new()
        .timestamp_to_rfc9110_string(&doc.last_modified)
        .unwrap_or_default();
    let not_modified = not_modified(headers, &etag, doc.last_modified);
    let mut answer = if not_modified {
        let mut r = Response::new(response::full(Bytes::new()));
        *r.status_mut() = StatusCode::NOT_MODIFIED;
        r
    } else {
        let body = if gzip {
            gzipped(api, doc.etag, doc.bytes)
        } else {
            doc.bytes.clone()
        };
        let mut r = Response::new(response::full(body));
        let h = r.headers_mut();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(doc.content_type),
        );
        if gzip {
            h.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        }
        r
    };
    let h = answer.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    if let Ok(v) = HeaderValue::from_str(&last_modified) {
        h.insert(header::LAST_MODIFIED, v);
    }
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(PUBLIC_MAX_AGE),
    );
    h.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    answer
}

/// Whether a conditional GET is answered 304: `If-None-Match` decides when present (RFC 9110,
/// 13.2.2), else `If-Modified-Since`.
fn not_modified(headers: &http::HeaderMap, etag: &str, last_modified: jiff::Timestamp) -> bool {
    let header = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    match header(header::IF_NONE_MATCH) {
        Some(tags) => tags
            .split(',')
            .map(str::trim)
            .any(|t| t == "*" || t == etag || t.strip_prefix("W/") == Some(etag)),
        None => header(header::IF_MODIFIED_SINCE)
            .and_then(|v| jiff::fmt::rfc2822::parse(v).ok())
            .is_some_and(|since| last_modified.as_second() <= since.timestamp().as_second()),
    }
}

/// Whether `Accept-Encoding` allows gzip: its own entry decides when it has one (`gzip;q=0`
/// refuses it whatever `*` says), else `*`.
fn accepts_gzip(accept: &str) -> bool {
    let mut gzip = None;
    let mut any = None;
    for part in accept.split(',') {
        let mut pieces = part.split(';').map(str::trim);
        let coding = pieces.next().unwrap_or("");
        let q = pieces
            .find_map(|p| {
                p.strip_prefix("q=")
                    .and_then(|q| q.trim().parse::<f32>().ok())
            })
            .unwrap_or(1.0);
        if coding.eq_ignore_ascii_case("gzip") {
            gzip = Some(q > 0.0);
        } else if coding == "*" {
            any = Some(q > 0.0);
        }
    }
    gzip.or(any).unwrap_or(false)
}

/// The gzip of a rendered document, compressed once per ETag.
fn gzipped(api: &Api, etag: &str, xml: &Bytes) -> Bytes {
    let mut cache = api.gzipped.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(bytes) = cache.get(etag) {
        return bytes.clone();
    }
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let _ = encoder.write_all(xml);
    let bytes = Bytes::from(encoder.finish().unwrap_or_default());
    if cache.len() > 10_000 {
        cache.clear();
    }
    cache.insert(etag.to_string(), bytes.clone());
    bytes
}

fn plain(status: StatusCode, message: &str) -> Response<Body> {
    response::json(status, &serde_json::json!({ "message": message }))
}

/// The Content-Security-Policy of every uploaded file served: a document is sandboxed (an
/// opaque origin, no scripts) and loads nothing.
const UPLOADED_FILE_POLICY: &str = "sandbox; default-src 'none'; style-src 'unsafe-inline'";

/// `GET /chapters/{account}/{blob}.json`: a file's JSON chapters (`podcast:chapters`).
/// A file's chapters change only with a new file (a new blob), so they may be cached a day.
pub(crate) async fn chapters(api: &Api, account: &str, blob: &str) -> Response<Body> {
    let json = match api.host.public_chapters(account, blob).await {
        Ok(json) => json,
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
        HeaderValue::from_static("public, max-age=86400"),
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
pub(crate) async fn media(api: &Api, parts: &Parts, account: &str, blob: &str) -> Response<Body> {
    match api.host.public_media(account, blob).await {
        Ok(media) => serve_media(api, parts, account, blob, media, None).await,
        Err(e) => response::error(&ApiError::Core(e)),
    }
}

/// Answers a download of `media` (found by its account and blob).
async fn serve_media(
    api: &Api,
    parts: &Parts,
    account: &str,
    blob: &str,
    media: podhost_core::publish::PublicMedia,
    subscriber: Option<&str>,
) -> Response<Body> {
    use futures::StreamExt;
    use http_body_util::{BodyExt, StreamBody};
    match api.host.media_redirect(&media).await {
        Ok(Some(url)) => {
            return crate::downloads::redirect(api, parts, account, blob, &media, &url, subscriber);
        }
        Ok(None) => {}
        Err(e) => return response::error(&ApiError::Core(e)),
    }
    let etag = format!("\"{}\"", media.etag);
    let last_modified = jiff::fmt::rfc2822::DateTimePrinter::new()
        .timestamp_to_rfc9110_string(&media.last_modified)
        .unwrap_or_default();
    let headers = &parts.headers;
    let header = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    let not_modified = not_modified(headers, &etag, media.last_modified);
    // If-Range: the range holds only for the same validator (a strong ETag or the exact date).
    let range_applies = header(header::IF_RANGE).is_none_or(|v| v == etag || v == last_modified);
    let ranged = if range_applies {
        crate::ranges::parse(header(header::RANGE), media.size)
    } else {
        crate::ranges::Ranged::Whole
    };
    let (status, range) = match (not_modified, ranged) {
        (true, _) => (StatusCode::NOT_MODIFIED, None),
        (false, crate::ranges::Ranged::Whole) => (StatusCode::OK, Some(0..media.size)),
        (false, crate::ranges::Ranged::Part(r)) => (StatusCode::PARTIAL_CONTENT, Some(r)),
        (false, crate::ranges::Ranged::Unsatisfiable) => (StatusCode::RANGE_NOT_SATISFIABLE, None),
    };
    let body = match (&range, parts.method == Method::HEAD) {
        (Some(r), false) if r.end > r.start => {
            match api.host.media_bytes(&media, r.clone()).await {
                Ok(stream) => {
                    let delivery = crate::downloads::delivery(
                        api,
                        parts,
                        account,
                        blob,
                        r.clone(),
                        subscriber,
                    );
                    let stream = crate::downloads::Counted::new(stream, api.host.clone(), delivery);
                    let frames = stream.map(|chunk| {
                        chunk
                            .map(hyper::body::Frame::data)
                            .map_err(std::io::Error::other)
                    });
                    BodyExt::boxed_unsync(StreamBody::new(frames))
                }
                Err(e) => return response::error(&ApiError::Core(e)),
            }
        }
        _ => response::full(Bytes::new()),
    };
    let mut answer = Response::new(body);
    *answer.status_mut() = status;
    let h = answer.headers_mut();
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
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    for (name, value) in [
        (header::ETAG, etag.as_str()),
        (header::LAST_MODIFIED, last_modified.as_str()),
    ] {
        if let Ok(v) = HeaderValue::from_str(value) {
            h.insert(name, v);
        }
    }
    if status != StatusCode::NOT_MODIFIED
        && let Ok(v) = HeaderValue::from_str(&media.mime)
    {
        h.insert(header::CONTENT_TYPE, v);
    }
    match (&range, status) {
        (Some(r), _) => {
            h.insert(header::CONTENT_LENGTH, HeaderValue::from(r.end - r.start));
            if status == StatusCode::PARTIAL_CONTENT {
                let value = format!("bytes {}-{}/{}", r.start, r.end - 1, media.size);
                if let Ok(v) = HeaderValue::from_str(&value) {
                    h.insert(header::CONTENT_RANGE, v);
                }
            }
        }
        (None, StatusCode::RANGE_NOT_SATISFIABLE) => {
            if let Ok(v) = HeaderValue::from_str(&format!("bytes */{}", media.size)) {
                h.insert(header::CONTENT_RANGE, v);
            }
        }
        _ => {}
    }
    answer
}

#[cfg(test)]
mod tests {
    #[test]
    fn accept_encoding() {
        let cases = [
            ("gzip", true),
            ("gzip, deflate, br", true),
            ("br;q=1.0, gzip;q=0.8", true),
            ("gzip;q=0", false),
            ("identity", false),
            ("", false),
            ("*", true),
        ];
        for (header, gzip) in cases {
            assert_eq!(super::accepts_gzip(header), gzip, "{header}");
        }
    }
}
