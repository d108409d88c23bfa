//! A podcast actor's key pair, and the public keys of remote actors.
//!
//! Every podcast that is an ActivityPub actor owns an RSA 2048 key pair: its public half is
//! published in the actor document (`publicKey.publicKeyPem`, SPKI PEM) and its private half
//! signs the requests podhost sends on the podcast's behalf (HTTP Signatures, see
//! [`signatures`](super::signatures)). RSA 2048 with RSASSA-PKCS1-v1_5 over SHA-256 is what
//! every fediverse server (Mastodon first) can verify.
//!
//! Remote actors' keys come as PEM too: RSA as SPKI (`BEGIN PUBLIC KEY`) or PKCS#1
//! (`BEGIN RSA PUBLIC KEY`), or Ed25519 as SPKI.
//!
//! The cryptography is RustCrypto's `rsa` crate (version 0.9) and `ed25519-dalek`. `rsa` is
//! subject to RUSTSEC-2023-0071 (the "Marvin" timing side channel of its private-key
//! operation), with no fixed release yet (0.10's release candidates included): podhost signs
//! only messages it composes, always blinded with a random factor (the randomized signer, not
//! the deterministic one that skips blinding). Revisit when a fixed release is out.

use std::fmt;

use rsa::pkcs1::DecodeRsaPublicKey as _;
use rsa::pkcs1v15::SigningKey;
use rsa::pkcs8::{DecodePrivateKey as _, DecodePublicKey as _, EncodePrivateKey as _};
use rsa::pkcs8::{EncodePublicKey as _, LineEnding};
use rsa::rand_core::OsRng;
use rsa::sha2::Sha256;
use rsa::signature::{RandomizedSigner as _, SignatureEncoding as _};
use rsa::{RsaPrivateKey, RsaPublicKey};
use serde::{Deserialize, Serialize};

/// The size in bits of the RSA keys podhost generates.
const KEY_BITS: usize = 2048;

/// Why a key could not be read or used, in words (the signatures module turns it into its
/// `BadKey` refusal).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct KeyError(pub(crate) String);

/// A podcast actor's key pair (RSA 2048), as stored: PKCS#8 PEM.
///
/// The private key never leaves the server; [`ActorKey::public_pem`] is what the actor
/// document publishes. Its `Debug` form shows the public key only.
#[derive(Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ActorKey {
    /// The private key, PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    pub private_pem: String,
    /// The public key, SPKI PEM (`-----BEGIN PUBLIC KEY-----`).
    pub public_pem: String,
}

impl fmt::Debug for ActorKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ActorKey")
            .field("private_pem", &"<redacted>")
            .field("public_pem", &self.public_pem)
            .finish()
    }
}

impl ActorKey {
    /// A new RSA 2048 key pair from the operating system's random generator.
    ///
    /// This takes tens to hundreds of milliseconds (prime search): call it once per podcast,
    /// off the async executor's hot path, and store the result.
    ///
    /// # Panics
    ///
    /// If the operating system's random generator fails, which leaves nothing sensible to do.
    pub fn generate() -> ActorKey {
        let private = RsaPrivateKey::new(&mut OsRng, KEY_BITS)
            .expect("the operating system's random generator works");
        let private_pem = private
            .to_pkcs8_pem(LineEnding::LF)
            .expect("a generated RSA key encodes as PKCS#8")
            .to_string();
        let public_pem = private
            .to_public_key()
            .to_public_key_pem(LineEnding::LF)
            .expect("an RSA public key encodes as SPKI");
        ActorKey {
            private_pem,
            public_pem,
        }
    }

    /// The public key as SPKI PEM (`-----BEGIN PUBLIC KEY-----`): what the actor document's
    /// `publicKey.publicKeyPem` carries.
    pub fn public_pem(&self) -> &str {
        &self.public_pem
    }

    /// The private key, parsed from its PEM (PKCS#8, or PKCS#1 `BEGIN RSA PRIVATE KEY`).
    ///
    /// Parsing costs a base64 and DER decoding plus the key's consistency checks, well under a
    /// millisecond for RSA 2048 and small beside the signature itself (a modular
    /// exponentiation with the private exponent): it is redone at each signature rather than
    /// cached, which keeps [`ActorKey`] a plain stored value.
    pub(crate) fn private_key(&self) -> Result<RsaPrivateKey, KeyError> {
        RsaPrivateKey::from_pkcs8_pem(&self.private_pem)
            .or_else(|_| {
                use rsa::pkcs1::DecodeRsaPrivateKey as _;
                RsaPrivateKey::from_pkcs1_pem(&self.private_pem)
            })
            .map_err(|e| KeyError(format!("the actor's private key: {e}")))
    }

    /// RSASSA-PKCS1-v1_5 with SHA-256 of `data` (the `rsa-sha256` of draft-cavage HTTP
    /// Signatures, `rsa-v1_5-sha256` of RFC 9421), blinded with a random factor.
    pub(crate) fn sign_rsa_sha256(&self, data: &[u8]) -> Result<Vec<u8>, KeyError> {
        let signing_key = SigningKey::<Sha256>::new(self.private_key()?);
        let signature = signing_key
            .try_sign_with_rng(&mut OsRng, data)
            .map_err(|e| KeyError(format!("signing with the actor's key: {e}")))?;
        Ok(signature.to_vec())
    }
}

/// A remote actor's public key, parsed from its PEM.
#[derive(Debug, Clone)]
pub(crate) enum PublicKey {
    /// An RSA key (SPKI or PKCS#1). The `rsa` crate refuses moduli over 4096 bits.
    Rsa(RsaPublicKey),
    /// An Ed25519 key (SPKI).
    Ed25519(ed25519_dalek::VerifyingKey),
}

impl PublicKey {
    /// Parses a PEM public key: SPKI (`BEGIN PUBLIC KEY`) of RSA or Ed25519, or PKCS#1
    /// (`BEGIN RSA PUBLIC KEY`).
    pub(crate) fn from_pem(pem: &str) -> Result<PublicKey, KeyError> {
        let pem = pem.trim();
        if pem.contains("BEGIN RSA PUBLIC KEY") {
            return RsaPublicKey::from_pkcs1_pem(pem)
                .map(PublicKey::Rsa)
                .map_err(|e| KeyError(format!("not a PKCS#1 RSA public key: {e}")));
        }
        let rsa_error = match RsaPublicKey::from_public_key_pem(pem) {
            Ok(key) => return Ok(PublicKey::Rsa(key)),
            Err(e) => e,
        };
        if let Ok(key) = ed25519_dalek::VerifyingKey::from_public_key_pem(pem) {
            return Ok(PublicKey::Ed25519(key));
        }
        Err(KeyError(format!(
            "not an RSA or Ed25519 public key in PEM: {rsa_error}"
        )))
    }

    /// The key type in words, for error messages.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            PublicKey::Rsa(_) => "RSA",
            PublicKey::Ed25519(_) => "Ed25519",
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::LazyLock;

    use rsa::pkcs1::EncodeRsaPublicKey as _;

    use super::*;

    /// One key for all the module's tests (generation is the slow part).
    pub(crate) static KEY: LazyLock<ActorKey> = LazyLock::new(ActorKey::generate);

    #[test]
    fn generated_key_is_pkcs8_and_spki_pem() {
        let key = &*KEY;
        assert!(key.private_pem.starts_with("-----BEGIN PRIVATE KEY-----"));
        assert!(key.public_pem().starts_with("-----BEGIN PUBLIC KEY-----"));
        let public = RsaPublicKey::from_public_key_pem(key.public_pem()).unwrap();
        let private = key.private_key().unwrap();
        assert_eq!(private.to_public_key(), public);
        use rsa::traits::PublicKeyParts as _;
        assert_eq!(public.size() * 8, KEY_BITS);
    }

    #[test]
    fn debug_hides_the_private_key() {
        let shown = format!("{:?}", *KEY);
        assert!(!shown.contains("PRIVATE KEY"), "{shown}");
        assert!(shown.contains("BEGIN PUBLIC KEY"));
    }

    #[test]
    fn serde_round_trip() {
        let json = serde_json::to_string(&*KEY).unwrap();
        let back: ActorKey = serde_json::from_str(&json).unwrap();
        assert_eq!(back, *KEY);
    }

    #[test]
    fn public_key_pem_forms() {
        let spki = PublicKey::from_pem(KEY.public_pem()).unwrap();
        assert_eq!(spki.kind(), "RSA");
        let rsa = RsaPublicKey::from_public_key_pem(KEY.public_pem()).unwrap();
        let pkcs1 = rsa.to_pkcs1_pem(LineEnding::LF).unwrap();
        assert!(pkcs1.starts_with("-----BEGIN RSA PUBLIC KEY-----"));
        match PublicKey::from_pem(&pkcs1).unwrap() {
            PublicKey::Rsa(key) => assert_eq!(key, rsa),
            other => panic!("{other:?}"),
        }
        // RFC 9421 Appendix B.1.4's test-key-ed25519.
        let ed = "-----BEGIN PUBLIC KEY-----\n\
                  MCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=\n\
                  -----END PUBLIC KEY-----\n";
        assert_eq!(PublicKey::from_pem(ed).unwrap().kind(), "Ed25519");
        assert!(matches!(PublicKey::from_pem("not a key"), Err(KeyError(_))));
    }
}
