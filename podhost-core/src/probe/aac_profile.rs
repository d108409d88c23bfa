//! AAC's decoder configuration (AudioSpecificConfig, ISO/IEC 14496-3 1.6.2.1): its audio object
//! type, which names the profile an encoder used (LC, HE-AAC, ...).

/// The audio object type of an AudioSpecificConfig: its first five bits, or 32 and six more.
pub(crate) fn object_type(config: &[u8]) -> Option<u8> {
    let first = *config.first()? >> 3;
    if first != 31 {
        return Some(first);
    }
    let bits = u16::from_be_bytes([config[0], *config.get(1)?]);
    Some(32 + ((bits >> 5) & 0x3f) as u8)
}

/// The name of an audio object type as ffprobe gives a profile (`LC`, `HE-AAC`, ...).
pub(crate) fn profile_name(object: u8) -> Option<&'static str> {
    Some(match object {
        1 => "Main",
        2 => "LC",
        3 => "SSR",
        4 => "LTP",
        5 => "HE-AAC",
        23 => "LD",
        29 => "HE-AACv2",
        39 => "ELD",
        _ => return None,
    })
}

/// The profile named by the AudioSpecificConfig `config`.
pub(crate) fn profile(config: &[u8]) -> Option<&'static str> {
    object_type(config).and_then(profile_name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_are_named_by_their_object_type() {
        for (config, want) in [
            (&[0x12, 0x10][..], Some("LC")),           // LC, 44.1 kHz, stereo
            (&[0x11, 0x88][..], Some("LC")),           // LC, 48 kHz, mono
            (&[0x2b, 0x92, 0x08][..], Some("HE-AAC")), // SBR, 22.05 kHz core
            (&[0xea, 0x10][..], Some("HE-AACv2")),     // PS
            (&[0xf8, 0xe0][..], Some("ELD")),          // escaped: 32 + 7
            (&[][..], None),
            (&[0xf8][..], None),
        ] {
            assert_eq!(profile(config), want, "{config:02x?}");
        }
    }
}
