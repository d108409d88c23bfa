//! MP4 (M4A) tags: the `moov.udta.meta.ilst` atoms through `lofty`.
//!
//! Chapters: MP4 has two chapter forms, a QuickTime text track referenced by a `chap` track
//! reference, and Nero's `moov.udta.chpl` atom. lofty writes neither, so [`write`] leaves the
//! file's chapters as they are and reports `chapters_written: false`. [`read`] reads Nero `chpl`
//! chapters (what ffmpeg and mutagen read too); the atom has no end times.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use lofty::config::WriteOptions;
use lofty::file::AudioFile;
use lofty::mp4::{Ilst, Mp4File};
use lofty::tag::{Accessor, TagExt};

use super::vorbis::{cover_of, map_err, parse_options, picture, timestamp};
use super::{Chapter, TagError, Tags, WriteReport};

pub(super) fn read<R: Read + Seek>(reader: &mut R) -> Result<Tags, TagError> {
    let file = Mp4File::read_from(reader, parse_options()).map_err(map_err)?;
    let mut tags = match file.ilst() {
        Some(ilst) => Tags {
            title: ilst.title().map(|s| s.into_owned()),
            artist: ilst.artist().map(|s| s.into_owned()),
            album: ilst.album().map(|s| s.into_owned()),
            year: ilst.date().map(|t| i32::from(t.year)),
            comment: ilst.comment().map(|s| s.into_owned()),
            chapters: Vec::new(),
            cover: ilst.pictures().and_then(cover_of),
        },
        None => Tags::default(),
    };
    tags.chapters = nero_chapters(reader)?;
    Ok(tags)
}

pub(super) fn write(path: &Path, tags: &Tags) -> Result<WriteReport, TagError> {
    let mut file = std::fs::File::open(path)?;
    let mp4 = Mp4File::read_from(&mut file, parse_options()).map_err(map_err)?;
    drop(file);
    let mut ilst = mp4.ilst().cloned().unwrap_or_else(Ilst::new);
    match &tags.title {
        Some(v) => ilst.set_title(v.clone()),
        None => ilst.remove_title(),
    }
    match &tags.artist {
        Some(v) => ilst.set_artist(v.clone()),
        None => ilst.remove_artist(),
    }
    match &tags.album {
        Some(v) => ilst.set_album(v.clone()),
        None => ilst.remove_album(),
    }
    match &tags.comment {
        Some(v) => ilst.set_comment(v.clone()),
        None => ilst.remove_comment(),
    }
    ilst.remove_date();
    if let Some(year) = tags.year {
        ilst.set_date(timestamp(year)?);
    }
    ilst.remove_pictures();
    if let Some(cover) = &tags.cover {
        ilst.insert_picture(picture(cover));
    }
    ilst.save_to_path(path, WriteOptions::default())
        .map_err(map_err)?;
    Ok(WriteReport {
        chapters_written: false,
    })
}

/// Largest `chpl` atom read.
const MAX_CHPL: u64 = 1 << 20;

/// A box header: its type, where its content starts and ends.
struct BoxHeader {
    kind: [u8; 4],
    content: u64,
    end: u64,
}

fn next_box<R: Read + Seek>(
    reader: &mut R,
    pos: u64,
    limit: u64,
) -> Result<Option<BoxHeader>, TagError> {
    if pos.saturating_add(8) > limit {
        return Ok(None);
    }
    reader.seek(SeekFrom::Start(pos))?;
    let mut head = [0u8; 8];
    reader.read_exact(&mut head)?;
    let size = u64::from(u32::from_be_bytes([head[0], head[1], head[2], head[3]]));
    let kind = [head[4], head[5], head[6], head[7]];
    let (content, end) = match size {
        0 => (pos + 8, limit),
        1 => {
            let mut large = [0u8; 8];
            reader.read_exact(&mut large)?;
            (pos + 16, pos.saturating_add(u64::from_be_bytes(large)))
        }
        n => (pos + 8, pos.saturating_add(n)),
    };
    if end < content || end > limit {
        return Err(TagError::Corrupt(format!(
            "MP4 box {} overruns its parent",
            String::from_utf8_lossy(&kind)
        )));
    }
    Ok(Some(BoxHeader { kind, content, end }))
}

fn find_box<R: Read + Seek>(
    reader: &mut R,
    start: u64,
    limit: u64,
    kind: &[u8; 4],
) -> Result<Option<BoxHeader>, TagError> {
    let mut pos = start;
    while let Some(header) = next_box(reader, pos, limit)? {
        if &header.kind == kind {
            return Ok(Some(header));
        }
        if header.end <= pos {
            break;
        }
        pos = header.end;
    }
    Ok(None)
}

/// Nero chapters from `moov.udta.chpl`: version, flags, (v1: 4 reserved bytes), a count, then
/// per chapter a 64-bit start in 100 ns units and a length-prefixed UTF-8 title.
fn nero_chapters<R: Read + Seek>(reader: &mut R) -> Result<Vec<Chapter>, TagError> {
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
        return Err(TagError::Corrupt("the chpl atom is too large".into()));
    }
    reader.seek(SeekFrom::Start(chpl.content))?;
    let mut data = vec![0u8; usize::try_from(size).unwrap_or(0)];
    reader.read_exact(&mut data)?;
    let corrupt = || TagError::Corrupt("the chpl atom is truncated".into());
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
            start_ms: start / 10_000,
            end_ms: None,
            title: String::from_utf8_lossy(title).into_owned(),
            url: None,
        });
    }
    Ok(chapters)
}
