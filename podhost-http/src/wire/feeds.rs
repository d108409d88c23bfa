//! Podcasts (feeds) on the wire: the list item and the single feed the specification shows,
//! and the channel fields `POST /api/feeds` and `PUT /api/feeds/{feed_id}` read.

use podhost_core::{
    FieldErrors,
    model::{AudioPatch, FeedPatch, FeedView, Funding, Media, NewFeed, ShowType},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{
    Ctx, Example,
    schema::{Clearable, MediaRef},
    tags::{ChannelTags, shown},
};
use crate::urls::ApiUrls;

/// A feed's links.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FeedLinks {
    /// This feed in the API.
    #[serde(rename = "self")]
    pub this: String,
    /// Its RSS feed.
    pub rss: String,
    /// Its web page.
    pub web: String,
    /// Its cover's URL; empty when it has none.
    pub logo: String,
}

/// The RSS fields of a list item.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FeedListRss {
    /// The title.
    pub title: String,
    /// The description.
    pub description: String,
    /// The copyright.
    pub copyright: String,
}

/// A list item's attributes.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FeedListAttributes {
    /// The RSS fields.
    pub rss: FeedListRss,
    /// Its cover's URL; empty when it has none.
    pub logo: String,
}

/// A podcast in the list: `links` before `attributes`, no directory objects.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FeedListItem {
    /// Always `feed`.
    #[serde(rename = "type")]
    pub kind: FeedKind,
    /// Its id.
    pub id: String,
    /// Its links.
    pub links: FeedLinks,
    /// Its fields.
    pub attributes: FeedListAttributes,
    /// How many episodes it has.
    pub shows_count: usize,
    /// Always `["entry"]`.
    pub relationships: [&'static str; 1],
}

/// The constant `feed`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FeedKind {
    /// A podcast.
    Feed,
}

/// A podcast's RSS fields.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FeedRss {
    /// The title.
    pub title: String,
    /// The description (may hold HTML).
    pub description: String,
    /// The copyright.
    pub copyright: String,
    /// Addition: its language tag.
    pub language: String,
    /// Addition: its website.
    pub link: String,
}

/// A podcast's owner, for Apple.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FeedOwner {
    /// The owner's name.
    pub name: String,
    /// The owner's email.
    pub email: String,
}

/// A podcast's Apple Podcasts fields.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FeedItunes {
    /// The subtitle.
    pub subtitle: String,
    /// Addition: the summary.
    pub summary: String,
    /// Addition: the author.
    pub author: String,
    /// Addition: Apple's category.
    pub category: String,
    /// Addition: Apple's subcategory of it.
    pub subcategory: String,
    /// Addition: explicit content.
    pub explicit: bool,
    /// Addition: episodic or serial.
    #[serde(rename = "type")]
    pub kind: ShowTypeName,
    /// Addition: the owner.
    pub owner: FeedOwner,
    /// Addition: hidden from Apple's directory.
    pub block: bool,
    /// Addition: no more episodes.
    pub complete: bool,
    /// Addition: the feed moved here.
    #[serde(rename = "new-feed-url")]
    pub new_feed_url: Option<String>,
}

/// A podcast's Google Play fields (kept; feeds no longer carry them).
#[derive(Debug, Serialize, JsonSchema)]
pub struct FeedGoogleplay {
    /// The author.
    pub author: String,
    /// The description.
    pub description: String,
}

/// A `podcast:funding` link.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct FundingLink {
    /// Where to give.
    pub url: String,
    /// What the link says.
    #[serde(default)]
    pub text: String,
}

/// A podcast's `podcast` object: guid, locked, funding, medium, then its other Podcasting 2.0
/// tags by their names.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FeedPodcast {
    /// `podcast:guid`.
    pub guid: String,
    /// `podcast:locked`.
    pub locked: bool,
    /// `podcast:funding`.
    pub funding: Vec<FundingLink>,
    /// `podcast:medium`.
    pub medium: String,
    /// The other tags.
    #[serde(flatten)]
    pub tags: ChannelTags,
}

/// A single podcast's attributes.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FeedAttributes {
    /// The RSS fields.
    pub rss: FeedRss,
    /// Apple Podcasts' fields.
    pub itunes: FeedItunes,
    /// Google Play's fields.
    pub googleplay: FeedGoogleplay,
    /// Addition: the Podcasting 2.0 fields.
    pub podcast: FeedPodcast,
    /// Its cover's URL; empty when it has none.
    pub logo: String,
    /// Addition: no public feed or pages; subscribers get feed URLs of their own.
    pub private: bool,
    /// Addition: how its episodes' audio is prepared.
    pub audio: FeedAudioRecord,
    /// Addition: measurement prefixes (such as OP3's `https://op3.dev/e/`) that wrap every
    /// enclosure URL of the public feed, the first outermost.
    pub prefixes: Vec<String>,
    /// Addition: whether its downloads per month and top apps are published at
    /// `/podcasts/{feed_id}/stats` (linked from its page; never for a private podcast).
    pub public_stats: bool,
    /// Addition: whether it is on the fediverse: an ActivityPub actor (`fediverse_handle`) that
    /// people follow, its episodes posted to them, replies kept as comments (never for a
    /// private podcast).
    pub fediverse: bool,
    /// Addition: its fediverse handle, when it is on the fediverse: `@{feed_id}@{host}` when the
    /// id is a lowercase name as fediverse servers take them, else one derived from it
    /// (`Bad Id!` is `@bad-id--ijqwiicjmqqq@{host}`), stable and unique.
    pub fediverse_handle: Option<String>,
}

/// A podcast's audio setting as shown.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FeedAudioRecord {
    /// Each episode's audio is mastered in the background; the enclosure is the mastered file.
    pub master: bool,
    /// Integrated loudness in LUFS; null: -16 for stereo audio, -19 for mono.
    pub target: Option<f64>,
    /// The true-peak ceiling in dBTP.
    pub true_peak: f64,
    /// The enclosure's encoding.
    pub format: MasterFormat,
    /// The bitrate in kbit/s; null: the format's default for the channels.
    pub bitrate: Option<u32>,
    /// Other encodings published beside the enclosure (`podcast:alternateEnclosure`).
    pub alternates: Vec<MasterFormat>,
}

/// The encoding of a mastered file.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MasterFormat {
    /// MP3.
    Mp3,
    /// Opus in Ogg.
    Opus,
    /// AAC-LC in M4A.
    Aac,
}

impl From<podhost_core::master::Format> for MasterFormat {
    fn from(format: podhost_core::master::Format) -> Self {
        match format {
            podhost_core::master::Format::Mp3 => MasterFormat::Mp3,
            podhost_core::master::Format::Opus => MasterFormat::Opus,
            podhost_core::master::Format::Aac => MasterFormat::Aac,
        }
    }
}

/// A podcast's audio setting: the fields to change (a field left out stays as it is).
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct FeedAudioFields {
    /// Master each episode's audio in the background; the feed's enclosure is the mastered
    /// file, and an episode waits for it before it is published.
    pub master: Option<bool>,
    /// Integrated loudness in LUFS, -70 to -5 (null: -16 for stereo, -19 for mono).
    #[serde(default)]
    pub target: Clearable<f64>,
    /// The true-peak ceiling in dBTP, -9 to 0 (default -1).
    pub true_peak: Option<f64>,
    /// `mp3` (default), `aac` or `opus`.
    pub format: Option<String>,
    /// The bitrate in kbit/s (null: 128 for stereo and 64 for mono MP3 and AAC, 48 for Opus).
    #[serde(default)]
    pub bitrate: Clearable<u32>,
    /// Other encodings published beside the enclosure, e.g. `["opus"]` or `["aac"]`.
    pub alternates: Option<Vec<String>>,
}

/// A single podcast: `attributes` before `links`, with the directory objects.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Feed")]
pub struct FeedRecord {
    /// Always `feed`.
    #[serde(rename = "type")]
    pub kind: FeedKind,
    /// Its id.
    pub id: String,
    /// Its fields.
    pub attributes: FeedAttributes,
    /// Its links.
    pub links: FeedLinks,
    /// How many episodes it has.
    pub shows_count: usize,
    /// Always `["entry"]`.
    pub relationships: [&'static str; 1],
    /// Addition: what Apple Podcasts and Spotify need that the podcast lacks (a cover of 1400
    /// to 3000 px, a category...), and its public episodes without audio; empty when ready.
    /// Never blocks a save.
    pub warnings: Vec<super::errors::WarningRecord>,
}

pub(super) fn logo_url(ctx: &Ctx<'_>, logo: Option<&Media>) -> String {
    logo.map(|m| ctx.host.podcasts().media_url(ctx.account, m))
        .unwrap_or_default()
}

fn feed_links(ctx: &Ctx<'_>, v: &FeedView) -> FeedLinks {
    let urls = ctx.host.urls();
    FeedLinks {
        this: ApiUrls::new(ctx.host).feed(&v.feed.id),
        rss: urls.rss(&v.feed.id),
        web: urls.feed_page(&v.feed.id),
        logo: logo_url(ctx, v.logo.as_ref()),
    }
}

/// An item of the feed list.
pub fn feed_list_item(ctx: &Ctx<'_>, v: &FeedView) -> FeedListItem {
    let f = &v.feed;
    FeedListItem {
        kind: FeedKind::Feed,
        id: f.id.as_str().to_string(),
        links: feed_links(ctx, v),
        attributes: FeedListAttributes {
            rss: FeedListRss {
                title: f.title.clone(),
                description: f.description.clone(),
                copyright: f.copyright.clone(),
            },
            logo: logo_url(ctx, v.logo.as_ref()),
        },
        shows_count: v.episode_count,
        relationships: ["entry"],
    }
}

/// The single feed, with the directory objects and podhost's additional channel fields.
pub fn feed_single(ctx: &Ctx<'_>, v: &FeedView) -> FeedRecord {
    let f = &v.feed;
    let it = &f.itunes;
    FeedRecord {
        kind: FeedKind::Feed,
        id: f.id.as_str().to_string(),
        attributes: FeedAttributes {
            rss: FeedRss {
                title: f.title.clone(),
                description: f.description.clone(),
                copyright: f.copyright.clone(),
                language: f.language.clone(),
                link: f.link.clone(),
            },
            itunes: FeedItunes {
                subtitle: it.subtitle.clone(),
                summary: it.summary.clone(),
                author: it.author.clone(),
                category: it.category.clone(),
                subcategory: it.subcategory.clone(),
                explicit: it.explicit,
                kind: match it.show_type {
                    ShowType::Episodic => ShowTypeName::Episodic,
                    ShowType::Serial => ShowTypeName::Serial,
                },
                owner: FeedOwner {
                    name: it.owner_name.clone(),
                    email: it.owner_email.clone(),
                },
                block: it.block,
                complete: it.complete,
                new_feed_url: it.new_feed_url.clone(),
            },
            googleplay: FeedGoogleplay {
                author: f.googleplay.author.clone(),
                description: f.googleplay.description.clone(),
            },
            podcast: FeedPodcast {
                guid: f.podcast.guid.to_string(),
                locked: f.podcast.locked,
                funding: f
                    .podcast
                    .funding
                    .iter()
                    .map(|x| FundingLink {
                        url: x.url.clone(),
                        text: x.text.clone(),
                    })
                    .collect(),
                medium: f.podcast.medium.clone(),
                tags: ChannelTags(shown(&f.podcast.tags)),
            },
            logo: logo_url(ctx, v.logo.as_ref()),
            private: f.private,
            prefixes: f.prefixes.clone(),
            public_stats: f.public_stats,
            fediverse: f.fediverse,
            fediverse_handle: (f.fediverse && !f.private).then(|| ctx.host.urls().handle(&f.id)),
            audio: FeedAudioRecord {
                master: f.audio.master,
                target: f.audio.target,
                true_peak: f.audio.true_peak,
                format: f.audio.format.into(),
                bitrate: f.audio.bitrate,
                alternates: f.audio.alternates.iter().map(|&a| a.into()).collect(),
            },
        },
        links: feed_links(ctx, v),
        shows_count: v.episode_count,
        relationships: ["entry"],
        warnings: super::errors::warnings(podhost_core::publish::readiness::podcast(v)),
    }
}

/// Episodic or serial.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ShowTypeName {
    /// Newest first.
    Episodic,
    /// Oldest first.
    Serial,
}

/// The RSS fields also accepted under `rss`, as the single feed shows them (the flat fields
/// win).
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct RssFields {
    /// The title.
    pub title: Option<String>,
    /// The description.
    pub description: Option<String>,
    /// The copyright.
    pub copyright: Option<String>,
    /// The language tag.
    pub language: Option<String>,
    /// The website.
    pub link: Option<String>,
}

/// An owner's fields.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct OwnerFields {
    /// The owner's name.
    pub name: Option<String>,
    /// The owner's email.
    pub email: Option<String>,
}

/// Apple Podcasts' channel fields.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct FeedItunesFields {
    /// The subtitle.
    pub subtitle: Option<String>,
    /// The summary.
    pub summary: Option<String>,
    /// The author.
    pub author: Option<String>,
    /// Apple's category, spelled exactly.
    pub category: Option<String>,
    /// Apple's subcategory of the category.
    pub subcategory: Option<String>,
    /// Explicit content.
    pub explicit: Option<bool>,
    /// Episodic or serial.
    #[serde(rename = "type")]
    pub kind: Option<ShowTypeName>,
    /// The owner.
    pub owner: Option<OwnerFields>,
    /// Hidden from Apple's directory.
    pub block: Option<bool>,
    /// No more episodes.
    pub complete: Option<bool>,
    /// Where the feed moved (null or empty: it did not).
    #[serde(rename = "new-feed-url", default)]
    pub new_feed_url: Clearable<String>,
}

/// Google Play's channel fields (kept on the podcast; feeds no longer carry them).
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct GoogleplayFields {
    /// The author.
    pub author: Option<String>,
    /// The description.
    pub description: Option<String>,
}

/// The Podcasting 2.0 channel fields.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct FeedPodcastFields {
    /// Other hosts may not import the feed.
    pub locked: Option<bool>,
    /// `podcast`, `music`, `video`, ...
    pub medium: Option<String>,
    /// Ways to support the show (replaces them all).
    pub funding: Option<Vec<FundingLink>>,
    /// The other tags, by name.
    #[serde(flatten)]
    pub tags: ChannelTags,
}

/// A podcast's channel fields: everything `PUT /api/feeds/{feed_id}` changes (a field left
/// out stays as it is).
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct FeedFields {
    /// The title (never blank).
    #[schemars(length(min = 1))]
    pub title: Option<String>,
    /// The description (HTML allowed: cleaned to what apps show).
    pub description: Option<String>,
    /// The language tag, e.g. `en` or `pt-BR`.
    pub language: Option<String>,
    /// The copyright.
    pub copyright: Option<String>,
    /// The website.
    pub link: Option<String>,
    /// The cover: an image's media id (null removes it).
    #[serde(default)]
    pub logo: Clearable<MediaRef>,
    /// Apple Podcasts' fields.
    pub itunes: Option<FeedItunesFields>,
    /// Google Play's fields.
    pub googleplay: Option<GoogleplayFields>,
    /// The Podcasting 2.0 fields.
    pub podcast: Option<FeedPodcastFields>,
    /// Addition: no public feed or pages; subscribers get feed URLs of their own.
    pub private: Option<bool>,
    /// Addition: how its episodes' audio is prepared.
    pub audio: Option<FeedAudioFields>,
    /// Addition: measurement prefixes (https URLs ending in `/`, such as `https://op3.dev/e/`
    /// or `https://dts.podtrac.com/redirect.mp3/`) that wrap every enclosure URL of the public
    /// feed, the first outermost, each followed by the URL without its `https://`; `[]`: none.
    /// A private podcast's subscribers' feeds are never wrapped.
    #[schemars(length(max = 4))]
    pub prefixes: Option<Vec<String>>,
    /// Addition: publish its downloads per month and top apps (no subscriber data) at
    /// `/podcasts/{feed_id}/stats`, linked from its page (`false`: no such page).
    pub public_stats: Option<bool>,
    /// Addition: be on the fediverse (an ActivityPub actor people follow; on unless set
    /// `false`; never for a private podcast).
    pub fediverse: Option<bool>,
    /// The RSS fields as the single feed shows them (the fields above win).
    pub rss: Option<RssFields>,
}

impl Example for FeedFields {
    fn example() -> Value {
        json!({"description": "Talk about other things", "itunes": {"author": "Me"}})
    }
}

/// A new podcast: its id and its channel fields, of which the title is required.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(extend("required" = ["id", "title"]))]
pub struct FeedCreate {
    /// Its id: unique in the deployment, 1 to 100 characters, no `/`.
    #[schemars(length(min = 1, max = 100), regex(pattern = podhost_core::FeedId::PATTERN))]
    pub id: String,
    /// The channel fields (the title is required).
    #[serde(flatten)]
    pub fields: FeedFields,
}

impl Example for FeedCreate {
    fn example() -> Value {
        json!({"id": "my-show", "title": "My Show", "description": "Talk about things", "language": "en"})
    }
}

/// A podcast imported from its RSS feed.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FeedImport {
    /// The http(s) URL of the podcast's RSS feed.
    pub url: String,
    /// The podcast's id here; by default one made from its title.
    #[schemars(length(min = 1, max = 100), regex(pattern = podhost_core::FeedId::PATTERN))]
    pub feed_id: Option<String>,
}

impl Example for FeedImport {
    fn example() -> Value {
        json!({"url": "https://feeds.example.com/my-show.xml", "feed_id": "my-show"})
    }
}

impl FeedFields {
    /// The core's change of a podcast.
    pub fn patch(self) -> podhost_core::Result<FeedPatch> {
        let mut errors = FieldErrors::default();
        let rss = self.rss.unwrap_or_default();
        let it = self.itunes.unwrap_or_default();
        let owner = it.owner.unwrap_or_default();
        let gp = self.googleplay.unwrap_or_default();
        let pod = self.podcast.unwrap_or_default();
        let logo = media(self.logo, "logo", &mut errors);
        errors.into_result()?;
        Ok(FeedPatch {
            title: self.title.or(rss.title),
            description: self.description.or(rss.description),
            copyright: self.copyright.or(rss.copyright),
            language: self.language.or(rss.language),
            link: self.link.or(rss.link),
            logo,
            itunes_subtitle: it.subtitle,
            itunes_summary: it.summary,
            itunes_author: it.author,
            itunes_category: it.category,
            itunes_subcategory: it.subcategory,
            itunes_explicit: it.explicit,
            itunes_type: it.kind.map(|k| match k {
                ShowTypeName::Episodic => ShowType::Episodic,
                ShowTypeName::Serial => ShowType::Serial,
            }),
            itunes_owner_name: owner.name,
            itunes_owner_email: owner.email,
            itunes_block: it.block,
            itunes_complete: it.complete,
            itunes_new_feed_url: it
                .new_feed_url
                .patch()
                .map(|url| url.filter(|u| !u.is_empty())),
            googleplay_author: gp.author,
            googleplay_description: gp.description,
            podcast_locked: pod.locked,
            podcast_medium: pod.medium,
            podcast_funding: pod.funding.map(|list| {
                list.into_iter()
                    .map(|x| Funding {
                        url: x.url,
                        text: x.text,
                    })
                    .collect()
            }),
            podcast_tags: pod.tags.0,
            private: self.private,
            prefixes: self.prefixes,
            public_stats: self.public_stats,
            fediverse: self.fediverse,
            audio: self.audio.map(|a| AudioPatch {
                master: a.master,
                target: a.target.patch(),
                true_peak: a.true_peak,
                format: a.format,
                bitrate: a.bitrate.patch(),
                alternates: a.alternates,
            }),
            ..Default::default()
        })
    }
}

impl FeedCreate {
    /// The core's new podcast.
    pub fn new_feed(self) -> podhost_core::Result<NewFeed> {
        Ok(NewFeed {
            id: self.id,
            fields: self.fields.patch()?,
        })
    }
}

/// A media id field as the core takes it: `None` keeps, `Some(None)` clears.
pub(super) fn media(
    value: Clearable<MediaRef>,
    field: &str,
    errors: &mut FieldErrors,
) -> Option<Option<podhost_core::MediaId>> {
    match value.patch() {
        Some(Some(r)) => match r.id() {
            Some(id) => Some(Some(id)),
            None => {
                errors.add(field, "must be a media id");
                None
            }
        },
        Some(None) => Some(None),
        None => None,
    }
}
