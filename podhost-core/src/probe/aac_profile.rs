//! AAC's decoder configuration (AudioSpecificConfig, ISO/IEC 14496-3 1.6.2.1): its audio object
//! type, which names the profile an encoder used (LC, HE-AAC, ...), and the AAC-LC core of an
//! HE-AAC configuration.

/// The audio object type of an AudioSpecificConfig: its first five bits, or 32 and six more.
pub(crate) fn object_type(config: &[u8]) -> Option<u8> {
    Bits::of(config).object_type().map(|o| o as u8)
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

/// The AAC-LC core of an HE-AAC or HE-AACv2 configuration signalled explicitly (object type 5
/// or 29, the output's rate, then the core's object type 2), as a configuration of its own: what
/// a decoder without spectral band replication decodes. The core is the AAC-LC stream every
/// HE-AAC frame carries (the SBR data rides in its fill elements), at half the output's rate and,
/// for HE-AACv2, in mono (parametric stereo is made from it): so a file's waveform, silence and
/// loudness are read from its core (speech has next to nothing above the core's band). `None` for
/// any other configuration (AAC-LC, and HE-AAC signalled implicitly, whose configuration already
/// is its core's).
pub(crate) fn core_config(config: &[u8]) -> Option<Core> {
    let mut bits = Bits::of(config);
    let object = bits.object_type()?;
    if object != 5 && object != 29 {
        return None;
    }
    let rate_index = bits.read(4)?;
    let rate = if rate_index == 15 {
        Some(bits.read(24)?)
    } else {
        None
    };
    let channels = bits.read(4)?;
    if bits.read(4)? == 15 {
        bits.read(24)?; // the output's rate, escaped
    }
    if bits.object_type()? != 2 {
        return None;
    }
    // GASpecificConfig: frameLengthFlag, dependsOnCoreCoder (which an LC core never sets),
    // extensionFlag (0 for LC).
    let frame_length = bits.read(1)?;
    if bits.read(1)? != 0 || bits.read(1)? != 0 {
        return None;
    }
    let mut out = Writer::default();
    out.write(2, 5);
    out.write(rate_index, 4);
    if let Some(rate) = rate {
        out.write(rate, 24);
    }
    out.write(channels, 4);
    out.write(frame_length, 1);
    out.write(0, 2);
    Some(Core {
        config: out.finish(),
        parametric_stereo: object == 29,
    })
}

/// The AAC-LC core of an HE-AAC configuration.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Core {
    /// Its AudioSpecificConfig.
    pub(crate) config: Vec<u8>,
    /// Whether the output is parametric stereo made from it (HE-AACv2): a mono core heard on
    /// two channels.
    pub(crate) parametric_stereo: bool,
}

/// Bits of a byte slice, most significant first.
struct Bits<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Bits<'a> {
    fn of(bytes: &'a [u8]) -> Self {
        Bits { bytes, at: 0 }
    }

    fn read(&mut self, n: usize) -> Option<u32> {
        let mut value = 0u32;
        for _ in 0..n {
            let byte = *self.bytes.get(self.at / 8)?;
            value = value << 1 | u32::from(byte >> (7 - self.at % 8) & 1);
            self.at += 1;
        }
        Some(value)
    }

    /// GetAudioObjectType(): five bits, or 32 and six more.
    fn object_type(&mut self) -> Option<u32> {
        match self.read(5)? {
            31 => Some(32 + self.read(6)?),
            object => Some(object),
        }
    }
}

/// Bits written most significant first, the last byte padded with zeros.
#[derive(Default)]
struct Writer {
    bytes: Vec<u8>,
    len: usize,
}

impl Writer {
    fn write(&mut self, value: u32, n: usize) {
        for i in (0..n).rev() {
            if self.len % 8 == 0 {
                self.bytes.push(0);
            }
            let bit = (value >> i & 1) as u8;
            *self.bytes.last_mut().expect("pushed above") |= bit << (7 - self.len % 8);
            self.len += 1;
        }
    }

    fn finish(self) -> Vec<u8> {
        self.bytes
    }
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

    #[test]
    fn the_core_of_an_explicit_he_aac_configuration_is_aac_lc_at_the_cores_rate() {
        for (config, want) in [
            // HE-AAC: SBR, 22.05 kHz core, stereo, 44.1 kHz out, then LC.
            (
                &[0x2b, 0x92, 0x08, 0x00][..],
                Some((vec![0x13, 0x90], false)),
            ),
            // HE-AACv2: PS, 24 kHz core, mono, 48 kHz out, then LC.
            (
                &[0xeb, 0x09, 0x88, 0x00][..],
                Some((vec![0x13, 0x08], true)),
            ),
            // AAC-LC, and implicit signalling: already a core.
            (&[0x12, 0x10][..], None),
            // SBR over something other than LC (Main).
            (&[0x2b, 0x92, 0x04, 0x00][..], None),
            // Cut short.
            (&[0x2b, 0x92][..], None),
        ] {
            let core = core_config(config).map(|c| (c.config, c.parametric_stereo));
            assert_eq!(core, want, "{config:02x?}");
        }
    }
}
