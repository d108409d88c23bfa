//! HTTP Signatures of ActivityPub requests: signing what podhost sends, verifying what it
//! receives. Transport-free: a request is a [`Message`] (method, full URL, headers, body).
//!
//! Two standards are in use on the fediverse:
//!
//! - [draft-cavage-http-signatures-12], what Mastodon and nearly every server send and
//!   require: a `Signature` header (or `Authorization: Signature …`) with `keyId`, `algorithm`,
//!   `headers` and `signature` parameters, over a signing string of the listed headers and
//!   the pseudo headers `(request-target)`, `(created)`, `(expires)`; the body is covered
//!   through a `Digest` header ([RFC 3230]).
//! - [RFC 9421] HTTP Message Signatures, what Fedify and newer servers send: `Signature-Input`
//!   and `Signature` as [RFC 8941] structured-field dictionaries, over a signature base of
//!   derived components (`@method`, `@target-uri`, …) and header fields; the body is covered
//!   through `Content-Digest` ([RFC 9530]).
//!
//! What each function is for:
//!
//! - [`sign_draft`]: the headers to add to an outbound request (delivery to an inbox, fetch
//!   of an object): draft-cavage `rsa-sha256` as Mastodon requires, with `Digest` and
//!   `Content-Digest` for a body.
//! - [`signer`]: which key an inbound request claims to be signed with (its `keyId`), so that
//!   the caller fetches that actor's public key.
//! - [`verify`]: checks the inbound request against that key: the cryptography, that the
//!   signature covers what this server requires (the target, the time and, for a body, its
//!   digest), that the digest matches the body and that the time is recent (at most
//!   [`MAX_AGE_SECONDS`] old, at most [`MAX_AHEAD_SECONDS`] ahead).
//!
//! Algorithms verified: draft `rsa-sha256` and `hs2019` (RSASSA-PKCS1-v1_5 with SHA-256 for an
//! RSA key, as Mastodon does; Ed25519 for an Ed25519 key); RFC 9421 `rsa-v1_5-sha256`,
//! `rsa-pss-sha512` and `ed25519`, inferred from the key when `alg` is absent.
//!
//! [draft-cavage-http-signatures-12]: https://datatracker.ietf.org/doc/html/draft-cavage-http-signatures-12
//! [RFC 3230]: https://www.rfc-editor.org/rfc/rfc3230
//! [RFC 9421]: https://www.rfc-editor.org/rfc/rfc9421
//! [RFC 8941]: https://www.rfc-editor.org/rfc/rfc8941
//! [RFC 9530]: https://www.rfc-editor.org/rfc/rfc9530

mod draft_cavage;
mod rfc9421;
mod sig_common;

use jiff::Timestamp;

pub use sig_common::{MAX_AGE_SECONDS, MAX_AHEAD_SECONDS, Message, SignatureError};

use super::keys::ActorKey;

/// Who signed a request, as far as the request says: the key to fetch before [`verify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signer {
    /// The key's identifier, usually the URL of the actor's key (`…/actor#main-key`).
    pub key_id: String,
    /// Which standard the request's signature follows.
    pub scheme: Scheme,
}

/// The HTTP Signatures standard of a request's signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// draft-cavage-http-signatures-12: a `Signature` (or `Authorization: Signature`) header.
    Draft,
    /// RFC 9421 HTTP Message Signatures: `Signature-Input` and `Signature` headers (the first
    /// signature of the dictionaries).
    Rfc9421,
}

/// The draft-cavage headers signing an outbound request, to add to it: `host`, `date`
/// (IMF-fixdate of `now`), for a body `digest: SHA-256=<base64>` and
/// `content-digest: sha-256=:<base64>:`, and
/// `signature: keyId="…",algorithm="rsa-sha256",headers="(request-target) host date digest",signature="…"`
/// (without `digest` for no body). Names are lower case.
///
/// `target_uri` is the full URL requested, exactly as the request will carry it (its path and
/// query are signed as written); `(request-target)` is the lower-cased method, a space and
/// that path and query. `host` carries the port when the URL has a non-default one. `body` is
/// `None` for a request without one (a GET).
///
/// Fails with [`SignatureError::Malformed`] for a `key_id` that cannot be quoted (quotes,
/// backslashes, control or non-ASCII characters), a method that is not an HTTP token or a URL
/// without a host, and [`SignatureError::BadKey`] when the stored private key cannot be read.
pub fn sign_draft(
    key: &ActorKey,
    key_id: &str,
    method: &str,
    target_uri: &str,
    body: Option<&[u8]>,
    now: Timestamp,
) -> Result<Vec<(String, String)>, SignatureError> {
    draft_cavage::sign(key, key_id, method, target_uri, body, now)
}

/// Who claims to have signed `message`: the `keyId` (draft) or `keyid` (RFC 9421) of its
/// signature, and the standard followed. RFC 9421 (`Signature-Input` and `Signature`, the
/// first signature listed) is preferred when present; otherwise the draft `Signature` header,
/// or `Authorization: Signature …`.
///
/// Fails with [`SignatureError::Missing`] for an unsigned request and
/// [`SignatureError::Malformed`] for unreadable signature headers or one without a key id.
pub fn signer(message: &Message<'_>) -> Result<Signer, SignatureError> {
    if message.header("signature-input").is_some() {
        let parsed = rfc9421::Rfc9421Signature::parse(message)?;
        return Ok(Signer {
            key_id: parsed.key_id,
            scheme: Scheme::Rfc9421,
        });
    }
    let params = draft_cavage::DraftParams::parse(message)?;
    Ok(Signer {
        key_id: params.key_id,
        scheme: Scheme::Draft,
    })
}

/// Verifies `message`'s signature by `signer` (from [`signer`]) with the signer's public key
/// (`public_key_pem`: SPKI or PKCS#1 RSA, or SPKI Ed25519), at time `now`.
///
/// The target a signature must be made for is `message.target_uri`, scheme and authority
/// included: for an inbound request, the receiving server's own public URL with the path and
/// query received. The host signed (draft `host`; RFC 9421 `@authority`, `@target-uri` and
/// `host`) is therefore this server's, never the request's `Host` header: a request signed for
/// another server does not verify, and when its `Host` names another host the refusal says so
/// ([`SignatureError::WrongHost`]).
///
/// Beyond the cryptography, this server requires that the signature covers:
///
/// - the target: draft `(request-target)` and `host`; RFC 9421 `@target-uri`, or `@path` or
///   `@request-target` with `@authority` (or `host`);
/// - the time: a `date` header, or `(created)`/`created`;
/// - for a body (or any POST): `digest` or `content-digest`, which must match the body
///   (SHA-256 or SHA-512).
///
/// A `Date` or `created` more than [`MAX_AGE_SECONDS`] old or [`MAX_AHEAD_SECONDS`] ahead is
/// refused, and so is an `expires` in the past. Cheap checks come first: the signature is
/// computed last.
pub fn verify(
    message: &Message<'_>,
    signer: &Signer,
    public_key_pem: &str,
    now: Timestamp,
) -> Result<(), SignatureError> {
    match signer.scheme {
        Scheme::Draft => draft_cavage::verify(message, &signer.key_id, public_key_pem, now),
        Scheme::Rfc9421 => rfc9421::verify(message, &signer.key_id, public_key_pem, now),
    }
}

#[cfg(test)]
mod tests;
