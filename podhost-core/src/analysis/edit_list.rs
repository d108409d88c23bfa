//! The edit list of an MP4/M4A audio track, which symphonia 0.6 does not apply.
//!
//! AAC encoders put priming samples (usually 1,024) before the audio and say so in the track's
//! edit list (`moov/trak/edts/elst`): the presentation starts `media_time` into the decoded
//! samples and lasts `segment_duration`. ffmpeg and players trim both ends; so does the
//! analysis, or every time would be late by the priming (23 ms at 44.1 kHz).

use std::io::{Read, Seek, SeekFrom};

/// Largest `moov` box read into memory; a larger one is not searched for an edit list.
const MAX_MOOV: u64 = 16 * 1024 * 1024;
/// Most top-level boxes walked to find `moov`.
const MAX_BOXES: usize = 1024;

/// The presented part of a track, in its own and the movie's time scales.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Edit {
    /// Track id (`tkhd`), as symphonia numbers tracks.
    pub track_id: u32,
    /// Decoded time skipped at the start, in the media time scale.
    pub skip: u64,
    /// Media time scale (`mdhd`).
    pub media_scale: u32,
    /// Presented duration in the movie time scale (`mvhd`), when the edit bounds it.
    pub keep: Option<u64>,
    /// Movie time scale.
    pub movie_scale: u32,
}

impl Edit {
    /// `(first frame kept, frames kept)` at `sample_rate`.
    pub(crate) fn frames(&self, sample_rate: u32) -> (u64, Option<u64>) {
        let rescale = |v: u64, scale: u32| {
            let v = u128::from(v) * u128::from(sample_rate) / u128::from(scale.max(1));
            u64::try_from(v).unwrap_or(u64::MAX)
        };
        (
            rescale(self.skip, self.media_scale),
            self.keep.map(|k| rescale(k, self.movie_scale)),
        )
    }
}

/// Reads the edit lists of the sound tracks of the ISO media file in `source`, leaving the
/// position anywhere. Empty when there is no `moov`, it is too large, or nothing is edited.
pub(crate) fn edits<R: Read + Seek>(source: &mut R) -> Vec<Edit> {
    find_moov(source)
        .map(|moov| parse_moov(&moov))
        .unwrap_or_default()
}

fn find_moov<R: Read + Seek>(source: &mut R) -> Option<Vec<u8>> {
    let mut at = 0u64;
    for _ in 0..MAX_BOXES {
        source.seek(SeekFrom::Start(at)).ok()?;
        let mut head = [0u8; 16];
        source.read_exact(&mut head[..8]).ok()?;
        let size32 = u64::from(u32::from_be_bytes([head[0], head[1], head[2], head[3]]));
        let (size, header) = match size32 {
            1 => {
                source.read_exact(&mut head[8..16]).ok()?;
                let mut large = [0u8; 8];
                large.copy_from_slice(&head[8..16]);
                (u64::from_be_bytes(large), 16)
            }
            0 => (u64::MAX, 8),
            n => (n, 8),
        };
        if size < header {
            return None;
        }
        if &head[4..8] == b"moov" {
            let len = size.checked_sub(header).filter(|&l| l <= MAX_MOOV)?;
            let mut moov = vec![0u8; usize::try_from(len).ok()?];
            source.read_exact(&mut moov).ok()?;
            return Some(moov);
        }
        at = at.checked_add(size)?;
    }
    None
}

/// The children of a box's payload: `(type, payload)`.
fn children(mut data: &[u8]) -> impl Iterator<Item = (&[u8], &[u8])> {
    std::iter::from_fn(move || {
        let size = usize::try_from(u32::from_be_bytes(data.get(..4)?.try_into().ok()?)).ok()?;
        let kind = data.get(4..8)?;
        let (header, size) = match size {
            1 => {
                let large = u64::from_be_bytes(data.get(8..16)?.try_into().ok()?);
                (16, usize::try_from(large).ok()?)
            }
            0 => (8, data.len()),
            n => (8, n),
        };
        let payload = data.get(header..size)?;
        data = data.get(size..).unwrap_or_default();
        Some((kind, payload))
    })
}

fn child<'a>(data: &'a [u8], kind: &[u8]) -> Option<&'a [u8]> {
    children(data).find(|(k, _)| *k == kind).map(|(_, p)| p)
}

fn be_u32(data: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(data.get(at..at + 4)?.try_into().ok()?))
}

fn be_u64(data: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_be_bytes(data.get(at..at + 8)?.try_into().ok()?))
}

/// The time scale of an `mvhd` or `mdhd` payload.
fn time_scale(header: &[u8]) -> Option<u32> {
    match header.first()? {
        0 => be_u32(header, 12),
        1 => be_u32(header, 20),
        _ => None,
    }
}

fn parse_moov(moov: &[u8]) -> Vec<Edit> {
    let Some(movie_scale) = child(moov, b"mvhd").and_then(time_scale) else {
        return Vec::new();
    };
    children(moov)
        .filter(|(k, _)| *k == b"trak")
        .filter_map(|(_, trak)| parse_trak(trak, movie_scale))
        .collect()
}

fn parse_trak(trak: &[u8], movie_scale: u32) -> Option<Edit> {
    let tkhd = child(trak, b"tkhd")?;
    let track_id = match tkhd.first()? {
        0 => be_u32(tkhd, 12)?,
        1 => be_u32(tkhd, 20)?,
        _ => return None,
    };
    let mdia = child(trak, b"mdia")?;
    let handler = child(mdia, b"hdlr")?.get(8..12)?;
    if handler != b"soun" {
        return None;
    }
    let media_scale = time_scale(child(mdia, b"mdhd")?)?;
    let elst = child(child(trak, b"edts")?, b"elst")?;
    let version = *elst.first()?;
    let count = be_u32(elst, 4)?;
    let entry_len = if version == 1 { 20 } else { 12 };
    let mut edits = (0..usize::try_from(count).ok()?.min(4096)).map_while(|i| {
        let at = 8 + i * entry_len;
        if version == 1 {
            Some((be_u64(elst, at)?, be_u64(elst, at + 8)? as i64))
        } else {
            Some((
                u64::from(be_u32(elst, at)?),
                i64::from(be_u32(elst, at + 4)? as i32),
            ))
        }
    });
    // Empty edits (media time -1) only delay the track; the first real one says what is shown.
    let (duration, media_time) = edits.find(|&(_, t)| t >= 0)?;
    let more = edits.any(|(_, t)| t >= 0);
    let skip = u64::try_from(media_time).ok()?;
    // With several real edits only the first one's start is applied.
    let keep = (duration > 0 && !more).then_some(duration);
    (skip > 0 || keep.is_some()).then_some(Edit {
        track_id,
        skip,
        media_scale,
        keep,
        movie_scale,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn boxed(kind: &[u8], payload: &[u8]) -> Vec<u8> {
        let mut out = ((payload.len() + 8) as u32).to_be_bytes().to_vec();
        out.extend_from_slice(kind);
        out.extend_from_slice(payload);
        out
    }

    fn scale_box(kind: &[u8], scale: u32) -> Vec<u8> {
        let mut p = vec![0u8; 12];
        p.extend_from_slice(&scale.to_be_bytes());
        p.extend_from_slice(&[0u8; 8]);
        boxed(kind, &p)
    }

    #[test]
    fn reads_the_priming_and_length() {
        let mut tkhd = vec![0u8; 12];
        tkhd.extend_from_slice(&7u32.to_be_bytes());
        tkhd.extend_from_slice(&[0u8; 8]);
        let mut hdlr = vec![0u8; 8];
        hdlr.extend_from_slice(b"soun");
        let mut elst = vec![0u8; 4];
        elst.extend_from_slice(&1u32.to_be_bytes());
        elst.extend_from_slice(&4000u32.to_be_bytes()); // 4 s at 1000/s
        elst.extend_from_slice(&1024u32.to_be_bytes());
        elst.extend_from_slice(&0x0001_0000u32.to_be_bytes());
        let mdia = [scale_box(b"mdhd", 44_100), boxed(b"hdlr", &hdlr)].concat();
        let trak = [
            boxed(b"tkhd", &tkhd),
            boxed(b"edts", &boxed(b"elst", &elst)),
            boxed(b"mdia", &mdia),
        ]
        .concat();
        let moov = [scale_box(b"mvhd", 1000), boxed(b"trak", &trak)].concat();
        let file = [
            boxed(b"ftyp", b"M4A \0\0\0\0"),
            boxed(b"moov", &moov),
            boxed(b"mdat", &[1, 2, 3]),
        ]
        .concat();
        let found = edits(&mut std::io::Cursor::new(file));
        assert_eq!(
            found,
            [Edit {
                track_id: 7,
                skip: 1024,
                media_scale: 44_100,
                keep: Some(4000),
                movie_scale: 1000
            }]
        );
        assert_eq!(found[0].frames(44_100), (1024, Some(176_400)));
        assert!(edits(&mut std::io::Cursor::new(b"junk".to_vec())).is_empty());
    }
}
