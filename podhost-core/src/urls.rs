//! Public URLs: every link that leaves podhost is built here, from the configured base URL.
//! They never change for the life of an object.

use crate::{
    ids::{AccountId, EpisodeId, FeedId},
    model::Media,
};

/// Builds public URLs from the deployment's base URL.
#[derive(Clone, Debug)]
pub struct Urls {
    base: String,
}

/// Characters kept as they are in a path segment (RFC 3986 unreserved).
fn encode_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

impl Urls {
    pub(crate) fn new(base: &str) -> Self {
        Urls {
            base: base.to_string(),
        }
    }

    /// The base URL, without a trailing slash.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The RSS feed: `{base}/feeds/{feed}/rss`.
    pub fn rss(&self, feed: &FeedId) -> String {
        format!("{}/feeds/{}/rss", self.base, encode_segment(feed.as_str()))
    }

    /// The public podcast page: `{base}/podcasts/{feed}`.
    pub fn feed_page(&self, feed: &FeedId) -> String {
        format!("{}/podcasts/{}", self.base, encode_segment(feed.as_str()))
    }

    /// The public episode page: `{base}/podcasts/{feed}/{episode}`.
    pub fn episode_page(&self, feed: &FeedId, episode: EpisodeId) -> String {
        format!("{}/{episode}", self.feed_page(feed))
    }

    /// The download URL of a media file: `{base}/media/{account}/{blob}/{name}`. A changed file
    /// is a new blob and so a new URL.
    pub fn media(&self, account: &AccountId, media: &Media) -> String {
        format!(
            "{}/media/{}/{}/{}",
            self.base,
            account,
            media.blob.as_str(),
            encode_segment(media.url_name())
        )
    }

    /// The public JSON chapters of a media file (`podcast:chapters`):
    /// `{base}/chapters/{account}/{blob}.json`.
    pub fn chapters(&self, account: &AccountId, media: &Media) -> String {
        format!(
            "{}/chapters/{}/{}.json",
            self.base,
            account,
            media.blob.as_str()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feed_ids_with_spaces_and_unicode_are_encoded() {
        let urls = Urls::new("https://pod.example");
        let feed = FeedId::new("My Show ☕").unwrap();
        assert_eq!(
            urls.rss(&feed),
            "https://pod.example/feeds/My%20Show%20%E2%98%95/rss"
        );
    }
}
