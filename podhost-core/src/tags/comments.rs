//! Vorbis comments in their binary encoding, as Ogg and FLAC carry them.

use lofty::ogg::{OggPictureStorage, VorbisComments};

use super::contents::TagError;

/// The comments in their encoding (little-endian lengths: the vendor, the count, each
/// `KEY=value`), without framing; with `pictures`, the pictures follow as base64
/// `METADATA_BLOCK_PICTURE` comments (Ogg), else they are left to the caller (FLAC blocks).
pub(super) fn encode_comments(
    comments: &VorbisComments,
    pictures: bool,
) -> Result<Vec<u8>, TagError> {
    let mut entries: Vec<Vec<u8>> = comments
        .items()
        .map(|(key, value)| format!("{key}={value}").into_bytes())
        .collect();
    if pictures {
        for (picture, info) in comments.pictures() {
            let mut entry = b"METADATA_BLOCK_PICTURE=".to_vec();
            entry.extend_from_slice(&picture.as_flac_bytes(*info, true));
            entries.push(entry);
        }
    }
    let too_long = || TagError::Invalid("a comment over 4 GiB".into());
    let mut out = Vec::new();
    let vendor = comments.vendor().as_bytes();
    out.extend_from_slice(
        &u32::try_from(vendor.len())
            .map_err(|_| too_long())?
            .to_le_bytes(),
    );
    out.extend_from_slice(vendor);
    out.extend_from_slice(
        &u32::try_from(entries.len())
            .map_err(|_| too_long())?
            .to_le_bytes(),
    );
    for entry in entries {
        out.extend_from_slice(
            &u32::try_from(entry.len())
                .map_err(|_| too_long())?
                .to_le_bytes(),
        );
        out.extend_from_slice(&entry);
    }
    Ok(out)
}
