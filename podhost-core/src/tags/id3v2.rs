//! ID3v2 tags (MP3, ADTS AAC, WAV and AIFF `id3 ` chunks) through the `id3` crate, with
//! chapters as `CHAP` frames listed by one top-level ordered `CTOC` frame (the ID3v2 Chapter
//! Frame Addendum, what podcast apps read).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use id3::frame::{
    Chapter as ChapFrame, Comment, Content, ExtendedLink, Picture, PictureType, TableOfContents,
    Timestamp,
};
use id3::{ErrorKind, Frame, TagLike, Version};

use super::contents::{Chapter, Cover, TagError, Tags};

/// Element id of the table of contents podhost writes.
const TOC_ID: &str = "toc";

fn map_err(err: id3::Error) -> TagError {
    match err.kind {
        ErrorKind::Io(io) => TagError::Io(io),
        _ => TagError::Corrupt(err.description),
    }
}

/// Reads the ID3v2 tag at the start of the file or in its RIFF/AIFF chunk.
pub(super) fn read<R: Read + Seek>(reader: &mut R) -> Result<Tags, TagError> {
    check_truncation(reader)?;
    match id3::Tag::read_from2(&mut *reader) {
        Ok(tag) => Ok(from_tag(&tag)),
        Err(err) if matches!(err.kind, ErrorKind::NoTag) => Ok(Tags::default()),
        Err(err) => Err(map_err(err)),
    }
}

/// The `id3` crate reads a tag cut short by the end of the file as far as it goes; a tag whose
/// header promises more bytes than the file has is damaged.
fn check_truncation<R: Read + Seek>(reader: &mut R) -> Result<(), TagError> {
    let len = reader.seek(SeekFrom::End(0))?;
    reader.seek(SeekFrom::Start(0))?;
    let mut header = [0u8; 10];
    if len < 10 {
        return Ok(());
    }
    reader.read_exact(&mut header)?;
    reader.seek(SeekFrom::Start(0))?;
    if &header[..3] != b"ID3" {
        return Ok(());
    }
    let size = header[6..10]
        .iter()
        .fold(0u64, |acc, b| (acc << 7) | u64::from(b & 0x7f));
    if 10 + size > len {
        return Err(TagError::Corrupt(format!(
            "the ID3 tag claims {size} bytes but the file has {}",
            len - 10
        )));
    }
    Ok(())
}

fn from_tag(tag: &id3::Tag) -> Tags {
    let year = tag
        .date_recorded()
        .map(|t| t.year)
        .or_else(|| tag.year())
        .or_else(|| tag.date_released().map(|t| t.year));
    let comment = tag
        .comments()
        .find(|c| c.description.is_empty())
        .or_else(|| tag.comments().next())
        .map(|c| c.text.clone());
    let cover = tag
        .pictures()
        .find(|p| p.picture_type == PictureType::CoverFront)
        .or_else(|| tag.pictures().next())
        .map(|p| Cover {
            mime: p.mime_type.clone(),
            bytes: bytes::Bytes::from(p.data.clone()),
        });
    Tags {
        title: tag.title().map(str::to_owned),
        artist: tag.artist().map(str::to_owned),
        album: tag.album().map(str::to_owned),
        year,
        comment,
        chapters: chapters(tag),
        cover,
    }
}

/// The chapters in the order of the top-level table of contents; chapters it does not list (or
/// all, without one) follow in order of start time.
fn chapters(tag: &id3::Tag) -> Vec<Chapter> {
    let mut chaps: Vec<&ChapFrame> = tag.chapters().collect();
    let toc = tag
        .tables_of_contents()
        .find(|t| t.top_level)
        .or_else(|| tag.tables_of_contents().next());
    let mut ordered = Vec::with_capacity(chaps.len());
    if let Some(toc) = toc {
        for id in &toc.elements {
            if let Some(pos) = chaps.iter().position(|c| &c.element_id == id) {
                ordered.push(chaps.remove(pos));
            }
        }
    }
    chaps.sort_by_key(|c| c.start_time);
    ordered.extend(chaps);
    ordered
        .into_iter()
        .map(|c| {
            let title = c
                .frames
                .iter()
                .find(|f| f.id() == "TIT2")
                .and_then(|f| f.content().text())
                .unwrap_or_default()
                .to_owned();
            let url = c.frames.iter().find_map(|f| match f.content() {
                Content::ExtendedLink(link) => Some(link.link.clone()),
                Content::Link(link) => Some(link.clone()),
                _ => None,
            });
            Chapter {
                start_ms: u64::from(c.start_time),
                end_ms: Some(u64::from(c.end_time)),
                title,
                url,
            }
        })
        .collect()
}

/// Replaces the file's podhost fields and writes the tag back as ID3v2.4, in place.
pub(super) fn write(path: &Path, tags: &Tags, duration_ms: Option<u64>) -> Result<(), TagError> {
    let mut tag = match id3::Tag::read_from_path(path) {
        Ok(tag) => tag,
        Err(err) if matches!(err.kind, ErrorKind::NoTag) => id3::Tag::with_version(Version::Id3v24),
        Err(err) => return Err(map_err(err)),
    };
    apply(&mut tag, tags, duration_ms)?;
    tag.write_to_path(path, Version::Id3v24).map_err(map_err)?;
    Ok(())
}

/// The ID3v2 tag at the front of `file` (an empty one when it has none) with its chapters
/// replaced by `chapters`, as the bytes of a v2.4 tag: the front of an answer whose audio is
/// not the file's own (an episode with ads stitched in).
pub(super) fn retimed(
    file: &[u8],
    chapters: &[Chapter],
    duration_ms: Option<u64>,
) -> Result<Vec<u8>, TagError> {
    let mut tag = match id3::Tag::read_from2(std::io::Cursor::new(file)) {
        Ok(tag) => tag,
        Err(err) if matches!(err.kind, ErrorKind::NoTag) => id3::Tag::with_version(Version::Id3v24),
        Err(err) => return Err(map_err(err)),
    };
    set_chapters(&mut tag, chapters, duration_ms)?;
    let mut out = Vec::new();
    tag.write_to(&mut out, Version::Id3v24).map_err(map_err)?;
    Ok(out)
}

/// The limit of `CHAP` frames: times are 32-bit milliseconds.
pub(super) fn check(chapters: &[Chapter]) -> Result<(), TagError> {
    for chapter in chapters {
        ms32(chapter.start_ms)?;
        if let Some(end) = chapter.end_ms {
            ms32(end)?;
        }
    }
    Ok(())
}

fn apply(tag: &mut id3::Tag, tags: &Tags, duration_ms: Option<u64>) -> Result<(), TagError> {
    match &tags.title {
        Some(title) => tag.set_title(title.as_str()),
        None => tag.remove_title(),
    }
    match &tags.artist {
        Some(artist) => tag.set_artist(artist.as_str()),
        None => tag.remove_artist(),
    }
    match &tags.album {
        Some(album) => tag.set_album(album.as_str()),
        None => tag.remove_album(),
    }
    // ID3v2.3 date frames would contradict the v2.4 TDRC.
    tag.remove_year();
    for id in ["TDAT", "TIME", "TRDA"] {
        tag.remove(id);
    }
    tag.remove_date_recorded();
    if let Some(year) = tags.year {
        tag.set_date_recorded(Timestamp {
            year,
            month: None,
            day: None,
            hour: None,
            minute: None,
            second: None,
        });
    }
    tag.remove_comment(Some(""), None);
    if let Some(text) = &tags.comment {
        tag.add_frame(Comment {
            lang: "eng".into(),
            description: String::new(),
            text: text.clone(),
        });
    }
    tag.remove_picture_by_type(PictureType::CoverFront);
    if let Some(cover) = &tags.cover {
        tag.add_frame(Picture {
            mime_type: cover.mime.clone(),
            picture_type: PictureType::CoverFront,
            description: String::new(),
            data: cover.bytes.to_vec(),
        });
    }
    set_chapters(tag, &tags.chapters, duration_ms)
}

/// Replaces the tag's chapters (CHAP frames and their table of contents) by `chapters`; a
/// chapter without an end ends where the next starts, or at `duration_ms`.
fn set_chapters(
    tag: &mut id3::Tag,
    chapters: &[Chapter],
    duration_ms: Option<u64>,
) -> Result<(), TagError> {
    tag.remove_all_chapters();
    tag.remove_all_tables_of_contents();
    if chapters.is_empty() {
        return Ok(());
    }
    let mut ids = Vec::with_capacity(chapters.len());
    for (i, chapter) in chapters.iter().enumerate() {
        let end = chapter
            .end_ms
            .or_else(|| chapters.get(i + 1).map(|next| next.start_ms))
            .or(duration_ms)
            .unwrap_or(chapter.start_ms)
            .max(chapter.start_ms);
        let id = format!("chp{i}");
        let mut frames = vec![Frame::text("TIT2", chapter.title.as_str())];
        if let Some(url) = &chapter.url {
            frames.push(Frame::with_content(
                "WXXX",
                Content::ExtendedLink(ExtendedLink {
                    description: String::new(),
                    link: url.clone(),
                }),
            ));
        }
        tag.add_frame(ChapFrame {
            element_id: id.clone(),
            start_time: ms32(chapter.start_ms)?,
            end_time: ms32(end)?,
            start_offset: u32::MAX,
            end_offset: u32::MAX,
            frames,
        });
        ids.push(id);
    }
    tag.add_frame(TableOfContents {
        element_id: TOC_ID.into(),
        top_level: true,
        ordered: true,
        elements: ids,
        frames: Vec::new(),
    });
    Ok(())
}

fn ms32(ms: u64) -> Result<u32, TagError> {
    u32::try_from(ms).map_err(|_| {
        TagError::Invalid(format!(
            "chapter time {ms} ms is beyond what ID3 stores (2^32 ms)"
        ))
    })
}
