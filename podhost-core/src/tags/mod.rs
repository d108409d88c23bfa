//! Tag reading and writing: title, artist, album, year, comment, chapters and the front cover of
//! an audio file, in the file's own tag format.
//!
//! Synchronous and transport-free: the host runs these functions on a blocking thread (inside
//! `tokio::task::spawn_blocking`), reading through a store-backed `Read + Seek` and writing a
//! local temporary copy of the file that is then stored as a new blob.
//!
//! | MIME type | format written | chapters | library |
//! |---|---|---|---|
//! | `audio/mpeg` (MP3), `audio/aac` (ADTS) | ID3v2.4 tag in front of the audio | `CHAP` frames (title in `TIT2`, link in `WXXX`) and one top-level ordered `CTOC` | `id3` |
//! | `audio/wav`, `audio/aiff` | ID3v2.4 tag in an `id3 ` chunk | as MP3 | `id3` |
//! | `audio/mp4`, `audio/x-m4a` | MP4 `moov.udta.meta.ilst` items (cover as JPEG, PNG, BMP or GIF) | a Nero `moov.udta.chpl` box (start and title; at most 255 chapters of 255-byte titles) and a QuickTime chapter track, as ffmpeg writes both | `lofty` reads; `mp4.rs` writes |
//! | `audio/ogg` (Vorbis, Opus, Speex) | Vorbis comments, cover as `METADATA_BLOCK_PICTURE` | `CHAPTERnnn` / `CHAPTERnnnNAME` / `CHAPTERnnnURL` comments | `lofty` reads; `ogg.rs` writes |
//! | `audio/flac` | Vorbis comments, cover as a `PICTURE` block | as Ogg | `lofty` reads; `flac.rs` writes |
//!
//! Anything else (Ogg FLAC, WebM, Matroska, video) is refused with [`TagError::Unsupported`].
//!
//! Fields outside [`Tags`] (track numbers, genre, encoder, other pictures…) are kept as they are.
//! A field of [`Tags`] that is `None` is removed from the file; the chapters replace every
//! chapter in the file; the cover replaces the front cover (MP4 has no picture types: it
//! replaces every `covr` picture).
//!
//! Memory: no format's file is held in memory to write it. MP3, ADTS, WAV and AIFF are rewritten
//! in place with a 64 KiB copy buffer (the `id3` crate moves the audio behind a grown tag). MP4
//! is rewritten by `mp4box.rs`, which holds only `moov` (headers and sample tables, not the
//! audio). FLAC (`flac.rs`) holds its metadata blocks, Ogg (`ogg.rs`) its header packets and
//! one page at a time. (lofty, which reads the tags, would read a whole MP4, FLAC or Ogg file
//! into memory to write one.)
//!
//! MP4 chapters are written twice, as ffmpeg writes them for `.m4a`: Nero's `chpl` box, which
//! ffmpeg, mutagen and VLC read (and [`read_tags`] reads), and a QuickTime chapter track (a
//! text track referenced by the audio track's `tref.chap`), which Apple's players read.

mod chapter_track;
mod chpl;
mod comments;
mod contents;
mod file;
mod flac;
mod gapless;
mod id3v2;
mod lofty_io;
mod mp4;
mod mp4box;
mod ogg;
mod vorbis;

pub use contents::{Chapter, Cover, TagError, Tags};

use std::io::{Read, Seek, SeekFrom};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

/// The tag format family of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    /// ID3v2 in front of bare audio (MP3, ADTS AAC) or in a RIFF/AIFF chunk.
    Id3,
    /// MP4 `ilst`.
    Mp4,
    /// Ogg Vorbis, Opus or Speex.
    Ogg,
    /// FLAC.
    Flac,
}

fn family(mime: &str) -> Option<Family> {
    let essence = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    Some(match essence.as_str() {
        "audio/mpeg" | "audio/mp3" | "audio/mpeg3" | "audio/x-mp3" | "audio/x-mpeg" => Family::Id3,
        "audio/aac" | "audio/aacp" | "audio/x-aac" => Family::Id3,
        "audio/wav" | "audio/x-wav" | "audio/wave" | "audio/vnd.wave" => Family::Id3,
        "audio/aiff" | "audio/x-aiff" => Family::Id3,
        "audio/mp4" | "audio/x-m4a" | "audio/m4a" | "audio/x-mp4" => Family::Mp4,
        "audio/ogg" | "audio/opus" | "audio/vorbis" | "audio/x-ogg" | "application/ogg" => {
            Family::Ogg
        }
        "audio/flac" | "audio/x-flac" => Family::Flac,
        _ => return None,
    })
}

/// Whether [`write_tags`] can write tags of files of this MIME type (parameters and case are
/// ignored):
///
/// - `audio/mpeg` (MP3) and `audio/aac` (ADTS): an ID3v2.4 tag in front, with CHAP/CTOC chapters;
///   an `audio/aac` file whose content is MP4 is written as MP4;
/// - `audio/wav` and `audio/aiff`: an ID3v2.4 tag in an `id3 ` chunk (what ffmpeg, mutagen and
///   most players read in RIFF/AIFF), with CHAP/CTOC chapters;
/// - `audio/mp4`, `audio/x-m4a`: MP4 `ilst`, with Nero `chpl` chapters;
/// - `audio/ogg` (Vorbis, Opus, Speex; not Ogg FLAC, refused on writing) and `audio/flac`:
///   Vorbis comments, cover as a FLAC picture, CHAPTERnnn chapters.
pub fn can_write(mime: &str) -> bool {
    family(mime).is_some()
}

/// Checks that `tags` can be written into a file of this MIME type, without touching a file:
/// the rules of [`write_tags`] and the limits of the format (ID3 times below 2^32 ms, at most
/// 999 Vorbis chapters, at most 255 MP4 chapters with titles of at most 255 bytes, MP4 covers
/// in JPEG, PNG, BMP or GIF).
///
/// # Errors
///
/// [`TagError::Unsupported`] (see [`can_write`]) and [`TagError::Invalid`], as [`write_tags`].
pub fn check_tags(mime: &str, tags: &Tags) -> Result<(), TagError> {
    let family = family(mime).ok_or_else(|| TagError::Unsupported(mime.to_owned()))?;
    validate(tags)?;
    match family {
        Family::Id3 => id3v2::check(&tags.chapters),
        Family::Mp4 => mp4::check(tags),
        Family::Ogg | Family::Flac => vorbis::check(&tags.chapters),
    }
}

/// Checks that a cover of type `cover_mime` can be embedded in a file of type `mime` (MP4 holds
/// JPEG, PNG, BMP and GIF covers; the other formats any image).
///
/// # Errors
///
/// [`TagError::Unsupported`] (see [`can_write`]) and [`TagError::Invalid`].
pub fn check_cover(mime: &str, cover_mime: &str) -> Result<(), TagError> {
    match family(mime).ok_or_else(|| TagError::Unsupported(mime.to_owned()))? {
        Family::Mp4 => mp4::check_cover(cover_mime),
        Family::Id3 | Family::Ogg | Family::Flac => Ok(()),
    }
}

/// Reads the tags of a file from any `Read + Seek` (a store-backed reader): only the tag
/// structures are read, never the whole audio. A file without tags gives empty [`Tags`].
///
/// # Errors
///
/// [`TagError::Unsupported`] for a MIME type [`can_write`] refuses, or content of another format
/// (e.g. Ogg FLAC); [`TagError::Corrupt`] for a damaged file or tag; [`TagError::Io`].
pub fn read_tags<R: Read + Seek>(reader: &mut R, mime: &str) -> Result<Tags, TagError> {
    let family = family(mime).ok_or_else(|| TagError::Unsupported(mime.to_owned()))?;
    guarded(|| {
        let family = refine(reader, family)?;
        reader.seek(SeekFrom::Start(0))?;
        match family {
            Family::Id3 => id3v2::read(reader),
            Family::Mp4 => mp4::read(reader),
            Family::Ogg => vorbis::read_ogg(reader, mime),
            Family::Flac => vorbis::read_flac(reader),
        }
    })
}

/// The ID3v2 tag at the front of the MP3 `file`, its chapters replaced by `chapters` (a chapter
/// without an end ends where the next starts, or at `duration_ms`), as tag bytes: the front of
/// an answer made of the file's audio and other audio (an episode with ads).
///
/// # Errors
///
/// [`TagError`] when the file's tag cannot be read or a time is beyond ID3's 2^32 ms.
pub fn id3_with_chapters(
    file: &[u8],
    chapters: &[Chapter],
    duration_ms: Option<u64>,
) -> Result<Vec<u8>, TagError> {
    id3v2::check(chapters)?;
    id3v2::retimed(file, chapters, duration_ms)
}

/// Writes `tags` (the complete desired set, see [`Tags`]) into the file at `path`, in place.
///
/// Chapters must be in order of start time, and an `end_ms` must not be before its start.
/// Where the format needs an end time (ID3 `CHAP`), a chapter without `end_ms` ends where the
/// next one starts and the last one at `duration_ms` (the audio's duration, which the caller
/// knows); without `duration_ms` the last chapter gets its start time as its end (zero length).
/// Vorbis comments and MP4 store no end time.
///
/// # Errors
///
/// [`TagError::Unsupported`] (see [`can_write`]), [`TagError::Invalid`] for tags that cannot be
/// written (chapters out of order, NUL characters, a year outside 0..=9999, an empty cover, the
/// format's limits: see [`check_tags`]),
/// [`TagError::Corrupt`] when the file or its existing tag cannot be parsed, [`TagError::Io`].
/// On an error the file may have been partly rewritten: the caller works on a copy.
pub fn write_tags(
    path: &Path,
    mime: &str,
    tags: &Tags,
    duration_ms: Option<u64>,
) -> Result<(), TagError> {
    check_tags(mime, tags)?;
    let family = family(mime).ok_or_else(|| TagError::Unsupported(mime.to_owned()))?;
    guarded(|| {
        let family = {
            let mut file = std::fs::File::open(path)?;
            refine(&mut file, family)?
        };
        match family {
            Family::Id3 => id3v2::write(path, tags, duration_ms),
            Family::Mp4 => mp4::write(path, tags),
            Family::Ogg => vorbis::write_ogg(path, mime, tags),
            Family::Flac => vorbis::write_flac(path, tags),
        }
    })
}

/// The family by content where the MIME type is ambiguous: `audio/aac` (and friends) may be
/// bare ADTS or MP4.
fn refine<R: Read + Seek>(reader: &mut R, family: Family) -> Result<Family, TagError> {
    if family != Family::Id3 {
        return Ok(family);
    }
    reader.seek(SeekFrom::Start(0))?;
    let mut head = [0u8; 8];
    let mut filled = 0;
    while filled < head.len() {
        let n = reader.read(&mut head[filled..])?;
        if n == 0 {
            break;
        }
        filled += n;
    }
    if filled == head.len() && &head[4..8] == b"ftyp" {
        return Ok(Family::Mp4);
    }
    Ok(family)
}

/// Runs third-party parsing so that a panic inside a tag library on hostile content becomes a
/// [`TagError::Corrupt`] instead of unwinding into the caller.
fn guarded<T>(f: impl FnOnce() -> Result<T, TagError>) -> Result<T, TagError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(_) => Err(TagError::Corrupt(
            "the tag parser failed on this content".into(),
        )),
    }
}

fn validate(tags: &Tags) -> Result<(), TagError> {
    let texts = [&tags.title, &tags.artist, &tags.album, &tags.comment];
    for text in texts.into_iter().flatten() {
        check_text(text)?;
    }
    if let Some(year) = tags.year {
        if !(0..=9999).contains(&year) {
            return Err(TagError::Invalid(format!(
                "year {year} is not within 0..=9999"
            )));
        }
    }
    if let Some(cover) = &tags.cover {
        if cover.bytes.is_empty() {
            return Err(TagError::Invalid("the cover is empty".into()));
        }
        if cover.mime.is_empty() || cover.mime.contains('\0') {
            return Err(TagError::Invalid("the cover has no MIME type".into()));
        }
    }
    let mut previous = 0;
    for (i, chapter) in tags.chapters.iter().enumerate() {
        check_text(&chapter.title)?;
        if let Some(url) = &chapter.url {
            check_text(url)?;
        }
        if chapter.start_ms < previous {
            return Err(TagError::Invalid(format!(
                "chapter {} starts before the chapter before it",
                i + 1
            )));
        }
        if chapter.end_ms.is_some_and(|end| end < chapter.start_ms) {
            return Err(TagError::Invalid(format!(
                "chapter {} ends before it starts",
                i + 1
            )));
        }
        previous = chapter.start_ms;
    }
    Ok(())
}

fn check_text(text: &str) -> Result<(), TagError> {
    if text.contains('\0') {
        return Err(TagError::Invalid("text contains a NUL character".into()));
    }
    Ok(())
}

/// A chapter with a start and a title only, for the format modules' tests.
#[cfg(test)]
fn test_chapter(start_ms: u64, title: &str) -> Chapter {
    Chapter {
        start_ms,
        end_ms: None,
        title: title.into(),
        url: None,
    }
}
