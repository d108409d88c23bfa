//! Rendered documents (feeds, web pages) answered as HTTP caches want them: a strong validator
//! per encoding, `Last-Modified`, 304 for a conditional request that matches, gzip when
//! accepted (compressed once per ETag), public caching for five minutes.

use crate::headers::{self, SetHeader};
use std::io::Write;

use bytes::Bytes;
use http::{Response, StatusCode, header, request::Parts};

use crate::{
    context::Api,
    response::{self, Body},
};

/// How long apps, browsers and proxies may reuse a feed or a page without asking.
const PUBLIC_MAX_AGE: &str = "public, max-age=300";

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
        h.put(header::CONTENT_TYPE, doc.content_type);
        if gzip {
            h.put(header::CONTENT_ENCODING, "gzip");
        }
        r
    };
    let h = answer.headers_mut();
    h.put_text(header::ETAG, &etag);
    h.put_text(header::LAST_MODIFIED, &last_modified);
    h.put(header::CACHE_CONTROL, PUBLIC_MAX_AGE);
    h.put(header::VARY, "accept-encoding");
    headers::any_origin(h);
    answer
}

/// Whether a conditional GET is answered 304: `If-None-Match` decides when present (RFC 9110,
/// 13.2.2), else `If-Modified-Since`.
pub(crate) fn not_modified(
    headers: &http::HeaderMap,
    etag: &str,
    last_modified: jiff::Timestamp,
) -> bool {
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
    // The ETag names the bytes: no stamp, and nothing changes by itself.
    let now = jiff::Timestamp::UNIX_EPOCH;
    let key = etag.to_string();
    if let Some(bytes) = api.gzipped.get(&key, &(), now) {
        return bytes;
    }
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let _ = encoder.write_all(xml);
    let bytes = Bytes::from(encoder.finish().unwrap_or_default());
    api.gzipped.put(key, (), None, bytes.clone());
    bytes
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
