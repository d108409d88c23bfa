//! Writing FLAC metadata without holding the file: the metadata blocks are rebuilt in memory
//! (the comments and pictures from lofty's model of them), and the audio frames are copied
//! behind them with a 64 KiB buffer. lofty would read the whole file to write it.
//!
//! A FLAC file is `fLaC`, metadata blocks (a header byte with the last-block flag and the block
//! type, a 24-bit big-endian length, the body), then the frames. An ID3v2 tag in front, which
//! some encoders add, is kept as it is.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use lofty::ogg::{OggPictureStorage, VorbisComments};

use super::comments::encode_comments;
use super::contents::TagError;

const STREAMINFO: u8 = 0;
const PADDING: u8 = 1;
const VORBIS_COMMENT: u8 = 4;
const PICTURE: u8 = 6;
/// Longest block body (a 24-bit length).
const MAX_BLOCK: usize = (1 << 24) - 1;
/// Largest metadata block kept from the file (seek tables and cue sheets are far smaller).
const MAX_KEPT_BLOCK: usize = 16 << 20;
/// Padding left after the comments, so that players and taggers can edit in place.
const PAD: usize = 1024;

/// Replaces the file's comment and picture blocks by `comments` (its items and pictures).
pub(super) fn write(path: &Path, comments: &VorbisComments) -> Result<(), TagError> {
    let mut file = std::fs::File::open(path)?;
    let prefix = id3v2_len(&mut file)?;
    file.seek(SeekFrom::Start(prefix))?;
    let mut magic = [0u8; 4];
    file.read_exact(&mut magic)?;
    if &magic != b"fLaC" {
        return Err(TagError::Corrupt("not a FLAC stream".into()));
    }
    let mut kept: Vec<(u8, Vec<u8>)> = Vec::new();
    loop {
        let mut header = [0u8; 4];
        file.read_exact(&mut header)
            .map_err(|_| TagError::Corrupt("the FLAC metadata ends early".into()))?;
        let last = header[0] & 0x80 != 0;
        let kind = header[0] & 0x7f;
        let len =
            usize::from(header[1]) << 16 | usize::from(header[2]) << 8 | usize::from(header[3]);
        if kind == 127 {
            return Err(TagError::Corrupt("an invalid FLAC metadata block".into()));
        }
        if matches!(kind, PADDING | VORBIS_COMMENT | PICTURE) {
            file.seek(SeekFrom::Current(i64::try_from(len).unwrap_or(i64::MAX)))?;
        } else {
            if len > MAX_KEPT_BLOCK {
                return Err(TagError::Corrupt(
                    "a FLAC metadata block is too large".into(),
                ));
            }
            let mut body = vec![0u8; len];
            file.read_exact(&mut body)
                .map_err(|_| TagError::Corrupt("a FLAC metadata block is truncated".into()))?;
            kept.push((kind, body));
        }
        if last {
            break;
        }
    }
    if kept.first().map(|(kind, _)| *kind) != Some(STREAMINFO) {
        return Err(TagError::Corrupt(
            "the FLAC stream has no STREAMINFO first".into(),
        ));
    }
    let frames = file.stream_position()?;

    let mut blocks = kept;
    blocks.push((VORBIS_COMMENT, encode_comments(comments, false)?));
    for (picture, info) in comments.pictures() {
        blocks.push((PICTURE, picture.as_flac_bytes(*info, false)));
    }
    blocks.push((PADDING, vec![0; PAD]));
    if blocks.iter().any(|(_, body)| body.len() > MAX_BLOCK) {
        return Err(TagError::Invalid(
            "the cover or the comments are over the 16 MiB a FLAC metadata block holds".into(),
        ));
    }

    super::file::replace_file(path, |out| {
        file.seek(SeekFrom::Start(0))?;
        std::io::copy(&mut (&mut file).take(prefix), out)?;
        out.write_all(b"fLaC")?;
        let count = blocks.len();
        for (i, (kind, body)) in blocks.iter().enumerate() {
            let flag = if i + 1 == count { 0x80 } else { 0 };
            let len = u32::try_from(body.len()).unwrap_or(u32::MAX).to_be_bytes();
            out.write_all(&[flag | kind, len[1], len[2], len[3]])?;
            out.write_all(body)?;
        }
        file.seek(SeekFrom::Start(frames))?;
        std::io::copy(&mut file, out)?;
        Ok(())
    })
}

/// The length of an ID3v2 tag at the start of the file (0 without one).
fn id3v2_len(file: &mut std::fs::File) -> Result<u64, TagError> {
    let mut head = [0u8; 10];
    file.seek(SeekFrom::Start(0))?;
    if file.read_exact(&mut head).is_err() || &head[..3] != b"ID3" {
        return Ok(0);
    }
    let size = head[6..10]
        .iter()
        .fold(0u64, |acc, b| (acc << 7) | u64::from(b & 0x7f));
    let footer = if head[5] & 0x10 != 0 { 10 } else { 0 };
    Ok(10 + size + footer)
}
