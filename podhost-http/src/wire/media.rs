//! Media files on the wire: the list item and the single record the specification shows, and
//! what the media endpoints read.

use podhost_core::{
    model::{Access, Media},
    probe::{MediaKind, VideoFacts},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{Ctx, Example, format, schema::Clearable};

/// The kind of a file, as the specification names it (`type`).
pub(super) fn kind_name(kind: MediaKind) -> &'static str {
    match kind {
        MediaKind::Audio => "audio",
        MediaKind::Video => "video",
        MediaKind::Image => "image",
        MediaKind::Document => "document",
        MediaKind::Other => "other",
    }
}

/// A file in the media list.
#[derive(Debug, Serialize, JsonSchema)]
pub struct MediaItem {
    /// Its id, as a string of digits.
    pub id: String,
    /// The file name.
    pub name: String,
    /// Its size in bytes.
    pub byte: u64,
    /// When it was uploaded, `DD.MM.YYYY HH:MM:SS`.
    pub created: String,
    /// Its size, human readable (`13.4 KB`).
    pub size: String,
    /// Its last change, `HH:MM:SS DD.MM.YYYY`.
    pub last: String,
    /// Its category; `_default_` when it has none.
    pub cat: String,
    /// Its public download URL.
    pub url: String,
    /// Its extension.
    pub extension: String,
    /// Its MIME type.
    pub mimetype: String,
    /// audio, video, image, document or other.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// When it was uploaded, `DD.MM.YYYY`.
    pub created_date: String,
    /// When it was uploaded, `HH:MM`.
    pub created_time: String,
    /// Addition: whether its public URL is kept from anyone but the subscribers of private
    /// podcasts that use it (a private podcast used it, or the podcaster said so); such a file
    /// is served at its public URL only while a public podcast shows it.
    pub private: bool,
}

/// A page of the media list.
#[derive(Debug, Serialize, JsonSchema)]
pub struct MediaList {
    /// How many files match, before paging.
    pub count: usize,
    /// The page's files.
    pub items: Vec<MediaItem>,
}

/// A single file, as `GET /api/media/{media_id}`, the upload and the copy answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct MediaRecord {
    /// Its id.
    pub id: u64,
    /// The file name.
    pub name: String,
    /// Its size in bytes.
    pub byte: u64,
    /// Its size, human readable.
    pub size: String,
    /// When it was uploaded, `DD.MM.YYYY HH:MM:SS`.
    pub time: String,
    /// Its last change, `DD.MM.YYYY HH:MM:SS`.
    pub last: String,
    /// Its category; null when it has none.
    pub cat: Option<String>,
    /// Its MIME type.
    pub mimetype: String,
    /// audio, video, image, document or other.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// What the file is, e.g. `MPEG ADTS, layer III, 128 kbps, 44.1 kHz, Stereo`.
    pub info: String,
    /// Its MIME type.
    pub mime: String,
    /// Addition: its public download URL.
    pub url: String,
    /// Addition: its extension.
    pub extension: String,
    /// Addition: the audio's (or a silent video's) duration, `HH:MM:SS`.
    pub duration: Option<String>,
    /// Addition: for a video, what its container says of the picture; null for anything else.
    pub video: Option<MediaVideo>,
    /// Addition: for a video packaged for HLS, its stream; null until its packaging job made it
    /// (a video is packaged when it is uploaded) and for anything else.
    pub hls: Option<MediaStream>,
    /// Addition: whether its public URL is kept from anyone but the subscribers of private
    /// podcasts that use it (a private podcast used it, or the podcaster said so); such a file
    /// is served at its public URL only while a public podcast shows it.
    pub private: bool,
}

/// The picture of a video file, read from its container's headers.
#[derive(Debug, Serialize, JsonSchema)]
pub struct MediaVideo {
    /// Its codec: `h264`, `hevc`, `vp9`, `av1`, `vp8`, or another codec's short name.
    pub codec: String,
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
    /// Frames per second (`29.97`); 0 when the container does not say.
    pub frame_rate: f64,
    /// Its duration in milliseconds; 0 when the container does not say.
    pub duration_ms: u64,
    /// The video track's average bits per second; 0 when the container does not say.
    pub bitrate: u32,
}

/// A video's HLS stream.
#[derive(Debug, Serialize, JsonSchema)]
pub struct MediaStream {
    /// Its multivariant playlist's public URL.
    pub url: String,
    /// The job that packaged it.
    pub job_id: String,
    /// The renditions, top first (`1080p`, ..., `240p`, `audio`).
    pub renditions: Vec<String>,
    /// The top rendition's width.
    pub width: u32,
    /// The top rendition's height.
    pub height: u32,
    /// The top variant's average bits per second (video and audio).
    pub bitrate: u64,
    /// The audio file made from its soundtrack (AAC in M4A), the enclosure of an episode that
    /// has this video and no audio of its own; null for a silent video.
    pub soundtrack_media: Option<u64>,
}

impl From<&VideoFacts> for MediaVideo {
    fn from(v: &VideoFacts) -> Self {
        MediaVideo {
            codec: v.codec.clone(),
            width: v.width,
            height: v.height,
            frame_rate: v.frame_rate,
            duration_ms: v.duration_ms,
            bitrate: v.bitrate,
        }
    }
}

/// An item of the media list.
pub fn media_item(ctx: &Ctx<'_>, m: &Media) -> MediaItem {
    let tz = &ctx.host.config().display_time_zone;
    MediaItem {
        id: m.id.to_string(),
        name: m.name.clone(),
        byte: m.size,
        created: format::date_time(m.created, tz),
        size: format::size(m.size),
        last: format::time_date(m.updated, tz),
        cat: m.category.as_deref().unwrap_or("_default_").to_string(),
        url: ctx.host.podcasts().media_url(ctx.account, m),
        extension: m.facts.extension.clone(),
        mimetype: m.facts.mime.clone(),
        kind: kind_name(m.kind()),
        created_date: format::date(m.created, tz),
        created_time: format::hour_minute(m.created, tz),
        private: m.access == Access::Private,
    }
}

/// The single media record, returned by get, upload and copy.
pub fn media_single(ctx: &Ctx<'_>, m: &Media) -> MediaRecord {
    let tz = &ctx.host.config().display_time_zone;
    MediaRecord {
        id: m.id.get(),
        name: m.name.clone(),
        byte: m.size,
        size: format::size(m.size),
        time: format::date_time(m.created, tz),
        last: format::date_time(m.updated, tz),
        cat: m.category.clone(),
        mimetype: m.facts.mime.clone(),
        kind: kind_name(m.kind()),
        info: m.facts.info.clone(),
        mime: m.facts.mime.clone(),
        url: ctx.host.podcasts().media_url(ctx.account, m),
        extension: m.facts.extension.clone(),
        duration: m
            .facts
            .audio
            .as_ref()
            .map(|a| a.duration_ms)
            .or(m.facts.video.as_ref().map(|v| v.duration_ms))
            .map(format::hms),
        video: m.facts.video.as_deref().map(MediaVideo::from),
        hls: m.results.hls.as_deref().and_then(|streamed| {
            Some(MediaStream {
                url: ctx.host.podcasts().stream_url(ctx.account, m)?,
                job_id: streamed.job.to_string(),
                renditions: streamed.renditions.clone(),
                width: streamed.width,
                height: streamed.height,
                bitrate: streamed.bitrate,
                soundtrack_media: streamed.soundtrack.map(|m| m.get()),
            })
        }),
        private: m.access == Access::Private,
    }
}

/// An upload: the file in `media`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MediaUpload {
    /// The file.
    pub media: super::FilePart,
}

/// A copy of a file: its name and category.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MediaCopy {
    /// The name of the copy (cleaned and made unique in the account).
    pub label: String,
    /// The category of the copy.
    pub category: String,
}

impl Example for MediaCopy {
    fn example() -> Value {
        json!({"label": "interview.wav", "category": "archive"})
    }
}

/// A change of a file's name or category (an addition).
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct MediaUpdate {
    /// The new name: cleaned and made unique in the account; the download URL keeps the name
    /// it had.
    #[serde(default)]
    #[schemars(length(min = 1))]
    pub name: Option<String>,
    /// The new category; null or empty: the default category.
    #[serde(default)]
    pub category: Clearable<String>,
    /// `false` opens the file's public URL to anyone (a file a private podcast used is kept
    /// from the public until then); `true` keeps it from anyone but the subscribers of private
    /// podcasts that use it, except while a public podcast shows it.
    #[serde(default)]
    pub private: Option<bool>,
}

impl Example for MediaUpdate {
    fn example() -> Value {
        json!({"name": "interview-final.wav", "category": "archive", "private": false})
    }
}
