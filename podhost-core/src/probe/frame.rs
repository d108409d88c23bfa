//! Frame headers of elementary audio streams: MPEG audio (layers I–III) and ADTS AAC.
//!
//! Parsing is table-driven and allocation-free; every function accepts any byte slice and
//! returns `None` rather than panicking when the bytes are not a valid header.

/// MPEG audio version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Version {
    /// MPEG-1 (ISO 11172-3).
    V1,
    /// MPEG-2 low sampling frequencies (ISO 13818-3).
    V2,
    /// The unofficial MPEG-2.5 extension.
    V25,
}

/// MPEG audio layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layer {
    /// Layer I.
    L1,
    /// Layer II.
    L2,
    /// Layer III ("MP3").
    L3,
}

/// Which elementary stream format a frame belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StreamKind {
    /// MPEG-1/2/2.5 audio.
    Mpeg {
        /// The MPEG version.
        version: Version,
        /// The layer.
        layer: Layer,
    },
    /// AAC in an ADTS stream.
    Adts,
}

/// One parsed frame header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FrameHeader {
    /// Stream format.
    pub kind: StreamKind,
    /// Sample rate in Hz.
    pub sample_rate: u32,
    /// Number of channels (1 for MPEG mono, 2 otherwise; ADTS channel configuration).
    pub channels: u16,
    /// Nominal bitrate in bits per second (MPEG only; 0 for ADTS).
    pub bitrate: u32,
    /// Frame length in bytes, header included.
    pub frame_len: usize,
    /// Samples per channel carried by this frame.
    pub samples: u32,
    /// Whether a CRC follows the header.
    pub has_crc: bool,
}

/// Bytes needed to parse any header (ADTS needs 7, MPEG 4).
pub(crate) const MAX_HEADER_LEN: usize = 7;

/// Largest possible frame (ADTS frame length is a 13-bit field).
pub(crate) const MAX_FRAME_LEN: usize = 8191;

const MPEG1_BITRATES: [[u16; 15]; 3] = [
    [
        0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448,
    ],
    [
        0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384,
    ],
    [
        0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320,
    ],
];
const MPEG2_BITRATES: [[u16; 15]; 2] = [
    [
        0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256,
    ],
    [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
];
const MPEG_SAMPLE_RATES: [[u32; 3]; 3] = [
    [44_100, 48_000, 32_000],
    [22_050, 24_000, 16_000],
    [11_025, 12_000, 8_000],
];
const ADTS_SAMPLE_RATES: [u32; 13] = [
    96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000,
    7_350,
];

impl FrameHeader {
    /// Whether `other` belongs to the same elementary stream as `self` (same format and rate).
    pub(crate) fn same_stream(&self, other: &FrameHeader) -> bool {
        self.kind == other.kind && self.sample_rate == other.sample_rate
    }
}

/// Parses the frame header at the start of `b`, if there is a valid one.
pub(crate) fn parse(b: &[u8]) -> Option<FrameHeader> {
    let (&b0, &b1) = (b.first()?, b.get(1)?);
    if b0 != 0xFF {
        return None;
    }
    if b1 & 0xF6 == 0xF0 {
        parse_adts(b)
    } else if b1 & 0xE0 == 0xE0 {
        parse_mpeg(b)
    } else {
        None
    }
}

fn parse_mpeg(b: &[u8]) -> Option<FrameHeader> {
    let (b1, b2, b3) = (*b.get(1)?, *b.get(2)?, *b.get(3)?);
    let (version, version_row) = match (b1 >> 3) & 0b11 {
        0 => (Version::V25, 2),
        2 => (Version::V2, 1),
        3 => (Version::V1, 0),
        _ => return None,
    };
    let layer = match (b1 >> 1) & 0b11 {
        1 => Layer::L3,
        2 => Layer::L2,
        3 => Layer::L1,
        _ => return None,
    };
    let has_crc = b1 & 1 == 0;
    let bitrate_index = usize::from(b2 >> 4);
    let rate_index = usize::from((b2 >> 2) & 0b11);
    let padding = u32::from((b2 >> 1) & 1);
    let mono = b3 >> 6 == 0b11;
    if b3 & 0b11 == 0b10 {
        // Reserved emphasis value.
        return None;
    }
    let table_kbps = match (version, layer) {
        (Version::V1, Layer::L1) => MPEG1_BITRATES.first(),
        (Version::V1, Layer::L2) => MPEG1_BITRATES.get(1),
        (Version::V1, Layer::L3) => MPEG1_BITRATES.get(2),
        (_, Layer::L1) => MPEG2_BITRATES.first(),
        (_, _) => MPEG2_BITRATES.get(1),
    }?;
    // Index 0 is free format (not supported) and 15 is forbidden.
    let kbps = u32::from(*table_kbps.get(bitrate_index)?);
    if kbps == 0 {
        return None;
    }
    let sample_rate = *MPEG_SAMPLE_RATES.get(version_row)?.get(rate_index)?;
    let bitrate = kbps * 1000;
    let (frame_len, samples) = match (layer, version) {
        (Layer::L1, _) => ((12 * bitrate / sample_rate + padding) * 4, 384),
        (Layer::L2, _) => (144 * bitrate / sample_rate + padding, 1152),
        (Layer::L3, Version::V1) => (144 * bitrate / sample_rate + padding, 1152),
        (Layer::L3, _) => (72 * bitrate / sample_rate + padding, 576),
    };
    Some(FrameHeader {
        kind: StreamKind::Mpeg { version, layer },
        sample_rate,
        channels: if mono { 1 } else { 2 },
        bitrate,
        frame_len: usize::try_from(frame_len).ok()?,
        samples,
        has_crc,
    })
}

fn parse_adts(b: &[u8]) -> Option<FrameHeader> {
    let head: &[u8; 7] = b.get(..7)?.try_into().ok()?;
    let [_, b1, b2, b3, b4, b5, b6] = *head;
    let has_crc = b1 & 1 == 0;
    let rate_index = usize::from((b2 >> 2) & 0x0F);
    let sample_rate = *ADTS_SAMPLE_RATES.get(rate_index)?;
    let channel_config = ((b2 & 1) << 2) | (b3 >> 6);
    let channels = match channel_config {
        // 0 means "described in-band by a program config element": not handled here.
        0 => return None,
        7 => 8,
        n => u16::from(n),
    };
    let frame_len = (usize::from(b3 & 0b11) << 11) | (usize::from(b4) << 3) | usize::from(b5 >> 5);
    let min_len = if has_crc { 9 } else { 7 };
    if frame_len <= min_len {
        return None;
    }
    let blocks = u32::from(b6 & 0b11) + 1;
    Some(FrameHeader {
        kind: StreamKind::Adts,
        sample_rate,
        channels,
        bitrate: 0,
        frame_len,
        samples: 1024 * blocks,
        has_crc,
    })
}

/// What a Xing/Info, LAME or VBRI header in the first frame of an MP3 stream says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct VbrHeader {
    /// Number of audio frames in the stream, header frame excluded.
    pub frames: Option<u32>,
    /// Encoder delay in samples (LAME tag).
    pub delay: Option<u32>,
    /// Encoder padding in samples at the end (LAME tag).
    pub padding: Option<u32>,
}

/// Parses a Xing/Info (with optional LAME extension) or VBRI header inside `frame`, the complete
/// (or possibly truncated) bytes of the first layer III frame, header included.
pub(crate) fn parse_vbr_header(frame: &[u8], h: &FrameHeader) -> Option<VbrHeader> {
    let StreamKind::Mpeg {
        version,
        layer: Layer::L3,
    } = h.kind
    else {
        return None;
    };
    let side_info = match (version, h.channels) {
        (Version::V1, 1) => 17,
        (Version::V1, _) => 32,
        (_, 1) => 9,
        (_, _) => 17,
    };
    // The tag follows the side information; a CRC, when flagged, may or may not precede it.
    let offsets = [4 + side_info, 6 + side_info];
    let tries = if h.has_crc { 2 } else { 1 };
    for &offset in offsets.iter().take(tries) {
        if let Some(xing) = frame.get(offset..).and_then(parse_xing) {
            return Some(xing);
        }
    }
    parse_vbri(frame.get(36..)?)
}

fn be_u32(b: &[u8], at: usize) -> Option<u32> {
    let quad: [u8; 4] = b.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_be_bytes(quad))
}

fn parse_xing(b: &[u8]) -> Option<VbrHeader> {
    let id = b.get(..4)?;
    if id != b"Xing" && id != b"Info" {
        return None;
    }
    let flags = be_u32(b, 4)?;
    let mut at = 8;
    let mut out = VbrHeader::default();
    if flags & 1 != 0 {
        out.frames = Some(be_u32(b, at)?);
        at += 4;
    }
    if flags & 2 != 0 {
        at += 4;
    }
    if flags & 4 != 0 {
        at += 100;
    }
    if flags & 8 != 0 {
        at += 4;
    }
    // LAME extension: 9-byte encoder string, then the delay/padding pair at offset 21.
    if let Some(lame) = b.get(at..at + 24) {
        let encoder = lame.get(..4)?;
        if [&b"LAME"[..], b"Lavf", b"Lavc"].contains(&encoder) {
            let trim = lame.get(21..24)?;
            let (t0, t1, t2) = (
                u32::from(*trim.first()?),
                u32::from(*trim.get(1)?),
                u32::from(*trim.get(2)?),
            );
            let packed = (t0 << 16) | (t1 << 8) | t2;
            out.delay = Some(packed >> 12);
            out.padding = Some(packed & 0xFFF);
        }
    }
    Some(out)
}

fn parse_vbri(b: &[u8]) -> Option<VbrHeader> {
    if b.get(..4)? != b"VBRI" {
        return None;
    }
    // id(4) version(2) delay(2) quality(2) bytes(4) frames(4)
    Some(VbrHeader {
        frames: Some(be_u32(b, 14)?),
        delay: None,
        padding: None,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn parses_mpeg1_layer3_128k() {
        let h = parse(&[0xFF, 0xFB, 0x90, 0x64]).unwrap();
        assert_eq!(h.sample_rate, 44_100);
        assert_eq!(h.bitrate, 128_000);
        assert_eq!(h.frame_len, 417);
        assert_eq!(h.samples, 1152);
        assert_eq!(h.channels, 2);
        assert_eq!(
            h.kind,
            StreamKind::Mpeg {
                version: Version::V1,
                layer: Layer::L3
            }
        );
    }

    #[test]
    fn parses_mpeg2_layer3_mono_with_padding() {
        // MPEG-2, layer III, no CRC, 64 kbps, 22.05 kHz, padded, mono.
        let h = parse(&[0xFF, 0xF3, 0x82, 0xC0]).unwrap();
        assert_eq!(h.sample_rate, 22_050);
        assert_eq!(h.bitrate, 64_000);
        assert_eq!(h.frame_len, 72 * 64_000 / 22_050 + 1);
        assert_eq!(h.samples, 576);
        assert_eq!(h.channels, 1);
    }

    #[test]
    fn rejects_reserved_fields() {
        assert!(
            parse(&[0xFF, 0xEB, 0x90, 0x64]).is_none(),
            "reserved version"
        );
        assert!(parse(&[0xFF, 0xFB, 0xF0, 0x64]).is_none(), "bad bitrate");
        assert!(parse(&[0xFF, 0xFB, 0x00, 0x64]).is_none(), "free format");
        assert!(parse(&[0xFF, 0xFB, 0x9C, 0x64]).is_none(), "reserved rate");
        assert!(parse(&[0xFF, 0xFB, 0x90]).is_none(), "short");
        assert!(parse(&[]).is_none());
    }

    #[test]
    fn parses_adts() {
        // AAC LC, 44.1 kHz, mono, frame length 200, one raw block.
        let len: usize = 200;
        let b = [
            0xFF,
            0xF1,
            0x50,
            0x40 | ((len >> 11) as u8 & 0b11),
            (len >> 3) as u8,
            ((len & 0b111) << 5) as u8 | 0x1F,
            0xFC,
        ];
        let h = parse(&b).unwrap();
        assert_eq!(h.kind, StreamKind::Adts);
        assert_eq!(h.sample_rate, 44_100);
        assert_eq!(h.channels, 1);
        assert_eq!(h.frame_len, 200);
        assert_eq!(h.samples, 1024);
    }
}
