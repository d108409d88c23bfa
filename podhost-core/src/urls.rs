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

/// The links a feed document carries: the public feed's, or one subscriber's copy of a private
/// podcast's feed, where [`FeedLinks::file`] is the one function that makes a link to a file,
/// so that no link of a subscriber's feed can leave their key out.
#[derive(Clone, Debug)]
pub enum FeedLinks<'a> {
    /// The public feed: the public URLs.
    Public(&'a Urls),
    /// A private podcast's subscriber: every link under `{base}/private/{feed}/{key}`.
    Subscriber {
        /// `{base}/private/{feed}/{key}`.
        prefix: String,
    },
}

/// What a link to a file of the account serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileLink {
    /// Its bytes (enclosure, alternate enclosure, artwork, transcript).
    Download,
    /// Its JSON chapters (`podcast:chapters`).
    Chapters,
    /// A packaged video's HLS stream (its multivariant playlist).
    Stream,
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

    /// Whether the deployment is on https (its cookies are then `Secure`).
    pub fn is_https(&self) -> bool {
        self.base.starts_with("https://")
    }

    /// The links of a private podcast's subscriber's feed, whose key (`sub_…_…`) is in every
    /// one of them: `{base}/private/{feed}/{key}/rss`, `…/media/{blob}/{name}`,
    /// `…/chapters/{blob}.json`.
    pub fn for_subscriber(&self, feed: &FeedId, key: &str) -> FeedLinks<'static> {
        FeedLinks::Subscriber {
            prefix: format!(
                "{}/private/{}/{}",
                self.base,
                encode_segment(feed.as_str()),
                encode_segment(key)
            ),
        }
    }

    /// A podcast's ActivityPub actor: `{base}/ap/podcasts/{feed}`.
    pub fn actor(&self, feed: &FeedId) -> String {
        format!(
            "{}/ap/podcasts/{}",
            self.base,
            encode_segment(feed.as_str())
        )
    }

    /// The id of a podcast actor's public key: `{actor}#main-key`.
    pub fn actor_key(&self, feed: &FeedId) -> String {
        format!("{}#main-key", self.actor(feed))
    }

    /// A collection or box of a podcast's actor: `{actor}/{name}` (`inbox`, `outbox`,
    /// `followers`, `featured`).
    pub fn actor_collection(&self, feed: &FeedId, name: &str) -> String {
        format!("{}/{name}", self.actor(feed))
    }

    /// The deployment's shared inbox: `{base}/ap/inbox`.
    pub fn shared_inbox(&self) -> String {
        format!("{}/ap/inbox", self.base)
    }

    /// An episode's post on the fediverse (a `Note`): `{actor}/episodes/{episode}`.
    pub fn episode_note(&self, feed: &FeedId, episode: EpisodeId) -> String {
        format!("{}/episodes/{episode}", self.actor(feed))
    }

    /// The deployment's host as a fediverse handle names it: the public URL's host, with its
    /// port when it has one (`podcasts.example`, `127.0.0.1:8080`).
    pub fn authority(&self) -> &str {
        let rest = self
            .base
            .split_once("://")
            .map_or(self.base.as_str(), |(_, rest)| rest);
        rest.split('/').next().unwrap_or(rest)
    }

    /// A podcast's fediverse handle: `@{name}@{authority}`, its name by
    /// [`FeedId::fediverse_name`].
    pub fn handle(&self, feed: &FeedId) -> String {
        format!("@{}@{}", feed.fediverse_name(), self.authority())
    }

    /// The podcast and episode an ActivityPub URL of this deployment names: the actor
    /// (`None` episode) or an episode's post. `None` for any other URL.
    pub fn ap_object(&self, url: &str) -> Option<(FeedId, Option<EpisodeId>)> {
        let rest = url.trim().strip_prefix(self.base.as_str())?;
        let path = rest.split(['?', '#']).next().unwrap_or("");
        let path = path.strip_prefix("/ap/podcasts/")?;
        let mut segments = path.split('/');
        let feed = segments.next().filter(|s| !s.is_empty())?;
        let feed = percent_encoding::percent_decode_str(feed)
            .decode_utf8()
            .ok()?;
        let feed = FeedId::new(&feed).ok()?;
        let found = match (segments.next(), segments.next()) {
            (None, _) => (feed, None),
            (Some("episodes"), Some(episode)) => (feed, Some(episode.parse::<EpisodeId>().ok()?)),
            _ => return None,
        };
        segments.next().is_none().then_some(found)
    }

    /// The public RSS feed: `{base}/feeds/{feed}/rss`.
    pub fn rss(&self, feed: &FeedId) -> String {
        format!("{}/feeds/{}/rss", self.base, encode_segment(feed.as_str()))
    }

    /// The page of an invitation to an account: `{base}/account/invitations/{secret}`.
    pub fn invitation(&self, secret: &str) -> String {
        format!(
            "{}/account/invitations/{}",
            self.base,
            encode_segment(secret)
        )
    }

    /// The public podcast page: `{base}/podcasts/{feed}`.
    pub fn feed_page(&self, feed: &FeedId) -> String {
        format!("{}/podcasts/{}", self.base, encode_segment(feed.as_str()))
    }

    /// The `number`th page (from 1) of the podcast page's episodes: the podcast page itself
    /// for the first, `{base}/podcasts/{feed}?page={number}` for the others.
    pub fn feed_page_number(&self, feed: &FeedId, number: usize) -> String {
        match number {
            0 | 1 => self.feed_page(feed),
            n => format!("{}?page={n}", self.feed_page(feed)),
        }
    }

    /// A podcast's public statistics page: `{base}/podcasts/{feed}/stats` (when it has one).
    pub fn feed_stats_page(&self, feed: &FeedId) -> String {
        format!("{}/stats", self.feed_page(feed))
    }

    /// The public episode page: `{base}/podcasts/{feed}/{episode}`.
    pub fn episode_page(&self, feed: &FeedId, episode: EpisodeId) -> String {
        format!("{}/{episode}", self.feed_page(feed))
    }

    /// The embeddable player of a podcast's newest episode (`episode` none) or of one episode:
    /// `{base}/embed/{feed}[/{episode}]`.
    pub fn embed(&self, feed: &FeedId, episode: Option<EpisodeId>) -> String {
        let podcast = format!("{}/embed/{}", self.base, encode_segment(feed.as_str()));
        match episode {
            None => podcast,
            Some(episode) => format!("{podcast}/{episode}"),
        }
    }

    /// The oEmbed endpoint's answer for a page at `page_url` (discovery `<link>`s point here):
    /// `{base}/oembed?url={page_url}&format=json`.
    pub fn oembed(&self, page_url: &str) -> String {
        let url =
            percent_encoding::utf8_percent_encode(page_url, percent_encoding::NON_ALPHANUMERIC);
        format!("{}/oembed?url={url}&format=json", self.base)
    }

    /// What a public page or player URL of this deployment shows: the podcast and, for an
    /// episode's page or player, the episode. `None` for any other URL (another host, another
    /// path, a podcast's statistics page). A query (`?page=2`) or fragment is ignored.
    pub fn shown_at(&self, url: &str) -> Option<(FeedId, Option<EpisodeId>)> {
        let rest = url.trim().strip_prefix(self.base.as_str())?;
        let path = rest.split(['?', '#']).next().unwrap_or("");
        let path = path.strip_suffix('/').unwrap_or(path);
        let path = path
            .strip_prefix("/podcasts/")
            .or_else(|| path.strip_prefix("/embed/"))?;
        let mut segments = path.split('/');
        let feed = segments.next().filter(|s| !s.is_empty())?;
        let feed = percent_encoding::percent_decode_str(feed)
            .decode_utf8()
            .ok()?;
        let feed = FeedId::new(&feed).ok()?;
        let episode = match segments.next() {
            None => None,
            Some(episode) => Some(episode.parse::<EpisodeId>().ok()?),
        };
        segments.next().is_none().then_some((feed, episode))
    }

    /// The public download URL of a media file: `{base}/media/{account}/{blob}/{name}`. A
    /// changed file is a new blob and so a new URL.
    pub fn media(&self, account: &AccountId, media: &Media) -> String {
        format!(
            "{}/media/{}/{}/{}",
            self.base,
            account,
            media.blob.as_str(),
            encode_segment(media.url_name())
        )
    }

    /// The HLS stream of a packaged video, its multivariant playlist:
    /// `{base}/media/{account}/{blob}/hls/master.m3u8`.
    pub fn stream(&self, account: &AccountId, media: &Media) -> String {
        format!(
            "{}/media/{}/{}/hls/master.m3u8",
            self.base,
            account,
            media.blob.as_str()
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

impl FeedLinks<'_> {
    /// Whether these are a subscriber's links (the feed is a private podcast's copy).
    pub fn is_private(&self) -> bool {
        matches!(self, FeedLinks::Subscriber { .. })
    }

    /// The feed's own URL (`atom:link rel="self"`).
    pub fn rss(&self, feed: &FeedId) -> String {
        match self {
            FeedLinks::Public(urls) => urls.rss(feed),
            FeedLinks::Subscriber { prefix } => format!("{prefix}/rss"),
        }
    }

    /// The web page of the podcast (`episode` none) or of an episode; none in a subscriber's
    /// feed (a private podcast has no public pages).
    pub fn page(&self, feed: &FeedId, episode: Option<EpisodeId>) -> Option<String> {
        match (self, episode) {
            (FeedLinks::Public(urls), None) => Some(urls.feed_page(feed)),
            (FeedLinks::Public(urls), Some(episode)) => Some(urls.episode_page(feed, episode)),
            (FeedLinks::Subscriber { .. }, _) => None,
        }
    }

    /// A file's URL as an enclosure (`enclosure`, an alternate enclosure's source): in a
    /// public feed, wrapped in the measurement `prefixes` ([`measured`]); a subscriber's feed is
    /// never wrapped (the key would go to the measurement services).
    pub fn enclosure(&self, account: &AccountId, media: &Media, prefixes: &[String]) -> String {
        let url = self.file(account, media, FileLink::Download);
        match self {
            FeedLinks::Public(_) => measured(prefixes, url),
            FeedLinks::Subscriber { .. } => url,
        }
    }

    /// Where an episode is discussed on the fediverse: its post, and its podcast's handle and
    /// actor. None in a subscriber's feed (a private podcast is no actor).
    pub fn social(&self, feed: &FeedId, episode: EpisodeId) -> Option<Social> {
        match self {
            FeedLinks::Public(urls) => Some(Social {
                post: urls.episode_note(feed, episode),
                handle: urls.handle(feed),
                actor: urls.actor(feed),
            }),
            FeedLinks::Subscriber { .. } => None,
        }
    }

    /// A link to a file of the account: the one function that makes one, for every element
    /// that links a file.
    pub fn file(&self, account: &AccountId, media: &Media, link: FileLink) -> String {
        match (self, link) {
            (FeedLinks::Public(urls), FileLink::Download) => urls.media(account, media),
            (FeedLinks::Public(urls), FileLink::Chapters) => urls.chapters(account, media),
            (FeedLinks::Public(urls), FileLink::Stream) => urls.stream(account, media),
            (FeedLinks::Subscriber { prefix }, FileLink::Download) => format!(
                "{prefix}/media/{}/{}",
                media.blob.as_str(),
                encode_segment(media.url_name())
            ),
            (FeedLinks::Subscriber { prefix }, FileLink::Chapters) => {
                format!("{prefix}/chapters/{}.json", media.blob.as_str())
            }
            (FeedLinks::Subscriber { prefix }, FileLink::Stream) => {
                format!("{prefix}/media/{}/hls/master.m3u8", media.blob.as_str())
            }
        }
    }
}

/// `url` wrapped in measurement prefixes, the first outermost, in the form OP3 and Podtrac
/// document: each prefix followed by the URL it wraps without its `https://` (an `http://`
/// URL keeps its scheme, which a scheme-less one would lose).
pub fn measured(prefixes: &[String], url: String) -> String {
    prefixes.iter().rev().fold(url, |inner, prefix| {
        let bare = inner.strip_prefix("https://").unwrap_or(&inner);
        format!("{prefix}{bare}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_wrap_the_url_the_first_outermost() {
        let url = "https://pod.example/media/alice/abc/ep%201.mp3".to_string();
        let cases: [(&[&str], &str); 4] = [
            (&[], "https://pod.example/media/alice/abc/ep%201.mp3"),
            (
                &["https://op3.dev/e/"],
                "https://op3.dev/e/pod.example/media/alice/abc/ep%201.mp3",
            ),
            (
                &[
                    "https://op3.dev/e/",
                    "https://dts.podtrac.com/redirect.mp3/",
                ],
                "https://op3.dev/e/dts.podtrac.com/redirect.mp3/pod.example/media/alice/abc/ep%201.mp3",
            ),
            (
                &[
                    "https://dts.podtrac.com/redirect.mp3/",
                    "https://op3.dev/e/",
                ],
                "https://dts.podtrac.com/redirect.mp3/op3.dev/e/pod.example/media/alice/abc/ep%201.mp3",
            ),
        ];
        for (prefixes, wrapped) in cases {
            let prefixes: Vec<String> = prefixes.iter().map(|p| p.to_string()).collect();
            assert_eq!(measured(&prefixes, url.clone()), wrapped);
        }
        assert_eq!(
            measured(
                &["https://op3.dev/e/".into()],
                "http://127.0.0.1:8080/m.mp3".into()
            ),
            "https://op3.dev/e/http://127.0.0.1:8080/m.mp3"
        );
    }

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

/// Where an episode is discussed on the fediverse ([`FeedLinks::social`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Social {
    /// The episode's post (an ActivityPub `Note`).
    pub post: String,
    /// The podcast's handle, `@{feed}@{host}`.
    pub handle: String,
    /// The podcast's actor.
    pub actor: String,
}
