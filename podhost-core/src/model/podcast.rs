//! The Podcasting 2.0 tags (the `podcast:` namespace of podcastindex.org) a podcast and its
//! episodes carry beyond the few with fields of their own (guid, locked, funding, medium):
//! typed, with the namespace's names (attributes in its camelCase), written through the API as
//! JSON under `podcast` and emitted in the feed.
//!
//! A change names whole tags ([`TagsPatch`]: a tag's new value, or null to remove it); each is
//! checked on its own, so a refusal names the tag (`podcast.person`).

use serde::{Deserialize, Serialize, de::DeserializeOwned};
use serde_json::{Map, Value};

use crate::error::FieldErrors;

/// A change of Podcasting 2.0 tags: tag name (`person`, `soundbite`, ...) to its whole new
/// value, `null` removing it.
pub type TagsPatch = Map<String, Value>;

/// `podcast:person`: someone who takes part (channel or item).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Person {
    /// Their name (the element's text).
    pub name: String,
    /// Their role, by the namespace's taxonomy (default `host`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The role's group (default `cast`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// A picture of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub img: Option<String>,
    /// Their page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub href: Option<String>,
}

/// `podcast:location`: where the podcast or episode is about or made.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Location {
    /// The place's name (the element's text).
    pub name: String,
    /// A geo URI (`geo:30.2,-97.7`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geo: Option<String>,
    /// An OpenStreetMap object (`R113314`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub osm: Option<String>,
}

/// `podcast:license`: the content's license.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct License {
    /// Its SPDX identifier or name (the element's text).
    pub name: String,
    /// Where it is written, when it is not an SPDX license.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// `podcast:txt`: free text for machines, e.g. a platform's ownership proof
/// (`purpose="verify"`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Txt {
    /// The text (at most 4,000 characters).
    pub text: String,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purpose: Option<String>,
}

/// `podcast:block`: whether a platform (or every one) may list the podcast.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Block {
    /// Blocked (`yes`) or not (`no`).
    pub blocked: bool,
    /// The platform (`spotify`, `apple`, ...); none: every platform.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// `podcast:remoteItem`: a pointer to another feed or item (podroll, publisher, value splits).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RemoteItem {
    /// The other feed's `podcast:guid`.
    pub feed_guid: String,
    /// An item's guid in that feed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_guid: Option<String>,
    /// The other feed's URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feed_url: Option<String>,
    /// Its medium.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub medium: Option<String>,
}

/// `podcast:updateFrequency`: how often new episodes come.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateFrequency {
    /// In words (the element's text), e.g. `Weekly`.
    pub text: String,
    /// An iCalendar RRULE, e.g. `FREQ=WEEKLY`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rrule: Option<String>,
    /// No more episodes are planned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub complete: Option<bool>,
    /// When the schedule starts (ISO 8601).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dtstart: Option<String>,
}

/// `podcast:trailer`: a trailer of the podcast.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Trailer {
    /// Its title (the element's text).
    pub title: String,
    /// When it was published (RFC 2822, as RSS dates).
    pub pubdate: String,
    /// The audio or video.
    pub url: String,
    /// Its size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<u64>,
    /// Its MIME type.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub mime: Option<String>,
    /// The season it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub season: Option<u32>,
}

/// `podcast:valueRecipient`: who gets a share of value sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ValueRecipient {
    /// Their name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `node`, `lnaddress`, ...
    #[serde(rename = "type")]
    pub kind: String,
    /// Their address of that type.
    pub address: String,
    /// Their share (a whole number, relative to the other recipients').
    pub split: u32,
    /// A key the receiving node needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_key: Option<String>,
    /// Its value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_value: Option<String>,
    /// A fee taken from the total rather than a share.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fee: Option<bool>,
}

/// `podcast:valueTimeSplit`: during part of an episode, value goes elsewhere.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ValueTimeSplit {
    /// Where in the episode it starts (seconds).
    pub start_time: f64,
    /// How long it lasts (seconds).
    pub duration: f64,
    /// Where the other item's part starts (seconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_start_time: Option<f64>,
    /// The share the other item's recipients get (0 to 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_percentage: Option<f64>,
    /// The item whose recipients get it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_item: Option<RemoteItem>,
    /// Or these recipients.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recipients: Vec<ValueRecipient>,
}

/// `podcast:value`: how listeners send value (streaming payments).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ValueBlock {
    /// The currency layer, e.g. `lightning`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The method, e.g. `keysend`.
    pub method: String,
    /// A suggested amount per minute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested: Option<String>,
    /// Who gets it.
    pub recipients: Vec<ValueRecipient>,
    /// Parts of the episode where it goes elsewhere (items only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub time_splits: Vec<ValueTimeSplit>,
}

/// `podcast:chat`: where listeners talk.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Chat {
    /// The server, e.g. `irc.zeronode.net`.
    pub server: String,
    /// `irc`, `xmpp`, `nostr`, `matrix`.
    pub protocol: String,
    /// The podcast's account there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account_id: Option<String>,
    /// The room or channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub space: Option<String>,
}

/// `podcast:image`: a picture for a purpose (artwork, social, ...).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Image {
    /// Its URL.
    pub href: String,
    /// Its text alternative.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alt: Option<String>,
    /// `16/9`, `1/1`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aspect_ratio: Option<String>,
    /// Width in pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    /// Height in pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// MIME type.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub mime: Option<String>,
    /// `artwork`, `social`, `canvas`, `banner`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purpose: Option<String>,
}

/// `podcast:contentLink`: where a live item can be followed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContentLink {
    /// The link.
    pub href: String,
    /// Its text.
    pub text: String,
}

/// `podcast:liveItem`: a live stream, past, now or planned.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LiveItem {
    /// `pending`, `live` or `ended`.
    pub status: String,
    /// When it starts (ISO 8601).
    pub start: String,
    /// When it ends (ISO 8601).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<String>,
    /// Its title.
    pub title: String,
    /// Its guid.
    pub guid: String,
    /// The stream's URL.
    pub url: String,
    /// The stream's MIME type.
    #[serde(rename = "type")]
    pub mime: String,
    /// Where else it can be followed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub content_link: Vec<ContentLink>,
    /// Its chat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chat: Option<Chat>,
    /// Where its value splits are announced while it is live.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live_value: Option<LiveValue>,
}

/// `podcast:transcript`: a transcript or captions file at a URL (besides a transcript
/// uploaded as a media file).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Transcript {
    /// Where it is.
    pub url: String,
    /// Its type: one of [`TRANSCRIPT_TYPES`].
    #[serde(rename = "type")]
    pub mime: String,
    /// Its language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// `captions` for timed captions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rel: Option<String>,
}

/// The transcript types podhost serves and names: SRT, WebVTT, JSON, HTML, plain text.
pub const TRANSCRIPT_TYPES: [&str; 5] = [
    "application/x-subrip",
    "text/vtt",
    "application/json",
    "text/html",
    "text/plain",
];

/// `podcast:soundbite`: a part of the episode worth sharing.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Soundbite {
    /// Where it starts (seconds).
    pub start_time: f64,
    /// How long it is (seconds).
    pub duration: f64,
    /// Its title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// `podcast:season`: the season's number and name.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Season {
    /// Its number.
    pub number: u32,
    /// Its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `podcast:episode`: the episode's number and how to show it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EpisodeNumber {
    /// Its number (decimals allowed: 10.5).
    pub number: f64,
    /// How apps show it (`Ch. 3`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<String>,
}

/// `podcast:source` of an alternate enclosure.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Source {
    /// Where the file is (https, ipfs, magnet, ...).
    pub uri: String,
    /// Its MIME type when it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
}

/// `podcast:integrity` of an alternate enclosure.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Integrity {
    /// `sri` or `pgp-signature`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The hash (`sha384-…`) or signature.
    pub value: String,
}

/// `podcast:alternateEnclosure`: the episode in another form (quality, language, video).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AlternateEnclosure {
    /// A media file of the account: its download URL is the first source, and its type, length
    /// and integrity (the SHA-384 podhost computed) are given unless said here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media: Option<crate::ids::MediaId>,
    /// MIME type (default: the media file's).
    #[serde(default, rename = "type")]
    pub mime: String,
    /// Size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<u64>,
    /// Bits per second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bitrate: Option<f64>,
    /// Video height in pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// Language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// A short title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Groups enclosures that are the same content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rel: Option<String>,
    /// RFC 6381 codecs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codecs: Option<String>,
    /// The enclosure's own form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
    /// Where it is (at least one, unless `media` names a file).
    #[serde(default)]
    pub source: Vec<Source>,
    /// Its hash or signature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrity: Option<Integrity>,
}

/// `podcast:socialInteract`: where the episode is discussed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SocialInteract {
    /// The post's URI.
    pub uri: String,
    /// `activitypub`, `twitter`, `lightning`, `atproto`, `disabled`.
    pub protocol: String,
    /// The account that posted it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account_id: Option<String>,
    /// That account's page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account_url: Option<String>,
    /// Which to show first (lower first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<u32>,
}

/// `podcast:liveValue` of a live item: where the live value split changes are announced.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LiveValue {
    /// The announcing endpoint (`wss://...`).
    pub uri: String,
    /// One of [`LIVE_VALUE_PROTOCOLS`].
    pub protocol: String,
}

/// The protocols a `podcast:liveValue` may name.
pub const LIVE_VALUE_PROTOCOLS: [&str; 3] = ["socket.io", "websocket", "xmpp"];

/// `podcast:id`: the podcast's listing on a platform (a proposed tag that the Podcast Index
/// parser reads).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlatformId {
    /// The platform (`apple`, `spotify`, `podcastindex`, ...).
    pub platform: String,
    /// The listing's page.
    pub url: String,
    /// The podcast's id there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// `podcast:socialSignUp` of a `podcast:social`: how a listener joins that platform.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SocialSignUp {
    /// The platform's home page.
    pub home_url: String,
    /// Where to sign up.
    pub sign_up_url: String,
    /// Which to show first (lower first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<u32>,
}

/// `podcast:social`: the podcast's account on a social platform (a proposed tag that the
/// Podcast Index parser reads).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Social {
    /// The protocol or platform (`activitypub`, `atproto`, `nostr`, `twitter`, ...).
    pub platform: String,
    /// The account's page.
    pub url: String,
    /// The account's name there (`@podhost@podcastindex.social`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub podcast_account_id: Option<String>,
    /// Which to show first (lower first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<u32>,
    /// How listeners join the platform.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub social_sign_up: Vec<SocialSignUp>,
}

/// `podcast:recommendations`: a file of podcasts or episodes recommended (a proposed tag
/// that the Podcast Index parser reads).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Recommendations {
    /// Where the file is.
    pub url: String,
    /// Its MIME type (`application/json`).
    #[serde(rename = "type")]
    pub mime: String,
    /// Its language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// A short description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// A podcast's Podcasting 2.0 tags (besides guid, locked, funding and medium).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct ChannelTags {
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub person: Vec<Person>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trailer: Vec<Trailer>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub license: Option<License>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub block: Vec<Block>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub txt: Vec<Txt>,
    /// `podcast:podroll`: podcasts this one recommends.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub podroll: Vec<RemoteItem>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub update_frequency: Option<UpdateFrequency>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<ValueBlock>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub live_item: Vec<LiveItem>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat: Option<Chat>,
    /// `podcast:publisher`: the publisher's own feed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub publisher: Option<RemoteItem>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub image: Vec<Image>,
    /// `podcast:id`: the podcast's listings on platforms.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub id: Vec<PlatformId>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub social: Vec<Social>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recommendations: Vec<Recommendations>,
}

/// An episode's Podcasting 2.0 tags (besides the uploaded transcript and the chapters of its
/// file).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct ItemTags {
    /// Transcripts at URLs, each with its type, language and `rel`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub transcripts: Vec<Transcript>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub soundbite: Vec<Soundbite>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub person: Vec<Person>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub season: Option<Season>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub episode: Option<EpisodeNumber>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub license: Option<License>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alternate_enclosure: Vec<AlternateEnclosure>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<ValueBlock>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub social_interact: Vec<SocialInteract>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub txt: Vec<Txt>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat: Option<Chat>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub image: Vec<Image>,
    #[allow(missing_docs)]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recommendations: Vec<Recommendations>,
}

/// The tags a podcast's `podcast` object may name (besides guid, locked, funding, medium).
pub const CHANNEL_TAGS: [&str; 16] = [
    "person",
    "location",
    "trailer",
    "license",
    "block",
    "txt",
    "podroll",
    "updateFrequency",
    "value",
    "liveItem",
    "chat",
    "publisher",
    "image",
    "id",
    "social",
    "recommendations",
];

/// The tags an episode's `podcast` object may name (besides the uploaded `transcript`).
pub const ITEM_TAGS: [&str; 14] = [
    "transcripts",
    "soundbite",
    "person",
    "location",
    "season",
    "episode",
    "license",
    "alternateEnclosure",
    "value",
    "socialInteract",
    "txt",
    "chat",
    "image",
    "recommendations",
];

/// Applies `patch` to `tags`: each named tag replaced whole (or removed by `null`), each
/// checked on its own; problems go to `errors` as `podcast.{tag}`.
pub(crate) fn apply<T>(tags: &mut T, patch: &TagsPatch, known: &[&str], errors: &mut FieldErrors)
where
    T: Serialize + DeserializeOwned + Check,
{
    if patch.is_empty() {
        return;
    }
    let Ok(Value::Object(mut current)) = serde_json::to_value(&*tags) else {
        return;
    };
    let mut ok = true;
    for (name, value) in patch {
        let field = format!("podcast.{name}");
        if value.is_null() {
            if known.contains(&name.as_str()) {
                current.remove(name);
            } else {
                ok = false;
                errors.add(field, "unknown field");
            }
            continue;
        }
        let single = Value::Object(Map::from_iter([(name.clone(), value.clone())]));
        match serde_json::from_value::<T>(single) {
            Ok(one) => {
                let mut problems = FieldErrors::default();
                one.check(&mut problems);
                for (f, messages) in problems.fields() {
                    for m in messages {
                        errors.add(f.clone(), m.clone());
                    }
                }
                current.insert(name.clone(), value.clone());
            }
            Err(e) => {
                ok = false;
                errors.add(field, plain_serde_error(&e.to_string()));
            }
        }
    }
    if ok && let Ok(updated) = serde_json::from_value::<T>(Value::Object(current)) {
        *tags = updated;
    }
}

/// serde's message without its position (`at line 1 column 42`), which means nothing here.
fn plain_serde_error(message: &str) -> String {
    match message.find(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message.to_string(),
    }
}

/// The checks serde's types do not make: URLs, ranges, known values.
pub(crate) trait Check {
    /// Adds what is wrong to `errors`, by `podcast.{tag}`.
    fn check(&self, errors: &mut FieldErrors);
}

fn url_ok(url: &str) -> bool {
    url::Url::parse(url).is_ok_and(|u| matches!(u.scheme(), "http" | "https"))
}

fn check_url(errors: &mut FieldErrors, field: &str, url: &str) {
    if !url_ok(url) {
        errors.add(field, format!("\"{url}\" is not an http(s) URL"));
    }
}

fn check_text(errors: &mut FieldErrors, field: &str, text: &str, max: usize) {
    if text.trim().is_empty() {
        errors.add(field, "must not be empty");
    } else if text.chars().count() > max {
        errors.add(field, format!("at most {max} characters"));
    }
}

fn check_people(errors: &mut FieldErrors, people: &[Person]) {
    for p in people {
        check_text(errors, "podcast.person", &p.name, 128);
        for url in [&p.img, &p.href].into_iter().flatten() {
            check_url(errors, "podcast.person", url);
        }
        if let Err(message) = super::taxonomy::check_role(p.role.as_deref(), p.group.as_deref()) {
            errors.add("podcast.person", message);
        }
    }
}

fn check_recommendations(errors: &mut FieldErrors, list: &[Recommendations]) {
    for r in list {
        check_url(errors, "podcast.recommendations", &r.url);
        check_text(errors, "podcast.recommendations", &r.mime, 128);
    }
}

fn check_value(errors: &mut FieldErrors, value: &ValueBlock) {
    let field = "podcast.value";
    check_text(errors, field, &value.kind, 128);
    check_text(errors, field, &value.method, 128);
    if value.recipients.is_empty() {
        errors.add(field, "at least one valueRecipient");
    }
    for r in value
        .recipients
        .iter()
        .chain(value.time_splits.iter().flat_map(|s| &s.recipients))
    {
        check_text(errors, field, &r.address, 512);
    }
    for split in &value.time_splits {
        if !(split.start_time >= 0.0 && split.duration > 0.0) {
            errors.add(
                field,
                "a valueTimeSplit starts at 0 or later and lasts more than 0 seconds",
            );
        }
        if split
            .remote_percentage
            .is_some_and(|p| !(0.0..=100.0).contains(&p))
        {
            errors.add(field, "remotePercentage is 0 to 100");
        }
        if split.remote_item.is_none() && split.recipients.is_empty() {
            errors.add(field, "a valueTimeSplit names a remoteItem or recipients");
        }
    }
}

impl Check for ChannelTags {
    fn check(&self, e: &mut FieldErrors) {
        check_people(e, &self.person);
        if let Some(l) = &self.location {
            check_text(e, "podcast.location", &l.name, 128);
        }
        for t in &self.trailer {
            check_text(e, "podcast.trailer", &t.title, 128);
            check_url(e, "podcast.trailer", &t.url);
            if jiff::fmt::rfc2822::parse(&t.pubdate).is_err() {
                e.add(
                    "podcast.trailer",
                    format!("pubdate \"{}\" is not an RFC 2822 date", t.pubdate),
                );
            }
        }
        if let Some(l) = &self.license {
            check_text(e, "podcast.license", &l.name, 128);
            if let Some(url) = &l.url {
                check_url(e, "podcast.license", url);
            }
        }
        for t in &self.txt {
            check_text(e, "podcast.txt", &t.text, 4000);
        }
        for r in self.podroll.iter().chain(&self.publisher) {
            let field = "podcast.podroll";
            check_text(e, field, &r.feed_guid, 128);
            if let Some(url) = &r.feed_url {
                check_url(e, field, url);
            }
        }
        if let Some(u) = &self.update_frequency {
            check_text(e, "podcast.updateFrequency", &u.text, 128);
        }
        if let Some(v) = &self.value {
            check_value(e, v);
        }
        for l in &self.live_item {
            let field = "podcast.liveItem";
            if !["pending", "live", "ended"].contains(&l.status.as_str()) {
                e.add(field, "status is pending, live or ended");
            }
            check_url(e, field, &l.url);
            check_text(e, field, &l.title, 255);
            for link in &l.content_link {
                check_url(e, field, &link.href);
            }
            if let Some(v) = &l.live_value {
                if !LIVE_VALUE_PROTOCOLS.contains(&v.protocol.as_str()) {
                    e.add(
                        field,
                        format!(
                            "liveValue protocol \"{}\" is not one of {}",
                            v.protocol,
                            LIVE_VALUE_PROTOCOLS.join(", ")
                        ),
                    );
                }
                if url::Url::parse(&v.uri).is_err() {
                    e.add(field, format!("liveValue uri \"{}\" is not a URI", v.uri));
                }
            }
        }
        if let Some(c) = &self.chat {
            check_text(e, "podcast.chat", &c.server, 255);
        }
        for i in &self.image {
            check_url(e, "podcast.image", &i.href);
        }
        for i in &self.id {
            check_text(e, "podcast.id", &i.platform, 128);
            check_url(e, "podcast.id", &i.url);
        }
        for s in &self.social {
            check_text(e, "podcast.social", &s.platform, 128);
            check_url(e, "podcast.social", &s.url);
            for up in &s.social_sign_up {
                check_url(e, "podcast.social", &up.home_url);
                check_url(e, "podcast.social", &up.sign_up_url);
            }
        }
        check_recommendations(e, &self.recommendations);
    }
}

impl Check for ItemTags {
    fn check(&self, e: &mut FieldErrors) {
        for t in &self.transcripts {
            check_url(e, "podcast.transcripts", &t.url);
            if !TRANSCRIPT_TYPES.contains(&t.mime.as_str()) {
                e.add(
                    "podcast.transcripts",
                    format!(
                        "type \"{}\" is not one podhost serves: {}",
                        t.mime,
                        TRANSCRIPT_TYPES.join(", ")
                    ),
                );
            }
        }
        for s in &self.soundbite {
            if !(s.start_time >= 0.0 && s.duration > 0.0 && s.duration <= 600.0) {
                e.add(
                    "podcast.soundbite",
                    "startTime is 0 or later, duration more than 0 and at most 600 seconds",
                );
            }
        }
        check_people(e, &self.person);
        if let Some(l) = &self.location {
            check_text(e, "podcast.location", &l.name, 128);
        }
        if let Some(n) = &self.episode
            && !(n.number.is_finite() && n.number >= 0.0)
        {
            e.add("podcast.episode", "number is 0 or more");
        }
        if let Some(l) = &self.license {
            check_text(e, "podcast.license", &l.name, 128);
        }
        for a in &self.alternate_enclosure {
            if a.source.is_empty() && a.media.is_none() {
                e.add(
                    "podcast.alternateEnclosure",
                    "at least one source, or a media file of the account",
                );
            }
            if a.media.is_none() && a.mime.trim().is_empty() {
                e.add("podcast.alternateEnclosure", "a type");
            }
        }
        if let Some(v) = &self.value {
            check_value(e, v);
        }
        for s in &self.social_interact {
            if s.protocol != "disabled" && !url_ok(&s.uri) && !s.uri.starts_with("at://") {
                e.add(
                    "podcast.socialInteract",
                    format!("\"{}\" is not a URI of the post", s.uri),
                );
            }
        }
        for t in &self.txt {
            check_text(e, "podcast.txt", &t.text, 4000);
        }
        for i in &self.image {
            check_url(e, "podcast.image", &i.href);
        }
        check_recommendations(e, &self.recommendations);
    }
}
