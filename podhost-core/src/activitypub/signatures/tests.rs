//! What the tests of the signatures' modules share (a key id, an inbox, a body, a time, a
//! draft-signed request and the check of a request against the test key), and the tests of
//! `sign_draft` and `signer`.

use std::sync::LazyLock;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use jiff::Timestamp;
use rsa::sha2::{Digest as _, Sha256};

use super::sig_common::imf_fixdate;
use super::*;
use crate::activitypub::keys::tests::KEY;

pub(super) const KEY_ID: &str = "https://example.org/ap/podcasts/p1#main-key";
pub(super) const INBOX: &str = "http://127.0.0.1:8080/ap/podcasts/x/inbox?y=1";
pub(super) const BODY: &[u8] = br#"{"type":"Follow","actor":"https://example.org/users/a"}"#;

pub(super) static NOW: LazyLock<Timestamp> =
    LazyLock::new(|| "2026-05-01T12:00:00Z".parse().unwrap());

pub(super) fn hours(n: i64) -> jiff::SignedDuration {
    jiff::SignedDuration::from_hours(n)
}

/// Headers of a request signed by `sign_draft`, plus a content type.
pub(super) fn draft_request(
    method: &str,
    uri: &str,
    body: Option<&[u8]>,
    at: Timestamp,
) -> Vec<(String, String)> {
    let mut headers = sign_draft(&KEY, KEY_ID, method, uri, body, at).unwrap();
    if body.is_some() {
        headers.push((
            "Content-Type".to_owned(),
            "application/activity+json".to_owned(),
        ));
    }
    headers
}

pub(super) fn check(
    method: &str,
    uri: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> Result<(), SignatureError> {
    check_with(method, uri, headers, body, KEY.public_pem())
}

pub(super) fn check_with(
    method: &str,
    uri: &str,
    headers: &[(String, String)],
    body: &[u8],
    pem: &str,
) -> Result<(), SignatureError> {
    let message = Message {
        method,
        target_uri: uri,
        headers,
        body,
    };
    let signer = signer(&message)?;
    assert_eq!(signer.key_id, KEY_ID);
    verify(&message, &signer, pem, *NOW)
}

pub(super) fn set(headers: &mut [(String, String)], name: &str, value: String) {
    let entry = headers
        .iter_mut()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .unwrap();
    entry.1 = value;
}

pub(super) fn get<'h>(headers: &'h [(String, String)], name: &str) -> &'h str {
    &headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .unwrap()
        .1
}

// ---- sign_draft ----

#[test]
fn sign_draft_post_headers() {
    let headers = sign_draft(&KEY, KEY_ID, "POST", INBOX, Some(BODY), *NOW).unwrap();
    let names: Vec<&str> = headers.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["host", "date", "digest", "content-digest", "signature"]
    );
    assert_eq!(get(&headers, "host"), "127.0.0.1:8080");
    assert_eq!(get(&headers, "date"), "Fri, 01 May 2026 12:00:00 GMT");
    let sha = STANDARD.encode(Sha256::digest(BODY));
    assert_eq!(get(&headers, "digest"), format!("SHA-256={sha}"));
    assert_eq!(get(&headers, "content-digest"), format!("sha-256=:{sha}:"));
    let signature = get(&headers, "signature");
    assert!(
        signature.starts_with(&format!(
            "keyId=\"{KEY_ID}\",algorithm=\"rsa-sha256\",headers=\"(request-target) host date digest\",signature=\""
        )),
        "{signature}"
    );
}

#[test]
fn sign_draft_host_port() {
    let host = |uri| {
        let headers = sign_draft(&KEY, KEY_ID, "GET", uri, None, *NOW).unwrap();
        get(&headers, "host").to_owned()
    };
    assert_eq!(host("https://Example.COM:443/a"), "example.com");
    assert_eq!(host("http://example.com:80/a"), "example.com");
    assert_eq!(host("https://example.com:8443/a"), "example.com:8443");
    assert_eq!(host("http://[::1]:8080/a"), "[::1]:8080");
}

#[test]
fn sign_draft_refuses_bad_key_id_and_method() {
    for (key_id, method) in [
        ("a\"b", "POST"),
        ("", "POST"),
        (KEY_ID, "PO ST"),
        (KEY_ID, ""),
    ] {
        assert!(matches!(
            sign_draft(&KEY, key_id, method, INBOX, None, *NOW),
            Err(SignatureError::Malformed(_))
        ));
    }
}

// ---- signer ----

#[test]
fn missing_and_malformed() {
    let headers = vec![("Date".to_owned(), imf_fixdate(*NOW).unwrap())];
    let message = Message {
        method: "POST",
        target_uri: INBOX,
        headers: &headers,
        body: BODY,
    };
    assert_eq!(signer(&message), Err(SignatureError::Missing));
    for value in [
        "algorithm=\"rsa-sha256\",signature=\"AAAA\"",
        "keyId=\"x,signature=\"AAAA\"",
        "just words",
    ] {
        let headers = vec![("Signature".to_owned(), value.to_owned())];
        let message = Message {
            headers: &headers,
            ..message
        };
        assert!(
            matches!(signer(&message), Err(SignatureError::Malformed(_))),
            "{value}"
        );
    }
}
