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
    /// A private podcast's subscriber: `{base}/private/{feed}/{key}`, the prefix of the feed
    /// and media URLs that subscriber's copy of the feed carries.
    private: Option<String>,
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
            private: None,
        }
    }

    /// The base URL, without a trailing slash.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The URLs of a private podcast's subscriber, whose key (`sub_…_…`) is in every feed and
    /// media URL: `{base}/private/{feed}/{key}/rss`, `…/media/{blob}/{name}`.
    pub fn for_subscriber(&self, feed: &FeedId, key: &str) -> Urls {
        Urls {
            base: self.base.clone(),
            private: Some(format!(
                "{}/private/{}/{}",
                self.base,
                encode_segment(feed.as_str()),
                encode_segment(key)
            )),
        }
    }

    /// The RSS feed: `{base}/feeds/{feed}/rss` (a subscriber's: `{base}/private/{feed}/{key}/rss`).
    pub fn rss(&self, feed: &FeedId) -> String {
        match &self.private {
            Some(prefix) => format!("{prefix}/rss"),
            None => format!("{}/feeds/{}/rss", self.base, encode_segment(feed.as_str())),
        }
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
        if let Some(prefix) = &self.private {
            return format!(
                "{prefix}/media/{}/{}",
                media.blob.as_str(),
                encode_segment(media.url_name())
            );
        }
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
