//! Vorbis comments (Ogg Vorbis, Opus, Speex and FLAC), read and edited through `lofty` and
//! written by [`super::ogg`] and [`super::flac`] (which do not hold the file in memory), with
//! chapters in the
//! `CHAPTERnnn=HH:MM:SS.mmm` / `CHAPTERnnnNAME=` convention (what ffmpeg reads) and a
//! `CHAPTERnnnURL=` link; numbering starts at 001. The convention has no end time.

use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use lofty::file::{AudioFile, FileType};
use lofty::flac::FlacFile;
use lofty::ogg::{OggPictureStorage, OpusFile, SpeexFile, VorbisComments, VorbisFile};
use lofty::picture::PictureType;
use lofty::probe::Probe;
use lofty::tag::Accessor;
use lofty::tag::items::Timestamp;

use super::contents::{Chapter, TagError, Tags};
use super::lofty_io::{cover_of, map_err, parse_options, picture};
use super::ogg::Codec;

/// Most chapters the three-digit numbering holds.
const MAX_CHAPTERS: usize = 999;

/// The Ogg stream's codec, from its first packet.
fn ogg_type<R: Read + Seek>(reader: &mut R, mime: &str) -> Result<FileType, TagError> {
    reader.seek(SeekFrom::Start(0))?;
    let probe = Probe::new(&mut *reader).guess_file_type()?;
    let ty = probe.file_type();
    reader.seek(SeekFrom::Start(0))?;
    match ty {
        Some(ty @ (FileType::Vorbis | FileType::Opus | FileType::Speex)) => Ok(ty),
        _ => Err(TagError::Unsupported(format!(
            "{mime} (only Ogg Vorbis, Opus and Speex)"
        ))),
    }
}

fn read_ogg_comments<R: Read + Seek>(
    reader: &mut R,
    mime: &str,
) -> Result<VorbisComments, TagError> {
    let comments = match ogg_type(reader, mime)? {
        FileType::Opus => OpusFile::read_from(reader, parse_options())
            .map_err(map_err)?
            .vorbis_comments()
            .clone(),
        FileType::Speex => SpeexFile::read_from(reader, parse_options())
            .map_err(map_err)?
            .vorbis_comments()
            .clone(),
        _ => VorbisFile::read_from(reader, parse_options())
            .map_err(map_err)?
            .vorbis_comments()
            .clone(),
    };
    Ok(comments)
}

/// FLAC keeps pictures in PICTURE blocks beside the comments: they are merged into the comments
/// (which lofty writes back as PICTURE blocks).
fn read_flac_comments<R: Read + Seek>(reader: &mut R) -> Result<VorbisComments, TagError> {
    let flac = FlacFile::read_from(reader, parse_options()).map_err(map_err)?;
    let mut comments = flac.vorbis_comments().cloned().unwrap_or_default();
    for (picture, info) in flac.pictures() {
        comments
            .insert_picture(picture.clone(), Some(*info))
            .map_err(map_err)?;
    }
    Ok(comments)
}

pub(super) fn read_ogg<R: Read + Seek>(reader: &mut R, mime: &str) -> Result<Tags, TagError> {
    Ok(from_comments(&read_ogg_comments(reader, mime)?))
}

pub(super) fn read_flac<R: Read + Seek>(reader: &mut R) -> Result<Tags, TagError> {
    Ok(from_comments(&read_flac_comments(reader)?))
}

pub(super) fn write_ogg(path: &Path, mime: &str, tags: &Tags) -> Result<(), TagError> {
    let mut file = std::fs::File::open(path)?;
    let codec = match ogg_type(&mut file, mime)? {
        FileType::Opus => Codec::Opus,
        FileType::Speex => Codec::Speex,
        _ => Codec::Vorbis,
    };
    let mut comments = read_ogg_comments(&mut file, mime)?;
    drop(file);
    apply(&mut comments, tags)?;
    super::ogg::write(path, codec, &comments)
}

pub(super) fn write_flac(path: &Path, tags: &Tags) -> Result<(), TagError> {
    let mut file = std::fs::File::open(path)?;
    let mut comments = read_flac_comments(&mut file)?;
    drop(file);
    apply(&mut comments, tags)?;
    super::flac::write(path, &comments)
}

/// The limit of the chapter comments (`CHAPTERnnn` has three digits).
pub(super) fn check(chapters: &[Chapter]) -> Result<(), TagError> {
    if chapters.len() > MAX_CHAPTERS {
        return Err(TagError::Invalid(format!(
            "at most {MAX_CHAPTERS} chapters fit in Vorbis comments"
        )));
    }
    Ok(())
}

pub(super) fn timestamp(year: i32) -> Result<Timestamp, TagError> {
    let year = u16::try_from(year)
        .map_err(|_| TagError::Invalid(format!("year {year} is not within 0..=9999")))?;
    Ok(Timestamp {
        year,
        ..Timestamp::default()
    })
}

fn apply(comments: &mut VorbisComments, tags: &Tags) -> Result<(), TagError> {
    match &tags.title {
        Some(v) => comments.set_title(v.clone()),
        None => comments.remove_title(),
    }
    match &tags.artist {
        Some(v) => comments.set_artist(v.clone()),
        None => comments.remove_artist(),
    }
    match &tags.album {
        Some(v) => comments.set_album(v.clone()),
        None => comments.remove_album(),
    }
    match &tags.comment {
        Some(v) => comments.set_comment(v.clone()),
        None => comments.remove_comment(),
    }
    comments.remove_date();
    let _ = comments.remove("YEAR");
    if let Some(year) = tags.year {
        comments.set_date(timestamp(year)?);
    }
    comments.remove_picture_type(PictureType::CoverFront);
    if let Some(cover) = &tags.cover {
        comments
            .insert_picture(picture(cover), None)
            .map_err(|e| TagError::Invalid(format!("the cover: {e}")))?;
    }
    let kept: Vec<(String, String)> = comments
        .take_items()
        .filter(|(key, _)| chapter_key(key).is_none())
        .collect();
    for (key, value) in kept {
        comments.push(key, value);
    }
    for (i, chapter) in tags.chapters.iter().enumerate() {
        let n = i + 1;
        comments.push(format!("CHAPTER{n:03}"), clock(chapter.start_ms));
        comments.push(format!("CHAPTER{n:03}NAME"), chapter.title.clone());
        if let Some(url) = &chapter.url {
            comments.push(format!("CHAPTER{n:03}URL"), url.clone());
        }
    }
    Ok(())
}

/// `HH:MM:SS.mmm` (hours may exceed 99).
fn clock(ms: u64) -> String {
    let (h, rest) = (ms / 3_600_000, ms % 3_600_000);
    let (m, rest) = (rest / 60_000, rest % 60_000);
    let (s, ms) = (rest / 1000, rest % 1000);
    format!("{h:02}:{m:02}:{s:02}.{ms:03}")
}

/// Parses `[H]H:MM:SS[.fraction]` into milliseconds.
fn parse_clock(text: &str) -> Option<u64> {
    let mut parts = text.trim().splitn(3, ':');
    let h: u64 = parts.next()?.parse().ok()?;
    let m: u64 = parts.next()?.parse().ok()?;
    let sec = parts.next()?;
    let (s, frac) = sec.split_once('.').unwrap_or((sec, ""));
    let s: u64 = s.parse().ok()?;
    if m >= 60 || s >= 60 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut ms = 0;
    for (i, digit) in frac.bytes().take(3).enumerate() {
        ms += u64::from(digit - b'0') * [100, 10, 1][i];
    }
    h.checked_mul(3_600_000)?
        .checked_add(m * 60_000 + s * 1000 + ms)
}

/// Which part of a chapter a comment key is: `CHAPTERnnn` (start), `…NAME`, `…URL`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Start,
    Name,
    Url,
    Other,
}

fn chapter_key(key: &str) -> Option<(u32, Part)> {
    let rest = key
        .get(..7)
        .filter(|p| p.eq_ignore_ascii_case("CHAPTER"))
        .and_then(|_| key.get(7..))?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let number: u32 = rest[..digits].parse().ok()?;
    let suffix = &rest[digits..];
    let part = if suffix.is_empty() {
        Part::Start
    } else if suffix.eq_ignore_ascii_case("NAME") {
        Part::Name
    } else if suffix.eq_ignore_ascii_case("URL") {
        Part::Url
    } else {
        Part::Other
    };
    Some((number, part))
}

fn from_comments(comments: &VorbisComments) -> Tags {
    let year = comments.date().map(|t| i32::from(t.year));
    let mut chapters: BTreeMap<u32, (Option<u64>, Chapter)> = BTreeMap::new();
    for (key, value) in comments.items() {
        let Some((n, part)) = chapter_key(key) else {
            continue;
        };
        let entry = chapters.entry(n).or_default();
        match part {
            Part::Start => entry.0 = parse_clock(value),
            Part::Name => entry.1.title = value.to_owned(),
            Part::Url => entry.1.url = Some(value.to_owned()),
            Part::Other => {}
        }
    }
    let chapters = chapters
        .into_values()
        .filter_map(|(start, mut chapter)| {
            chapter.start_ms = start?;
            Some(chapter)
        })
        .collect();
    Tags {
        title: comments.title().map(|s| s.into_owned()),
        artist: comments.artist().map(|s| s.into_owned()),
        album: comments.album().map(|s| s.into_owned()),
        year,
        comment: comments.comment().map(|s| s.into_owned()),
        chapters,
        cover: cover_of(comments.pictures().iter().map(|(p, _)| p)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_round_trips() {
        for ms in [0, 1, 999, 1000, 59_999, 3_599_999, 3_600_000, 360_000_123] {
            assert_eq!(parse_clock(&clock(ms)), Some(ms), "{ms}");
        }
        assert_eq!(clock(3_723_004), "01:02:03.004");
        assert_eq!(parse_clock("1:02:03.5"), Some(3_723_500));
        assert_eq!(parse_clock("00:00:07"), Some(7000));
        assert_eq!(parse_clock("00:61:00.000"), None);
        assert_eq!(parse_clock("garbage"), None);
    }

    #[test]
    fn chapter_keys() {
        assert_eq!(chapter_key("CHAPTER001"), Some((1, Part::Start)));
        assert_eq!(chapter_key("chapter012name"), Some((12, Part::Name)));
        assert_eq!(chapter_key("CHAPTER003URL"), Some((3, Part::Url)));
        assert_eq!(chapter_key("CHAPTERS"), None);
        assert_eq!(chapter_key("TITLE"), None);
    }
}
