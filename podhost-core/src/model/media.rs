//! Media files: uploaded audio, images and documents.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::{
    ids::MediaId,
    probe::{MediaFacts, MediaKind},
};

/// The key of an immutable blob in the store (a random UUID). A changed file is a new blob.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BlobKey(pub(crate) String);

impl BlobKey {
    /// The key as written in URLs and store paths.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// One media file of an account.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Media {
    /// Its id.
    pub id: MediaId,
    /// The cleaned file name, unique in the account.
    pub name: String,
    /// The file name in the download URL when it differs from `name` (the file was renamed
    /// after its bytes were stored: its URL stays as it was). `None`: `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url_name: Option<String>,
    /// The category (group); `None` for the default one.
    pub category: Option<String>,
    /// Size in bytes.
    pub size: u64,
    /// When it was uploaded.
    pub created: Timestamp,
    /// When its record last changed.
    pub updated: Timestamp,
    /// Where its bytes are.
    pub blob: BlobKey,
    /// What its content is.
    pub facts: MediaFacts,
    /// Where ads may go.
    pub adbreak: Option<AdBreak>,
    /// The latest results of the analysis jobs.
    #[serde(default)]
    pub results: MediaResults,
    /// The chapters in the file: read from it on upload, or written by podhost (published as
    /// `podcast:chapters`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chapters: Vec<crate::tags::Chapter>,
    /// The file this one was mastered from (a mastering job made it): a podcast that masters
    /// publishes it as it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mastered_from: Option<MediaId>,
    /// Who may download it at its public URL (`/media/{account}/{blob}/{name}`). Marked
    /// [`Access::Private`] when a private podcast first uses it, kept through deletions,
    /// unpublications and moves; changed back only by the podcaster.
    #[serde(default, skip_serializing_if = "Access::is_open")]
    pub access: Access,
}

#[cfg(test)]
impl Media {
    /// A stored audio file (`id`, of 1,000 bytes, blob `blob-{id}`, its extension `name`'s) of
    /// type `mime` and `audio` facts, made at the epoch: what the core's unit tests build records from.
    pub(crate) fn audio_for_test(
        id: u64,
        name: &str,
        mime: &str,
        audio: crate::probe::AudioFacts,
    ) -> Media {
        let at = Timestamp::UNIX_EPOCH;
        Media {
            id: MediaId::new(id).unwrap(),
            name: name.into(),
            url_name: None,
            category: None,
            size: 1000,
            created: at,
            updated: at,
            blob: BlobKey(format!("blob-{id}")),
            facts: MediaFacts {
                mime: mime.into(),
                kind: MediaKind::Audio,
                extension: name.rsplit_once('.').map_or("", |(_, e)| e).into(),
                info: String::new(),
                audio: Some(audio),
                image: None,
                video: None,
                tag_bytes: 0,
                sha384: None,
            },
            adbreak: None,
            results: Default::default(),
            chapters: Vec::new(),
            mastered_from: None,
            access: Default::default(),
        }
    }
}

/// Who may download a media file at its public URL. The rule is
/// `AccountState::served_publicly`; docs/features.md ("Private podcasts") says it in words.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// No private podcast ever used it: anyone with the URL (every upload starts so).
    #[default]
    Open,
    /// A private podcast used it (its artwork, or an audio, cover, transcript or alternate file
    /// of one of its episodes, draft or not): its public URL serves it only while a public
    /// podcast shows it (as its artwork, or a file of a published episode); its subscribers'
    /// URLs serve it. Deleting, unpublishing or moving what used it never changes that.
    Private,
    /// The podcaster made it public: anyone with the URL, whatever uses it.
    Public,
}

impl Access {
    /// The default: never used by a private podcast.
    pub fn is_open(&self) -> bool {
        *self == Access::Open
    }
}

/// The jobs whose results belong to a media file (their stored outputs are read by job id).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MediaResults {
    /// The latest successful waveform job.
    pub waveform: Option<crate::ids::JobId>,
    /// The latest successful silence job.
    pub silence: Option<crate::ids::JobId>,
    /// The loudness, once an analysis job measured it (every one does, in the same decode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loudness: Option<Box<crate::analysis::Loudness>>,
    /// The job whose one decode stored the waveform and the silences at their default options:
    /// a later waveform or silence job at the defaults reads them instead of decoding again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defaults: Option<crate::ids::JobId>,
    /// A coarse outline of the latest waveform (peaks from 0 to 100) for the episode page.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outline: Vec<u8>,
    /// The video packaged for HLS, once a packaging job made its ladder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hls: Option<Box<Streamed>>,
}

/// A video packaged for HLS (the job's `hls.json` holds the whole package).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Streamed {
    /// The packaging job (its results hold the segments).
    pub job: crate::ids::JobId,
    /// Width of the top rendition.
    pub width: u32,
    /// Height of the top rendition.
    pub height: u32,
    /// Average bits per second of the top variant (video and audio).
    pub bitrate: u64,
    /// Bytes of the top variant (its video rendition and the audio), the length a feed gives
    /// the stream.
    #[serde(default)]
    pub length: u64,
    /// The renditions' names, top first (`1080p`, ..., `audio`).
    pub renditions: Vec<String>,
    /// The audio file made from its soundtrack (AAC in M4A), which an episode with this video
    /// and no audio of its own takes as its enclosure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soundtrack: Option<crate::ids::MediaId>,
}

impl Media {
    /// The kind of file (audio, image, ...).
    pub fn kind(&self) -> MediaKind {
        self.facts.kind
    }

    /// The file name its download URL ends with (fixed when its bytes were stored).
    pub fn url_name(&self) -> &str {
        self.url_name.as_deref().unwrap_or(&self.name)
    }
}

/// A change of a media file's record: `None` leaves a field as it is.
#[derive(Clone, Debug, Default)]
pub struct MediaPatch {
    /// A new name (cleaned, and made unique in the account with a numbered suffix). The
    /// download URL keeps the name it had.
    pub name: Option<String>,
    /// A new category; `Some(None)` (or an empty one) is the default category.
    pub category: Option<Option<String>>,
    /// The podcaster's word on its public URL: `Some(true)` keeps it from anyone but the
    /// subscribers of private podcasts that use it ([`Access::Private`]), `Some(false)` opens
    /// it to anyone ([`Access::Public`]).
    pub private: Option<bool>,
}

/// Where ads may be inserted into an audio file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AdBreak {
    /// An ad before the content.
    pub preroll: bool,
    /// An ad after the content.
    pub postroll: bool,
    /// Positions of mid-roll ads, in seconds from the start.
    pub midrolls: Vec<f64>,
}

/// What an upload says about itself besides its bytes.
#[derive(Clone, Debug, Default)]
pub struct NewMedia {
    /// The client's file name; cleaned and made unique.
    pub name: String,
    /// The category, if any.
    pub category: Option<String>,
}

/// A copy of a media file under a new name.
#[derive(Clone, Debug)]
pub struct MediaCopy {
    /// The name of the new file (cleaned, made unique).
    pub label: String,
    /// Its category.
    pub category: String,
}

/// How to order the media list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MediaSort {
    /// By file name (the default).
    #[default]
    Name,
    /// By size in bytes.
    Size,
    /// By upload time.
    Created,
}

/// A query of the media list.
#[derive(Clone, Debug)]
pub struct MediaListQuery {
    /// Sort key.
    pub sort_by: MediaSort,
    /// Sort direction; the default is descending.
    pub sort_dir: super::SortDir,
    /// Case-insensitive substring of the name (an exact name when `strict`).
    pub filter: Option<String>,
    /// Makes `filter` an exact name match.
    pub strict: bool,
    /// Which page.
    pub page: super::PageRequest,
}

impl Default for MediaListQuery {
    fn default() -> Self {
        MediaListQuery {
            sort_by: MediaSort::Name,
            sort_dir: super::SortDir::Desc,
            filter: None,
            strict: false,
            page: super::PageRequest::default(),
        }
    }
}
