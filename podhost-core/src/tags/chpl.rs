//! Nero chapters in MP4 files: the `moov.udta.chpl` box, which ffmpeg, mutagen and most players
//! read (lofty writes no MP4 chapters).
//!
//! The box: version 1, flags 0, 4 reserved bytes, a one-byte count, then per chapter its start
//! as a 64-bit count of 100 ns units and its title as a one-byte length and UTF-8 bytes. Version
//! 0 has no reserved bytes. There is no end time and no link.
//!
//! Writing rebuilds `moov` in memory (it holds only headers and sample tables; the audio is in
//! `mdat`) with the new `chpl`, and copies the rest of the file around it. When `moov` changes
//! size and audio follows it, every chunk offset (`stco`, `co64`) that points past `moov` moves
//! by the same amount.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use super::{Chapter, TagError};

/// Most chapters a `chpl` box holds (its count is one byte).
pub(super) const MAX_CHAPTERS: usize = 255;
/// Longest chapter title a `chpl` box holds, in bytes (its length is one byte).
pub(super) const MAX_TITLE_BYTES: usize = 255;
/// Largest `chpl` box read.
const MAX_CHPL: u64 = 1 << 20;
/// Largest `moov` box rewritten. An hour of AAC needs about 1 MiB of sample tables.
const MAX_MOOV: u64 = 64 << 20;
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
fn encode(chapters: &[Chapter]) -> Vec<u8> {
    let mut out = vec![1, 0, 0, 0, 0, 0, 0, 0];
    out.push(u8::try_from(chapters.len()).unwrap_or(u8::MAX));
    for chapter in chapters.iter().take(MAX_CHAPTERS) {
        out.extend_from_slice(&(chapter.start_ms * UNITS_PER_MS).to_be_bytes());
        let title = &chapter.title.as_bytes()[..chapter.title.len().min(MAX_TITLE_BYTES)];
        out.push(u8::try_from(title.len()).unwrap_or(u8::MAX));
        out.extend_from_slice(title);
    }
    out
}

/// Replaces the file's chapters by `chapters` (none: the `chpl` box is removed).
pub(super) fn write(path: &Path, chapters: &[Chapter]) -> Result<(), TagError> {
    check(chapters)?;
    let mut file = std::fs::File::open(path)?;
    let len = file.seek(SeekFrom::End(0))?;
    let mut moov = None;
    let mut fragmented = false;
    let mut pos = 0;
    while let Some(header) = next_box(&mut file, pos, len)? {
        match &header.kind {
            b"moov" if moov.is_some() => {
                return Err(TagError::Corrupt("the file has two moov boxes".into()));
            }
            b"moov" => moov = Some(header.start..header.end),
            b"moof" => fragmented = true,
            _ => {}
        }
        pos = header.end;
    }
    let moov = moov.ok_or_else(|| TagError::Corrupt("the MP4 file has no moov box".into()))?;
    if moov.end - moov.start > MAX_MOOV {
        return Err(TagError::Unsupported(
            "MP4 files whose moov box is over 64 MiB".into(),
        ));
    }
    file.seek(SeekFrom::Start(moov.start))?;
    let mut old = vec![0u8; usize::try_from(moov.end - moov.start).unwrap_or(0)];
    file.read_exact(&mut old)?;

    let mut new = rebuild_moov(&old, chapters)?;
    let delta =
        i64::try_from(new.len()).unwrap_or(i64::MAX) - i64::try_from(old.len()).unwrap_or(i64::MAX);
    if delta == 0 && new == old {
        return Ok(());
    }
    if delta != 0 && moov.end < len {
        if fragmented {
            return Err(TagError::Unsupported(
                "chapters in fragmented MP4 files".into(),
            ));
        }
        shift_chunk_offsets(&mut new, moov.start, delta)?;
    }

    // The new file next to the old one, then renamed over it.
    let tmp = path.with_extension("chpl-tmp");
    let result = (|| {
        let mut out = std::io::BufWriter::with_capacity(64 << 10, std::fs::File::create(&tmp)?);
        file.seek(SeekFrom::Start(0))?;
        std::io::copy(&mut (&mut file).take(moov.start), &mut out)?;
        out.write_all(&new)?;
        file.seek(SeekFrom::Start(moov.end))?;
        std::io::copy(&mut file, &mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    Ok(result?)
}

/// `moov` (whole, header included) with its `udta.chpl` replaced.
fn rebuild_moov(moov: &[u8], chapters: &[Chapter]) -> Result<Vec<u8>, TagError> {
    let (_, body) = split_header(moov)?;
    let mut children = Vec::with_capacity(body.len() + 64);
    let mut had_udta = false;
    for child in children_of(body)? {
        let (kind, child_body) = split_header(child)?;
        if kind == *b"udta" {
            had_udta = true;
            let mut udta = Vec::with_capacity(child_body.len() + 64);
            for grandchild in children_of(child_body)? {
                if split_header(grandchild)?.0 != *b"chpl" {
                    udta.extend_from_slice(grandchild);
                }
            }
            if !chapters.is_empty() {
                put_box(&mut udta, b"chpl", &encode(chapters))?;
            }
            put_box(&mut children, b"udta", &udta)?;
        } else {
            children.extend_from_slice(child);
        }
    }
    if !had_udta && !chapters.is_empty() {
        let mut udta = Vec::new();
        put_box(&mut udta, b"chpl", &encode(chapters))?;
        put_box(&mut children, b"udta", &udta)?;
    }
    let mut out = Vec::with_capacity(children.len() + 16);
    put_box(&mut out, b"moov", &children)?;
    Ok(out)
}

/// Adds `delta` to every chunk offset at or past `from` in the `stco` and `co64` boxes of
/// `moov.trak.mdia.minf.stbl`.
fn shift_chunk_offsets(moov: &mut [u8], from: u64, delta: i64) -> Result<(), TagError> {
    const PATH: [&[u8; 4]; 4] = [b"trak", b"mdia", b"minf", b"stbl"];
    fn visit(data: &mut [u8], depth: usize, from: u64, delta: i64) -> Result<(), TagError> {
        let mut at = 0;
        while at < data.len() {
            let (kind, header_len, size) = box_at(data, at)?;
            let body = data
                .get_mut(at + header_len..at + size)
                .ok_or_else(overrun)?;
            match PATH.get(depth) {
                Some(want) if kind == **want => visit(body, depth + 1, from, delta)?,
                None if &kind == b"stco" || &kind == b"co64" => {
                    shift_table(body, kind == *b"co64", from, delta)?;
                }
                _ => {}
            }
            at += size;
        }
        Ok(())
    }
    let (_, header_len, size) = box_at(moov, 0)?;
    let body = moov.get_mut(header_len..size).ok_or_else(overrun)?;
    visit(body, 0, from, delta)
}

/// One `stco` (32-bit) or `co64` (64-bit) table: version and flags, a count, the offsets.
fn shift_table(body: &mut [u8], wide: bool, from: u64, delta: i64) -> Result<(), TagError> {
    let count = body
        .get(4..8)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(overrun)?;
    let width = if wide { 8 } else { 4 };
    let entries = body.get_mut(8..).ok_or_else(overrun)?;
    if entries.len() < usize::try_from(count).unwrap_or(usize::MAX) * width {
        return Err(TagError::Corrupt(
            "a chunk offset table is truncated".into(),
        ));
    }
    for entry in entries.chunks_exact_mut(width).take(count as usize) {
        let offset = if wide {
            u64::from_be_bytes(entry.try_into().map_err(|_| overrun())?)
        } else {
            u64::from(u32::from_be_bytes(entry.try_into().map_err(|_| overrun())?))
        };
        if offset < from {
            continue;
        }
        let moved = offset
            .checked_add_signed(delta)
            .ok_or_else(|| TagError::Corrupt("a chunk offset is out of range".into()))?;
        if wide {
            entry.copy_from_slice(&moved.to_be_bytes());
        } else {
            let moved = u32::try_from(moved).map_err(|_| {
                TagError::Unsupported("MP4 files that would outgrow 32-bit chunk offsets".into())
            })?;
            entry.copy_from_slice(&moved.to_be_bytes());
        }
    }
    Ok(())
}

fn overrun() -> TagError {
    TagError::Corrupt("an MP4 box overruns its parent".into())
}

/// The box at `at` in `data`: its type, header length and whole size (`0` means "to the end").
fn box_at(data: &[u8], at: usize) -> Result<([u8; 4], usize, usize), TagError> {
    let head = data.get(at..at + 8).ok_or_else(overrun)?;
    let size32 = u32::from_be_bytes([head[0], head[1], head[2], head[3]]);
    let kind = [head[4], head[5], head[6], head[7]];
    let (header_len, size) = match size32 {
        0 => (8, data.len() - at),
        1 => {
            let large = data.get(at + 8..at + 16).ok_or_else(overrun)?;
            let large = u64::from_be_bytes(large.try_into().map_err(|_| overrun())?);
            (16, usize::try_from(large).map_err(|_| overrun())?)
        }
        n => (8, n as usize),
    };
    if size < header_len || at.checked_add(size).is_none_or(|end| end > data.len()) {
        return Err(overrun());
    }
    Ok((kind, header_len, size))
}

/// A whole box's type and body.
fn split_header(data: &[u8]) -> Result<([u8; 4], &[u8]), TagError> {
    let (kind, header_len, size) = box_at(data, 0)?;
    Ok((kind, data.get(header_len..size).ok_or_else(overrun)?))
}

/// The whole boxes (headers included) in a container's body.
fn children_of(body: &[u8]) -> Result<Vec<&[u8]>, TagError> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < body.len() {
        let (_, _, size) = box_at(body, at)?;
        out.push(body.get(at..at + size).ok_or_else(overrun)?);
        at += size;
    }
    Ok(out)
}

/// Appends a box with a 32-bit size.
fn put_box(out: &mut Vec<u8>, kind: &[u8; 4], body: &[u8]) -> Result<(), TagError> {
    let size = u32::try_from(body.len() + 8)
        .map_err(|_| TagError::Unsupported("an MP4 box over 4 GiB".into()))?;
    out.extend_from_slice(&size.to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(body);
    Ok(())
}

/// A box header in a file: its type, where it starts, where its content starts and ends.
struct BoxHeader {
    kind: [u8; 4],
    start: u64,
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
    Ok(Some(BoxHeader {
        kind,
        start: pos,
        content,
        end,
    }))
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
        pos = header.end;
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chapter(start_ms: u64, title: &str) -> Chapter {
        Chapter {
            start_ms,
            end_ms: None,
            title: title.into(),
            url: None,
        }
    }

    fn boxed(kind: &[u8; 4], body: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        put_box(&mut out, kind, body).unwrap();
        out
    }

    /// `moov` with one track whose `stco` lists `offsets`.
    fn moov_with_stco(offsets: &[u32], extra: &[u8]) -> Vec<u8> {
        let mut stco = vec![0, 0, 0, 0];
        stco.extend_from_slice(&u32::try_from(offsets.len()).unwrap().to_be_bytes());
        for o in offsets {
            stco.extend_from_slice(&o.to_be_bytes());
        }
        let stbl = boxed(b"stbl", &boxed(b"stco", &stco));
        let trak = boxed(b"trak", &boxed(b"mdia", &boxed(b"minf", &stbl)));
        let mut body = boxed(b"mvhd", &[0; 100]);
        body.extend_from_slice(&trak);
        body.extend_from_slice(extra);
        boxed(b"moov", &body)
    }

    fn stco_of(moov: &[u8]) -> Vec<u32> {
        let at = moov.windows(4).position(|w| w == b"stco").unwrap() + 4;
        let count = u32::from_be_bytes(moov[at + 4..at + 8].try_into().unwrap()) as usize;
        (0..count)
            .map(|i| {
                let p = at + 8 + 4 * i;
                u32::from_be_bytes(moov[p..p + 4].try_into().unwrap())
            })
            .collect()
    }

    #[test]
    fn encodes_what_it_parses() {
        let chapters = vec![chapter(0, "Intro"), chapter(61_500, "Nouvelles ✓")];
        assert_eq!(parse(&encode(&chapters)).unwrap(), chapters);
        assert_eq!(parse(&encode(&[])).unwrap(), []);
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

    #[test]
    fn offsets_past_moov_move_by_its_growth() {
        // ftyp (at 0, 24 bytes), moov at 24, then mdat: offsets before moov stay.
        let moov = moov_with_stco(&[10, 5_000, 9_000], &[]);
        let mut new = rebuild_moov(&moov, &[chapter(0, "A"), chapter(1_000, "B")]).unwrap();
        let delta = i64::try_from(new.len() - moov.len()).unwrap();
        assert!(delta > 0);
        shift_chunk_offsets(&mut new, 24, delta).unwrap();
        let d = u32::try_from(delta).unwrap();
        assert_eq!(stco_of(&new), [10, 5_000 + d, 9_000 + d]);
        let udta = new.windows(4).position(|w| w == b"udta").unwrap();
        let chpl = &new[udta + 4..];
        assert_eq!(&chpl[4..8], b"chpl");
    }

    #[test]
    fn an_old_chpl_is_replaced_and_an_empty_list_removes_it() {
        let old_udta = boxed(
            b"udta",
            &[
                boxed(b"chpl", &encode(&[chapter(5, "old")])),
                boxed(b"meta", &[0; 12]),
            ]
            .concat(),
        );
        let moov = moov_with_stco(&[100], &old_udta);
        let new = rebuild_moov(&moov, &[chapter(7, "new")]).unwrap();
        assert_eq!(new.windows(4).filter(|w| w == b"chpl").count(), 1);
        assert!(new.windows(3).any(|w| w == b"new"));
        assert!(!new.windows(3).any(|w| w == b"old"));
        assert!(
            new.windows(4).any(|w| w == b"meta"),
            "other udta boxes kept"
        );

        let none = rebuild_moov(&moov, &[]).unwrap();
        assert!(!none.windows(4).any(|w| w == b"chpl"));
        assert_eq!(none.len(), moov.len() - old_udta.len() + 8 + 20);
    }

    #[test]
    fn damaged_boxes_are_errors_not_panics() {
        let moov = moov_with_stco(&[1, 2], &[]);
        for cut in [9, 20, moov.len() - 3] {
            let mut bad = moov.clone();
            bad.truncate(cut);
            let _ = rebuild_moov(&bad, &[chapter(0, "x")]);
        }
        let mut bad = moov.clone();
        bad[8..12].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(matches!(rebuild_moov(&bad, &[]), Err(TagError::Corrupt(_))));
    }
}
