//! What the readers built on `lofty` share: its parse options, its errors as ours, covers as its
//! pictures and back.

use lofty::config::ParseOptions;
use lofty::picture::{MimeType, Picture, PictureType};

use super::contents::{Cover, TagError};

pub(super) fn map_err(err: lofty::error::LoftyError) -> TagError {
    match err.kind() {
        lofty::error::ErrorKind::Io(_) => TagError::Io(std::io::Error::other(err.to_string())),
        _ => TagError::Corrupt(err.to_string()),
    }
}

pub(super) fn parse_options() -> ParseOptions {
    ParseOptions::new().read_properties(false)
}

/// The lofty picture of a cover, typed as the front cover.
pub(super) fn picture(cover: &Cover) -> Picture {
    Picture::unchecked(cover.bytes.to_vec())
        .pic_type(PictureType::CoverFront)
        .mime_type(MimeType::from_str(&cover.mime))
        .build()
}

/// The front cover among `pictures`, else the first picture.
pub(super) fn cover_of<'a>(pictures: impl Iterator<Item = &'a Picture>) -> Option<Cover> {
    let pictures: Vec<&Picture> = pictures.collect();
    let picture = pictures
        .iter()
        .find(|p| p.pic_type() == PictureType::CoverFront)
        .or_else(|| pictures.first())?;
    Some(Cover {
        mime: picture
            .mime_type()
            .map(|m| m.as_str().to_owned())
            .unwrap_or_default(),
        bytes: bytes::Bytes::copy_from_slice(picture.data()),
    })
}
