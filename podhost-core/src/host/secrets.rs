//! Secrets podhost makes and the form in which it keeps them.

use base64::Engine;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// 256 random bits in URL-safe base64 (43 characters): the secret part of tokens, sessions and
/// codes; frontends use it for values of their own that must not be guessed (CSRF tokens).
pub fn random_secret() -> String {
    let mut random = [0u8; 32];
    rand::rng().fill_bytes(&mut random);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(random)
}

/// The SHA-256 of a secret in hex: how tokens, sessions and codes are kept.
pub(super) fn sha256_hex(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}
