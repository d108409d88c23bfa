//! draft-cavage-http-signatures-12: the `Signature` header (or `Authorization: Signature …`)
//! podhost writes and reads, its parameters, and the signing string over the listed headers
//! and pseudo headers.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use jiff::Timestamp;
use rsa::sha2::{Digest as _, Sha256};

use super::sig_common::{
    Algorithm, Message, SignatureError, Target, check_content_digest, check_date_header,
    check_digest_header, check_expires, check_signature, check_time, content_digest, imf_fixdate,
    malformed,
};
use crate::activitypub::keys::{ActorKey, PublicKey};

/// The draft-cavage headers signing an outbound request: what
/// [`sign_draft`](super::sign_draft) returns, as it documents.
pub(super) fn sign(
    key: &ActorKey,
    key_id: &str,
    method: &str,
    target_uri: &str,
    body: Option<&[u8]>,
    now: Timestamp,
) -> Result<Vec<(String, String)>, SignatureError> {
    if key_id.is_empty()
        || key_id
            .chars()
            .any(|c| !c.is_ascii() || c.is_ascii_control() || c == '"' || c == '\\')
    {
        return Err(SignatureError::Malformed(format!(
            "the keyId \"{key_id}\" cannot be written in a Signature header"
        )));
    }
    if method.is_empty() || !method.bytes().all(is_tchar) {
        return Err(SignatureError::Malformed(format!(
            "\"{method}\" is not an HTTP method"
        )));
    }
    let target = Target::parse(target_uri)?;
    let date = imf_fixdate(now)?;

    let mut headers = vec![
        ("host".to_owned(), target.authority.clone()),
        ("date".to_owned(), date),
    ];
    let mut covered = vec!["(request-target)", "host", "date"];
    if let Some(body) = body {
        let sha256 = Sha256::digest(body);
        headers.push((
            "digest".to_owned(),
            format!("SHA-256={}", STANDARD.encode(sha256)),
        ));
        headers.push((
            "content-digest".to_owned(),
            content_digest("sha-256", &sha256)?,
        ));
        covered.push("digest");
    }

    let mut signing_string = format!(
        "(request-target): {} {}",
        method.to_ascii_lowercase(),
        target.request_target
    );
    for name in &covered[1..] {
        let (_, value) = headers
            .iter()
            .find(|(n, _)| n == name)
            .expect("every covered header was added above");
        signing_string.push('\n');
        signing_string.push_str(name);
        signing_string.push_str(": ");
        signing_string.push_str(value);
    }
    let signature = key.sign_rsa_sha256(signing_string.as_bytes())?;
    headers.push((
        "signature".to_owned(),
        format!(
            "keyId=\"{key_id}\",algorithm=\"rsa-sha256\",headers=\"{}\",signature=\"{}\"",
            covered.join(" "),
            STANDARD.encode(signature)
        ),
    ));
    Ok(headers)
}

/// The parameters of a draft signature.
#[derive(Debug)]
pub(super) struct DraftParams {
    pub(super) key_id: String,
    algorithm: Option<String>,
    /// The `headers` parameter, lower-cased; `["date"]` when absent (the draft's default).
    headers: Vec<String>,
    signature: String,
    created: Option<String>,
    expires: Option<String>,
}

impl DraftParams {
    /// The draft signature of `message`, from its `Signature` header or else from
    /// `Authorization: Signature …`.
    pub(super) fn parse(message: &Message<'_>) -> Result<DraftParams, SignatureError> {
        let value = match message.header("signature") {
            Some(value) => value,
            None => {
                let authorization = message
                    .header("authorization")
                    .ok_or(SignatureError::Missing)?;
                match authorization.split_once(' ') {
                    Some((scheme, rest)) if scheme.eq_ignore_ascii_case("signature") => {
                        rest.to_owned()
                    }
                    _ => return Err(SignatureError::Missing),
                }
            }
        };
        let mut key_id = None;
        let mut algorithm = None;
        let mut headers = None;
        let mut signature = None;
        let mut created = None;
        let mut expires = None;
        for (name, value) in split_draft_params(&value)? {
            let slot = match name.to_ascii_lowercase().as_str() {
                "keyid" => &mut key_id,
                "algorithm" => &mut algorithm,
                "headers" => &mut headers,
                "signature" => &mut signature,
                "created" => &mut created,
                "expires" => &mut expires,
                _ => continue, // unknown parameters are ignored, as the draft says
            };
            if slot.replace(value).is_some() {
                return Err(SignatureError::Malformed(format!(
                    "the Signature header has the parameter {name} twice"
                )));
            }
        }
        let key_id = key_id
            .filter(|k| !k.is_empty())
            .ok_or_else(|| malformed("the Signature header has no keyId"))?;
        let signature =
            signature.ok_or_else(|| malformed("the Signature header has no signature"))?;
        let headers: Vec<String> = match headers {
            None => vec!["date".to_owned()],
            Some(list) => list
                .split_ascii_whitespace()
                .map(str::to_ascii_lowercase)
                .collect(),
        };
        if headers.is_empty() {
            return Err(malformed(
                "the Signature header's headers parameter is empty",
            ));
        }
        Ok(DraftParams {
            key_id,
            algorithm: algorithm.map(|a| a.to_ascii_lowercase()),
            headers,
            signature,
            created,
            expires,
        })
    }

    fn covers(&self, name: &str) -> bool {
        self.headers.iter().any(|h| h == name)
    }
}

/// Splits draft signature parameters, `name="value",name=value`, into pairs. Quoted values
/// may contain commas and `\`-escapes; unquoted ones (the numbers of `created` and
/// `expires`) end at a comma.
fn split_draft_params(text: &str) -> Result<Vec<(String, String)>, SignatureError> {
    let mut params = Vec::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars.next_if(|c| *c == ',' || c.is_whitespace()).is_some() {}
        if chars.peek().is_none() {
            return Ok(params);
        }
        let mut name = String::new();
        while let Some(c) = chars.next_if(|c| *c != '=' && *c != ',') {
            name.push(c);
        }
        let name = name.trim().to_owned();
        if chars.next() != Some('=') || name.is_empty() {
            return Err(SignatureError::Malformed(format!(
                "the Signature header is not a list of name=\"value\" parameters: \"{text}\""
            )));
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let mut value = String::new();
        if chars.next_if_eq(&'"').is_some() {
            loop {
                match chars.next() {
                    Some('"') => break,
                    Some('\\') => value.extend(chars.next()),
                    Some(c) => value.push(c),
                    None => {
                        return Err(SignatureError::Malformed(format!(
                            "the Signature header's parameter {name} has no closing quote"
                        )));
                    }
                }
            }
            while chars.next_if(|c| c.is_whitespace()).is_some() {}
            if chars.peek().is_some_and(|c| *c != ',') {
                return Err(SignatureError::Malformed(format!(
                    "the Signature header has text after the parameter {name}"
                )));
            }
        } else {
            while let Some(c) = chars.next_if(|c| *c != ',') {
                value.push(c);
            }
            value = value.trim().to_owned();
        }
        params.push((name, value));
    }
}

/// Verifies `message`'s draft signature by the key `key_id` with the key's PEM, at `now`: what
/// [`verify`](super::verify) documents.
pub(super) fn verify(
    message: &Message<'_>,
    key_id: &str,
    public_key_pem: &str,
    now: Timestamp,
) -> Result<(), SignatureError> {
    let params = DraftParams::parse(message)?;
    if params.key_id != key_id {
        return Err(SignatureError::Malformed(format!(
            "the signature's keyId \"{}\" is not the signer's \"{}\"",
            params.key_id, key_id
        )));
    }
    let target = Target::parse(message.target_uri)?;

    // What this server requires signed.
    if !params.covers("(request-target)") {
        return Err(SignatureError::NotCovered("(request-target)"));
    }
    if !params.covers("host") {
        return Err(SignatureError::NotCovered("host"));
    }
    if !params.covers("date") && !params.covers("(created)") {
        return Err(SignatureError::NotCovered("date"));
    }
    if message.has_body() && !params.covers("digest") && !params.covers("content-digest") {
        return Err(SignatureError::NotCovered("digest"));
    }

    // The algorithm, from the parameter and the key's type.
    let key = PublicKey::from_pem(public_key_pem)?;
    let algorithm = match (params.algorithm.as_deref(), &key) {
        (None | Some("rsa-sha256" | "hs2019"), PublicKey::Rsa(_)) => Algorithm::RsaV15Sha256,
        (None | Some("hs2019" | "ed25519"), PublicKey::Ed25519(_)) => Algorithm::Ed25519,
        (Some("rsa-sha256"), key) => {
            return Err(SignatureError::BadKey(format!(
                "the algorithm is rsa-sha256 but {}'s key is {}",
                key_id,
                key.kind()
            )));
        }
        (Some(other), _) => {
            return Err(SignatureError::UnsupportedAlgorithm(format!(
                "{other} (this server verifies rsa-sha256 and hs2019)"
            )));
        }
    };
    // draft-cavage-12 §2.3: (created) and (expires) go with hs2019-style algorithms only.
    let legacy_algorithm = params
        .algorithm
        .as_deref()
        .is_some_and(|a| a.starts_with("rsa") || a.starts_with("hmac") || a.starts_with("ecdsa"));

    // The signing string, and the times it covers.
    let mut signing_string = String::new();
    for name in &params.headers {
        let value = match name.as_str() {
            "(request-target)" => format!(
                "{} {}",
                message.method.to_ascii_lowercase(),
                target.request_target
            ),
            "(created)" | "(expires)" => {
                if legacy_algorithm {
                    return Err(SignatureError::Malformed(format!(
                        "{name} cannot be signed with the algorithm {} (draft-cavage-12 §2.3)",
                        params.algorithm.as_deref().unwrap_or_default()
                    )));
                }
                let param = if name == "(created)" {
                    &params.created
                } else {
                    &params.expires
                };
                param.clone().ok_or_else(|| {
                    SignatureError::Malformed(format!(
                        "the signature covers {name} but has no such parameter"
                    ))
                })?
            }
            _ => message.covered_header(name, &target).ok_or_else(|| {
                SignatureError::Malformed(format!("the signed header {name} is not in the request"))
            })?,
        };
        if !signing_string.is_empty() {
            signing_string.push('\n');
        }
        signing_string.push_str(name);
        signing_string.push_str(": ");
        signing_string.push_str(&value);
    }

    // Time.
    if let Some(expires) = &params.expires {
        check_expires(parse_seconds("expires", expires)?, now)?;
    }
    if let Some(created) = &params.created {
        check_time(
            "the signature's created time",
            parse_seconds("created", created)?,
            now,
        )?;
    }
    if params.covers("date") {
        check_date_header(message, now)?;
    }

    // The body.
    if params.covers("digest") {
        check_digest_header(message)?;
    }
    if params.covers("content-digest") {
        check_content_digest(message)?;
    }

    let signature = STANDARD
        .decode(params.signature.trim())
        .map_err(|e| SignatureError::Malformed(format!("the signature is not base64: {e}")))?;
    check_signature(
        algorithm,
        &key,
        signing_string.as_bytes(),
        &signature,
        key_id,
    )
    .map_err(|e| message.explain_invalid(&target, e))
}

/// Parses the number of a draft `created`/`expires` parameter (a fraction is ignored).
fn parse_seconds(name: &str, value: &str) -> Result<i64, SignatureError> {
    let whole = value.split_once('.').map_or(value, |(whole, _)| whole);
    whole.parse().map_err(|_| {
        SignatureError::Malformed(format!(
            "the signature's {name} \"{value}\" is not Unix time"
        ))
    })
}

/// An HTTP token character (RFC 9110 §5.6.2).
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

#[cfg(test)]
mod tests {
    use rsa::pkcs1::EncodeRsaPublicKey as _;
    use rsa::pkcs8::DecodePublicKey as _;
    use rsa::pkcs8::LineEnding;

    use super::*;
    use crate::activitypub::keys::tests::KEY;
    use crate::activitypub::signatures::tests::{
        BODY, INBOX, KEY_ID, NOW, check, check_with, draft_request, get, hours, set,
    };

    /// A draft signature made by hand over `covered`, for the cases `sign_draft` never makes.
    fn hand_signed_draft(
        method: &str,
        uri: &str,
        headers: &mut Vec<(String, String)>,
        covered: &str,
        algorithm: &str,
        extra: &str,
    ) {
        let target = Target::parse(uri).unwrap();
        let mut lines = Vec::new();
        for name in covered.split(' ') {
            let value = match name {
                "(request-target)" => {
                    format!("{} {}", method.to_lowercase(), target.request_target)
                }
                "(created)" | "(expires)" => {
                    let key = &name[1..name.len() - 1];
                    extra
                        .split(',')
                        .find_map(|p| p.strip_prefix(&format!("{key}=")))
                        .unwrap()
                        .to_owned()
                }
                _ => get(headers, name).to_owned(),
            };
            lines.push(format!("{name}: {value}"));
        }
        let signature = KEY.sign_rsa_sha256(lines.join("\n").as_bytes()).unwrap();
        headers.retain(|(n, _)| !n.eq_ignore_ascii_case("signature"));
        headers.push((
            "Signature".to_owned(),
            format!(
                "keyId=\"{KEY_ID}\",algorithm=\"{algorithm}\",headers=\"{covered}\",{extra}{}signature=\"{}\"",
                if extra.is_empty() { "" } else { "," },
                STANDARD.encode(signature)
            ),
        ));
    }

    // ---- round trips ----

    #[test]
    fn draft_round_trip_post() {
        let headers = draft_request("POST", INBOX, Some(BODY), *NOW);
        check("POST", INBOX, &headers, BODY).unwrap();
        // Header names in any case, and the signature a minute later.
        let upper: Vec<(String, String)> = headers
            .iter()
            .map(|(n, v)| (n.to_uppercase(), v.clone()))
            .collect();
        check("POST", INBOX, &upper, BODY).unwrap();
    }

    #[test]
    fn draft_round_trip_get() {
        let uri = "https://podhost.example/ap/podcasts/x/outbox?page=2";
        let headers = draft_request("GET", uri, None, *NOW);
        assert!(!get(&headers, "signature").contains("digest"));
        check("GET", uri, &headers, b"").unwrap();
    }

    #[test]
    fn draft_in_authorization_header() {
        let mut headers = draft_request("POST", INBOX, Some(BODY), *NOW);
        let signature = get(&headers, "signature").to_owned();
        headers.retain(|(n, _)| n != "signature");
        headers.push(("Authorization".to_owned(), format!("Signature {signature}")));
        check("POST", INBOX, &headers, BODY).unwrap();
    }

    #[test]
    fn draft_hs2019_is_rsa_sha256_for_an_rsa_key() {
        let mut headers = draft_request("POST", INBOX, Some(BODY), *NOW);
        let signature = get(&headers, "signature").replace("rsa-sha256", "hs2019");
        set(&mut headers, "signature", signature);
        check("POST", INBOX, &headers, BODY).unwrap();
        // And without an algorithm, inferred from the key.
        let signature = get(&headers, "signature").replace("algorithm=\"hs2019\",", "");
        set(&mut headers, "signature", signature);
        check("POST", INBOX, &headers, BODY).unwrap();
    }

    #[test]
    fn draft_created_and_expires() {
        let created = NOW.as_second() - 60;
        let mut headers = draft_request("POST", INBOX, Some(BODY), *NOW);
        headers.retain(|(n, _)| n != "date");
        let covered = "(request-target) host (created) (expires) digest";
        let extra = format!("created={created},expires={}", created + 300);
        hand_signed_draft("POST", INBOX, &mut headers, covered, "hs2019", &extra);
        check("POST", INBOX, &headers, BODY).unwrap();

        let extra = format!("created={},expires={}", created - 600, created - 300);
        hand_signed_draft("POST", INBOX, &mut headers, covered, "hs2019", &extra);
        assert_eq!(
            check("POST", INBOX, &headers, BODY),
            Err(SignatureError::Expired)
        );

        // draft-cavage-12 §2.3: not with rsa-sha256.
        let extra = format!("created={created}");
        hand_signed_draft(
            "POST",
            INBOX,
            &mut headers,
            "(request-target) host (created) digest",
            "rsa-sha256",
            &extra,
        );
        assert!(matches!(
            check("POST", INBOX, &headers, BODY),
            Err(SignatureError::Malformed(_))
        ));
    }

    #[test]
    fn pkcs1_public_key_accepted() {
        let public = rsa::RsaPublicKey::from_public_key_pem(KEY.public_pem()).unwrap();
        let pkcs1 = public.to_pkcs1_pem(LineEnding::LF).unwrap();
        assert!(pkcs1.starts_with("-----BEGIN RSA PUBLIC KEY-----"));
        let headers = draft_request("POST", INBOX, Some(BODY), *NOW);
        check_with("POST", INBOX, &headers, BODY, &pkcs1).unwrap();
    }

    // ---- refusals ----

    #[test]
    fn tampered_body_refused() {
        let headers = draft_request("POST", INBOX, Some(BODY), *NOW);
        let body = br#"{"type":"Delete","actor":"https://example.org/users/a"}"#;
        assert_eq!(
            check("POST", INBOX, &headers, body),
            Err(SignatureError::DigestMismatch)
        );
        // A digest made up for the new body does not match the signature.
        let mut headers = headers;
        set(
            &mut headers,
            "digest",
            format!("SHA-256={}", STANDARD.encode(Sha256::digest(body))),
        );
        assert!(matches!(
            check("POST", INBOX, &headers, body),
            Err(SignatureError::Invalid(_))
        ));
    }

    #[test]
    fn tampered_path_refused() {
        let headers = draft_request("POST", INBOX, Some(BODY), *NOW);
        for uri in [
            "http://127.0.0.1:8080/ap/podcasts/other/inbox?y=1",
            "http://127.0.0.1:8080/ap/podcasts/x/inbox?y=2",
            "http://127.0.0.1:8080/ap/podcasts/x/inbox",
        ] {
            assert!(
                matches!(
                    check("POST", uri, &headers, BODY),
                    Err(SignatureError::Invalid(_))
                ),
                "{uri}"
            );
        }
        // And the method.
        assert!(matches!(
            check("PUT", INBOX, &headers, BODY),
            Err(SignatureError::Invalid(_))
        ));
    }

    #[test]
    fn the_host_signed_is_this_servers_not_the_requests() {
        // Signed for another server, sent here with its Host: refused, and the refusal says
        // which host it was signed for and which this server is.
        let elsewhere = "http://podcasts.elsewhere.example/ap/podcasts/x/inbox?y=1";
        let headers = draft_request("POST", elsewhere, Some(BODY), *NOW);
        assert_eq!(get(&headers, "host"), "podcasts.elsewhere.example");
        let refused = check("POST", INBOX, &headers, BODY).unwrap_err();
        assert_eq!(
            refused,
            SignatureError::WrongHost {
                signed: "podcasts.elsewhere.example".to_owned(),
                ours: "127.0.0.1:8080".to_owned(),
            }
        );
        assert!(
            refused.to_string().contains(
                "signed for host podcasts.elsewhere.example, but this server is 127.0.0.1:8080"
            ),
            "{refused}"
        );
        // Its Host rewritten to this server's: it still does not verify.
        let mut rewritten = headers.clone();
        set(&mut rewritten, "host", "127.0.0.1:8080".to_owned());
        assert!(matches!(
            check("POST", INBOX, &rewritten, BODY),
            Err(SignatureError::Invalid(_))
        ));
        // Signed for this server, whatever Host a proxy passed on (or none): verified.
        let mut headers = draft_request("POST", INBOX, Some(BODY), *NOW);
        set(&mut headers, "host", "127.0.0.1:9090".to_owned());
        check("POST", INBOX, &headers, BODY).unwrap();
        headers.retain(|(n, _)| n != "host");
        check("POST", INBOX, &headers, BODY).unwrap();
        // The default port in Host is the same host.
        let https = "https://podhost.example/ap/inbox";
        let mut headers = draft_request(
            "POST",
            "https://elsewhere.example/ap/inbox",
            Some(BODY),
            *NOW,
        );
        set(&mut headers, "host", "podhost.example:443".to_owned());
        assert!(matches!(
            check("POST", https, &headers, BODY),
            Err(SignatureError::Invalid(_))
        ));
    }

    #[test]
    fn tampered_date_refused() {
        let mut headers = draft_request("POST", INBOX, Some(BODY), *NOW);
        set(&mut headers, "date", imf_fixdate(*NOW - hours(1)).unwrap());
        assert!(matches!(
            check("POST", INBOX, &headers, BODY),
            Err(SignatureError::Invalid(_))
        ));
    }

    #[test]
    fn tampered_signature_refused() {
        let mut headers = draft_request("POST", INBOX, Some(BODY), *NOW);
        let value = get(&headers, "signature").to_owned();
        let (head, encoded) = value.split_once("signature=\"").unwrap();
        let mut bytes = STANDARD.decode(encoded.trim_end_matches('"')).unwrap();
        bytes[17] ^= 0x01;
        set(
            &mut headers,
            "signature",
            format!("{head}signature=\"{}\"", STANDARD.encode(&bytes)),
        );
        assert!(matches!(
            check("POST", INBOX, &headers, BODY),
            Err(SignatureError::Invalid(_))
        ));
        // Another key does not verify it either.
        let other = ActorKey::generate();
        let headers = draft_request("POST", INBOX, Some(BODY), *NOW);
        assert!(matches!(
            check_with("POST", INBOX, &headers, BODY, other.public_pem()),
            Err(SignatureError::Invalid(_))
        ));
    }

    #[test]
    fn stale_and_future_dates_refused() {
        let stale = draft_request("POST", INBOX, Some(BODY), *NOW - hours(13));
        let error = check("POST", INBOX, &stale, BODY).unwrap_err();
        assert!(matches!(error, SignatureError::Skewed(_)), "{error:?}");
        assert!(error.to_string().contains("780 minutes old"), "{error}");

        let future = draft_request("POST", INBOX, Some(BODY), *NOW + hours(2));
        let error = check("POST", INBOX, &future, BODY).unwrap_err();
        assert!(matches!(error, SignatureError::Skewed(_)), "{error:?}");

        // Within the window.
        let old = draft_request("POST", INBOX, Some(BODY), *NOW - hours(11));
        check("POST", INBOX, &old, BODY).unwrap();
        let ahead = draft_request(
            "POST",
            INBOX,
            Some(BODY),
            *NOW + jiff::SignedDuration::from_mins(50),
        );
        check("POST", INBOX, &ahead, BODY).unwrap();
    }

    #[test]
    fn post_without_digest_not_covered() {
        let mut headers = draft_request("POST", INBOX, Some(BODY), *NOW);
        hand_signed_draft(
            "POST",
            INBOX,
            &mut headers,
            "(request-target) host date",
            "rsa-sha256",
            "",
        );
        assert_eq!(
            check("POST", INBOX, &headers, BODY),
            Err(SignatureError::NotCovered("digest"))
        );
        // The default headers ("date" only) cover nothing else.
        let signature =
            get(&headers, "signature").replace("headers=\"(request-target) host date\",", "");
        set(&mut headers, "signature", signature);
        assert_eq!(
            check("POST", INBOX, &headers, BODY),
            Err(SignatureError::NotCovered("(request-target)"))
        );
        // A GET must still cover its target and host.
        let uri = "https://podhost.example/ap/podcasts/x";
        let mut headers = draft_request("GET", uri, None, *NOW);
        hand_signed_draft(
            "GET",
            uri,
            &mut headers,
            "(request-target) date",
            "rsa-sha256",
            "",
        );
        assert_eq!(
            check("GET", uri, &headers, b""),
            Err(SignatureError::NotCovered("host"))
        );
    }

    #[test]
    fn draft_params_split() {
        let params = split_draft_params(
            r#"keyId="https://a.example/u#k", algorithm="hs2019",created=1402170695, headers="(request-target) (created)",signature="Yg\"=""#,
        )
        .unwrap();
        let params: Vec<(&str, &str)> = params
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            params,
            [
                ("keyId", "https://a.example/u#k"),
                ("algorithm", "hs2019"),
                ("created", "1402170695"),
                ("headers", "(request-target) (created)"),
                ("signature", "Yg\"="),
            ]
        );
    }
}
