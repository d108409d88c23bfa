//! QuickTime chapters in MP4 files: a disabled text track whose samples are the chapter titles,
//! referenced by the audio track's `tref.chap`. Apple's players read these; ffmpeg writes them
//! next to the Nero `chpl` box for `.m4a`, and so does podhost, with the same boxes as ffmpeg.
//!
//! The samples (a 16-bit length, the UTF-8 title, an `encd` box saying UTF-8) go into a small
//! `mdat` just before `moov`; [`super::mp4`] places them. A chapter track that podhost wrote
//! before, in such an `mdat`, is replaced with it; one inside the audio's `mdat` (ffmpeg's) is
//! dropped from `moov` and its few bytes left unreferenced.

use super::contents::{Chapter, TagError};
use super::mp4box::{self, Kind, be32, be64};

/// The text sample description ffmpeg writes for chapter tracks (QuickTime `text`, default
/// style, an empty font table).
const TEXT_SAMPLE_ENTRY: [u8; 59] = [
    0x00, 0x00, 0x00, 0x3b, 0x74, 0x65, 0x78, 0x74, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x0d, 0x66, 0x74, 0x61, 0x62, 0x00, 0x01, 0x00, 0x01, 0x00,
];
/// The `encd` box after each sample's text: the text is UTF-8.
const ENCD_UTF8: [u8; 12] = [0, 0, 0, 12, b'e', b'n', b'c', b'd', 0, 0, 1, 0];

/// A track of `moov`: its id, its handler, the tracks its `tref.chap` names, and where its
/// one chunk of samples lies when it has exactly one.
pub(super) struct TrackInfo {
    pub(super) id: u32,
    pub(super) handler: Kind,
    pub(super) chapters: Vec<u32>,
    pub(super) single_chunk: Option<std::ops::Range<u64>>,
}

/// What a `trak` box says about itself.
pub(super) fn track_info(trak: &[u8]) -> Result<TrackInfo, TagError> {
    let (_, body) = mp4box::split(trak)?;
    let mut info = TrackInfo {
        id: 0,
        handler: [0; 4],
        chapters: Vec::new(),
        single_chunk: None,
    };
    for (kind, child) in mp4box::children(body)? {
        let (_, child_body) = mp4box::split(child)?;
        match &kind {
            b"tkhd" => {
                let at = if child_body.first() == Some(&1) {
                    20
                } else {
                    12
                };
                info.id = be32(child_body, at)?;
            }
            b"tref" => {
                for (ref_kind, reference) in mp4box::children(child_body)? {
                    if &ref_kind == b"chap" {
                        let (_, ids) = mp4box::split(reference)?;
                        info.chapters.extend(
                            ids.chunks_exact(4)
                                .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]])),
                        );
                    }
                }
            }
            b"mdia" => {
                for (media_kind, media_child) in mp4box::children(child_body)? {
                    let (_, media_body) = mp4box::split(media_child)?;
                    match &media_kind {
                        b"hdlr" => {
                            info.handler = media_body
                                .get(8..12)
                                .and_then(|h| h.try_into().ok())
                                .unwrap_or([0; 4]);
                        }
                        b"minf" => info.single_chunk = single_chunk(media_body)?,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    Ok(info)
}

/// The byte range of a track's samples when they are one chunk (`stco`/`co64` with one entry).
fn single_chunk(minf: &[u8]) -> Result<Option<std::ops::Range<u64>>, TagError> {
    let Some((_, stbl)) = mp4box::children(minf)?
        .into_iter()
        .find(|(k, _)| k == b"stbl")
    else {
        return Ok(None);
    };
    let (_, stbl) = mp4box::split(stbl)?;
    let (mut offset, mut size) = (None, None);
    for (kind, child) in mp4box::children(stbl)? {
        let (_, body) = mp4box::split(child)?;
        match &kind {
            b"stco" if be32(body, 4)? == 1 => offset = Some(u64::from(be32(body, 8)?)),
            b"co64" if be32(body, 4)? == 1 => {
                offset = Some(be64(body, 8)?);
            }
            b"stsz" => {
                let (fixed, count) = (be32(body, 4)?, be32(body, 8)?);
                size = Some(if fixed != 0 {
                    u64::from(fixed) * u64::from(count)
                } else {
                    (0..count as usize)
                        .map(|i| be32(body, 12 + 4 * i).map(u64::from))
                        .sum::<Result<u64, TagError>>()?
                });
            }
            _ => {}
        }
    }
    Ok(offset.zip(size).map(|(o, s)| o..o + s))
}

/// The samples of a chapter track for `chapters` (in order, checked), and each one's
/// duration in milliseconds. A gap before the first chapter is a sample with no title; the
/// last chapter lasts until `total_ms` (at least 1 ms).
pub(super) fn samples(chapters: &[Chapter], total_ms: u64) -> (Vec<u8>, Vec<u32>, Vec<u32>) {
    let mut starts: Vec<(u64, &str)> = chapters
        .iter()
        .map(|c| (c.start_ms, c.title.as_str()))
        .collect();
    if starts.first().is_some_and(|(start, _)| *start > 0) {
        starts.insert(0, (0, ""));
    }
    let mut data = Vec::new();
    let mut sizes = Vec::new();
    let mut durations = Vec::new();
    for (i, (start, title)) in starts.iter().enumerate() {
        let end = starts
            .get(i + 1)
            .map_or(total_ms.max(start + 1), |(next, _)| *next);
        durations.push(u32::try_from(end.saturating_sub(*start).max(1)).unwrap_or(u32::MAX));
        let text = title.as_bytes();
        let len = u16::try_from(text.len()).unwrap_or(u16::MAX);
        let before = data.len();
        data.extend_from_slice(&len.to_be_bytes());
        data.extend_from_slice(&text[..usize::from(len)]);
        data.extend_from_slice(&ENCD_UTF8);
        sizes.push(u32::try_from(data.len() - before).unwrap_or(u32::MAX));
    }
    (data, sizes, durations)
}

/// The `trak` of a chapter track: id `id`, samples of `sizes` and `durations` (ms) in one chunk
/// at `offset`, lasting `movie_duration` in the movie's timescale.
pub(super) fn trak(
    id: u32,
    sizes: &[u32],
    durations: &[u32],
    offset: u64,
    movie_duration: u64,
) -> Result<Vec<u8>, TagError> {
    let total_ms: u64 = durations.iter().map(|&d| u64::from(d)).sum();
    let movie_duration = u32::try_from(movie_duration).unwrap_or(u32::MAX);
    let total_ms = u32::try_from(total_ms).unwrap_or(u32::MAX);
    let count = u32::try_from(sizes.len()).unwrap_or(u32::MAX);

    // tkhd v0, flags "in movie" only (a disabled track: not shown as subtitles).
    let mut tkhd = vec![0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0];
    tkhd.extend_from_slice(&id.to_be_bytes());
    tkhd.extend_from_slice(&[0; 4]);
    tkhd.extend_from_slice(&movie_duration.to_be_bytes());
    tkhd.extend_from_slice(&[0; 16]); // reserved, layer, group, volume, reserved
    tkhd.extend_from_slice(&IDENTITY);
    tkhd.extend_from_slice(&[0; 8]); // width, height
    let mut elst = vec![0, 0, 0, 0, 0, 0, 0, 1];
    elst.extend_from_slice(&movie_duration.to_be_bytes());
    elst.extend_from_slice(&[0, 0, 0, 0, 0, 1, 0, 0]); // media time 0, rate 1.0
    let mut mdhd = vec![0; 12];
    mdhd.extend_from_slice(&1000u32.to_be_bytes());
    mdhd.extend_from_slice(&total_ms.to_be_bytes());
    mdhd.extend_from_slice(&[0x55, 0xc4, 0, 0]); // "und"
    let mut hdlr = vec![0; 8];
    hdlr.extend_from_slice(b"text");
    hdlr.extend_from_slice(&[0; 12]);
    hdlr.extend_from_slice(b"SubtitleHandler\0");
    let gmin = [0, 0, 0, 0, 0, 0x40, 0x80, 0, 0x80, 0, 0x80, 0, 0, 0, 0, 0];
    let mut text = vec![0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
    text.extend_from_slice(&[0; 14]);
    text.extend_from_slice(&[0x40, 0, 0, 0]);
    let gmhd = [
        mp4box::boxed(b"gmin", &gmin)?,
        mp4box::boxed(b"text", &text)?,
    ]
    .concat();
    let dref = [
        vec![0, 0, 0, 0, 0, 0, 0, 1],
        mp4box::boxed(b"url ", &[0, 0, 0, 1])?,
    ]
    .concat();

    let mut stsd = vec![0, 0, 0, 0, 0, 0, 0, 1];
    stsd.extend_from_slice(&TEXT_SAMPLE_ENTRY);
    let mut stts = vec![0, 0, 0, 0];
    let runs = runs(durations);
    stts.extend_from_slice(&u32::try_from(runs.len()).unwrap_or(u32::MAX).to_be_bytes());
    for (n, delta) in runs {
        stts.extend_from_slice(&n.to_be_bytes());
        stts.extend_from_slice(&delta.to_be_bytes());
    }
    let mut stsc = vec![0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1];
    stsc.extend_from_slice(&count.to_be_bytes());
    stsc.extend_from_slice(&[0, 0, 0, 1]);
    let mut stsz = vec![0; 8];
    stsz.extend_from_slice(&count.to_be_bytes());
    for size in sizes {
        stsz.extend_from_slice(&size.to_be_bytes());
    }
    let chunk_offset = match u32::try_from(offset) {
        Ok(small) => mp4box::boxed(
            b"stco",
            &[&[0, 0, 0, 0, 0, 0, 0, 1][..], &small.to_be_bytes()].concat(),
        )?,
        Err(_) => mp4box::boxed(
            b"co64",
            &[&[0, 0, 0, 0, 0, 0, 0, 1][..], &offset.to_be_bytes()].concat(),
        )?,
    };
    let stbl = [
        mp4box::boxed(b"stsd", &stsd)?,
        mp4box::boxed(b"stts", &stts)?,
        mp4box::boxed(b"stsc", &stsc)?,
        mp4box::boxed(b"stsz", &stsz)?,
        chunk_offset,
    ]
    .concat();
    let minf = [
        mp4box::boxed(b"gmhd", &gmhd)?,
        mp4box::boxed(b"dinf", &mp4box::boxed(b"dref", &dref)?)?,
        mp4box::boxed(b"stbl", &stbl)?,
    ]
    .concat();
    let mdia = [
        mp4box::boxed(b"mdhd", &mdhd)?,
        mp4box::boxed(b"hdlr", &hdlr)?,
        mp4box::boxed(b"minf", &minf)?,
    ]
    .concat();
    let trak = [
        mp4box::boxed(b"tkhd", &tkhd)?,
        mp4box::boxed(b"edts", &mp4box::boxed(b"elst", &elst)?)?,
        mp4box::boxed(b"mdia", &mdia)?,
    ]
    .concat();
    mp4box::boxed(b"trak", &trak)
}

/// The identity transformation matrix of a track header.
const IDENTITY: [u8; 36] = [
    0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0x40, 0, 0, 0,
];

/// Consecutive equal durations as (count, duration), as `stts` holds them.
fn runs(durations: &[u32]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for &d in durations {
        match out.last_mut() {
            Some((n, last)) if *last == d => *n += 1,
            _ => out.push((1, d)),
        }
    }
    out
}

/// A `trak` (whole box) with its `tref.chap` replaced by one naming `chapters` (none: removed).
pub(super) fn with_chapter_reference(
    trak: &[u8],
    chapters: Option<u32>,
) -> Result<Vec<u8>, TagError> {
    let (_, body) = mp4box::split(trak)?;
    let mut out = Vec::with_capacity(body.len() + 20);
    let mut placed = false;
    let put_reference = |out: &mut Vec<u8>, others: &[u8]| -> Result<(), TagError> {
        let mut tref = others.to_vec();
        if let Some(id) = chapters {
            mp4box::put(&mut tref, b"chap", &id.to_be_bytes())?;
        }
        if !tref.is_empty() {
            mp4box::put(out, b"tref", &tref)?;
        }
        Ok(())
    };
    for (kind, child) in mp4box::children(body)? {
        match &kind {
            b"tref" => {
                let (_, tref) = mp4box::split(child)?;
                let mut others = Vec::new();
                for (ref_kind, reference) in mp4box::children(tref)? {
                    if &ref_kind != b"chap" {
                        others.extend_from_slice(reference);
                    }
                }
                put_reference(&mut out, &others)?;
                placed = true;
            }
            b"mdia" if !placed => {
                put_reference(&mut out, &[])?;
                placed = true;
                out.extend_from_slice(child);
            }
            _ => out.extend_from_slice(child),
        }
    }
    if !placed {
        put_reference(&mut out, &[])?;
    }
    mp4box::boxed(b"trak", &out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tags::test_chapter as chapter;

    #[test]
    fn samples_cover_the_whole_audio_from_zero() {
        let (data, sizes, durations) =
            samples(&[chapter(1_000, "A"), chapter(4_000, "Bé")], 10_000);
        // A silent gap sample first, then the chapters; each sample is length, text, encd.
        assert_eq!(durations, [1_000, 3_000, 6_000]);
        assert_eq!(sizes, [2 + 12, 2 + 1 + 12, 2 + 3 + 12]);
        assert_eq!(data.len() as u32, sizes.iter().sum::<u32>());
        assert_eq!(&data[14..17], &[0, 1, b'A']);
        let (_, _, at_zero) = samples(&[chapter(0, "A")], 0);
        assert_eq!(at_zero, [1], "never a zero-length sample");
    }

    #[test]
    fn a_written_track_reads_back() {
        let (_, sizes, durations) = samples(&[chapter(0, "A"), chapter(500, "B")], 2_000);
        let trak = trak(7, &sizes, &durations, 1_234, 2_000).unwrap();
        let info = track_info(&trak).unwrap();
        assert_eq!(info.id, 7);
        assert_eq!(&info.handler, b"text");
        let total: u64 = sizes.iter().map(|&s| u64::from(s)).sum();
        assert_eq!(info.single_chunk, Some(1_234..1_234 + total));
        assert_eq!(runs(&[5, 5, 7, 5]), [(2, 5), (1, 7), (1, 5)]);
    }

    #[test]
    fn the_chapter_reference_is_replaced_or_removed() {
        let mdia = mp4box::boxed(b"mdia", &[]).unwrap();
        let tkhd = mp4box::boxed(b"tkhd", &[0; 84]).unwrap();
        let trak = mp4box::boxed(b"trak", &[tkhd, mdia].concat()).unwrap();
        let with = with_chapter_reference(&trak, Some(9)).unwrap();
        assert_eq!(track_info(&with).unwrap().chapters, [9]);
        let again = with_chapter_reference(&with, Some(3)).unwrap();
        assert_eq!(track_info(&again).unwrap().chapters, [3]);
        let without = with_chapter_reference(&again, None).unwrap();
        assert_eq!(without, trak);
    }
}
