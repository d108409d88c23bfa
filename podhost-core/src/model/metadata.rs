//! A media file's metadata as the API shows it, and changes to it.

use serde::{Deserialize, Serialize};

use super::{AdBreak, Media};
use crate::{
    ids::MediaId,
    probe::ArtworkCheck,
    tags::{Chapter, Tags},
};

/// What `GET /api/media/{id}/metadata` shows.
#[derive(Debug, Clone)]
pub struct Metadata {
    /// The media record (facts, ad breaks).
    pub media: Media,
    /// The tags read from the file now; `None` for files without a tag format.
    pub tags: Option<Tags>,
    /// Why the tags could not be read, when they could not.
    pub tags_error: Option<String>,
    /// Whether the file (an image), or the cover in its tags, meets Apple's artwork rule.
    pub artwork: Option<ArtworkCheck>,
}

/// Changes to a media file's metadata; `None` leaves a field as it is, `Some(None)` removes it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MetadataPatch {
    /// Title tag.
    pub title: Option<Option<String>>,
    /// Artist tag.
    pub artist: Option<Option<String>>,
    /// Album tag.
    pub album: Option<Option<String>>,
    /// Year tag.
    pub year: Option<Option<i32>>,
    /// Comment tag.
    pub comment: Option<Option<String>>,
    /// The chapters (all of them).
    pub chapters: Option<Vec<Chapter>>,
    /// A media id of an image to embed as the cover (`Some(None)` removes the cover).
    pub image: Option<Option<MediaId>>,
    /// Where ads may go (stored with the record, not in the file).
    #[serde(skip)]
    pub adbreak: Option<Option<AdBreak>>,
}

impl MetadataPatch {
    /// Whether the patch changes anything in the file.
    pub fn touches_file(&self) -> bool {
        self.title.is_some()
            || self.artist.is_some()
            || self.album.is_some()
            || self.year.is_some()
            || self.comment.is_some()
            || self.chapters.is_some()
            || self.image.is_some()
    }

    /// `tags` with this patch applied (the cover is set by the caller, which reads the image).
    pub(crate) fn apply(&self, mut tags: Tags) -> Tags {
        fn set<T: Clone>(field: &mut Option<T>, change: &Option<Option<T>>) {
            if let Some(value) = change {
                *field = value.clone();
            }
        }
        set(&mut tags.title, &self.title);
        set(&mut tags.artist, &self.artist);
        set(&mut tags.album, &self.album);
        set(&mut tags.year, &self.year);
        set(&mut tags.comment, &self.comment);
        if let Some(chapters) = &self.chapters {
            tags.chapters = chapters.clone();
        }
        tags
    }
}
