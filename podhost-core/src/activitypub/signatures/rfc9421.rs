//! RFC 9421 HTTP Message Signatures: the first signature of the `Signature-Input` and
//! `Signature` structured-field dictionaries, its signature base over derived components and
//! header fields, and the algorithms it names (`rsa-v1_5-sha256`, `rsa-pss-sha512`,
//! `ed25519`).

use jiff::Timestamp;
use sfv::{BareItem, FieldType as _, InnerList, ListEntry};

use super::sig_common::{
    Algorithm, Message, SignatureError, Target, check_content_digest, check_date_header,
    check_digest_header, check_expires, check_signature, check_time, malformed, parse_dictionary,
};
use crate::activitypub::keys::PublicKey;

/// One signature of RFC 9421 `Signature-Input`/`Signature`.
#[derive(Debug)]
pub(super) struct Rfc9421Signature {
    /// The covered components, as in `Signature-Input` (parameters are refused).
    components: Vec<sfv::Item>,
    /// The whole inner list of `Signature-Input`, covered components and parameters: the
    /// `@signature-params` line of the signature base is its serialization.
    input: InnerList,
    pub(super) key_id: String,
    alg: Option<String>,
    created: Option<i64>,
    expires: Option<i64>,
    signature: Vec<u8>,
}

impl Rfc9421Signature {
    /// The first signature of `message`'s `Signature-Input`, with its `Signature`.
    pub(super) fn parse(message: &Message<'_>) -> Result<Rfc9421Signature, SignatureError> {
        let input_header = message
            .header("signature-input")
            .ok_or(SignatureError::Missing)?;
        let inputs = parse_dictionary("Signature-Input", &input_header)?;
        let signatures = match message.header("signature") {
            Some(value) => parse_dictionary("Signature", &value)?,
            None => {
                return Err(malformed(
                    "the request has Signature-Input but no Signature",
                ));
            }
        };
        let (label, entry) = inputs
            .first()
            .ok_or_else(|| malformed("the Signature-Input header is empty"))?;
        let ListEntry::InnerList(input) = entry else {
            return Err(SignatureError::Malformed(format!(
                "Signature-Input's {} is not a list of components",
                label.as_str()
            )));
        };
        let signature = match signatures
            .iter()
            .find(|(l, _)| l.as_str() == label.as_str())
        {
            Some((_, ListEntry::Item(item))) => item
                .bare_item
                .as_byte_sequence()
                .ok_or_else(|| {
                    SignatureError::Malformed(format!(
                        "the Signature header's {} is not a byte sequence (:base64:)",
                        label.as_str()
                    ))
                })?
                .to_vec(),
            _ => {
                return Err(SignatureError::Malformed(format!(
                    "the Signature header has no signature {} (the first of Signature-Input)",
                    label.as_str()
                )));
            }
        };

        let mut key_id = None;
        let mut alg = None;
        let mut created = None;
        let mut expires = None;
        for (name, value) in &input.params {
            match name.as_str() {
                "keyid" => key_id = Some(sf_string(name.as_str(), value)?),
                "alg" => alg = Some(sf_string(name.as_str(), value)?),
                "created" => created = Some(sf_integer(name.as_str(), value)?),
                "expires" => expires = Some(sf_integer(name.as_str(), value)?),
                _ => {} // nonce, tag: no meaning to this server
            }
        }
        let key_id = key_id
            .filter(|k| !k.is_empty())
            .ok_or_else(|| malformed("the Signature-Input has no keyid"))?;

        let mut components: Vec<sfv::Item> = Vec::with_capacity(input.items.len());
        for item in &input.items {
            let Some(name) = item.bare_item.as_string() else {
                return Err(malformed(
                    "a Signature-Input component is not a quoted string",
                ));
            };
            let name = name.as_str();
            if let Some((param, _)) = item.params.first() {
                return Err(SignatureError::Malformed(format!(
                    "the component parameter ;{} of \"{name}\" is not supported by this server",
                    param.as_str()
                )));
            }
            if name.is_empty() || name.bytes().any(|b| b.is_ascii_uppercase()) {
                return Err(SignatureError::Malformed(format!(
                    "the component \"{name}\" is not a lower-case name"
                )));
            }
            if components
                .iter()
                .any(|c| c.bare_item.as_string().is_some_and(|s| s.as_str() == name))
            {
                return Err(SignatureError::Malformed(format!(
                    "the component \"{name}\" is listed twice"
                )));
            }
            components.push(item.clone());
        }
        Ok(Rfc9421Signature {
            components,
            input: input.clone(),
            key_id,
            alg,
            created,
            expires,
            signature,
        })
    }

    fn covers(&self, name: &str) -> bool {
        self.components
            .iter()
            .any(|c| c.bare_item.as_string().is_some_and(|s| s.as_str() == name))
    }

    /// The signature base (RFC 9421 §2.5): a line `"<component>": <value>` per covered
    /// component, then `"@signature-params": <the inner list>`.
    fn signature_base(&self, message: &Message<'_>) -> Result<String, SignatureError> {
        let target = Target::parse(message.target_uri)?;
        let mut base = String::new();
        for component in &self.components {
            let name = component
                .bare_item
                .as_string()
                .expect("components are strings (checked in parse)")
                .as_str();
            let value = match name {
                "@method" => message.method.to_owned(),
                "@target-uri" => message.target_uri.to_owned(),
                "@authority" => target.authority.clone(),
                "@scheme" => target.scheme.clone(),
                "@request-target" => target.request_target.clone(),
                "@path" => target.path.clone(),
                "@query" => format!("?{}", target.query.as_deref().unwrap_or_default()),
                _ if name.starts_with('@') => {
                    return Err(SignatureError::Malformed(format!(
                        "the derived component \"{name}\" is not supported for a request"
                    )));
                }
                _ => message.covered_header(name, &target).ok_or_else(|| {
                    SignatureError::Malformed(format!(
                        "the signed header {name} is not in the request"
                    ))
                })?,
            };
            base.push_str(&component.serialize());
            base.push_str(": ");
            base.push_str(&value);
            base.push('\n');
        }
        let params = vec![ListEntry::InnerList(self.input.clone())]
            .serialize()
            .expect("a list of one inner list serializes");
        base.push_str("\"@signature-params\": ");
        base.push_str(&params);
        Ok(base)
    }

    /// The algorithm, from `alg` or else the key's type.
    fn algorithm(&self, key: &PublicKey) -> Result<Algorithm, SignatureError> {
        match (self.alg.as_deref(), key) {
            (None | Some("rsa-v1_5-sha256"), PublicKey::Rsa(_)) => Ok(Algorithm::RsaV15Sha256),
            (Some("rsa-pss-sha512"), PublicKey::Rsa(_)) => Ok(Algorithm::RsaPssSha512),
            (None | Some("ed25519"), PublicKey::Ed25519(_)) => Ok(Algorithm::Ed25519),
            (Some(alg @ ("rsa-v1_5-sha256" | "rsa-pss-sha512" | "ed25519")), key) => {
                Err(SignatureError::BadKey(format!(
                    "the algorithm is {alg} but {}'s key is {}",
                    self.key_id,
                    key.kind()
                )))
            }
            (Some(other), _) => Err(SignatureError::UnsupportedAlgorithm(format!(
                "{other} (this server verifies rsa-v1_5-sha256, rsa-pss-sha512 and ed25519)"
            ))),
        }
    }

    /// The cryptographic check alone: the signature over the signature base.
    fn check_signature(
        &self,
        message: &Message<'_>,
        key: &PublicKey,
    ) -> Result<(), SignatureError> {
        let algorithm = self.algorithm(key)?;
        let base = self.signature_base(message)?;
        check_signature(
            algorithm,
            key,
            base.as_bytes(),
            &self.signature,
            &self.key_id,
        )
    }
}

/// Verifies `message`'s RFC 9421 signature by the key `key_id` with the key's PEM, at `now`:
/// what [`verify`](super::verify) documents.
pub(super) fn verify(
    message: &Message<'_>,
    key_id: &str,
    public_key_pem: &str,
    now: Timestamp,
) -> Result<(), SignatureError> {
    let parsed = Rfc9421Signature::parse(message)?;
    if parsed.key_id != key_id {
        return Err(SignatureError::Malformed(format!(
            "the signature's keyid \"{}\" is not the signer's \"{}\"",
            parsed.key_id, key_id
        )));
    }

    // What this server requires signed.
    let path = parsed.covers("@path") || parsed.covers("@request-target");
    let authority = parsed.covers("@authority") || parsed.covers("host");
    let target = parsed.covers("@target-uri") || (path && authority);
    if !target {
        return Err(SignatureError::NotCovered(
            "@target-uri (or @path and @authority)",
        ));
    }
    if parsed.created.is_none() && !parsed.covers("date") {
        return Err(SignatureError::NotCovered("date or created"));
    }
    if message.has_body() && !parsed.covers("content-digest") && !parsed.covers("digest") {
        return Err(SignatureError::NotCovered("content-digest"));
    }

    // Time.
    if let Some(expires) = parsed.expires {
        check_expires(expires, now)?;
    }
    if let Some(created) = parsed.created {
        check_time("the signature's created time", created, now)?;
    }
    if parsed.covers("date") {
        check_date_header(message, now)?;
    }

    // The body.
    if parsed.covers("content-digest") {
        check_content_digest(message)?;
    }
    if parsed.covers("digest") {
        check_digest_header(message)?;
    }

    let key = PublicKey::from_pem(public_key_pem)?;
    let target = Target::parse(message.target_uri)?;
    parsed
        .check_signature(message, &key)
        .map_err(|e| message.explain_invalid(&target, e))
}

fn sf_string(name: &str, value: &BareItem) -> Result<String, SignatureError> {
    value
        .as_string()
        .map(|s| s.as_str().to_owned())
        .ok_or_else(|| SignatureError::Malformed(format!("the signature's {name} is not a string")))
}

fn sf_integer(name: &str, value: &BareItem) -> Result<i64, SignatureError> {
    value.as_integer().map(i64::from).ok_or_else(|| {
        SignatureError::Malformed(format!("the signature's {name} is not an integer"))
    })
}

#[cfg(test)]
mod tests {
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;
    use rsa::sha2::{Digest as _, Sha256, Sha512};

    use super::*;
    use crate::activitypub::keys::tests::KEY;
    use crate::activitypub::signatures::sig_common::{check_content_digest, imf_fixdate};
    use crate::activitypub::signatures::tests::{
        BODY, INBOX, KEY_ID, NOW, check, draft_request, get, hours, set,
    };
    use crate::activitypub::signatures::{Scheme, Signer, signer, verify};

    /// A test-only RFC 9421 signer for rsa-v1_5-sha256, building the signature base by the
    /// RFC's text (§2.5) independently of the verifier's code.
    fn rfc9421_request(
        method: &str,
        uri: &str,
        body: &[u8],
        components: &[&str],
        params: &str,
    ) -> Vec<(String, String)> {
        let sha = STANDARD.encode(Sha256::digest(body));
        let host = uri.split_once("://").unwrap().1.split('/').next().unwrap();
        let mut headers = vec![
            ("Host".to_owned(), host.to_owned()),
            ("Date".to_owned(), imf_fixdate(*NOW).unwrap()),
            ("Content-Digest".to_owned(), format!("sha-256=:{sha}:")),
            (
                "Content-Type".to_owned(),
                "application/activity+json".to_owned(),
            ),
        ];
        let (scheme, rest) = uri.split_once("://").unwrap();
        let slash = rest.find('/').unwrap();
        let authority = &rest[..slash];
        let request_target = &rest[slash..];
        let path = request_target.split('?').next().unwrap();
        let mut base = String::new();
        for component in components {
            let value = match *component {
                "@method" => method.to_owned(),
                "@target-uri" => uri.to_owned(),
                "@authority" => authority.to_owned(),
                "@scheme" => scheme.to_owned(),
                "@request-target" => request_target.to_owned(),
                "@path" => path.to_owned(),
                "@query" => format!("?{}", request_target.split_once('?').unwrap().1),
                name => get(&headers, name).to_owned(),
            };
            base.push_str(&format!("\"{component}\": {value}\n"));
        }
        let list = components
            .iter()
            .map(|c| format!("\"{c}\""))
            .collect::<Vec<_>>()
            .join(" ");
        let signature_params = format!("({list}){params}");
        base.push_str(&format!("\"@signature-params\": {signature_params}"));
        let signature = KEY.sign_rsa_sha256(base.as_bytes()).unwrap();
        headers.push((
            "Signature-Input".to_owned(),
            format!("sig1={signature_params}"),
        ));
        headers.push((
            "Signature".to_owned(),
            format!("sig1=:{}:", STANDARD.encode(signature)),
        ));
        headers
    }

    const FEDIFY_COMPONENTS: &[&str] = &[
        "@method",
        "@target-uri",
        "@authority",
        "content-digest",
        "date",
    ];

    fn fedify_params(created: i64) -> String {
        format!(";created={created};keyid=\"{KEY_ID}\";alg=\"rsa-v1_5-sha256\"")
    }

    #[test]
    fn rfc9421_rsa_v1_5_sha256() {
        let params = fedify_params(NOW.as_second());
        let headers = rfc9421_request("POST", INBOX, BODY, FEDIFY_COMPONENTS, &params);
        let message = Message {
            method: "POST",
            target_uri: INBOX,
            headers: &headers,
            body: BODY,
        };
        assert_eq!(
            signer(&message).unwrap(),
            Signer {
                key_id: KEY_ID.to_owned(),
                scheme: Scheme::Rfc9421
            }
        );
        check("POST", INBOX, &headers, BODY).unwrap();

        // Without alg, inferred from the RSA key; and the other derived components.
        let params = format!(";created={};keyid=\"{KEY_ID}\"", NOW.as_second());
        let components = [
            "@method",
            "@scheme",
            "@path",
            "@query",
            "@request-target",
            "host",
            "content-digest",
            "content-type",
        ];
        let headers = rfc9421_request("POST", INBOX, BODY, &components, &params);
        check("POST", INBOX, &headers, BODY).unwrap();
    }

    #[test]
    fn rfc9421_refusals() {
        let params = fedify_params(NOW.as_second());
        let headers = rfc9421_request("POST", INBOX, BODY, FEDIFY_COMPONENTS, &params);
        // Body, target, signature bytes.
        assert_eq!(
            check("POST", INBOX, &headers, b"{}"),
            Err(SignatureError::DigestMismatch)
        );
        assert!(matches!(
            check(
                "POST",
                "http://127.0.0.1:8080/ap/podcasts/z/inbox?y=1",
                &headers,
                BODY
            ),
            Err(SignatureError::Invalid(_))
        ));
        let mut tampered = headers.clone();
        let value = get(&tampered, "signature").replacen("sig1=:", "sig1=:AAAA", 1);
        set(&mut tampered, "signature", value);
        assert!(matches!(
            check("POST", INBOX, &tampered, BODY),
            Err(SignatureError::Invalid(_))
        ));

        // Not covering the digest, the target, the time.
        let no_digest = rfc9421_request(
            "POST",
            INBOX,
            BODY,
            &["@method", "@target-uri", "date"],
            &params,
        );
        assert_eq!(
            check("POST", INBOX, &no_digest, BODY),
            Err(SignatureError::NotCovered("content-digest"))
        );
        let no_target = rfc9421_request(
            "POST",
            INBOX,
            BODY,
            &["@method", "@path", "content-digest"],
            &params,
        );
        assert_eq!(
            check("POST", INBOX, &no_target, BODY),
            Err(SignatureError::NotCovered(
                "@target-uri (or @path and @authority)"
            ))
        );
        let untimed = format!(";keyid=\"{KEY_ID}\"");
        let no_time = rfc9421_request(
            "POST",
            INBOX,
            BODY,
            &["@method", "@target-uri", "content-digest"],
            &untimed,
        );
        assert_eq!(
            check("POST", INBOX, &no_time, BODY),
            Err(SignatureError::NotCovered("date or created"))
        );

        // Time.
        let stale = fedify_params((*NOW - hours(13)).as_second());
        let headers = rfc9421_request(
            "POST",
            INBOX,
            BODY,
            &["@method", "@target-uri", "content-digest"],
            &stale,
        );
        assert!(matches!(
            check("POST", INBOX, &headers, BODY),
            Err(SignatureError::Skewed(_))
        ));
        let expired = format!(
            "{};expires={}",
            fedify_params(NOW.as_second() - 60),
            NOW.as_second() - 1
        );
        let headers = rfc9421_request("POST", INBOX, BODY, FEDIFY_COMPONENTS, &expired);
        assert_eq!(
            check("POST", INBOX, &headers, BODY),
            Err(SignatureError::Expired)
        );

        // Algorithms.
        let hmac = format!(
            ";created={};keyid=\"{KEY_ID}\";alg=\"hmac-sha256\"",
            NOW.as_second()
        );
        let headers = rfc9421_request("POST", INBOX, BODY, FEDIFY_COMPONENTS, &hmac);
        assert!(matches!(
            check("POST", INBOX, &headers, BODY),
            Err(SignatureError::UnsupportedAlgorithm(_))
        ));
        let ed = format!(
            ";created={};keyid=\"{KEY_ID}\";alg=\"ed25519\"",
            NOW.as_second()
        );
        let headers = rfc9421_request("POST", INBOX, BODY, FEDIFY_COMPONENTS, &ed);
        assert!(matches!(
            check("POST", INBOX, &headers, BODY),
            Err(SignatureError::BadKey(_))
        ));
    }

    #[test]
    fn rfc9421_the_authority_signed_is_this_servers() {
        let params = fedify_params(NOW.as_second());
        let elsewhere = "http://podcasts.elsewhere.example/ap/podcasts/x/inbox?y=1";
        let by_host = [
            "@method",
            "@path",
            "@query",
            "host",
            "content-digest",
            "date",
        ];
        for components in [
            FEDIFY_COMPONENTS,
            &["@method", "@target-uri", "content-digest", "date"],
            &by_host,
        ] {
            // Signed for another server (its @target-uri, @authority or Host), sent here.
            let headers = rfc9421_request("POST", elsewhere, BODY, components, &params);
            assert_eq!(
                check("POST", INBOX, &headers, BODY),
                Err(SignatureError::WrongHost {
                    signed: "podcasts.elsewhere.example".to_owned(),
                    ours: "127.0.0.1:8080".to_owned(),
                }),
                "{components:?}"
            );
            // Signed for this server, with whatever Host the request came with: verified.
            let mut headers = rfc9421_request("POST", INBOX, BODY, components, &params);
            set(&mut headers, "host", "internal.proxy.example".to_owned());
            check("POST", INBOX, &headers, BODY).unwrap();
        }
    }

    #[test]
    fn rfc9421_preferred_over_draft() {
        let params = fedify_params(NOW.as_second());
        let mut headers = rfc9421_request("POST", INBOX, BODY, FEDIFY_COMPONENTS, &params);
        let draft = draft_request("POST", INBOX, Some(BODY), *NOW);
        headers.push((
            "Authorization".to_owned(),
            format!("Signature {}", get(&draft, "signature")),
        ));
        let message = Message {
            method: "POST",
            target_uri: INBOX,
            headers: &headers,
            body: BODY,
        };
        assert_eq!(signer(&message).unwrap().scheme, Scheme::Rfc9421);
        check("POST", INBOX, &headers, BODY).unwrap();
    }

    #[test]
    fn rfc9421_rsa_pss_sha512() {
        use rsa::signature::{RandomizedSigner as _, SignatureEncoding as _};
        let components = ["@method", "@target-uri", "content-digest"];
        let params = format!(
            ";created={};keyid=\"{KEY_ID}\";alg=\"rsa-pss-sha512\"",
            NOW.as_second()
        );
        // Sign the same base with PSS instead (the helper's base is what the verifier builds).
        let headers = rfc9421_request("POST", INBOX, BODY, &components, &params);
        let message = Message {
            method: "POST",
            target_uri: INBOX,
            headers: &headers,
            body: BODY,
        };
        let parsed = Rfc9421Signature::parse(&message).unwrap();
        let base = parsed.signature_base(&message).unwrap();
        let private = KEY.private_key().unwrap();
        let pss = rsa::pss::BlindedSigningKey::<Sha512>::new(private)
            .sign_with_rng(&mut rsa::rand_core::OsRng, base.as_bytes())
            .to_vec();
        let mut headers = headers;
        set(
            &mut headers,
            "signature",
            format!("sig1=:{}:", STANDARD.encode(pss)),
        );
        check("POST", INBOX, &headers, BODY).unwrap();
    }

    /// RFC 9421 Appendix B.2.6: ed25519 over `("date" "@method" "@path" "@authority"
    /// "content-type" "content-length")` with test-key-ed25519 (Appendix B.1.4).
    #[test]
    fn rfc9421_b_2_6_ed25519_vector() {
        const PUBLIC: &str = "-----BEGIN PUBLIC KEY-----\n\
                              MCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=\n\
                              -----END PUBLIC KEY-----\n";
        let headers: Vec<(String, String)> = [
            ("Host", "example.com"),
            ("Date", "Tue, 20 Apr 2021 02:07:55 GMT"),
            ("Content-Type", "application/json"),
            (
                "Content-Digest",
                "sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:",
            ),
            ("Content-Length", "18"),
            (
                "Signature-Input",
                "sig-b26=(\"date\" \"@method\" \"@path\" \"@authority\" \"content-type\" \"content-length\");created=1618884473;keyid=\"test-key-ed25519\"",
            ),
            (
                "Signature",
                "sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:",
            ),
        ]
        .into_iter()
        .map(|(n, v)| (n.to_owned(), v.to_owned()))
        .collect();
        let body = br#"{"hello": "world"}"#;
        let message = Message {
            method: "POST",
            target_uri: "https://example.com/foo?param=Value&Pet=dog",
            headers: &headers,
            body,
        };
        let parsed = Rfc9421Signature::parse(&message).unwrap();
        assert_eq!(
            parsed.signature_base(&message).unwrap(),
            "\"date\": Tue, 20 Apr 2021 02:07:55 GMT\n\
             \"@method\": POST\n\
             \"@path\": /foo\n\
             \"@authority\": example.com\n\
             \"content-type\": application/json\n\
             \"content-length\": 18\n\
             \"@signature-params\": (\"date\" \"@method\" \"@path\" \"@authority\" \
             \"content-type\" \"content-length\");created=1618884473;keyid=\"test-key-ed25519\""
        );
        let key = PublicKey::from_pem(PUBLIC).unwrap();
        parsed.check_signature(&message, &key).unwrap();
        // The RFC's Content-Digest (sha-512) matches the body.
        check_content_digest(&message).unwrap();

        // verify() does the same, but this server also wants the body covered.
        let signer = signer(&message).unwrap();
        assert_eq!(signer.key_id, "test-key-ed25519");
        let at = Timestamp::from_second(1618884473).unwrap();
        assert_eq!(
            verify(&message, &signer, PUBLIC, at),
            Err(SignatureError::NotCovered("content-digest"))
        );
        // A changed header fails the cryptography.
        let mut changed = headers.clone();
        set(&mut changed, "content-length", "19".to_owned());
        let message = Message {
            headers: &changed,
            ..message
        };
        assert!(matches!(
            parsed.check_signature(&message, &key),
            Err(SignatureError::Invalid(_))
        ));
    }
}
