//! Nero chapters in MP4 files: the `moov.udta.chpl` box, which ffmpeg, mutagen, VLC and most
//! players read (lofty writes no MP4 chapters). [`super::mp4`] places it when it writes tags.
//!
//! The box: version 1, flags 0, 4 reserved bytes, a one-byte count, then per chapter its start
//! as a 64-bit count of 100 ns units and its title as a one-byte length and UTF-8 bytes. Version
//! 0 has no reserved bytes. There is no end time and no link.

use std::io::{Read, Seek, SeekFrom};

use super::contents::{Chapter, TagError};
use super::mp4box::find_box;

/// Most chapters a `chpl` box holds (its count is one byte).
pub(super) const MAX_CHAPTERS: usize = 255;
/// Longest chapter title a `chpl` box holds, in bytes (its length is one byte).
pub(super) const MAX_TITLE_BYTES: usize = 255;
/// Largest `chpl` box read.
const MAX_CHPL: u64 = 1 << 20;
/// 100 ns units per millisecond.
const UNITS_PER_MS: u64 = 10_000;

/// The limits of the box, checked before anything is written.
pub(super) fn check(chapters: &[Chapter]) -> Result<(), TagError> {
    if chapters.len() > MAX_CHAPTERS {
        return Err(TagError::Invalid(format!(
            "an MP4 file holds at most {MAX_CHAPTERS} chapters, not {}",
            chapters.len()
        )));
    }
    for (i, chapter) in chapters.iter().enumerate() {
        if chapter.title.len() > MAX_TITLE_BYTES {
            return Err(TagError::Invalid(format!(
                "chapter {}: an MP4 chapter title holds at most {MAX_TITLE_BYTES} bytes of UTF-8, \
                 not {}",
                i + 1,
                chapter.title.len()
            )));
        }
        if chapter.start_ms.checked_mul(UNITS_PER_MS).is_none() {
            return Err(TagError::Invalid(format!(
                "chapter {} starts too late for an MP4 file",
                i + 1
            )));
        }
    }
    Ok(())
}

/// The chapters of the file's `chpl` box (none without one).
pub(super) fn read<R: Read + Seek>(reader: &mut R) -> Result<Vec<Chapter>, TagError> {
    let len = reader.seek(SeekFrom::End(0))?;
    let Some(moov) = find_box(reader, 0, len, b"moov")? else {
        return Ok(Vec::new());
    };
    let Some(udta) = find_box(reader, moov.content, moov.end, b"udta")? else {
        return Ok(Vec::new());
    };
    let Some(chpl) = find_box(reader, udta.content, udta.end, b"chpl")? else {
        return Ok(Vec::new());
    };
    let size = chpl.end - chpl.content;
    if size > MAX_CHPL {
        return Err(TagError::Corrupt("the chpl box is too large".into()));
    }
    reader.seek(SeekFrom::Start(chpl.content))?;
    let mut data = vec![0u8; usize::try_from(size).unwrap_or(0)];
    reader.read_exact(&mut data)?;
    parse(&data)
}

fn parse(data: &[u8]) -> Result<Vec<Chapter>, TagError> {
    let corrupt = || TagError::Corrupt("the chpl box is truncated".into());
    let version = *data.first().ok_or_else(corrupt)?;
    let mut at = if version == 0 { 4 } else { 8 };
    let count = *data.get(at).ok_or_else(corrupt)?;
    at += 1;
    let mut chapters = Vec::with_capacity(usize::from(count));
    for _ in 0..count {
        let start = data.get(at..at + 8).ok_or_else(corrupt)?;
        let start = u64::from_be_bytes(start.try_into().map_err(|_| corrupt())?);
        let title_len = usize::from(*data.get(at + 8).ok_or_else(corrupt)?);
        let title = data.get(at + 9..at + 9 + title_len).ok_or_else(corrupt)?;
        at += 9 + title_len;
        chapters.push(Chapter {
            start_ms: start / UNITS_PER_MS,
            end_ms: None,
            title: String::from_utf8_lossy(title).into_owned(),
            url: None,
        });
    }
    Ok(chapters)
}

/// The content of a version 1 `chpl` box for `chapters` (checked by [`check`]).
pub(super) fn encode(chapters: &[Chapter]) -> Vec<u8> {
    let mut out = vec![1, 0, 0, 0, 0, 0, 0, 0];
    out.push(u8::try_from(chapters.len()).unwrap_or(u8::MAX));
    for chapter in chapters.iter().take(MAX_CHAPTERS) {
        out.extend_from_slice(&chapter.start_ms.saturating_mul(UNITS_PER_MS).to_be_bytes());
        let title = &chapter.title.as_bytes()[..chapter.title.len().min(MAX_TITLE_BYTES)];
        out.push(u8::try_from(title.len()).unwrap_or(u8::MAX));
        out.extend_from_slice(title);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tags::test_chapter as chapter;

    #[test]
    fn encodes_what_it_parses() {
        let chapters = vec![chapter(0, "Intro"), chapter(61_500, "Nouvelles ✓")];
        assert_eq!(parse(&encode(&chapters)).unwrap(), chapters);
        assert_eq!(parse(&encode(&[])).unwrap(), []);
        // Version 0 (no reserved bytes), as older Nero files have it.
        let mut v0 = encode(&chapters);
        v0.drain(4..8);
        v0[0] = 0;
        assert_eq!(parse(&v0).unwrap(), chapters);
        assert!(matches!(parse(&v0[..12]), Err(TagError::Corrupt(_))));
    }

    #[test]
    fn limits_of_the_box() {
        let many: Vec<Chapter> = (0..256).map(|i| chapter(i, "")).collect();
        assert!(check(&many[..255]).is_ok());
        assert!(matches!(check(&many), Err(TagError::Invalid(_))));
        assert!(check(&[chapter(0, &"é".repeat(127))]).is_ok());
        assert!(matches!(
            check(&[chapter(0, &"é".repeat(128))]),
            Err(TagError::Invalid(_))
        ));
    }
}
