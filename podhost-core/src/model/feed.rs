//! Feeds (podcasts) and their channel fields.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::{
    error::FieldErrors,
    ids::{FeedId, MediaId},
};

/// A podcast: the channel of an RSS feed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Feed {
    /// Its id, unique in the deployment.
    pub id: FeedId,
    /// Channel title.
    pub title: String,
    /// Channel description (may contain HTML).
    pub description: String,
    /// Language tag, e.g. `en` or `de-AT`.
    pub language: String,
    /// Copyright notice.
    pub copyright: String,
    /// The podcast's website.
    pub link: String,
    /// The cover image, a media file of the account.
    pub logo: Option<MediaId>,
    /// Apple Podcasts fields.
    pub itunes: ItunesChannel,
    /// Google Play fields.
    pub googleplay: GooglePlayChannel,
    /// Podcasting 2.0 fields.
    pub podcast: PodcastChannel,
    /// A private podcast has no public feed or pages: each subscriber gets a feed URL of their
    /// own ([`Subscriber`](super::Subscriber)).
    #[serde(default)]
    pub private: bool,
    /// How its episodes' audio is prepared (mastered or published as uploaded).
    #[serde(default)]
    pub audio: super::FeedAudio,
    /// Measurement prefixes (OP3's `https://op3.dev/e/`, Podtrac's, ...) that wrap every
    /// enclosure URL of its public feed, the first outermost.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prefixes: Vec<String>,
    /// Whether its downloads per month and top apps are published on a public page
    /// (`/podcasts/{feed_id}/stats`), linked from its page. Never for a private podcast.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub public_stats: bool,
    /// Whether it is an ActivityPub actor (`@{id}@{host}`) that the fediverse may follow, its
    /// episodes posted to its followers (never for a private podcast). On unless turned off.
    #[serde(default = "on", skip_serializing_if = "Clone::clone")]
    pub fediverse: bool,
    /// When it was created.
    pub created: Timestamp,
    /// When it last changed.
    pub updated: Timestamp,
}

/// Apple Podcasts channel fields.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ItunesChannel {
    /// Subtitle.
    pub subtitle: String,
    /// Summary.
    pub summary: String,
    /// Author shown in apps.
    pub author: String,
    /// Apple Podcasts category, exactly as Apple spells it, e.g. `Society & Culture`; empty for
    /// none. One of [`APPLE_CATEGORIES`](super::APPLE_CATEGORIES).
    pub category: String,
    /// Apple Podcasts subcategory of `category`, e.g. `Documentary`; empty for none.
    pub subcategory: String,
    /// Explicit content.
    pub explicit: bool,
    /// Episodic or serial.
    #[serde(rename = "type")]
    pub show_type: ShowType,
    /// Owner's name.
    pub owner_name: String,
    /// Owner's email (Spotify reads it to verify ownership).
    pub owner_email: String,
    /// Hidden from Apple Podcasts.
    pub block: bool,
    /// No more episodes will come.
    pub complete: bool,
    /// The feed moved there; apps follow it.
    pub new_feed_url: Option<String>,
}

/// The order in which apps present episodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShowType {
    /// Newest first.
    #[default]
    Episodic,
    /// Oldest first, in seasons.
    Serial,
}

/// Google Play channel fields.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GooglePlayChannel {
    /// Author.
    pub author: String,
    /// Description.
    pub description: String,
}

/// Podcasting 2.0 (podcastindex.org namespace) channel fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PodcastChannel {
    /// `podcast:guid`, generated once at creation from the feed URL and never changed.
    pub guid: Uuid,
    /// Other hosts may not import the feed.
    pub locked: bool,
    /// Ways to support the show.
    pub funding: Vec<Funding>,
    /// `podcast`, `music`, `video`, ...
    pub medium: String,
    /// The other Podcasting 2.0 tags.
    #[serde(default)]
    pub tags: super::podcast::ChannelTags,
}

/// A `podcast:funding` link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Funding {
    /// Where to give.
    pub url: String,
    /// What the link says.
    pub text: String,
}

impl Feed {
    /// Applies a change of the channel fields: each field the patch names is replaced, the
    /// Podcasting 2.0 tags it names are replaced whole (or removed). What cannot be applied (a
    /// tag the namespace does not allow, a new guid) is reported to `errors`; the rules of the
    /// values themselves (lengths, categories, references) are checked by the operation.
    pub fn apply(&mut self, patch: &FeedPatch, errors: &mut FieldErrors) {
        let set = |target: &mut String, value: &Option<String>| {
            if let Some(v) = value {
                target.clone_from(v);
            }
        };
        set(&mut self.title, &patch.title);
        set(&mut self.description, &patch.description);
        set(&mut self.language, &patch.language);
        set(&mut self.copyright, &patch.copyright);
        set(&mut self.link, &patch.link);
        let it = &mut self.itunes;
        set(&mut it.subtitle, &patch.itunes_subtitle);
        set(&mut it.summary, &patch.itunes_summary);
        set(&mut it.author, &patch.itunes_author);
        set(&mut it.category, &patch.itunes_category);
        set(&mut it.subcategory, &patch.itunes_subcategory);
        set(&mut it.owner_name, &patch.itunes_owner_name);
        set(&mut it.owner_email, &patch.itunes_owner_email);
        if let Some(v) = patch.itunes_explicit {
            it.explicit = v;
        }
        if let Some(v) = patch.itunes_type {
            it.show_type = v;
        }
        if let Some(v) = patch.itunes_block {
            it.block = v;
        }
        if let Some(v) = patch.itunes_complete {
            it.complete = v;
        }
        if let Some(v) = &patch.itunes_new_feed_url {
            it.new_feed_url = v.clone().filter(|u| !u.is_empty());
        }
        set(&mut self.googleplay.author, &patch.googleplay_author);
        set(
            &mut self.googleplay.description,
            &patch.googleplay_description,
        );
        if let Some(v) = patch.podcast_locked {
            self.podcast.locked = v;
        }
        if let Some(v) = &patch.podcast_funding {
            self.podcast.funding.clone_from(v);
        }
        set(&mut self.podcast.medium, &patch.podcast_medium);
        if let Some(private) = patch.private {
            self.private = private;
        }
        crate::model::podcast::apply(
            &mut self.podcast.tags,
            &patch.podcast_tags,
            &crate::model::podcast::CHANNEL_TAGS,
            errors,
        );
        if let Some(guid) = patch.podcast_guid
            && guid != self.podcast.guid
        {
            errors.add(
                "podcast.guid",
                "a podcast's guid is set when it is created and never changes",
            );
        }
        if let Some(logo) = patch.logo {
            self.logo = logo;
        }
        if let Some(audio) = &patch.audio {
            self.audio.apply(audio, errors);
        }
        if let Some(prefixes) = &patch.prefixes {
            self.prefixes.clone_from(prefixes);
        }
        if let Some(public_stats) = patch.public_stats {
            self.public_stats = public_stats;
        }
        if let Some(fediverse) = patch.fediverse {
            self.fediverse = fediverse;
        }
    }

    /// Who makes it: the iTunes author, else the Google Play author (empty when neither).
    pub fn author(&self) -> &str {
        if self.itunes.author.is_empty() {
            &self.googleplay.author
        } else {
            &self.itunes.author
        }
    }
}

/// What a new feed is made of; only `id` and `title` are required.
#[derive(Clone, Debug, Default)]
pub struct NewFeed {
    /// The id.
    pub id: String,
    /// The channel fields.
    pub fields: FeedPatch,
}

impl NewFeed {
    /// A feed with an id and a title and every other field at its default.
    pub fn titled(id: impl Into<String>, title: impl Into<String>) -> Self {
        NewFeed {
            id: id.into(),
            fields: FeedPatch {
                title: Some(title.into()),
                ..Default::default()
            },
        }
    }
}

/// A change of channel fields: `None` leaves a field as it is.
#[derive(Clone, Debug, Default)]
#[allow(missing_docs)]
pub struct FeedPatch {
    pub title: Option<String>,
    pub description: Option<String>,
    pub language: Option<String>,
    pub copyright: Option<String>,
    pub link: Option<String>,
    /// `Some(None)` removes the logo.
    pub logo: Option<Option<MediaId>>,
    pub itunes_subtitle: Option<String>,
    pub itunes_summary: Option<String>,
    pub itunes_author: Option<String>,
    pub itunes_category: Option<String>,
    pub itunes_subcategory: Option<String>,
    pub itunes_explicit: Option<bool>,
    pub itunes_type: Option<ShowType>,
    pub itunes_owner_name: Option<String>,
    pub itunes_owner_email: Option<String>,
    pub itunes_block: Option<bool>,
    pub itunes_complete: Option<bool>,
    pub itunes_new_feed_url: Option<Option<String>>,
    pub googleplay_author: Option<String>,
    pub googleplay_description: Option<String>,
    pub podcast_locked: Option<bool>,
    pub podcast_funding: Option<Vec<Funding>>,
    pub podcast_medium: Option<String>,
    /// `podcast:guid`: only when the podcast is created (an import keeps its guid); the one a
    /// podcast has never changes.
    pub podcast_guid: Option<Uuid>,
    /// Whether the podcast is private (subscribers only).
    pub private: Option<bool>,
    /// Podcasting 2.0 tags to replace (or, null, remove), by name.
    pub podcast_tags: super::podcast::TagsPatch,
    /// The audio setting's fields to change.
    pub audio: Option<super::AudioPatch>,
    /// New measurement prefixes (empty: none).
    pub prefixes: Option<Vec<String>>,
    /// Whether to publish its statistics page.
    pub public_stats: Option<bool>,
    /// Whether it is followable on the fediverse.
    pub fediverse: Option<bool>,
}

/// A feed with what a listing needs beside it, read at one moment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FeedView {
    /// The feed.
    pub feed: Feed,
    /// How many episodes it has (drafts included).
    pub episode_count: usize,
    /// Its cover, when it has one.
    pub logo: Option<super::Media>,
    /// Its public episodes without audio (scheduled ones too), which apps skip: what
    /// `publish::readiness::podcast` names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub silent: Vec<crate::ids::EpisodeId>,
}

/// The namespace of `podcast:guid` (podcastindex.org namespace, `guid` tag).
const PODCAST_GUID_NAMESPACE: Uuid = Uuid::from_u128(0xead4c236_bf58_58c6_a2c6_a6b28d128cb6);

/// Values of `podcast:medium`.
pub const MEDIUMS: [&str; 18] = [
    "podcast",
    "music",
    "video",
    "film",
    "audiobook",
    "newsletter",
    "blog",
    "publisher",
    "course",
    "podcastL",
    "musicL",
    "videoL",
    "filmL",
    "audiobookL",
    "newsletterL",
    "blogL",
    "publisherL",
    "courseL",
];

/// `podcast:guid`: UUIDv5 of the feed URL without scheme and trailing slash.
pub fn podcast_guid(rss_url: &str) -> Uuid {
    let bare = rss_url
        .split_once("://")
        .map_or(rss_url, |(_, rest)| rest)
        .trim_end_matches('/');
    Uuid::new_v5(&PODCAST_GUID_NAMESPACE, bare.as_bytes())
}

/// A podcast is on the fediverse unless its podcaster turned it off (the default of records
/// written before the setting).
fn on() -> bool {
    true
}
