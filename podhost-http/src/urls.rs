//! The API's own URLs (`{base}/api/...`), always absolute: `Location` headers, `links.self`, a
//! job's `result`. The core builds only the public URLs; these paths are the route table's.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use podhost_core::{EpisodeId, FeedId, JobId, MediaId, PodcastHost};

/// Kept as they are in a path segment: RFC 3986's unreserved characters.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

fn segment(s: &str) -> String {
    utf8_percent_encode(s, SEGMENT).to_string()
}

/// Builds the API's URLs from the deployment's base URL.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ApiUrls<'a> {
    base: &'a str,
}

impl<'a> ApiUrls<'a> {
    /// The URLs of `host`'s API.
    pub(crate) fn new(host: &'a PodcastHost) -> Self {
        ApiUrls {
            base: host.urls().base(),
        }
    }

    /// `{base}/api/media/{media_id}`
    pub(crate) fn media(&self, id: MediaId) -> String {
        format!("{}/api/media/{id}", self.base)
    }

    /// `{base}/api/media/{id}/metadata`
    pub(crate) fn metadata(&self, id: MediaId) -> String {
        format!("{}/metadata", self.media(id))
    }

    /// `{base}/api/media/{id}/waveform`
    pub(crate) fn waveform(&self, id: MediaId) -> String {
        format!("{}/waveform", self.media(id))
    }

    /// `{base}/api/media/{id}/silence`
    pub(crate) fn silence(&self, id: MediaId) -> String {
        format!("{}/silence", self.media(id))
    }

    /// `{base}/api/media/{id}/loudness`
    pub(crate) fn loudness(&self, id: MediaId) -> String {
        format!("{}/loudness", self.media(id))
    }

    /// `{base}/api/jobs/{job_id}`
    pub(crate) fn job(&self, id: &JobId) -> String {
        format!("{}/api/jobs/{id}", self.base)
    }

    /// `{base}/api/feeds/{feed_id}`
    pub(crate) fn feed(&self, id: &FeedId) -> String {
        format!("{}/api/feeds/{}", self.base, segment(id.as_str()))
    }

    /// `{base}/api/feed/{feed_id}/show/{show_id}`
    pub(crate) fn episode(&self, feed: &FeedId, id: EpisodeId) -> String {
        format!(
            "{}/api/feed/{}/show/{id}",
            self.base,
            segment(feed.as_str())
        )
    }

    /// `{base}/api/webhooks/{webhook_id}`
    pub(crate) fn webhook(&self, id: &str) -> String {
        format!("{}/api/webhooks/{}", self.base, segment(id))
    }

    /// `{base}/api/campaigns/{campaign_id}`
    pub(crate) fn campaign(&self, id: &podhost_core::CampaignId) -> String {
        format!("{}/api/campaigns/{}", self.base, segment(id.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use http::Method;

    use super::*;
    use crate::routes::{
        Endpoint,
        api::{
            episodes::EpisodeEndpoint, feeds::FeedEndpoint, media::MediaEndpoint,
            metadata::MetadataEndpoint, processing::ProcessingEndpoint, webhooks::WebhookEndpoint,
        },
        route,
    };

    #[test]
    fn each_url_routes_to_its_endpoint() {
        let urls = ApiUrls {
            base: "https://pod.example",
        };
        let media = MediaId::new(7).unwrap();
        let feed = FeedId::new("My Show ☕").unwrap();
        let episode = EpisodeId::new(3).unwrap();
        let job: JobId = "job_abcdefghijklmnopqrst".parse().unwrap();
        let cases: [(String, Endpoint); 9] = [
            (
                urls.media(media),
                MediaEndpoint::GetMedia { media_id: media }.into(),
            ),
            (
                urls.metadata(media),
                MetadataEndpoint::GetMetadata { id: media }.into(),
            ),
            (
                urls.waveform(media),
                ProcessingEndpoint::GetWaveform { id: media }.into(),
            ),
            (
                urls.silence(media),
                ProcessingEndpoint::GetSilence { id: media }.into(),
            ),
            (
                urls.loudness(media),
                ProcessingEndpoint::GetLoudness { id: media }.into(),
            ),
            (
                urls.job(&job),
                ProcessingEndpoint::GetJob {
                    job_id: job.clone(),
                }
                .into(),
            ),
            (
                urls.feed(&feed),
                FeedEndpoint::GetFeed {
                    feed_id: feed.clone(),
                }
                .into(),
            ),
            (
                urls.episode(&feed, episode),
                EpisodeEndpoint::GetEpisode {
                    feed_id: feed.clone(),
                    show_id: episode,
                }
                .into(),
            ),
            (
                urls.webhook("wh_1"),
                WebhookEndpoint::GetWebhook {
                    webhook_id: "wh_1".into(),
                }
                .into(),
            ),
        ];
        for (url, endpoint) in cases {
            let path = url.strip_prefix("https://pod.example").unwrap();
            assert_eq!(route(&Method::GET, path).unwrap().1, endpoint, "{url}");
        }
        assert_eq!(
            urls.feed(&feed),
            "https://pod.example/api/feeds/My%20Show%20%E2%98%95"
        );
    }
}
