//! Signing by the [Standard Webhooks](https://www.standardwebhooks.com/) specification.
//!
//! A delivery carries `webhook-id`, `webhook-timestamp` (Unix seconds) and
//! `webhook-signature: v1,<base64 of HMAC-SHA256(key, "{id}.{timestamp}.{body}")>`, where the
//! key is the subscription's secret, shown to its owner as `whsec_` and the key in base64.
//! Any receiver library of the specification verifies these signatures.

use std::fmt;

use base64::Engine as _;
use base64::alphabet;
use base64::engine::DecodePaddingMode;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};
use hmac::{Hmac, KeyInit as _, Mac as _};
use rand::RngCore as _;
use sha2::Sha256;
use subtle::ConstantTimeEq as _;

/// The prefix of a secret's text form.
pub const SECRET_PREFIX: &str = "whsec_";

/// The fewest key bytes a secret may have (192 bits).
pub const MIN_KEY_BYTES: usize = 24;

/// The most key bytes a secret may have (512 bits).
pub const MAX_KEY_BYTES: usize = 64;

/// The key bytes of a generated secret (256 bits, as the specification recommends).
pub const GENERATED_KEY_BYTES: usize = 32;

/// Standard base64 that accepts the key with or without its `=` padding.
const LENIENT: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// A subscription's signing secret: `whsec_` followed by the key in standard base64.
///
/// Its `Debug` form never shows the key; [`Secret::as_str`] does, for showing the secret to
/// its owner once and for storing it.
#[derive(Clone)]
pub struct Secret {
    /// The text form, `whsec_` + padded standard base64 of `key`.
    text: String,
    /// The HMAC key.
    key: Vec<u8>,
}

/// Why a text is not a signing secret (a message in words, for a 422 answer).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    /// The text does not start with `whsec_`.
    #[error("a webhook secret starts with \"whsec_\"")]
    MissingPrefix,
    /// The part after `whsec_` is not standard base64.
    #[error("a webhook secret is \"whsec_\" followed by the key in base64")]
    NotBase64,
    /// The key is too short or too long.
    #[error(
        "a webhook secret's key has {MIN_KEY_BYTES} to {MAX_KEY_BYTES} bytes, this one has {0}"
    )]
    Length(usize),
}

impl Secret {
    /// A new secret with [`GENERATED_KEY_BYTES`] random bytes from the operating system's
    /// generator (through `rand`).
    pub fn generate() -> Secret {
        let mut key = vec![0u8; GENERATED_KEY_BYTES];
        rand::rng().fill_bytes(&mut key);
        Secret::from_key(key)
    }

    /// Reads a secret in its text form, `whsec_<base64 key>` (padding optional), with a key of
    /// [`MIN_KEY_BYTES`] to [`MAX_KEY_BYTES`] bytes. Surrounding whitespace is ignored.
    pub fn parse(text: &str) -> Result<Secret, SecretError> {
        let encoded = text
            .trim()
            .strip_prefix(SECRET_PREFIX)
            .ok_or(SecretError::MissingPrefix)?;
        let key = LENIENT
            .decode(encoded)
            .map_err(|_| SecretError::NotBase64)?;
        if !(MIN_KEY_BYTES..=MAX_KEY_BYTES).contains(&key.len()) {
            return Err(SecretError::Length(key.len()));
        }
        Ok(Secret::from_key(key))
    }

    /// The text form, `whsec_` and the key in padded standard base64.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    fn from_key(key: Vec<u8>) -> Secret {
        let text = format!("{SECRET_PREFIX}{}", STANDARD.encode(&key));
        Secret { text, key }
    }

    /// HMAC-SHA256 of `"{msg_id}.{timestamp}.{body}"` under this key.
    fn tag(&self, msg_id: &str, timestamp: i64, body: &[u8]) -> [u8; 32] {
        // `new_from_slice` accepts keys of any length for HMAC: this cannot fail.
        let mut mac = match Hmac::<Sha256>::new_from_slice(&self.key) {
            Ok(mac) => mac,
            Err(_) => return [0; 32],
        };
        mac.update(msg_id.as_bytes());
        mac.update(b".");
        mac.update(timestamp.to_string().as_bytes());
        mac.update(b".");
        mac.update(body);
        mac.finalize().into_bytes().into()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(whsec_…)")
    }
}

impl PartialEq for Secret {
    /// Compares the keys in constant time.
    fn eq(&self, other: &Secret) -> bool {
        self.key.ct_eq(&other.key).into()
    }
}

impl Eq for Secret {}

/// The `webhook-signature` value of a message: `v1,` and the base64 of
/// HMAC-SHA256(key, `"{msg_id}.{timestamp}.{body}"`).
pub fn sign(secret: &Secret, msg_id: &str, timestamp: i64, body: &[u8]) -> String {
    format!(
        "v1,{}",
        STANDARD.encode(secret.tag(msg_id, timestamp, body))
    )
}

/// Whether `header_value` (a `webhook-signature` value: one or more space-separated
/// `version,base64` signatures) holds a `v1` signature of the message by `secret`. Signatures
/// of other versions and malformed entries are skipped; the comparison is in constant time.
///
/// This checks the signature only: a receiver should also refuse timestamps far from its clock.
pub fn verify(
    secret: &Secret,
    msg_id: &str,
    timestamp: i64,
    body: &[u8],
    header_value: &str,
) -> bool {
    let expected = secret.tag(msg_id, timestamp, body);
    let mut found = false;
    for entry in header_value.split(' ').filter(|e| !e.is_empty()) {
        let Some(("v1", encoded)) = entry.split_once(',') else {
            continue;
        };
        let Ok(given) = STANDARD.decode(encoded) else {
            continue;
        };
        // Look at every entry, so that the time does not tell which one matched.
        found |= bool::from(given.as_slice().ct_eq(&expected));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    // The test vector of the Standard Webhooks specification (and of its libraries' tests).
    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const MSG_ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const TIMESTAMP: i64 = 1_614_265_330;
    const BODY: &[u8] = br#"{"test": 2432232314}"#;
    const SIGNATURE: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    fn vector_secret() -> Secret {
        Secret::parse(SECRET).unwrap()
    }

    #[test]
    fn signs_the_specification_test_vector() {
        assert_eq!(sign(&vector_secret(), MSG_ID, TIMESTAMP, BODY), SIGNATURE);
    }

    #[test]
    fn verifies_the_specification_test_vector() {
        assert!(verify(&vector_secret(), MSG_ID, TIMESTAMP, BODY, SIGNATURE));
    }

    #[test]
    fn refuses_a_changed_message_or_another_key() {
        let secret = vector_secret();
        assert!(!verify(&secret, "msg_other", TIMESTAMP, BODY, SIGNATURE));
        assert!(!verify(&secret, MSG_ID, TIMESTAMP + 1, BODY, SIGNATURE));
        assert!(!verify(
            &secret,
            MSG_ID,
            TIMESTAMP,
            br#"{"test": 2432232315}"#,
            SIGNATURE
        ));
        assert!(!verify(
            &Secret::generate(),
            MSG_ID,
            TIMESTAMP,
            BODY,
            SIGNATURE
        ));
    }

    #[test]
    fn reads_headers_with_several_signatures_and_skips_what_it_cannot_read() {
        let secret = vector_secret();
        let other = sign(&Secret::generate(), MSG_ID, TIMESTAMP, BODY);
        for header in [
            format!("{other} {SIGNATURE}"),
            format!("{SIGNATURE} {other}"),
            format!("v2,abc {SIGNATURE}"),
            format!("garbage  v1,!!! {SIGNATURE}"),
        ] {
            assert!(
                verify(&secret, MSG_ID, TIMESTAMP, BODY, &header),
                "{header}"
            );
        }
        for header in [
            "",
            " ",
            other.as_str(),
            "v2,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
            "v1,",
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1O",
            "g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
        ] {
            assert!(
                !verify(&secret, MSG_ID, TIMESTAMP, BODY, header),
                "{header}"
            );
        }
    }

    #[test]
    fn generated_secrets_are_random_32_byte_keys_that_round_trip() {
        let a = Secret::generate();
        let b = Secret::generate();
        assert_ne!(a, b);
        assert!(a.as_str().starts_with("whsec_"));
        assert_eq!(STANDARD.decode(&a.as_str()[6..]).unwrap().len(), 32);
        let again = Secret::parse(a.as_str()).unwrap();
        assert_eq!(again, a);
        assert_eq!(again.as_str(), a.as_str());
        assert_eq!(
            sign(&again, MSG_ID, TIMESTAMP, BODY),
            sign(&a, MSG_ID, TIMESTAMP, BODY)
        );
    }

    #[test]
    fn parses_only_whsec_base64_keys_of_24_to_64_bytes() {
        let key = |n: usize| STANDARD.encode(vec![7u8; n]);
        assert_eq!(vector_secret().as_str(), SECRET);
        // Padding is optional; the text form is the padded one.
        let unpadded = format!("whsec_{}", key(32).trim_end_matches('='));
        assert_eq!(
            Secret::parse(&unpadded).unwrap().as_str(),
            format!("whsec_{}", key(32))
        );
        assert!(Secret::parse(&format!("  whsec_{}\n", key(32))).is_ok());
        assert!(Secret::parse(&format!("whsec_{}", key(24))).is_ok());
        assert!(Secret::parse(&format!("whsec_{}", key(64))).is_ok());
        assert_eq!(
            Secret::parse(&format!("whsec_{}", key(23))),
            Err(SecretError::Length(23))
        );
        assert_eq!(
            Secret::parse(&format!("whsec_{}", key(65))),
            Err(SecretError::Length(65))
        );
        assert_eq!(Secret::parse("whsec_"), Err(SecretError::Length(0)));
        assert_eq!(Secret::parse(&key(32)), Err(SecretError::MissingPrefix));
        assert_eq!(
            Secret::parse(&format!("WHSEC_{}", key(32))),
            Err(SecretError::MissingPrefix)
        );
        assert_eq!(
            Secret::parse("whsec_not base64!"),
            Err(SecretError::NotBase64)
        );
        // Standard base64, not the URL-safe alphabet.
        let url_safe = STANDARD
            .encode([0xfb_u8; 32])
            .replace('+', "-")
            .replace('/', "_");
        assert_eq!(
            Secret::parse(&format!("whsec_{url_safe}")),
            Err(SecretError::NotBase64)
        );
        // The messages are words for a person.
        assert!(
            SecretError::Length(3)
                .to_string()
                .contains("24 to 64 bytes")
        );
    }

    #[test]
    fn debug_never_shows_the_key() {
        let secret = vector_secret();
        let shown = format!("{secret:?} {:?}", Some(&secret));
        assert!(!shown.contains("MfKQ9r8"), "{shown}");
        assert!(
            !shown.contains(&STANDARD.encode(&secret.key)[..8]),
            "{shown}"
        );
    }
}
