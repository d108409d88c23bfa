//! The public result types: what a file's content says about it.

use serde::{Deserialize, Serialize};

/// What kind of file this is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MediaKind {
    /// Sound: MP3, AAC/M4A, Ogg, FLAC, WAV, ...
    Audio,
    /// Moving pictures (possibly with sound): MP4, WebM, ...
    Video,
    /// Still pictures: PNG, JPEG, GIF, WebP, ...
    Image,
    /// Documents and text: PDF, transcripts, chapters, ...
    Document,
    /// Anything else, including unknown content.
    Other,
}

/// Technical facts of an audio stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AudioFacts {
    /// Short lowercase codec name: "mp3", "aac", "vorbis", "flac", "opus", "pcm_s16le", ...
    pub codec: String,
    /// Playable duration in milliseconds, exact to the millisecond where the container allows.
    pub duration_ms: u64,
    /// Average bits per second: the nominal rate for CBR MP3, otherwise audio bytes × 8 /
    /// duration (estimated from the container's size for compressed formats).
    pub bitrate: u32,
    /// Sample rate in Hz.
    pub sample_rate: u32,
    /// Number of channels.
    pub channels: u16,
    /// The AAC profile ("LC", "HE-AAC", "HE-AACv2", "Main", ...), from the file's decoder
    /// configuration; `None` for other codecs, and where the file does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
}

/// Technical facts of a video stream, from its container's headers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VideoFacts {
    /// Short lowercase codec name: "h264", "hevc", "vp9", "av1", "vp8"; another codec by its
    /// container's name for it (an MP4 sample entry's four letters, a Matroska codec id).
    pub codec: String,
    /// Coded width in pixels.
    pub width: u32,
    /// Coded height in pixels.
    pub height: u32,
    /// Frames per second, averaged over the track (29.97 for 30000/1001); 0 when the container
    /// does not say.
    pub frame_rate: f64,
    /// Duration in milliseconds; 0 when the container does not say.
    pub duration_ms: u64,
    /// Average bits per second of the video track alone (its samples' sizes over its
    /// duration); 0 when the container does not say (Matroska keeps no sample table).
    pub bitrate: u32,
}

/// Pixel size of an image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageFacts {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// Everything learned from a file's content.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MediaFacts {
    /// MIME type from the content, e.g. "audio/mpeg"; "application/octet-stream" when unknown.
    pub mime: String,
    /// Broad kind of content.
    pub kind: MediaKind,
    /// Canonical extension for the detected type, without dot ("mp3", "m4a", "png", ...); when
    /// the content is unknown, the lowercase extension of the given file name, or "".
    pub extension: String,
    /// Human description, e.g. "MPEG ADTS, layer III, 128 kbps, 44.1 kHz, Stereo"; "data" when
    /// unknown.
    pub info: String,
    /// Audio facts, for audio (and for video with a readable audio track).
    pub audio: Option<AudioFacts>,
    /// Pixel size, for images.
    pub image: Option<ImageFacts>,
    /// Video facts, for video whose container podhost reads (MP4, QuickTime, Matroska, WebM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub video: Option<Box<VideoFacts>>,
    /// Bytes of the ID3v2 tags the file begins with (0 for none): not audio, but sent before it
    /// (the statistics' one-minute threshold adds them, as IAB v2.3 says).
    #[serde(default)]
    pub tag_bytes: u64,
    /// The file's SHA-384 as a Subresource Integrity value (`sha384-…`), computed as it was
    /// uploaded (none for files stored before, or written by a job).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha384: Option<String>,
}
