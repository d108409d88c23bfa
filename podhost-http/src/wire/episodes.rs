//! Episodes (shows) on the wire: the list item and the single episode the specification shows,
//! and the fields episode creation (a form) and update (JSON) read.

use jiff::{Timestamp, civil, tz::TimeZone};
use podhost_core::{
    FieldErrors,
    model::{EpisodePatch, EpisodeType, EpisodeView, NewEpisode},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{
    Ctx, Example,
    feeds::{logo_url, media},
    format,
    media::kind_name,
    schema::{Clearable, FilePart, MediaRef},
    tags::{ItemTags, shown},
};
use crate::urls::ApiUrls;

/// The constant `show`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ShowKind {
    /// An episode.
    Show,
}

/// Full, trailer or bonus.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EpisodeTypeName {
    /// A regular episode.
    Full,
    /// A trailer.
    Trailer,
    /// Bonus content.
    Bonus,
}

impl From<EpisodeType> for EpisodeTypeName {
    fn from(kind: EpisodeType) -> Self {
        match kind {
            EpisodeType::Full => EpisodeTypeName::Full,
            EpisodeType::Trailer => EpisodeTypeName::Trailer,
            EpisodeType::Bonus => EpisodeTypeName::Bonus,
        }
    }
}

impl From<EpisodeTypeName> for EpisodeType {
    fn from(kind: EpisodeTypeName) -> Self {
        match kind {
            EpisodeTypeName::Full => EpisodeType::Full,
            EpisodeTypeName::Trailer => EpisodeType::Trailer,
            EpisodeTypeName::Bonus => EpisodeType::Bonus,
        }
    }
}

/// An episode's Apple Podcasts fields, as the specification shows them (all text).
#[derive(Debug, Serialize, JsonSchema)]
pub struct Itunes<'a> {
    /// The episode's title for Apple.
    pub title: &'a str,
    /// The subtitle.
    pub subtitle: &'a str,
    /// The cover's URL; empty when it has none.
    pub logo: String,
    /// The summary.
    pub summary: &'a str,
    /// Full, trailer or bonus.
    #[serde(rename = "episodeType")]
    pub episode_type: EpisodeTypeName,
    /// The author.
    pub author: &'a str,
    /// The audio's duration, `HH:MM:SS`; empty without audio.
    pub duration: String,
    /// The season's number; empty for none.
    pub season: String,
    /// The episode's number; empty for none.
    pub episode: String,
    /// Addition: explicit content (null: as the podcast).
    pub explicit: Option<bool>,
}

fn opt_num(n: Option<u32>) -> String {
    n.map(|n| n.to_string()).unwrap_or_default()
}

fn duration_ms(v: &EpisodeView) -> Option<u64> {
    v.media
        .as_ref()
        .and_then(|m| m.facts.audio.as_ref())
        .map(|a| a.duration_ms)
}

fn itunes<'a>(ctx: &Ctx<'_>, v: &'a EpisodeView) -> Itunes<'a> {
    let it = &v.episode.itunes;
    Itunes {
        title: &it.title,
        subtitle: &it.subtitle,
        logo: logo_url(ctx, v.logo.as_ref()),
        summary: &it.summary,
        episode_type: it.episode_type.into(),
        author: &it.author,
        duration: duration_ms(v).map(format::hms).unwrap_or_default(),
        season: opt_num(it.season),
        episode: opt_num(it.episode),
        explicit: it.explicit,
    }
}

/// An episode's links.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EpisodeLinks {
    /// The episode in the API.
    #[serde(rename = "self")]
    pub this: String,
    /// Its web page.
    pub web: String,
    /// Its cover's URL; empty when it has none.
    pub logo: String,
    /// Its audio's URL; empty when it has none.
    pub media: String,
}

/// A list item's attributes.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EpisodeItemAttributes<'a> {
    /// The title.
    pub title: &'a str,
    /// The show notes (may hold HTML).
    pub description: &'a str,
    /// The author.
    pub author: &'a str,
    /// The episode's web address.
    pub link: &'a str,
    /// The copyright.
    pub copyright: &'a str,
    /// The cover's URL; empty when it has none.
    pub logo: String,
    /// The guid.
    pub guid: &'a str,
    /// The publishing date, Unix seconds as digits.
    #[schemars(regex(pattern = r"^-?[0-9]+$"))]
    pub publish_date: String,
    /// The publishing date, `DD.MM.YYYY, HH:MM Uhr`.
    pub publish_date_formatted: String,
    /// 1 when it is public and its date has come.
    #[schemars(range(max = 1))]
    pub is_published: u8,
    /// The audio's file name; empty without audio.
    pub file: &'a str,
    /// The audio's public URL; empty without audio.
    pub enclosure_url: String,
    /// Apple Podcasts' fields.
    pub itunes: Itunes<'a>,
    /// The audio's kind; `unknown` without audio.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The audio's duration, `<m>m <s>s`.
    pub duration_formatted: String,
    /// Addition: 1 when it is public.
    #[schemars(range(max = 1))]
    pub is_public: u8,
}

/// An item of the episode list: serialized straight from the episode, no JSON tree in between
/// (a page of 50 of a large podcast is rendered on every cache miss).
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "EpisodeListItem")]
pub struct EpisodeItem<'a> {
    /// Always `show`.
    #[serde(rename = "type")]
    pub kind: ShowKind,
    /// Its id, `pod-<digits>`.
    pub id: String,
    /// Its podcast's id.
    pub feed_id: &'a str,
    /// Its links.
    pub links: EpisodeLinks,
    /// Its fields.
    pub attributes: EpisodeItemAttributes<'a>,
    /// Always `["entry"]`.
    pub relationships: [&'static str; 1],
}

/// An item of the episode list.
pub fn episode_item<'a>(ctx: &Ctx<'_>, v: &'a EpisodeView) -> EpisodeItem<'a> {
    let e = &v.episode;
    let tz = &ctx.host.config().display_time_zone;
    let urls = ctx.host.urls();
    let media_url = v
        .media
        .as_ref()
        .map(|m| ctx.host.podcasts().media_url(ctx.account, m))
        .unwrap_or_default();
    let logo = logo_url(ctx, v.logo.as_ref());
    EpisodeItem {
        kind: ShowKind::Show,
        id: e.id.to_string(),
        feed_id: e.feed.as_str(),
        links: EpisodeLinks {
            this: ApiUrls::new(ctx.host).episode(&e.feed, e.id),
            web: urls.episode_page(&e.feed, e.id),
            logo: logo.clone(),
            media: media_url.clone(),
        },
        attributes: EpisodeItemAttributes {
            title: &e.title,
            description: &e.description,
            author: &e.author,
            link: &e.link,
            copyright: &e.copyright,
            logo,
            guid: &e.guid,
            publish_date: e.publish_at.as_second().to_string(),
            publish_date_formatted: format::publish_date_formatted(e.publish_at, tz),
            is_published: u8::from(v.is_published),
            file: v.media.as_ref().map_or("", |m| m.name.as_str()),
            enclosure_url: media_url,
            itunes: itunes(ctx, v),
            kind: v.media.as_ref().map_or("unknown", |m| kind_name(m.kind())),
            duration_formatted: duration_ms(v)
                .map(format::minutes_seconds)
                .unwrap_or_default(),
            is_public: u8::from(e.is_public),
        },
        relationships: ["entry"],
    }
}

/// An episode's `podcast` object: the uploaded transcript's media id, then its other
/// Podcasting 2.0 tags by their names.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EpisodePodcast {
    /// `podcast:transcript`: a media file of the account.
    pub transcript: Option<u64>,
    /// The other tags.
    #[serde(flatten)]
    pub tags: ItemTags,
}

/// A single episode's attributes: the specification's, then podhost's additions.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EpisodeAttributes<'a> {
    /// The title.
    pub title: &'a str,
    /// The subtitle.
    pub subtitle: &'a str,
    /// The episode's web address.
    pub link: &'a str,
    /// The show notes (may hold HTML).
    pub description: &'a str,
    /// The author.
    pub author: &'a str,
    /// The author's email.
    pub email: &'a str,
    /// The copyright.
    pub copyright: &'a str,
    /// Apple Podcasts' fields.
    pub itunes: Itunes<'a>,
    /// Addition: the guid.
    pub guid: &'a str,
    /// Addition: 1 when it is public.
    #[schemars(range(max = 1))]
    pub is_public: u8,
    /// Addition: 1 when it is public and its date has come.
    #[schemars(range(max = 1))]
    pub is_published: u8,
    /// Addition: the publishing date, Unix seconds as digits.
    pub publish_date: String,
    /// Addition: the publishing date, `DD.MM.YYYY, HH:MM Uhr`.
    pub publish_date_formatted: String,
    /// Addition: the audio's media id.
    pub show_media: Option<u64>,
    /// Addition: the video's media id (a video file, beside the audio or instead of it); null
    /// when the episode has none.
    pub video_media: Option<u64>,
    /// Addition: the audio's public URL; empty without audio.
    pub enclosure_url: String,
    /// Addition: the audio's duration, `<m>m <s>s`.
    pub duration_formatted: String,
    /// Addition: the Podcasting 2.0 fields.
    pub podcast: EpisodePodcast,
    /// Addition: the episode's version (every change adds one; `version` in an update applies
    /// it only to this version).
    pub version: u64,
    /// Addition: the mastering of its audio under way in a podcast that masters; null when none
    /// is.
    pub mastering: Option<EpisodeMastering>,
}

/// An episode's audio being mastered: the job, and the file it masters. While `show_media` is
/// that file, the episode waits (is not published); when the job succeeds the mastered file
/// becomes its `show_media`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EpisodeMastering {
    /// The mastering job (`GET /api/jobs/{job_id}`).
    pub job_id: String,
    /// The media id of the file being mastered.
    pub media_id: u64,
}

/// A single episode.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Episode")]
pub struct EpisodeRecord<'a> {
    /// Always `show`.
    #[serde(rename = "type")]
    pub kind: ShowKind,
    /// Its id, `pod-<digits>`.
    pub id: String,
    /// Its podcast's id.
    pub feed_id: &'a str,
    /// Its fields.
    pub attributes: EpisodeAttributes<'a>,
    /// Addition: what podcast apps will do with the episode as it is (one public without audio
    /// is skipped); empty when nothing. Never blocks a save.
    pub warnings: Vec<super::errors::WarningRecord>,
}

/// The single episode, with podhost's additions after the specified fields.
pub fn episode_single<'a>(ctx: &Ctx<'_>, v: &'a EpisodeView) -> EpisodeRecord<'a> {
    let e = &v.episode;
    let tz = &ctx.host.config().display_time_zone;
    EpisodeRecord {
        kind: ShowKind::Show,
        id: e.id.to_string(),
        feed_id: e.feed.as_str(),
        attributes: EpisodeAttributes {
            title: &e.title,
            subtitle: &e.subtitle,
            link: &e.link,
            description: &e.description,
            author: &e.author,
            email: &e.email,
            copyright: &e.copyright,
            itunes: itunes(ctx, v),
            guid: &e.guid,
            is_public: u8::from(e.is_public),
            is_published: u8::from(v.is_published),
            publish_date: e.publish_at.as_second().to_string(),
            publish_date_formatted: format::publish_date_formatted(e.publish_at, tz),
            show_media: e.media.map(|m| m.get()),
            video_media: e.video.map(|m| m.get()),
            enclosure_url: v
                .media
                .as_ref()
                .map(|m| ctx.host.podcasts().media_url(ctx.account, m))
                .unwrap_or_default(),
            duration_formatted: duration_ms(v)
                .map(format::minutes_seconds)
                .unwrap_or_default(),
            podcast: EpisodePodcast {
                transcript: e.transcript.map(|m| m.get()),
                tags: ItemTags(shown(&e.podcast)),
            },
            mastering: e.mastering.as_ref().map(|m| EpisodeMastering {
                job_id: m.job.to_string(),
                media_id: m.media.get(),
            }),
            version: e.version,
        },
        warnings: super::errors::warnings(podhost_core::publish::readiness::episode(v)),
    }
}

/// An episode's Apple Podcasts fields, as requests give them.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct EpisodeItunesFields {
    /// The episode's title for Apple.
    pub title: Option<String>,
    /// The subtitle.
    pub subtitle: Option<String>,
    /// The summary.
    pub summary: Option<String>,
    /// The author.
    pub author: Option<String>,
    /// The episode's number (null removes it).
    #[serde(default)]
    pub episode: Clearable<u32>,
    /// The season's number (null removes it).
    #[serde(default)]
    pub season: Clearable<u32>,
    /// Full, trailer or bonus.
    #[serde(rename = "episodeType")]
    pub episode_type: Option<EpisodeTypeName>,
    /// The cover: an image's media id (null removes it).
    #[serde(default)]
    pub logo: Clearable<MediaRef>,
    /// Explicit content.
    pub explicit: Option<bool>,
}

/// An episode's Podcasting 2.0 fields, as requests give them.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct EpisodePodcastFields {
    /// `podcast:transcript`: a media file of the account (null removes it).
    #[serde(default)]
    pub transcript: Clearable<MediaRef>,
    /// The other tags, by name (null removes one).
    #[serde(flatten)]
    pub tags: ItemTags,
}

/// An episode's fields: what `PUT /api/feed/{feed_id}/show/{show_id}` changes (a field left out
/// stays as it is), and the text fields of creation.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct EpisodeFields {
    /// The title (required at creation).
    pub title: Option<String>,
    /// The subtitle.
    pub subtitle: Option<String>,
    /// The author.
    pub author: Option<String>,
    /// The author's email.
    pub email: Option<String>,
    /// The copyright.
    pub copyright: Option<String>,
    /// The show notes (HTML allowed: cleaned to what apps show).
    pub description: Option<String>,
    /// The episode's web address.
    pub link: Option<String>,
    /// Public (1) or a draft (0).
    pub is_public: Option<bool>,
    /// The publishing date, in the deployment's display time zone.
    #[schemars(extend("format" = "date"))]
    pub publishing_date: Option<String>,
    /// The publishing time (default 00:00:00).
    #[schemars(regex(pattern = super::read::TIME_PATTERN))]
    pub publishing_time: Option<String>,
    /// The audio: a media file of the account (null removes it).
    #[serde(default)]
    pub show_media: Clearable<MediaRef>,
    /// Addition: the video: a video file of the account (null removes it).
    #[serde(default)]
    pub video_media: Clearable<MediaRef>,
    /// Also write the episode's title, author, album and cover into its audio file's tags (a
    /// job; the file gets a new URL).
    pub write_metadata: Option<bool>,
    /// Apple Podcasts' fields.
    pub itunes: Option<EpisodeItunesFields>,
    /// The Podcasting 2.0 fields.
    pub podcast: Option<EpisodePodcastFields>,
    /// Addition: apply only if the episode still has this version (else 409).
    pub version: Option<u64>,
}

impl Example for EpisodeFields {
    fn example() -> Value {
        json!({"title": "Pilot, again", "itunes": {"episodeType": "full", "season": "1"}})
    }
}

/// A new episode, as a form: its fields (the title required), its guid, and the files uploaded
/// with it.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[schemars(extend("required" = ["title"]))]
pub struct EpisodeCreate {
    /// A guid to keep verbatim (by default the episode's id).
    pub guid: Option<String>,
    /// The fields.
    #[serde(flatten)]
    pub fields: EpisodeFields,
    /// The audio, uploaded with the episode (not with `show_media`).
    #[serde(default)]
    pub media: Option<FilePart>,
    /// The cover, uploaded with the episode (not with `itunes[logo]`).
    #[serde(default)]
    pub cover: Option<FilePart>,
}

impl EpisodeFields {
    /// The core's change of an episode; dates are read in `tz`.
    pub fn patch(self, tz: &TimeZone) -> podhost_core::Result<EpisodePatch> {
        let mut errors = FieldErrors::default();
        let it = self.itunes.unwrap_or_default();
        let pod = self.podcast.unwrap_or_default();
        let publish_at = publish_at(self.publishing_date, self.publishing_time, tz, &mut errors);
        let patch = EpisodePatch {
            title: self.title,
            subtitle: self.subtitle,
            author: self.author,
            email: self.email,
            copyright: self.copyright,
            description: self.description,
            link: self.link,
            is_public: self.is_public,
            publish_at,
            media: media(self.show_media, "show_media", &mut errors),
            video: media(self.video_media, "video_media", &mut errors),
            transcript: media(pod.transcript, "podcast.transcript", &mut errors),
            podcast_tags: pod.tags.0,
            itunes_title: it.title,
            itunes_subtitle: it.subtitle,
            itunes_summary: it.summary,
            itunes_author: it.author,
            itunes_episode: it.episode.patch(),
            itunes_season: it.season.patch(),
            itunes_episode_type: it.episode_type.map(Into::into),
            itunes_logo: media(it.logo, "itunes.logo", &mut errors),
            itunes_explicit: it.explicit.map(Some),
            if_version: self.version,
            write_metadata: self.write_metadata.unwrap_or(false),
        };
        errors.into_result()?;
        Ok(patch)
    }
}

impl EpisodeCreate {
    /// The core's new episode.
    pub fn new_episode(self, tz: &TimeZone) -> podhost_core::Result<NewEpisode> {
        Ok(NewEpisode {
            guid: self.guid,
            fields: self.fields.patch(tz)?,
        })
    }
}

/// `publishing_date` (YYYY-MM-DD) and `publishing_time` (HH:MM:SS, default midnight) as a
/// moment in the display time zone.
fn publish_at(
    date: Option<String>,
    time: Option<String>,
    tz: &TimeZone,
    errors: &mut FieldErrors,
) -> Option<Timestamp> {
    let date = date.filter(|s| !s.is_empty());
    let time = time.filter(|s| !s.is_empty());
    let Some(date) = date else {
        if time.is_some() {
            errors.add("publishing_date", "is required with publishing_time");
        }
        return None;
    };
    let date = match date.parse::<civil::Date>() {
        Ok(d) if d.year() >= 1970 => d,
        _ => {
            errors.add("publishing_date", "a date YYYY-MM-DD from 1970 on");
            return None;
        }
    };
    let time = match time.map(|t| t.parse::<civil::Time>()) {
        None => civil::Time::midnight(),
        Some(Ok(t)) if t.subsec_nanosecond() == 0 => t,
        Some(_) => {
            errors.add("publishing_time", "a time HH:MM:SS");
            return None;
        }
    };
    match date.to_datetime(time).to_zoned(tz.clone()) {
        Ok(zoned) => Some(zoned.timestamp()),
        Err(_) => {
            errors.add(
                "publishing_date",
                "not a valid moment in the display time zone",
            );
            None
        }
    }
}

impl Example for EpisodeCreate {
    fn example() -> Value {
        json!({"title": "Pilot", "is_public": "1"})
    }
}
