//! The MP4 box tree, as far as tag writing needs it: finding boxes in a file, walking and
//! rebuilding boxes in memory, and rewriting a file around a new `moov`.
//!
//! A file is rewritten by reading `moov` (headers and sample tables, about 1 MiB per hour of
//! AAC; the audio is in `mdat`) into memory, rebuilding it, and copying the rest of the file
//! around it with a 64 KiB buffer. When `moov` changes size and audio follows it, every chunk
//! offset (`stco`, `co64`) that points past `moov` moves by the same amount.

use std::io::{Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::Path;

use super::contents::TagError;

/// Largest `moov` box rewritten.
const MAX_MOOV: u64 = 64 << 20;

/// A box type.
pub(super) type Kind = [u8; 4];

/// A box header in a file: its type, where it starts, where its content starts and ends.
pub(super) struct BoxHeader {
    pub(super) kind: Kind,
    pub(super) start: u64,
    pub(super) content: u64,
    pub(super) end: u64,
}

/// The box at `pos` of a file, if one fits before `limit`.
pub(super) fn next_box<R: Read + Seek>(
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

/// The first box of type `kind` between `start` and `limit` of a file.
pub(super) fn find_box<R: Read + Seek>(
    reader: &mut R,
    start: u64,
    limit: u64,
    kind: &Kind,
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

pub(super) fn overrun() -> TagError {
    TagError::Corrupt("an MP4 box overruns its parent".into())
}

/// The big-endian `u32` at `at` of a box body.
pub(super) fn be32(data: &[u8], at: usize) -> Result<u32, TagError> {
    data.get(at..at + 4)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(overrun)
}

/// The big-endian `u64` at `at` of a box body.
pub(super) fn be64(data: &[u8], at: usize) -> Result<u64, TagError> {
    Ok(u64::from(be32(data, at)?) << 32 | u64::from(be32(data, at + 4)?))
}

/// The box at `at` in `data`: its type, header length and whole size (`0` means "to the end").
fn box_at(data: &[u8], at: usize) -> Result<(Kind, usize, usize), TagError> {
    let head = data.get(at..at + 8).ok_or_else(overrun)?;
    let size32 = be32(head, 0)?;
    let kind = [head[4], head[5], head[6], head[7]];
    let (header_len, size) = match size32 {
        0 => (8, data.len() - at),
        1 => (
            16,
            usize::try_from(be64(data, at + 8)?).map_err(|_| overrun())?,
        ),
        n => (8, n as usize),
    };
    if size < header_len || at.checked_add(size).is_none_or(|end| end > data.len()) {
        return Err(overrun());
    }
    Ok((kind, header_len, size))
}

/// A whole box's type and body.
pub(super) fn split(data: &[u8]) -> Result<(Kind, &[u8]), TagError> {
    let (kind, header_len, size) = box_at(data, 0)?;
    Ok((kind, data.get(header_len..size).ok_or_else(overrun)?))
}

/// The whole boxes (headers included) in a container's body, with their types.
pub(super) fn children(body: &[u8]) -> Result<Vec<(Kind, &[u8])>, TagError> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < body.len() {
        let (kind, _, size) = box_at(body, at)?;
        out.push((kind, body.get(at..at + size).ok_or_else(overrun)?));
        at += size;
    }
    Ok(out)
}

/// Appends a box with a 32-bit size.
pub(super) fn put(out: &mut Vec<u8>, kind: &Kind, body: &[u8]) -> Result<(), TagError> {
    let size = u32::try_from(body.len() + 8)
        .map_err(|_| TagError::Unsupported("an MP4 box over 4 GiB".into()))?;
    out.extend_from_slice(&size.to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(body);
    Ok(())
}

/// A box with a 32-bit size.
pub(super) fn boxed(kind: &Kind, body: &[u8]) -> Result<Vec<u8>, TagError> {
    let mut out = Vec::with_capacity(body.len() + 8);
    put(&mut out, kind, body)?;
    Ok(out)
}

/// Where `moov` starts, and the top-level `mdat` right before it, if any (it may hold a chapter
/// track that podhost wrote, see [`NewMoov::replaces_before`]).
pub(super) struct Layout {
    pub(super) moov_start: u64,
    /// The box's start and its content's range.
    pub(super) before: Option<(u64, Range<u64>)>,
}

/// What replaces `moov`.
pub(super) struct NewMoov {
    /// The new `moov` box.
    pub(super) moov: Vec<u8>,
    /// Media data put in an `mdat` just before `moov` (nothing when empty).
    pub(super) front: Vec<u8>,
    /// Whether that replaces the `mdat` right before the old `moov` ([`Layout::before`]).
    pub(super) replaces_before: bool,
}

impl Layout {
    /// Where the rewritten part of the file starts: at `moov`, or at the `mdat` before it when
    /// that is replaced.
    pub(super) fn rewritten_from(&self, replaces_before: bool) -> u64 {
        match (&self.before, replaces_before) {
            (Some((start, _)), true) => *start,
            _ => self.moov_start,
        }
    }

    /// Where the content of [`NewMoov::front`] will start in the file (after its `mdat` header).
    pub(super) fn front_offset(&self, replaces_before: bool) -> u64 {
        self.rewritten_from(replaces_before) + 8
    }
}

/// Rewrites the file at `path` with its `moov` replaced by `rebuild(old moov, layout)` (whole
/// boxes, headers included), moving the chunk offsets of the audio behind it.
pub(super) fn rewrite_moov(
    path: &Path,
    rebuild: impl FnOnce(&[u8], &Layout) -> Result<NewMoov, TagError>,
) -> Result<(), TagError> {
    let mut file = std::fs::File::open(path)?;
    let len = file.seek(SeekFrom::End(0))?;
    let mut moov = None;
    let mut before = None;
    let mut previous: Option<BoxHeader> = None;
    let mut fragmented = false;
    let mut pos = 0;
    while let Some(header) = next_box(&mut file, pos, len)? {
        match &header.kind {
            b"moov" if moov.is_some() => {
                return Err(TagError::Corrupt("the file has two moov boxes".into()));
            }
            b"moov" => {
                moov = Some(header.start..header.end);
                before = previous
                    .filter(|p| &p.kind == b"mdat")
                    .map(|p| (p.start, p.content..p.end));
            }
            b"moof" => fragmented = true,
            _ => {}
        }
        pos = header.end;
        previous = Some(header);
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

    let layout = Layout {
        moov_start: moov.start,
        before,
    };
    let mut new = rebuild(&old, &layout)?;
    if new.moov == old && new.front.is_empty() && !new.replaces_before {
        return Ok(());
    }
    let region = layout.rewritten_from(new.replaces_before)..moov.end;
    let front = if new.front.is_empty() {
        Vec::new()
    } else {
        boxed(b"mdat", &new.front)?
    };
    let grown = front.len() + new.moov.len();
    let delta = i64::try_from(grown).unwrap_or(i64::MAX)
        - i64::try_from(region.end - region.start).unwrap_or(i64::MAX);
    if delta != 0 && moov.end < len {
        if fragmented {
            return Err(TagError::Unsupported(
                "tags that change the size of a fragmented MP4 file's moov".into(),
            ));
        }
        // Only what lies behind the old `moov` moves (the new front data is already placed).
        shift_chunk_offsets(&mut new.moov, moov.end, delta)?;
    }

    super::file::replace_file(path, |out| {
        file.seek(SeekFrom::Start(0))?;
        std::io::copy(&mut (&mut file).take(region.start), out)?;
        out.write_all(&front)?;
        out.write_all(&new.moov)?;
        file.seek(SeekFrom::Start(moov.end))?;
        std::io::copy(&mut file, out)?;
        Ok(())
    })
}

/// Adds `delta` to every chunk offset at or past `from` in the `stco` and `co64` boxes of
/// `moov.trak.mdia.minf.stbl`.
pub(super) fn shift_chunk_offsets(moov: &mut [u8], from: u64, delta: i64) -> Result<(), TagError> {
    const PATH: [&Kind; 4] = [b"trak", b"mdia", b"minf", b"stbl"];
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
    let count = be32(body, 4)?;
    let width = if wide { 8 } else { 4 };
    let entries = body.get_mut(8..).ok_or_else(overrun)?;
    if entries.len() < usize::try_from(count).unwrap_or(usize::MAX) * width {
        return Err(TagError::Corrupt(
            "a chunk offset table is truncated".into(),
        ));
    }
    for entry in entries.chunks_exact_mut(width).take(count as usize) {
        let offset = if wide {
            be64(entry, 0)?
        } else {
            u64::from(be32(entry, 0)?)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `moov` with one track whose `stco` lists `offsets`, and `extra` boxes.
    pub(crate) fn moov_with_stco(offsets: &[u32], extra: &[u8]) -> Vec<u8> {
        let mut stco = vec![0, 0, 0, 0];
        stco.extend_from_slice(&u32::try_from(offsets.len()).unwrap().to_be_bytes());
        for o in offsets {
            stco.extend_from_slice(&o.to_be_bytes());
        }
        let stbl = boxed(b"stbl", &boxed(b"stco", &stco).unwrap()).unwrap();
        let minf = boxed(b"minf", &stbl).unwrap();
        let trak = boxed(b"trak", &boxed(b"mdia", &minf).unwrap()).unwrap();
        let mut body = boxed(b"mvhd", &[0; 100]).unwrap();
        body.extend_from_slice(&trak);
        body.extend_from_slice(extra);
        boxed(b"moov", &body).unwrap()
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
    fn offsets_past_moov_move_and_those_before_stay() {
        // ftyp (24 bytes), moov at 24, then mdat.
        let mut moov = moov_with_stco(&[10, 5_000, 9_000], &[]);
        shift_chunk_offsets(&mut moov, 24, 37).unwrap();
        assert_eq!(stco_of(&moov), [10, 5_037, 9_037]);
        shift_chunk_offsets(&mut moov, 24, -37).unwrap();
        assert_eq!(stco_of(&moov), [10, 5_000, 9_000]);
        assert!(matches!(
            shift_chunk_offsets(&mut moov, 24, i64::from(u32::MAX)),
            Err(TagError::Unsupported(_))
        ));
    }

    #[test]
    fn damaged_boxes_are_errors_not_panics() {
        let moov = moov_with_stco(&[1, 2], &[]);
        for cut in [0, 7, 9, 20, moov.len() - 3] {
            let bad = &moov[..cut];
            let _ = split(bad).and_then(|(_, body)| children(body));
            let _ = shift_chunk_offsets(&mut bad.to_vec(), 0, 5);
        }
        let mut bad = moov.clone();
        bad[8..12].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(matches!(
            split(&bad).and_then(|(_, body)| children(body)),
            Err(TagError::Corrupt(_))
        ));
    }
}
