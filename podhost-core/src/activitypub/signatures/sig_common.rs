//! What both HTTP Signatures standards share: the request ([`Message`]) and its target URL,
//! the refusals ([`SignatureError`]), the time checks, the body's digests (`Digest` and
//! `Content-Digest`) and the check of a signature with a public key. Imports nothing from its
//! sibling modules: the standards' modules and the module's face build on it.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use jiff::Timestamp;
use rsa::sha2::{Digest as _, Sha256, Sha512};
use rsa::signature::Verifier as _;
use sfv::{Dictionary, ListEntry, Parser};

use crate::activitypub::keys::{KeyError, PublicKey};

/// How old (in seconds) a request's `Date` or signature `created` may be: 12 hours, as
/// Mastodon allows (deliveries wait in queues; a retry is signed anew, though). Older is
/// refused as [`SignatureError::Skewed`].
pub const MAX_AGE_SECONDS: i64 = 12 * 3600;

/// How far ahead of this server's clock (in seconds) a request's `Date` or signature
/// `created` may be: 1 hour of clock skew, as Mastodon allows. Further is refused as
/// [`SignatureError::Skewed`].
pub const MAX_AHEAD_SECONDS: i64 = 3600;

/// An HTTP request, described without a transport.
#[derive(Debug, Clone, Copy)]
pub struct Message<'a> {
    /// The method, e.g. `POST` (as sent: RFC 9421's `@method` is case-sensitive).
    pub method: &'a str,
    /// The full target URL, e.g. `http://127.0.0.1:8080/ap/podcasts/x/inbox?y`: the scheme
    /// and authority a signature must have been made for, which for an inbound request are
    /// the receiving server's own public ones (its public base URL), never the request's
    /// `Host`; the path and query as received (not normalized: signatures cover the bytes
    /// that were sent).
    pub target_uri: &'a str,
    /// The header fields, names in any case, one entry per field line.
    pub headers: &'a [(String, String)],
    /// The body (empty for none).
    pub body: &'a [u8],
}

impl Message<'_> {
    /// The value of the header `name` (case-insensitive): each field line's value trimmed,
    /// several lines joined with `", "`, as both standards canonicalize; `None` if absent.
    pub(super) fn header(&self, name: &str) -> Option<String> {
        let values: Vec<&str> = self
            .headers
            .iter()
            .filter(|(n, _)| n.trim().eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim())
            .collect();
        (!values.is_empty()).then(|| values.join(", "))
    }

    /// The value a signature covers for the header `name`: [`Message::header`], except
    /// `host`, which is always the target URL's authority. The host a signature is made for
    /// must be the receiving server's: the request's own `Host` header (whatever a client or
    /// a proxy put there, or none with HTTP/2) is never what is verified, so a request signed
    /// for another server does not verify here.
    pub(super) fn covered_header(&self, name: &str, target: &Target) -> Option<String> {
        if name.eq_ignore_ascii_case("host") {
            return Some(target.authority.clone());
        }
        self.header(name)
    }

    /// Why a signature that does not verify was refused, when the request says it was made
    /// for another host: its `Host` header names another authority than the target's (the
    /// server's own), so it was most likely signed for that host.
    /// [`SignatureError::WrongHost`] then, else `error` as it is.
    pub(super) fn explain_invalid(&self, target: &Target, error: SignatureError) -> SignatureError {
        if !matches!(error, SignatureError::Invalid(_)) {
            return error;
        }
        let Some(host) = self.header("host") else {
            return error;
        };
        let default_port = match target.scheme.as_str() {
            "https" => ":443",
            "http" => ":80",
            _ => "",
        };
        let named = host.trim().to_ascii_lowercase();
        let named = match named.strip_suffix(default_port) {
            Some(bare) if !default_port.is_empty() => bare.to_owned(),
            _ => named,
        };
        if named == target.authority {
            return error;
        }
        SignatureError::WrongHost {
            signed: host,
            ours: target.authority.clone(),
        }
    }

    /// Whether the signature must cover the body: a body, or a POST (even with an empty one).
    pub(super) fn has_body(&self) -> bool {
        !self.body.is_empty() || self.method.eq_ignore_ascii_case("POST")
    }
}

/// the remote server that sent it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    /// The request carries no signature at all.
    #[error(
        "the request is not signed: it has neither RFC 9421 `Signature-Input`/`Signature` \
         headers nor a draft-cavage `Signature` header"
    )]
    Missing,
    /// A signature header, or a header it covers, cannot be read.
    #[error("malformed HTTP signature: {0}")]
    Malformed(String),
    /// The signature (or digest) algorithm is one this server does not verify.
    #[error("unsupported algorithm: {0}")]
    UnsupportedAlgorithm(String),
    /// The body does not match the `Digest`/`Content-Digest` header.
    #[error("the request body does not match its digest header")]
    DigestMismatch,
    /// The signature does not cover a part of the request that this server requires signed.
    #[error("the signature does not cover {0}, which this server requires to be signed")]
    NotCovered(&'static str),
    /// The signature's `expires` time has passed.
    #[error("the signature has expired")]
    Expired,
    /// The request's `Date` or the signature's `created` is too old or too far ahead.
    #[error("{0}")]
    Skewed(String),
    /// The key cannot be read or does not fit the signature's algorithm.
    #[error("unusable key: {0}")]
    BadKey(String),
    /// The signature does not verify: the request was changed, or signed with another key.
    #[error("the signature does not verify with the key {0}")]
    Invalid(String),
    /// The signature does not verify for this server's host, and the request's `Host` names
    /// another: it was signed for another server. A signature's host is the receiving
    /// server's own (its public URL's authority), never the request's `Host`.
    #[error(
        "the signature does not verify for this server: signed for host {signed}, but this \
         server is {ours} (a signature is accepted only when made for this server's own host)"
    )]
    WrongHost {
        /// The host the request was sent with (its `Host` header), presumably the one signed.
        signed: String,
        /// This server's host: its public URL's authority.
        ours: String,
    },
}

impl From<KeyError> for SignatureError {
    /// A key that cannot be read or used: [`SignatureError::BadKey`].
    fn from(error: KeyError) -> SignatureError {
        SignatureError::BadKey(error.0)
    }
}

/// A signature algorithm this server verifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Algorithm {
    /// RSASSA-PKCS1-v1_5 with SHA-256 (draft `rsa-sha256`/`hs2019`, RFC 9421
    /// `rsa-v1_5-sha256`).
    RsaV15Sha256,
    /// RSASSA-PSS with SHA-512 and a 64-byte salt (RFC 9421 `rsa-pss-sha512`).
    RsaPssSha512,
    /// EdDSA over Curve25519 (RFC 9421 `ed25519`).
    Ed25519,
}

/// Checks `signature` over `data` with `key`; the algorithm fits the key (checked before).
pub(super) fn check_signature(
    algorithm: Algorithm,
    key: &PublicKey,
    data: &[u8],
    signature: &[u8],
    key_id: &str,
) -> Result<(), SignatureError> {
    let invalid = || SignatureError::Invalid(key_id.to_owned());
    match (algorithm, key) {
        (Algorithm::RsaV15Sha256, PublicKey::Rsa(key)) => {
            let signature = rsa::pkcs1v15::Signature::try_from(signature).map_err(|_| invalid())?;
            rsa::pkcs1v15::VerifyingKey::<Sha256>::new(key.clone())
                .verify(data, &signature)
                .map_err(|_| invalid())
        }
        (Algorithm::RsaPssSha512, PublicKey::Rsa(key)) => {
            let signature = rsa::pss::Signature::try_from(signature).map_err(|_| invalid())?;
            rsa::pss::VerifyingKey::<Sha512>::new(key.clone())
                .verify(data, &signature)
                .map_err(|_| invalid())
        }
        (Algorithm::Ed25519, PublicKey::Ed25519(key)) => {
            let signature =
                ed25519_dalek::Signature::from_slice(signature).map_err(|_| invalid())?;
            key.verify_strict(data, &signature).map_err(|_| invalid())
        }
        (_, key) => Err(SignatureError::BadKey(format!(
            "{key_id}'s key is {}, which does not fit the signature's algorithm",
            key.kind()
        ))),
    }
}

/// The parts of a request's target URL the signatures use.
#[derive(Debug)]
pub(super) struct Target {
    /// The scheme, lower case.
    pub(super) scheme: String,
    /// Host (lower case) and port unless the scheme's default: `@authority`, `Host`.
    pub(super) authority: String,
    /// The path as written, `/` when empty.
    pub(super) path: String,
    /// The query as written, without `?`.
    pub(super) query: Option<String>,
    /// Path and query: draft `(request-target)` after the method, RFC 9421 `@request-target`.
    pub(super) request_target: String,
}

impl Target {
    pub(super) fn parse(uri: &str) -> Result<Target, SignatureError> {
        let url = url::Url::parse(uri).map_err(|e| {
            SignatureError::Malformed(format!("the request URL \"{uri}\" cannot be read: {e}"))
        })?;
        let host = url.host_str().ok_or_else(|| {
            SignatureError::Malformed(format!("the request URL \"{uri}\" has no host"))
        })?;
        let authority = match url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_owned(),
        };
        // Path and query from the text itself: the url crate normalizes them (percent-
        // encoding, dot segments), and signatures cover the bytes that were sent.
        let after_scheme = uri.find("://").map_or(0, |i| i + 3);
        let rest = &uri[after_scheme..];
        let rest = &rest[rest.find(['/', '?', '#']).unwrap_or(rest.len())..];
        let rest = rest.split_once('#').map_or(rest, |(before, _)| before);
        let (path, query) = match rest.split_once('?') {
            Some((path, query)) => (path, Some(query.to_owned())),
            None => (rest, None),
        };
        let path = if path.is_empty() { "/" } else { path }.to_owned();
        let request_target = match &query {
            Some(query) => format!("{path}?{query}"),
            None => path.clone(),
        };
        Ok(Target {
            scheme: url.scheme().to_owned(),
            authority,
            path,
            query,
            request_target,
        })
    }
}

/// Refuses a time (Unix seconds) more than [`MAX_AGE_SECONDS`] before `now` or
/// [`MAX_AHEAD_SECONDS`] after it.
pub(super) fn check_time(what: &str, seconds: i64, now: Timestamp) -> Result<(), SignatureError> {
    let age = now.as_second().saturating_sub(seconds);
    let shown =
        || Timestamp::from_second(seconds).map_or_else(|_| seconds.to_string(), |t| t.to_string());
    if age > MAX_AGE_SECONDS {
        return Err(SignatureError::Skewed(format!(
            "{what} ({}) is {} minutes old; this server accepts requests signed at most {} \
             hours ago",
            shown(),
            age / 60,
            MAX_AGE_SECONDS / 3600
        )));
    }
    if -age > MAX_AHEAD_SECONDS {
        return Err(SignatureError::Skewed(format!(
            "{what} ({}) is {} minutes ahead of this server's clock ({now}); at most {} minutes \
             are accepted",
            shown(),
            -age / 60,
            MAX_AHEAD_SECONDS / 60
        )));
    }
    Ok(())
}

/// Refuses an `expires` (Unix seconds) before `now`.
pub(super) fn check_expires(expires: i64, now: Timestamp) -> Result<(), SignatureError> {
    if expires < now.as_second() {
        return Err(SignatureError::Expired);
    }
    Ok(())
}

/// Checks the (covered) `Date` header's time.
pub(super) fn check_date_header(
    message: &Message<'_>,
    now: Timestamp,
) -> Result<(), SignatureError> {
    let date = message
        .header("date")
        .ok_or_else(|| malformed("the signature covers date but the request has no Date"))?;
    let at = jiff::fmt::rfc2822::DateTimeParser::new()
        .parse_timestamp(&date)
        .map_err(|e| {
            SignatureError::Malformed(format!(
                "the Date header \"{date}\" is not an HTTP date: {e}"
            ))
        })?;
    check_time("the request's Date", at.as_second(), now)
}

/// Checks an RFC 3230 `Digest` header (`SHA-256=<base64>`, several comma-separated) against the
/// body: every SHA-256 and SHA-512 digest must match, and there must be one.
pub(super) fn check_digest_header(message: &Message<'_>) -> Result<(), SignatureError> {
    let value = message
        .header("digest")
        .ok_or_else(|| malformed("the signature covers digest but the request has no Digest"))?;
    let mut checked = false;
    for part in value.split(',') {
        let (algorithm, encoded) = part.trim().split_once('=').ok_or_else(|| {
            SignatureError::Malformed(format!(
                "the Digest header \"{value}\" is not algorithm=value"
            ))
        })?;
        let Some(expected) = body_digest(&algorithm.to_ascii_lowercase(), message.body) else {
            continue;
        };
        let got = STANDARD.decode(encoded.trim()).map_err(|e| {
            SignatureError::Malformed(format!(
                "the Digest header's {algorithm} is not base64: {e}"
            ))
        })?;
        if got != expected {
            return Err(SignatureError::DigestMismatch);
        }
        checked = true;
    }
    if !checked {
        return Err(SignatureError::UnsupportedAlgorithm(format!(
            "the Digest header \"{value}\" has no SHA-256 or SHA-512 digest"
        )));
    }
    Ok(())
}

/// Checks an RFC 9530 `Content-Digest` header (`sha-256=:<base64>:`) against the body: every
/// sha-256 and sha-512 digest must match, and there must be one.
pub(super) fn check_content_digest(message: &Message<'_>) -> Result<(), SignatureError> {
    let value = message.header("content-digest").ok_or_else(|| {
        malformed("the signature covers content-digest but the request has no Content-Digest")
    })?;
    let digests = parse_dictionary("Content-Digest", &value)?;
    let mut checked = false;
    for (algorithm, entry) in &digests {
        let Some(expected) = body_digest(algorithm.as_str(), message.body) else {
            continue;
        };
        let got = match entry {
            ListEntry::Item(item) => item.bare_item.as_byte_sequence(),
            ListEntry::InnerList(_) => None,
        }
        .ok_or_else(|| {
            SignatureError::Malformed(format!(
                "the Content-Digest's {} is not a byte sequence (:base64:)",
                algorithm.as_str()
            ))
        })?;
        if got != expected.as_slice() {
            return Err(SignatureError::DigestMismatch);
        }
        checked = true;
    }
    if !checked {
        return Err(SignatureError::UnsupportedAlgorithm(format!(
            "the Content-Digest header \"{value}\" has no sha-256 or sha-512 digest"
        )));
    }
    Ok(())
}

/// The body's digest by a lower-case algorithm name of `Digest`/`Content-Digest`, `None` for
/// one not checked here.
fn body_digest(algorithm: &str, body: &[u8]) -> Option<Vec<u8>> {
    match algorithm {
        "sha-256" => Some(Sha256::digest(body).to_vec()),
        "sha-512" => Some(Sha512::digest(body).to_vec()),
        _ => None,
    }
}

/// A `Content-Digest` value of one digest: `sha-256=:<base64>:`.
pub(super) fn content_digest(algorithm: &str, digest: &[u8]) -> Result<String, SignatureError> {
    let mut serializer = sfv::DictSerializer::new();
    let key = sfv::KeyRef::from_str(algorithm)
        .map_err(|e| SignatureError::Malformed(format!("digest algorithm {algorithm}: {e}")))?;
    _ = serializer.bare_item(key, digest);
    Ok(serializer
        .finish()
        .expect("a dictionary of one member serializes"))
}

/// An IMF-fixdate (RFC 9110 §5.6.7), e.g. `Tue, 20 Apr 2021 02:07:55 GMT`.
pub(super) fn imf_fixdate(now: Timestamp) -> Result<String, SignatureError> {
    jiff::fmt::rfc2822::DateTimePrinter::new()
        .timestamp_to_rfc9110_string(&now)
        .map_err(|e| SignatureError::Malformed(format!("the time {now} as an HTTP date: {e}")))
}

pub(super) fn parse_dictionary(header: &str, value: &str) -> Result<Dictionary, SignatureError> {
    Parser::new(value).parse::<Dictionary>().map_err(|e| {
        SignatureError::Malformed(format!(
            "the {header} header is not a structured-field dictionary (RFC 8941): {e}"
        ))
    })
}

pub(super) fn malformed(what: &str) -> SignatureError {
    SignatureError::Malformed(what.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::activitypub::signatures::tests::INBOX;

    #[test]
    fn content_digest_forms() {
        assert_eq!(
            content_digest("sha-256", &Sha256::digest(b"")).unwrap(),
            "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:"
        );
        let headers = vec![(
            "content-digest".to_owned(),
            "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:, md5=:AAAA:".to_owned(),
        )];
        let message = Message {
            method: "POST",
            target_uri: INBOX,
            headers: &headers,
            body: br#"{"hello": "world"}"#,
        };
        check_content_digest(&message).unwrap();
        let headers = vec![("content-digest".to_owned(), "md5=:AAAA:".to_owned())];
        let message = Message {
            headers: &headers,
            ..message
        };
        assert!(matches!(
            check_content_digest(&message),
            Err(SignatureError::UnsupportedAlgorithm(_))
        ));
    }

    #[test]
    fn target_parts_as_written() {
        let target = Target::parse("HTTP://Example.com:80/a/./b%7e?x=%41&y#frag").unwrap();
        assert_eq!(target.scheme, "http");
        assert_eq!(target.authority, "example.com");
        assert_eq!(target.path, "/a/./b%7e");
        assert_eq!(target.query.as_deref(), Some("x=%41&y"));
        assert_eq!(target.request_target, "/a/./b%7e?x=%41&y");
        let bare = Target::parse("https://example.com").unwrap();
        assert_eq!(bare.request_target, "/");
        assert_eq!(bare.query, None);
    }
}
