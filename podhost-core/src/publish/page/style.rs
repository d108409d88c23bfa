//! The pages' one stylesheet, inlined in every page (no file to fetch), and its hash for the
//! `style-src` of the pages' Content-Security-Policy.

use std::sync::LazyLock;

use base64::Engine;
use sha2::Digest;

/// The CSS, as it appears in the page's `<style>`.
pub(super) const CSS: &str = include_str!("style.css");

static HASH: LazyLock<String> = LazyLock::new(|| {
    let digest = sha2::Sha256::digest(CSS.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
});

/// The CSP source allowing exactly that stylesheet: `'sha256-…'`.
pub(super) fn csp_source() -> &'static str {
    &HASH
}
