//! A media file's metadata on the wire: its facts, the tags read from the file, its ad breaks,
//! Apple's artwork check; and the changes `PUT /api/media/{id}/metadata` reads.

use podhost_core::{FieldErrors, Metadata, MetadataPatch, model::AdBreak, tags::Chapter};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{
    Example,
    feeds::media,
    jobs::JobRecord,
    media::kind_name,
    schema::{Clearable, MediaRef},
};

/// A chapter, times in seconds.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ChapterTimes {
    /// Where it starts.
    #[schemars(range(min = 0))]
    pub start: f64,
    /// Where it ends (formats that keep no end: the next chapter's start).
    #[serde(default)]
    pub end: Option<f64>,
    /// Its title.
    #[serde(default)]
    pub title: String,
    /// A link about it.
    #[serde(default)]
    pub url: Option<String>,
}

/// An embedded cover: its type and size.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CoverFacts {
    /// Its MIME type.
    pub mime: String,
    /// Its size in bytes.
    pub size: usize,
}

/// The tags read from the file.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FileTags {
    /// Title.
    pub title: Option<String>,
    /// Artist.
    pub artist: Option<String>,
    /// Album.
    pub album: Option<String>,
    /// Year.
    pub year: Option<i32>,
    /// Comment.
    pub comment: Option<String>,
    /// The chapters.
    pub chapters: Vec<ChapterTimes>,
    /// The front cover.
    pub cover: Option<CoverFacts>,
}

/// Where ads may go.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "AdBreak")]
pub struct AdBreaks {
    /// An ad before the content.
    #[serde(default)]
    pub preroll: bool,
    /// An ad after the content.
    #[serde(default)]
    pub postroll: bool,
    /// Positions of mid-roll ads, in seconds from the start.
    #[serde(default)]
    pub midrolls: Vec<f64>,
}

/// Apple's artwork rule applied to an image or a cover.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Artwork {
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
    /// Whether it meets Apple's rule (square, 1400 to 3000 pixels, JPEG or PNG, RGB).
    pub meets_apple_rule: bool,
    /// What is wrong with it.
    pub problems: Vec<String>,
}

/// A media file's metadata.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Metadata")]
pub struct MetadataRecord {
    /// The file's media id.
    pub id: u64,
    /// audio, video, image, document or other.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Its MIME type.
    pub mime: String,
    /// What the file is.
    pub info: String,
    /// The audio's duration in seconds.
    pub duration: Option<f64>,
    /// The audio's bitrate in bits per second.
    pub bitrate: Option<u32>,
    /// The audio's sample rate in Hz.
    pub sample_rate: Option<u32>,
    /// The audio's channels.
    pub channels: Option<u16>,
    /// The audio's codec.
    pub codec: Option<String>,
    /// An image's width in pixels.
    pub width: Option<u32>,
    /// An image's height in pixels.
    pub height: Option<u32>,
    /// The tags read from the file now; null for files without a tag format.
    pub tags: Option<FileTags>,
    /// Why the tags could not be read, when they could not.
    pub tags_error: Option<String>,
    /// The stored ad breaks.
    pub adbreak: Option<AdBreaks>,
    /// The audio's loudness, once an analysis job measured it.
    pub loudness: Option<super::jobs::Loudness>,
    /// Apple's artwork check of the image, or of the cover in the tags.
    pub artwork: Option<Artwork>,
    /// After a change of the tags: the job writing them into a new file.
    pub job: Option<JobRecord>,
}

fn seconds(ms: u64) -> f64 {
    ms as f64 / 1000.0
}

/// A media file's metadata; after a `PUT`, the job writing the tags.
pub fn metadata(m: &Metadata, job: Option<JobRecord>) -> MetadataRecord {
    let media = &m.media;
    let audio = media.facts.audio.as_ref();
    let image = media.facts.image.as_ref();
    MetadataRecord {
        id: media.id.get(),
        kind: kind_name(media.kind()),
        mime: media.facts.mime.clone(),
        info: media.facts.info.clone(),
        duration: audio.map(|a| seconds(a.duration_ms)),
        bitrate: audio.map(|a| a.bitrate),
        sample_rate: audio.map(|a| a.sample_rate),
        channels: audio.map(|a| a.channels),
        codec: audio.map(|a| a.codec.clone()),
        width: image.map(|i| i.width),
        height: image.map(|i| i.height),
        tags: m.tags.as_ref().map(|t| FileTags {
            title: t.title.clone(),
            artist: t.artist.clone(),
            album: t.album.clone(),
            year: t.year,
            comment: t.comment.clone(),
            chapters: t
                .chapters
                .iter()
                .map(|c| ChapterTimes {
                    start: seconds(c.start_ms),
                    end: c.end_ms.map(seconds),
                    title: c.title.clone(),
                    url: c.url.clone(),
                })
                .collect(),
            cover: t.cover.as_ref().map(|c| CoverFacts {
                mime: c.mime.clone(),
                size: c.bytes.len(),
            }),
        }),
        tags_error: m.tags_error.clone(),
        adbreak: media.adbreak.as_ref().map(|a| AdBreaks {
            preroll: a.preroll,
            postroll: a.postroll,
            midrolls: a.midrolls.clone(),
        }),
        loudness: media.results.loudness.as_deref().map(super::jobs::loudness),
        artwork: m.artwork.as_ref().map(|a| Artwork {
            width: a.width,
            height: a.height,
            meets_apple_rule: a.problems.is_empty(),
            problems: a.problems.clone(),
        }),
        job,
    }
}

/// Changes of a media file's metadata: a field left out stays, `null` removes it. Tags,
/// chapters and the cover are written into a new file by a job; ad breaks are stored at once.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct MetadataUpdate {
    /// Title tag.
    #[serde(default)]
    pub title: Clearable<String>,
    /// Artist tag.
    #[serde(default)]
    pub artist: Clearable<String>,
    /// Album tag.
    #[serde(default)]
    pub album: Clearable<String>,
    /// Year tag, 0 to 9999.
    #[serde(default)]
    #[schemars(range(min = 0, max = 9999))]
    pub year: Clearable<i32>,
    /// Comment tag.
    #[serde(default)]
    pub comment: Clearable<String>,
    /// The chapters, all of them (null: none).
    #[serde(default)]
    pub chapters: Clearable<Vec<ChapterTimes>>,
    /// An image's media id to embed as the cover (null removes the cover).
    #[serde(default)]
    pub image: Clearable<MediaRef>,
    /// Where ads may go (null: nowhere).
    #[serde(default)]
    pub adbreak: Clearable<AdBreaks>,
}

impl Example for MetadataUpdate {
    fn example() -> Value {
        json!({"title": "Pilot", "artist": "Me", "adbreak": {"preroll": true, "postroll": false, "midrolls": []}})
    }
}

/// Text as a tag: empty is none.
fn text(value: Clearable<String>) -> Option<Option<String>> {
    value.patch().map(|v| v.filter(|s| !s.is_empty()))
}

impl MetadataUpdate {
    /// The core's change of the metadata.
    pub fn patch(self) -> podhost_core::Result<MetadataPatch> {
        let mut errors = FieldErrors::default();
        let chapters = self.chapters.patch().map(|list| {
            list.unwrap_or_default()
                .into_iter()
                .map(|c| Chapter {
                    start_ms: (c.start * 1000.0).round() as u64,
                    end_ms: c
                        .end
                        .filter(|e| e.is_finite() && *e >= 0.0)
                        .map(|e| (e * 1000.0).round() as u64),
                    title: c.title,
                    url: c.url,
                })
                .collect()
        });
        let patch = MetadataPatch {
            title: text(self.title),
            artist: text(self.artist),
            album: text(self.album),
            year: self.year.patch(),
            comment: text(self.comment),
            chapters,
            image: media(self.image, "image", &mut errors),
            adbreak: self.adbreak.patch().map(|a| {
                a.map(|a| AdBreak {
                    preroll: a.preroll,
                    postroll: a.postroll,
                    midrolls: a.midrolls,
                })
            }),
        };
        errors.into_result()?;
        Ok(patch)
    }
}
