//! Setting an answer's headers, in one form everywhere, and the header sets that several kinds
//! of answer share: an HTML document's (type, policy, no sniffing) and the open CORS origin of
//! what any web player or page may fetch.

use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};

/// The value of the request's cookie `name`, if it sent one.
pub(crate) fn cookie(parts: &http::request::Parts, name: &str) -> Option<String> {
    parts
        .headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(cookie::Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|c| c.name() == name)
        .map(|c| c.value().to_string())
}

/// The content type of every HTML answer.
pub(crate) const HTML: &str = "text/html; charset=utf-8";

/// The content type of plain text answers (`/robots.txt`).
pub(crate) const TEXT: &str = "text/plain; charset=utf-8";

/// Setting one header of an answer.
pub(crate) trait SetHeader {
    /// Sets `name` to a value known when podhost is built.
    fn put(&mut self, name: HeaderName, value: &'static str) -> &mut Self;

    /// Sets `name` to a value made at run time (a URL, an ETag, a policy). A value no header can
    /// carry (a control character) is left out rather than answered with a 500: every such value
    /// is made by podhost from checked parts, so this is a guard, not a path.
    fn put_text(&mut self, name: HeaderName, value: &str) -> &mut Self;
}

impl SetHeader for HeaderMap {
    fn put(&mut self, name: HeaderName, value: &'static str) -> &mut Self {
        self.insert(name, HeaderValue::from_static(value));
        self
    }

    fn put_text(&mut self, name: HeaderName, value: &str) -> &mut Self {
        if let Ok(value) = HeaderValue::from_str(value) {
            self.insert(name, value);
        }
        self
    }
}

/// What keeps a document to itself: its Content-Security-Policy and no content sniffing. Every
/// HTML answer carries both (public pages, the site, the API reference); pages that need more
/// (the site's framing rule, a referrer policy) add it.
pub(crate) fn kept_to<'a>(headers: &'a mut HeaderMap, policy: &str) -> &'a mut HeaderMap {
    headers
        .put_text(header::CONTENT_SECURITY_POLICY, policy)
        .put(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
}

/// Open to scripts of any origin: the API (its callers authenticate with tokens, not cookies)
/// and what podcast apps and web players fetch.
pub(crate) fn any_origin(headers: &mut HeaderMap) {
    headers.put(header::ACCESS_CONTROL_ALLOW_ORIGIN, "*");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_no_header_can_carry_is_left_out() {
        let mut headers = HeaderMap::new();
        headers
            .put_text(header::LOCATION, "https://example.com/\nSet-Cookie: x")
            .put_text(header::ETAG, "\"v1\"");
        assert!(headers.get(header::LOCATION).is_none());
        assert_eq!(headers[header::ETAG], "\"v1\"");
    }

    #[test]
    fn a_document_is_kept_to_its_policy_and_not_sniffed() {
        let mut headers = HeaderMap::new();
        kept_to(&mut headers, "default-src 'none'");
        assert_eq!(
            headers[header::CONTENT_SECURITY_POLICY],
            "default-src 'none'"
        );
        assert_eq!(headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    }
}
