//! What podhost reads from and writes into a file's tags, and why that can fail.

use bytes::Bytes;
use serde::{Deserialize, Serialize};

/// One chapter: where it starts (and ends), its title and an optional link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Chapter {
    /// Start, in milliseconds from the beginning of the audio.
    pub start_ms: u64,
    /// End, in milliseconds. `None` when the format stores no end (Vorbis comments, MP4) or the
    /// writer should derive it: see [`write_tags`](crate::tags::write_tags).
    pub end_ms: Option<u64>,
    /// Title of the chapter (may be empty).
    pub title: String,
    /// A link about the chapter.
    pub url: Option<String>,
}

/// An embedded picture: its MIME type (e.g. `image/png`) and bytes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Cover {
    /// MIME type of the image, e.g. `image/jpeg`.
    pub mime: String,
    /// The image file's bytes.
    pub bytes: Bytes,
}

/// The tags podhost reads and writes. On writing, this is the complete desired set: a `None`
/// field is removed from the file, `chapters` replace all chapters, `cover` replaces the front
/// cover.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Tags {
    /// Title (ID3 `TIT2`, Vorbis `TITLE`, MP4 `©nam`).
    pub title: Option<String>,
    /// Artist (ID3 `TPE1`, Vorbis `ARTIST`, MP4 `©ART`).
    pub artist: Option<String>,
    /// Album (ID3 `TALB`, Vorbis `ALBUM`, MP4 `©alb`).
    pub album: Option<String>,
    /// Year of recording (ID3v2.4 `TDRC`, Vorbis `DATE`, MP4 `©day`); 0 to 9999.
    pub year: Option<i32>,
    /// Comment (ID3 `COMM` with an empty description, Vorbis `COMMENT`, MP4 `©cmt`).
    pub comment: Option<String>,
    /// Chapters, in order of start time.
    pub chapters: Vec<Chapter>,
    /// The front cover.
    pub cover: Option<Cover>,
}

/// Why a tag could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TagError {
    /// The format has no tags podhost can read or write (the MIME type, as given).
    #[error("tags of {0} files are not supported")]
    Unsupported(String),
    /// The file or its tag is damaged.
    #[error("the file or its tag is damaged: {0}")]
    Corrupt(String),
    /// The tags asked for cannot be written (e.g. chapters out of order, a year out of range).
    #[error("invalid tags: {0}")]
    Invalid(String),
    /// Reading or writing the file failed.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}
