//! What a playlist needs from the fragmented MP4 files ffmpeg wrote, read with `mp4-atom`: the
//! RFC 6381 codec of an init segment, and where a media segment's first frame ends.

use mp4_atom::{Codec, Decode, Moof, Moov};

/// The boxes of `bytes` at the top level: (kind, start, length).
fn boxes(bytes: &[u8]) -> impl Iterator<Item = ([u8; 4], usize, usize)> + '_ {
    crate::probe::bmff::boxes(bytes).map(|b| (b.kind, b.start, b.len))
}

/// The codec of the first track of an init segment, as `CODECS` names it: `avc1.PPCCLL` for
/// H.264 (profile, constraints, level from its `avcC`), `mp4a.40.N` for AAC (its audio object
/// type). `None` for anything else.
pub fn codec(init: &[u8]) -> Option<String> {
    let (_, start, len) = boxes(init).find(|(kind, _, _)| kind == b"moov")?;
    let moov = Moov::decode(&mut &init[start..start + len]).ok()?;
    let trak = moov.trak.first()?;
    match trak.mdia.minf.stbl.stsd.codecs.first()? {
        Codec::Avc1(avc) => Some(format!(
            "avc1.{:02x}{:02x}{:02x}",
            avc.avcc.avc_profile_indication,
            avc.avcc.profile_compatibility,
            avc.avcc.avc_level_indication
        )),
        Codec::Mp4a(mp4a) => {
            let object = mp4a
                .esds
                .es_desc
                .dec_config
                .dec_specific
                .as_ref()
                .map_or(2, |specific| specific.profile);
            Some(format!("mp4a.40.{object}"))
        }
        _ => None,
    }
}

/// Bytes from a media segment's start to the end of its first sample (its key frame, for a
/// segment that starts on one): the `moof`, the `mdat` header and that sample. `None` when the
/// segment has no `moof` with a sample.
pub fn first_frame_end(segment: &[u8]) -> Option<u64> {
    let (_, start, len) = boxes(segment).find(|(kind, _, _)| kind == b"moof")?;
    let moof = Moof::decode(&mut &segment[start..start + len]).ok()?;
    let traf = moof.traf.first()?;
    let trun = traf.trun.first()?;
    let first = trun.samples.get(0)?;
    let size = first.size.or(traf.tfhd.default_sample_size)?;
    let data_start = match trun.data_offset {
        Some(offset) => start.checked_add_signed(offset as isize)?,
        None => {
            let (_, mdat, _) = boxes(segment).find(|(kind, _, _)| kind == b"mdat")?;
            mdat + 8
        }
    };
    let end = data_start as u64 + u64::from(size);
    (end <= segment.len() as u64).then_some(end)
}
