//! What records refer to: a media file of the account, of the kinds a field takes; a podcast
//! that exists.

use crate::{
    error::{Error, FieldErrors},
    ids::{FeedId, MediaId},
    probe::MediaKind,
    state::Records,
};

/// Checks that a media id names a file of the account of the wanted kind.
pub(super) fn check_media_ref(
    errors: &mut FieldErrors,
    records: &dyn Records,
    field: &str,
    id: Option<MediaId>,
    kinds: &[MediaKind],
) {
    let Some(id) = id else { return };
    match records.media(id) {
        None => errors.add(field, format!("there is no media {id}")),
        Some(media) if !kinds.is_empty() && !kinds.contains(&media.facts.kind) => {
            errors.add(field, format!("media {id} is not {}", kind_names(kinds)));
        }
        Some(_) => {}
    }
}

pub(super) fn kind_names(kinds: &[MediaKind]) -> String {
    let names: Vec<_> = kinds
        .iter()
        .map(|k| match k {
            MediaKind::Audio => "audio",
            MediaKind::Video => "video",
            MediaKind::Image => "an image",
            MediaKind::Document => "a document",
            MediaKind::Other => "other",
        })
        .collect();
    names.join(" or ")
}

/// The error of a podcast that does not exist (for the caller).
pub(super) fn feed_not_found(id: &FeedId) -> Error {
    Error::not_found("feed", id)
}
