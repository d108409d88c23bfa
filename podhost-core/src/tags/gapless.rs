//! Gapless playback information as iTunes writes it: the `iTunSMPB` item (the encoder's
//! priming, the last frame's padding and the length, in samples), derived from the AAC track's
//! edit list whenever podhost writes an MP4's tags, for the players that read only the item.
//! The edit list is the one source: an item that disagrees with it is replaced.

use super::contents::TagError;
use super::mp4box::{self, be32, be64};

/// What an `iTunSMPB` item says, in samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Gapless {
    /// Decoded samples skipped at the start.
    pub(super) priming: u64,
    /// Decoded samples cut at the end.
    pub(super) padding: u64,
    /// Samples presented.
    pub(super) samples: u64,
}

impl Gapless {
    /// What the AAC track `trak` (a whole box) of a movie of time scale `movie_scale` plays,
    /// by its edit list: `None` for another codec, or an edit list of other than one edit.
    pub(super) fn of_trak(trak: &[u8], movie_scale: u32) -> Result<Option<Gapless>, TagError> {
        let (_, body) = mp4box::split(trak)?;
        let mut edit = None;
        let mut media = None;
        for (kind, child) in mp4box::children(body)? {
            let (_, child_body) = mp4box::split(child)?;
            match &kind {
                b"edts" => {
                    for (kind, elst) in mp4box::children(child_body)? {
                        if &kind == b"elst" {
                            edit = the_edit(mp4box::split(elst)?.1)?;
                        }
                    }
                }
                b"mdia" => media = Some(child_body),
                _ => {}
            }
        }
        let (Some((duration, start)), Some(mdia)) = (edit, media) else {
            return Ok(None);
        };
        let mut scale = None;
        let mut decoded = None;
        for (kind, child) in mp4box::children(mdia)? {
            let (_, child_body) = mp4box::split(child)?;
            match &kind {
                b"mdhd" => scale = Some(media_scale(child_body)?),
                b"minf" => decoded = aac_samples(child_body)?,
                _ => {}
            }
        }
        let (Some(scale), Some(decoded)) = (scale, decoded) else {
            return Ok(None);
        };
        if movie_scale == 0 {
            return Ok(None);
        }
        let samples = u64::try_from(
            (u128::from(duration) * u128::from(scale) + u128::from(movie_scale) / 2)
                / u128::from(movie_scale),
        )
        .unwrap_or(u64::MAX);
        let Some(padding) = decoded
            .checked_sub(start)
            .and_then(|d| d.checked_sub(samples))
        else {
            return Ok(None);
        };
        Ok(Some(Gapless {
            priming: start,
            padding,
            samples,
        }))
    }

    /// The `----` item of `ilst` that says it.
    pub(super) fn item(&self) -> Result<Vec<u8>, TagError> {
        let text = format!(
            " 00000000 {:08X} {:08X} {:016X} 00000000 00000000 00000000 00000000 00000000 \
             00000000 00000000 00000000",
            self.priming, self.padding, self.samples
        );
        let mut body = Vec::new();
        mp4box::put(
            &mut body,
            b"mean",
            &[&[0; 4][..], b"com.apple.iTunes"].concat(),
        )?;
        mp4box::put(&mut body, b"name", &[&[0; 4][..], b"iTunSMPB"].concat())?;
        let mut data = vec![0, 0, 0, 1, 0, 0, 0, 0];
        data.extend_from_slice(text.as_bytes());
        mp4box::put(&mut body, b"data", &data)?;
        mp4box::boxed(b"----", &body)
    }
}

/// Whether the `ilst` item `item` (a whole box) is an `iTunSMPB`.
pub(super) fn is_item(item: &[u8]) -> bool {
    let Ok((kind, body)) = mp4box::split(item) else {
        return false;
    };
    &kind == b"----"
        && mp4box::children(body).is_ok_and(|children| {
            children.iter().any(|(kind, child)| {
                kind == b"name" && mp4box::split(child).is_ok_and(|(_, b)| b.ends_with(b"iTunSMPB"))
            })
        })
}

/// The one edit of an `elst` body: its duration (movie scale) and its start (media scale).
fn the_edit(elst: &[u8]) -> Result<Option<(u64, u64)>, TagError> {
    let version = elst.first().copied().unwrap_or(0);
    if be32(elst, 4)? != 1 {
        return Ok(None);
    }
    let (duration, start) = match version {
        1 => (be64(elst, 8)?, be64(elst, 16)? as i64),
        _ => (u64::from(be32(elst, 8)?), i64::from(be32(elst, 12)? as i32)),
    };
    Ok(u64::try_from(start).ok().map(|start| (duration, start)))
}

/// The time scale of an `mdhd` body.
fn media_scale(mdhd: &[u8]) -> Result<u32, TagError> {
    match mdhd.first() {
        Some(1) => be32(mdhd, 20),
        _ => be32(mdhd, 12),
    }
}

/// The decoded samples of an AAC track's `minf` body: its frames times the frame's length (the
/// longest duration in `stts`: a muxer may give the last frame only the samples it presents);
/// `None` for a track of another codec.
fn aac_samples(minf: &[u8]) -> Result<Option<u64>, TagError> {
    let Some((_, stbl)) = mp4box::children(minf)?
        .into_iter()
        .find(|(kind, _)| kind == b"stbl")
    else {
        return Ok(None);
    };
    let (_, stbl) = mp4box::split(stbl)?;
    let (mut aac, mut total) = (false, None);
    for (kind, child) in mp4box::children(stbl)? {
        let (_, body) = mp4box::split(child)?;
        match &kind {
            // The first sample entry's type, after the version, flags and count.
            b"stsd" => aac = body.get(12..16) == Some(b"mp4a".as_slice()),
            b"stts" => {
                let count = be32(body, 4)? as usize;
                let (mut frames, mut frame) = (0u64, 0u64);
                for i in 0..count {
                    let at = 8 + i * 8;
                    frames += u64::from(be32(body, at)?);
                    frame = frame.max(u64::from(be32(body, at + 4)?));
                }
                total = Some(frames * frame);
            }
            _ => {}
        }
    }
    Ok(total.filter(|_| aac))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An AAC track of `frames` frames of 1,024 at 44.1 kHz, its edit starting at `start`
    /// for `duration` (movie scale `movie`).
    fn trak(frames: u32, start: u32, duration: u32) -> Vec<u8> {
        let b = |kind: &[u8; 4], body: &[u8]| mp4box::boxed(kind, body).unwrap();
        let elst = [
            &[0u8; 4][..],
            &1u32.to_be_bytes(),
            &duration.to_be_bytes(),
            &start.to_be_bytes(),
            &[0, 1, 0, 0],
        ]
        .concat();
        let mut mdhd = vec![0u8; 12];
        mdhd.extend_from_slice(&44_100u32.to_be_bytes());
        mdhd.extend_from_slice(&[0; 8]);
        let stsd = [&[0u8; 4][..], &1u32.to_be_bytes(), &b(b"mp4a", &[0; 28])].concat();
        let stts = [
            &[0u8; 4][..],
            &1u32.to_be_bytes(),
            &frames.to_be_bytes(),
            &1024u32.to_be_bytes(),
        ]
        .concat();
        let stbl = [b(b"stsd", &stsd), b(b"stts", &stts)].concat();
        let minf = b(b"stbl", &stbl);
        let mdia = [b(b"mdhd", &mdhd), b(b"minf", &minf)].concat();
        let body = [b(b"edts", &b(b"elst", &elst)), b(b"mdia", &mdia)].concat();
        b(b"trak", &body)
    }

    #[test]
    fn the_edit_list_gives_priming_padding_and_length() {
        // 100 frames, 1,024 priming, 100,000 samples presented: 1,376 of padding.
        let gapless = Gapless::of_trak(&trak(100, 1024, 100_000), 44_100).unwrap();
        assert_eq!(
            gapless,
            Some(Gapless {
                priming: 1024,
                padding: 1376,
                samples: 100_000
            })
        );
        // At a movie scale of 1,000 the length is the nearest sample to the milliseconds.
        let coarse = Gapless::of_trak(&trak(100, 1024, 2268), 1000)
            .unwrap()
            .unwrap();
        assert_eq!(coarse.samples, 100_019);
        // An edit past the decoded samples says nothing.
        assert_eq!(
            Gapless::of_trak(&trak(10, 1024, 100_000), 44_100).unwrap(),
            None
        );
    }

    #[test]
    fn the_item_is_itunes_text_and_is_recognised() {
        let item = Gapless {
            priming: 1024,
            padding: 1376,
            samples: 100_000,
        }
        .item()
        .unwrap();
        assert!(is_item(&item));
        let text = String::from_utf8_lossy(&item);
        assert!(
            text.contains(" 00000000 00000400 00000560 00000000000186A0 00000000"),
            "{text}"
        );
        assert!(!is_item(&mp4box::boxed(b"\xa9nam", &[]).unwrap()));
    }
}
