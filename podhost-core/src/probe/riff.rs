//! RIFF WAVE header sanity checks made before handing a file to symphonia's WAVE demuxer.

/// Most chunks walked looking for the format chunk.
const MAX_CHUNKS: usize = 64;

/// Whether the WAVE format chunk found in `b` (the file's first bytes) has a plausible channel
/// count (1–256) and sample size (at most 64 bits). Symphonia's demuxer does unchecked `u16`
/// arithmetic on these fields, which panics (debug) or wraps (release) on absurd values. A
/// format chunk beyond `b` is not judged (true).
pub(crate) fn wave_format_is_sane(b: &[u8]) -> bool {
    let mut at: usize = 12;
    for _ in 0..MAX_CHUNKS {
        let Some(header) = b.get(at..at.saturating_add(8)) else {
            return true;
        };
        let (id, len) = header.split_at(4);
        let len = len
            .try_into()
            .map(u32::from_le_bytes)
            .map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
        if id == b"fmt " {
            let u16_at = |i: usize| {
                b.get(at + 8 + i..at + 10 + i)
                    .and_then(|s| s.try_into().ok())
                    .map(u16::from_le_bytes)
            };
            return match (u16_at(2), u16_at(14)) {
                (Some(channels), Some(bits)) => (1..=256).contains(&channels) && bits <= 64,
                _ => true,
            };
        }
        at = at
            .saturating_add(8)
            .saturating_add(len)
            .saturating_add(len & 1);
    }
    true
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn wav(channels: u16, bits: u16) -> Vec<u8> {
        let mut b = b"RIFF\0\0\0\0WAVEJUNK\x02\0\0\0xxfmt \x10\0\0\0\x01\0".to_vec();
        b.extend(channels.to_le_bytes());
        b.extend([0x44, 0xAC, 0, 0, 0, 0, 0, 0, 0, 0]);
        b.extend(bits.to_le_bytes());
        b
    }

    #[test]
    fn judges_channels_and_bits() {
        assert!(wave_format_is_sane(&wav(2, 16)));
        assert!(!wave_format_is_sane(&wav(0, 16)));
        assert!(!wave_format_is_sane(&wav(40_000, 16)));
        assert!(!wave_format_is_sane(&wav(2, 4096)));
        assert!(wave_format_is_sane(b"RIFF"));
        assert!(wave_format_is_sane(&wav(2, 16)[..30]));
    }
}
