//! MP4 (M4A) tags: the iTunes items of `moov.udta.meta.ilst` and the chapters of
//! `moov.udta.chpl` ([`super::chpl`]).
//!
//! Read through `lofty`. Written here, in one rebuild of `moov` ([`super::mp4box`]): lofty
//! would hold the whole file in memory to write it and writes no chapters. The items podhost
//! manages (`©nam`, `©ART`, `©alb`, `©day`, `©cmt`, `covr`) are replaced or removed, every other
//! item and box is kept byte for byte; a file without `udta`, `meta` or `ilst` gets them, with
//! the `mdir` handler iTunes and every reader expect.

use std::io::{Read, Seek};
use std::path::Path;

use lofty::file::AudioFile;
use lofty::mp4::Mp4File;
use lofty::tag::Accessor;

use super::contents::{TagError, Tags};
use super::gapless::{self, Gapless};
use super::lofty_io::{cover_of, map_err, parse_options};
use super::mp4box::{self, Kind, Layout, NewMoov, be32, be64};
use super::{chapter_track, chpl};

/// The `ilst` items podhost manages; the rest are kept.
const MANAGED: [&Kind; 6] = [
    b"\xa9nam", b"\xa9ART", b"\xa9alb", b"\xa9day", b"\xa9cmt", b"covr",
];
/// `data` box type of UTF-8 text.
const UTF8: u32 = 1;

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

/// Writes `tags` (the complete desired set) into the MP4 file at `path`.
pub(super) fn write(path: &Path, tags: &Tags) -> Result<(), TagError> {
    check(tags)?;
    mp4box::rewrite_moov(path, |moov, layout| rebuild_moov(moov, tags, layout))
}

/// What MP4 cannot hold: chapters past the `chpl` limits, a cover other than JPEG, PNG, BMP or
/// GIF (the image types of a `covr` item).
pub(super) fn check(tags: &Tags) -> Result<(), TagError> {
    chpl::check(&tags.chapters)?;
    if let Some(cover) = &tags.cover {
        check_cover(&cover.mime)?;
    }
    Ok(())
}

/// Whether a cover of this MIME type fits in a `covr` item.
pub(super) fn check_cover(mime: &str) -> Result<(), TagError> {
    cover_type(mime).map(|_| ())
}

/// The `data` type of a cover image.
fn cover_type(mime: &str) -> Result<u32, TagError> {
    let essence = mime.split(';').next().unwrap_or("").trim();
    match essence.to_ascii_lowercase().as_str() {
        "image/gif" => Ok(12),
        "image/jpeg" | "image/jpg" => Ok(13),
        "image/png" => Ok(14),
        "image/bmp" => Ok(27),
        other => Err(TagError::Invalid(format!(
            "an MP4 cover is JPEG, PNG, BMP or GIF, not {other}"
        ))),
    }
}

/// `moov` (whole, header included) with the managed items and chapters of `tags`: the chapters
/// as a `chpl` box and as a chapter track (whose samples go in front of `moov`).
fn rebuild_moov(moov: &[u8], tags: &Tags, layout: &Layout) -> Result<NewMoov, TagError> {
    let (_, body) = mp4box::split(moov)?;
    let children = mp4box::children(body)?;
    let mut tracks = Vec::new();
    for (kind, child) in &children {
        if kind == b"trak" {
            tracks.push(chapter_track::track_info(child)?);
        }
    }
    let old_chapter_ids: Vec<u32> = tracks.iter().flat_map(|t| t.chapters.clone()).collect();
    // The chapter track podhost wrote before sits alone in the `mdat` before `moov`.
    let replaces_before = layout.before.as_ref().is_some_and(|(_, content)| {
        tracks
            .iter()
            .any(|t| old_chapter_ids.contains(&t.id) && t.single_chunk.as_ref() == Some(content))
    });
    let audio = tracks
        .iter()
        .position(|t| &t.handler == b"soun" && !old_chapter_ids.contains(&t.id));
    let mvhd = children
        .iter()
        .find(|(k, _)| k == b"mvhd")
        .map(|(_, b)| mp4box::split(b).map(|(_, body)| body))
        .transpose()?
        .ok_or_else(|| TagError::Corrupt("the MP4 file has no mvhd box".into()))?;
    let movie = Movie::of(mvhd)?;
    // The gapless item, from the audio track's edit list.
    let smpb = match audio.and_then(|a| children.iter().filter(|(k, _)| k == b"trak").nth(a)) {
        Some((_, trak)) => Gapless::of_trak(trak, movie.timescale)?
            .map(|g| g.item())
            .transpose()?,
        None => None,
    };
    let managed = Managed {
        tags,
        smpb: smpb.as_deref(),
    };
    let max_id = tracks.iter().map(|t| t.id).max().unwrap_or(0);
    let new_id = match movie.next_track_id {
        0 | u32::MAX => max_id.saturating_add(1),
        next => next.max(max_id.saturating_add(1)),
    };
    let chapter_track = (!tags.chapters.is_empty() && audio.is_some())
        .then(|| chapter_track::samples(&tags.chapters, movie.duration_ms()));

    let mut out = Vec::with_capacity(body.len() + 2048);
    let mut had_udta = false;
    let mut track_index = 0;
    let last_trak = children.iter().rposition(|(k, _)| k == b"trak");
    for (i, (kind, child)) in children.iter().enumerate() {
        match kind {
            b"mvhd" if chapter_track.is_some() => {
                let mut mvhd = child.to_vec();
                let at = mvhd.len() - 4;
                mvhd[at..].copy_from_slice(&new_id.saturating_add(1).to_be_bytes());
                out.extend_from_slice(&mvhd);
            }
            b"trak" => {
                let info = &tracks[track_index];
                if Some(track_index) == audio {
                    let reference = chapter_track.as_ref().map(|_| new_id);
                    out.extend_from_slice(&chapter_track::with_chapter_reference(
                        child, reference,
                    )?);
                } else if !old_chapter_ids.contains(&info.id) {
                    if info.chapters.is_empty() {
                        out.extend_from_slice(child);
                    } else {
                        out.extend_from_slice(&chapter_track::with_chapter_reference(child, None)?);
                    }
                }
                track_index += 1;
                if Some(i) == last_trak
                    && let Some((_, sizes, durations)) = &chapter_track
                {
                    let offset = layout.front_offset(replaces_before);
                    out.extend_from_slice(&chapter_track::trak(
                        new_id,
                        sizes,
                        durations,
                        offset,
                        movie.duration,
                    )?);
                }
            }
            b"udta" => {
                had_udta = true;
                let (_, udta) = mp4box::split(child)?;
                mp4box::put(&mut out, b"udta", &rebuild_udta(Some(udta), &managed)?)?;
            }
            // An ISO-style `moov.meta`: its managed items are dropped so that no reader sees
            // stale values next to the new ones in `udta`.
            b"meta" => mp4box::put(&mut out, b"meta", &rebuild_meta(child, None)?)?,
            _ => out.extend_from_slice(child),
        }
    }
    if !had_udta {
        mp4box::put(&mut out, b"udta", &rebuild_udta(None, &managed)?)?;
    }
    Ok(NewMoov {
        moov: mp4box::boxed(b"moov", &out)?,
        front: chapter_track.map(|(data, _, _)| data).unwrap_or_default(),
        replaces_before,
    })
}

/// What the movie header says: its timescale, duration and next free track id.
struct Movie {
    timescale: u32,
    duration: u64,
    next_track_id: u32,
}

impl Movie {
    fn of(mvhd: &[u8]) -> Result<Self, TagError> {
        let (timescale, duration) = if mvhd.first() == Some(&1) {
            (be32(mvhd, 20)?, be64(mvhd, 24)?)
        } else {
            (be32(mvhd, 12)?, u64::from(be32(mvhd, 16)?))
        };
        let next_track_id = be32(mvhd, mvhd.len().checked_sub(4).ok_or_else(mp4box::overrun)?)?;
        Ok(Movie {
            timescale,
            duration,
            next_track_id,
        })
    }

    fn duration_ms(&self) -> u64 {
        if self.timescale == 0 {
            return 0;
        }
        u64::try_from(u128::from(self.duration) * 1000 / u128::from(self.timescale))
            .unwrap_or(u64::MAX)
    }
}

/// What podhost writes into an MP4's `ilst`: the tags, and the gapless item (a whole box) when
/// the audio track's edit list gives one.
struct Managed<'a> {
    tags: &'a Tags,
    smpb: Option<&'a [u8]>,
}

fn rebuild_udta(udta: Option<&[u8]>, managed: &Managed<'_>) -> Result<Vec<u8>, TagError> {
    let tags = managed.tags;
    let mut out = Vec::new();
    let mut had_meta = false;
    for (kind, child) in udta.map(mp4box::children).transpose()?.unwrap_or_default() {
        match &kind {
            b"chpl" => {}
            b"meta" if !had_meta => {
                had_meta = true;
                mp4box::put(&mut out, b"meta", &rebuild_meta(child, Some(managed))?)?;
            }
            _ => out.extend_from_slice(child),
        }
    }
    if !had_meta {
        let items = items(managed)?;
        if !items.is_empty() {
            let mut meta = vec![0, 0, 0, 0];
            meta.extend_from_slice(&mdir_handler()?);
            mp4box::put(&mut meta, b"ilst", &items)?;
            mp4box::put(&mut out, b"meta", &meta)?;
        }
    }
    if !tags.chapters.is_empty() {
        mp4box::put(&mut out, b"chpl", &chpl::encode(&tags.chapters))?;
    }
    Ok(out)
}

/// A `meta` box's body with its `ilst` rebuilt: the managed items removed, and those of
/// `managed` (when given) added.
fn rebuild_meta(meta: &[u8], managed: Option<&Managed<'_>>) -> Result<Vec<u8>, TagError> {
    let (_, body) = mp4box::split(meta)?;
    // ISO `meta` is a full box (4 bytes of version and flags before its children); QuickTime's
    // is not.
    let full = body.get(4..8) != Some(b"hdlr".as_slice());
    let (prefix, rest) = body.split_at(if full { 4.min(body.len()) } else { 0 });
    let mut out = prefix.to_vec();
    let mut had_ilst = false;
    for (kind, child) in mp4box::children(rest)? {
        match &kind {
            b"hdlr" => {
                let (_, hdlr) = mp4box::split(child)?;
                if managed.is_some() && hdlr.get(8..12) != Some(b"mdir".as_slice()) {
                    return Err(TagError::Unsupported(format!(
                        "MP4 metadata with the {} handler (iTunes items need mdir)",
                        String::from_utf8_lossy(hdlr.get(8..12).unwrap_or_default())
                    )));
                }
                out.extend_from_slice(child);
            }
            b"ilst" if !had_ilst => {
                had_ilst = true;
                let (_, ilst) = mp4box::split(child)?;
                let mut items = Vec::with_capacity(ilst.len());
                let replaced_smpb = managed.is_some_and(|m| m.smpb.is_some());
                for (item_kind, item) in mp4box::children(ilst)? {
                    let stale_smpb = replaced_smpb && gapless::is_item(item);
                    if !MANAGED.contains(&&item_kind) && !stale_smpb {
                        items.extend_from_slice(item);
                    }
                }
                if let Some(managed) = managed {
                    items.extend_from_slice(&self::items(managed)?);
                }
                mp4box::put(&mut out, b"ilst", &items)?;
            }
            _ => out.extend_from_slice(child),
        }
    }
    if !had_ilst && let Some(managed) = managed {
        mp4box::put(&mut out, b"ilst", &items(managed)?)?;
    }
    Ok(out)
}

/// The `hdlr` box of iTunes metadata.
fn mdir_handler() -> Result<Vec<u8>, TagError> {
    let mut body = vec![0u8; 8];
    body.extend_from_slice(b"mdir");
    body.extend_from_slice(b"appl");
    body.extend_from_slice(&[0; 9]);
    mp4box::boxed(b"hdlr", &body)
}

/// The managed items, in iTunes's order, the gapless item last.
fn items(managed: &Managed<'_>) -> Result<Vec<u8>, TagError> {
    let tags = managed.tags;
    let year = tags.year.map(|y| y.to_string());
    let texts: [(&Kind, Option<&str>); 5] = [
        (b"\xa9nam", tags.title.as_deref()),
        (b"\xa9ART", tags.artist.as_deref()),
        (b"\xa9alb", tags.album.as_deref()),
        (b"\xa9day", year.as_deref()),
        (b"\xa9cmt", tags.comment.as_deref()),
    ];
    let mut out = Vec::new();
    for (kind, text) in texts {
        if let Some(text) = text {
            mp4box::put(&mut out, kind, &data(UTF8, text.as_bytes())?)?;
        }
    }
    if let Some(cover) = &tags.cover {
        mp4box::put(
            &mut out,
            b"covr",
            &data(cover_type(&cover.mime)?, &cover.bytes)?,
        )?;
    }
    if let Some(smpb) = managed.smpb {
        out.extend_from_slice(smpb);
    }
    Ok(out)
}

/// A `data` box: its type, a zero locale, the value.
fn data(kind: u32, value: &[u8]) -> Result<Vec<u8>, TagError> {
    let mut body = Vec::with_capacity(value.len() + 8);
    body.extend_from_slice(&kind.to_be_bytes());
    body.extend_from_slice(&[0; 4]);
    body.extend_from_slice(value);
    mp4box::boxed(b"data", &body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tags::{Chapter, Cover};

    const LAYOUT: Layout = Layout {
        moov_start: 24,
        before: None,
    };

    fn moov(extra: &[u8]) -> Vec<u8> {
        let mut body = mp4box::boxed(b"mvhd", &[0; 100]).unwrap();
        body.extend_from_slice(extra);
        mp4box::boxed(b"moov", &body).unwrap()
    }

    fn item(kind: &Kind, text: &str) -> Vec<u8> {
        mp4box::boxed(kind, &data(UTF8, text.as_bytes()).unwrap()).unwrap()
    }

    /// The types of the boxes at `path` below `moov` (e.g. `["udta", "meta"]`).
    fn kinds_at(moov: &[u8], path: &[&Kind]) -> Vec<Kind> {
        let (_, mut body) = mp4box::split(moov).unwrap();
        for step in path {
            let (_, child) = mp4box::children(body)
                .unwrap()
                .into_iter()
                .find(|(k, _)| k == *step)
                .unwrap_or_else(|| panic!("no {}", String::from_utf8_lossy(*step)));
            body = mp4box::split(child).unwrap().1;
            if *step == b"meta" {
                body = &body[4..];
            }
        }
        mp4box::children(body)
            .unwrap()
            .into_iter()
            .map(|(k, _)| k)
            .collect()
    }

    fn title_and_chapter() -> Tags {
        Tags {
            title: Some("T".into()),
            chapters: vec![Chapter {
                start_ms: 0,
                end_ms: None,
                title: "C".into(),
                url: None,
            }],
            ..Tags::default()
        }
    }

    #[test]
    fn a_file_without_udta_gets_udta_meta_hdlr_ilst_and_chpl() {
        let new = rebuild_moov(&moov(&[]), &title_and_chapter(), &LAYOUT)
            .unwrap()
            .moov;
        assert_eq!(kinds_at(&new, &[b"udta"]), [*b"meta", *b"chpl"]);
        assert_eq!(kinds_at(&new, &[b"udta", b"meta"]), [*b"hdlr", *b"ilst"]);
        assert_eq!(kinds_at(&new, &[b"udta", b"meta", b"ilst"]), [*b"\xa9nam"]);
        assert!(new.windows(4).any(|w| w == b"mdir"));
    }

    #[test]
    fn managed_items_are_replaced_and_others_kept() {
        let ilst = [
            item(b"\xa9nam", "old"),
            item(b"trkn", "x"),
            item(b"\xa9cmt", "c"),
        ]
        .concat();
        let meta = [
            vec![0, 0, 0, 0],
            mdir_handler().unwrap(),
            mp4box::boxed(b"ilst", &ilst).unwrap(),
        ]
        .concat();
        let udta = mp4box::boxed(b"udta", &mp4box::boxed(b"meta", &meta).unwrap()).unwrap();
        let old = moov(&udta);
        let new = rebuild_moov(&old, &title_and_chapter(), &LAYOUT)
            .unwrap()
            .moov;
        assert_eq!(
            kinds_at(&new, &[b"udta", b"meta", b"ilst"]),
            [*b"trkn", *b"\xa9nam"]
        );
        assert!(!new.windows(3).any(|w| w == b"old"));
        // Nothing asked for: the managed items and the chapters go, the rest stays.
        let bare = rebuild_moov(&new, &Tags::default(), &LAYOUT).unwrap().moov;
        assert_eq!(kinds_at(&bare, &[b"udta", b"meta", b"ilst"]), [*b"trkn"]);
        assert_eq!(kinds_at(&bare, &[b"udta"]), [*b"meta"]);
    }

    #[test]
    fn an_iso_moov_meta_loses_its_stale_managed_items() {
        let ilst = mp4box::boxed(
            b"ilst",
            &[item(b"\xa9nam", "stale"), item(b"trkn", "x")].concat(),
        )
        .unwrap();
        let meta = mp4box::boxed(
            b"meta",
            &[vec![0; 4], mdir_handler().unwrap(), ilst].concat(),
        )
        .unwrap();
        let new = rebuild_moov(&moov(&meta), &title_and_chapter(), &LAYOUT)
            .unwrap()
            .moov;
        assert!(!new.windows(5).any(|w| w == b"stale"));
        assert_eq!(kinds_at(&new, &[b"meta", b"ilst"]), [*b"trkn"]);
        assert_eq!(kinds_at(&new, &[b"udta", b"meta", b"ilst"]), [*b"\xa9nam"]);
    }

    #[test]
    fn covers_mp4_cannot_hold_are_refused() {
        let cover = |mime: &str| Tags {
            cover: Some(Cover {
                mime: mime.into(),
                bytes: bytes::Bytes::from_static(b"x"),
            }),
            ..Tags::default()
        };
        assert!(check(&cover("image/png")).is_ok());
        assert!(check(&cover("image/jpeg")).is_ok());
        assert!(matches!(
            check(&cover("image/webp")),
            Err(TagError::Invalid(_))
        ));
    }
}
