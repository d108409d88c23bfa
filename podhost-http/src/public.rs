//! The public side: what podcast apps fetch without a token. The RSS feed at
//! `/feeds/{feed_id}/rss`, with validators, conditional requests and gzip.

use std::io::Write;

use bytes::Bytes;
use http::{HeaderValue, Method, Response, StatusCode, header, request::Parts};
use http_body_util::Full;
use podhost_core::{FeedId, publish::PublicFeed};

use crate::{
    api::Api,
    error::ApiError,
    response::{self, Body},
};

/// How long apps and proxies may reuse a feed without asking.
const FEED_MAX_AGE: &str = "public, max-age=300";

/// `GET`/`HEAD /feeds/{feed_id}/rss`; `rest` is the path after `/feeds/`.
pub(crate) async fn feed(api: &Api, parts: &Parts, rest: &str) -> Response<Body> {
    let Some(encoded) = rest.strip_suffix("/rss") else {
        return response::error(&ApiError::NoRoute);
    };
    if parts.method != Method::GET && parts.method != Method::HEAD {
        return response::error(&ApiError::MethodNotAllowed(vec![Method::GET, Method::HEAD]));
    }
    let decoded = percent_encoding::percent_decode_str(encoded).decode_utf8_lossy();
    let Ok(id) = FeedId::new(&decoded) else {
        return response::error(&ApiError::NoRoute);
    };
    let rendered = match api.host.public_feed(&id).await {
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
    let etag = format!("\"{}\"", rendered.etag);
    let last_modified = jiff::fmt::rfc2822::DateTimePrinter::new()
        .timestamp_to_rfc9110_string(&rendered.last_modified)
        .unwrap_or_default();
    let headers = &parts.headers;
    let not_modified = match headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
    {
        // If-None-Match wins over If-Modified-Since (RFC 9110, 13.2.2).
        Some(tags) => tags
            .split(',')
            .map(str::trim)
            .any(|t| t == "*" || t == etag || t.strip_prefix("W/") == Some(etag.as_str())),
        None => headers
            .get(header::IF_MODIFIED_SINCE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| jiff::fmt::rfc2822::parse(v).ok())
            .is_some_and(|since| {
                rendered.last_modified.as_second() <= since.timestamp().as_second()
            }),
    };
    let gzip = accepts_gzip(
        headers
            .get(header::ACCEPT_ENCODING)
            .and_then(|v| v.to_str().ok())
            .unwrap_or(""),
    );
    let mut answer = if not_modified {
        let mut r = Response::new(Full::new(Bytes::new()));
        *r.status_mut() = StatusCode::NOT_MODIFIED;
        r
    } else {
        let body = if gzip {
            gzipped(api, &rendered.etag, &rendered.xml)
        } else {
            rendered.xml.clone()
        };
        let mut r = Response::new(Full::new(body));
        let h = r.headers_mut();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/rss+xml; charset=utf-8"),
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
        HeaderValue::from_static(FEED_MAX_AGE),
    );
    h.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    answer
}

/// Whether `Accept-Encoding` allows gzip (and does not refuse it with `q=0`).
fn accepts_gzip(accept: &str) -> bool {
    accept.split(',').any(|part| {
        let mut pieces = part.split(';').map(str::trim);
        let coding = pieces.next().unwrap_or("");
        let refused = pieces.any(|p| {
            p.replace(' ', "").starts_with("q=0")
                && !p.contains(['1', '2', '3', '4', '5', '6', '7', '8', '9'])
        });
        (coding.eq_ignore_ascii_case("gzip") || coding == "*") && !refused
    })
}

/// The gzip of a rendered feed, compressed once per ETag.
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
