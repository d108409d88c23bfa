//! The pages' stylesheets, inlined in every page (no file to fetch), and their hashes for the
//! `style-src` of the pages' Content-Security-Policy: the pages' and the site's (`style.css`,
//! `site.css`: the signed-in site's forms, tables and header), and the embedded player's
//! (smaller); both start with the same base (`base.css`: the palette, light and dark, and the box model).

use std::sync::LazyLock;

use base64::Engine;
use sha2::Digest;

/// The site's CSS, as it appears in the page's `<style>`.
pub(super) const CSS: &str = concat!(
    include_str!("base.css"),
    include_str!("style.css"),
    include_str!("site.css")
);

/// The embedded player's CSS.
pub(super) const PLAYER_CSS: &str = concat!(include_str!("base.css"), include_str!("player.css"));

/// The embedded player's script, as it appears in its `<script>`.
pub(super) const PLAYER_JS: &str = include_str!("player.js");

/// The CSP source that allows exactly `text` inline: `'sha256-…'`.
fn hash_source(text: &str) -> String {
    let digest = sha2::Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

static HASH: LazyLock<String> = LazyLock::new(|| hash_source(CSS));
static PLAYER_HASH: LazyLock<String> = LazyLock::new(|| hash_source(PLAYER_CSS));
static PLAYER_SCRIPT_HASH: LazyLock<String> = LazyLock::new(|| hash_source(PLAYER_JS));

/// The CSP source allowing exactly the site's stylesheet.
pub(super) fn csp_source() -> &'static str {
    &HASH
}

/// The CSP sources allowing exactly the player's stylesheet and its script.
pub(super) fn player_sources() -> (&'static str, &'static str) {
    (&PLAYER_HASH, &PLAYER_SCRIPT_HASH)
}
