//! MP4 (M4A) tags: the `moov.udta.meta.ilst` atoms through `lofty`, and chapters as a Nero
//! `moov.udta.chpl` box through [`super::chpl`] (lofty writes no MP4 chapters).

use std::io::{Read, Seek};
use std::path::Path;

use lofty::config::WriteOptions;
use lofty::file::AudioFile;
use lofty::mp4::{Ilst, Mp4File};
use lofty::tag::{Accessor, TagExt};

use super::vorbis::{cover_of, map_err, parse_options, picture, timestamp};
use super::{TagError, Tags, chpl};

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
    tags.chapters = chpl::read(reader)?;
    Ok(tags)
}

pub(super) fn write(path: &Path, tags: &Tags) -> Result<(), TagError> {
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
    chpl::write(path, &tags.chapters)
}
