//! What a mastering job is asked for: `{target, true_peak, format, bitrate}`, with defaults by
//! the number of channels, checked in one place.

use serde_json::Value;

use crate::error::{Error, FieldErrors, Result};

/// The encoding of a mastered file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// MP3 (MPEG-1/2 Layer III), constant bitrate.
    #[default]
    Mp3,
    /// Opus in Ogg, by libopus (a build with the `opus` feature).
    Opus,
    /// AAC-LC in M4A, by ffmpeg's AAC encoder (a child process).
    Aac,
}

impl Format {
    /// Every format's name on the wire, in the order documents list them.
    pub const NAMES: [&'static str; 3] = ["mp3", "aac", "opus"];

    /// The file name extension of the format.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Mp3 => "mp3",
            Format::Opus => "opus",
            Format::Aac => "m4a",
        }
    }

    /// The format's name for people (`MP3`, `Opus`, `AAC`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Mp3 => "MP3",
            Format::Opus => "Opus",
            Format::Aac => "AAC",
        }
    }

    /// The type a feed gives the format's files (`type` of an enclosure): Opus in Ogg as
    /// `audio/opus`, the name podcast apps, the Podcasting 2.0 examples and validators know;
    /// AAC in M4A as every enclosure of its MIME type is named.
    pub fn feed_type(self) -> &'static str {
        match self {
            Format::Mp3 => "audio/mpeg",
            Format::Opus => "audio/opus",
            Format::Aac => crate::publish::feed_values::enclosure_type(Format::Aac.mime()),
        }
    }

    /// The codecs of the format's files as `podcast:alternateEnclosure` names them (RFC 6381
    /// for AAC-LC).
    pub fn codecs(self) -> &'static str {
        match self {
            Format::Mp3 => "mp3",
            Format::Opus => "opus",
            Format::Aac => "mp4a.40.2",
        }
    }

    /// The limiter's ceiling below the true-peak ceiling asked for, in dB: room for the peaks
    /// between samples and for those the encoding adds (ffmpeg's AAC at 128 kbit/s adds about
    /// 1.4 dB to speech limited at -2 dBFS; MP3 and Opus under 1).
    pub fn headroom_db(self) -> f64 {
        match self {
            Format::Mp3 | Format::Opus => 1.0,
            Format::Aac => 2.0,
        }
    }

    /// The MIME type of the format's files.
    pub fn mime(self) -> &'static str {
        match self {
            Format::Mp3 => "audio/mpeg",
            Format::Opus => "audio/ogg",
            Format::Aac => "audio/mp4",
        }
    }

    /// The default bitrate in kbit/s for audio of `channels` channels: 128 for stereo MP3 and
    /// AAC and 64 for mono, 48 for Opus.
    pub fn default_bitrate(self, channels: u16) -> u32 {
        match (self, channels) {
            (Format::Mp3 | Format::Aac, 1) => 64,
            (Format::Mp3 | Format::Aac, _) => 128,
            (Format::Opus, _) => 48,
        }
    }

    /// Whether the format takes `bitrate` kbit/s, or the bitrates it takes.
    fn check_bitrate(self, bitrate: u32) -> std::result::Result<(), String> {
        match self {
            Format::Mp3 if MP3_BITRATES.contains(&bitrate) => Ok(()),
            Format::Mp3 => Err(format!("an MP3 bitrate in kbit/s: one of {MP3_BITRATES:?}")),
            Format::Opus if OPUS_BITRATES.contains(&bitrate) => Ok(()),
            Format::Opus => Err(format!(
                "an Opus bitrate in kbit/s, {} to {}",
                OPUS_BITRATES.start(),
                OPUS_BITRATES.end()
            )),
            Format::Aac if AAC_BITRATES.contains(&bitrate) => Ok(()),
            Format::Aac => Err(format!(
                "an AAC bitrate in kbit/s, {} to {}",
                AAC_BITRATES.start(),
                AAC_BITRATES.end()
            )),
        }
    }

    /// The format named `name` on the wire, or why there is none (a known format this build
    /// cannot encode is named with what it needs).
    pub fn from_name(name: &str) -> std::result::Result<Format, String> {
        match name {
            "mp3" => Ok(Format::Mp3),
            "aac" => Ok(Format::Aac),
            "opus" if cfg!(feature = "opus") => Ok(Format::Opus),
            "opus" => Err("opus needs a build with the `opus` feature (libopus)".into()),
            _ => Err("mp3, aac or opus".into()),
        }
    }
}

/// A mastering job's settings, resolved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MasterOptions {
    /// Integrated loudness to reach, in LUFS.
    pub target: f64,
    /// The ceiling of true peaks, in dBTP.
    pub true_peak: f64,
    /// The encoding.
    pub format: Format,
    /// The bitrate, in kbit/s.
    pub bitrate: u32,
    /// Another encoding made in the same decode (at its default bitrate), e.g. the Opus
    /// alternate enclosure of an MP3.
    pub alternate: Option<Format>,
}

/// Targets allowed, in LUFS.
pub const TARGETS: std::ops::RangeInclusive<f64> = -70.0..=-5.0;
/// True-peak ceilings allowed, in dBTP.
pub const CEILINGS: std::ops::RangeInclusive<f64> = -9.0..=0.0;
/// MP3 bitrates (MPEG-1 Layer III), in kbit/s.
pub const MP3_BITRATES: [u32; 14] = [
    32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320,
];
/// MP3 bitrates of MPEG-2 and 2.5 Layer III (sample rates of 8 to 24 kHz), in kbit/s.
pub const MP3_LSF_BITRATES: [u32; 14] = [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];

/// The MP3 bitrate nearest `kbps` at sample rate `rate` (MPEG-1's above 32 kHz, MPEG-2's
/// below): what an ad is encoded at to sit in an episode of average bitrate `kbps`.
pub fn mp3_bitrate_near(rate: u32, kbps: u32) -> u32 {
    let bitrates = if rate >= 32000 {
        &MP3_BITRATES
    } else {
        &MP3_LSF_BITRATES
    };
    bitrates
        .iter()
        .copied()
        .min_by_key(|b| b.abs_diff(kbps))
        .unwrap_or(64)
}

/// Opus bitrates, in kbit/s (libopus takes 6 to 510).
pub const OPUS_BITRATES: std::ops::RangeInclusive<u32> = 6..=510;
/// AAC-LC bitrates, in kbit/s.
pub const AAC_BITRATES: std::ops::RangeInclusive<u32> = 16..=320;

impl MasterOptions {
    /// The settings of a job's parameters for audio of `channels` channels: absent ones take
    /// their defaults (-16 LUFS for stereo, -19 for mono; -1 dBTP; MP3 at 128 kbit/s for
    /// stereo, 64 for mono; Opus at 48). `alternates`, a list of at most one other format, is
    /// what a podcast's mastering asks for beside the enclosure.
    pub fn from_params(params: &Value, channels: u16) -> Result<MasterOptions> {
        let empty = serde_json::Map::new();
        let map = match params {
            Value::Null => &empty,
            Value::Object(map) => map,
            _ => return Err(Error::invalid("body", "the options are a JSON object")),
        };
        let mut errors = FieldErrors::default();
        for key in map.keys() {
            if !["target", "true_peak", "format", "bitrate", "alternates"].contains(&key.as_str()) {
                errors.add(key.clone(), "unknown option");
            }
        }
        let mono = channels == 1;
        let mut number = |key: &str,
                          default: f64,
                          range: std::ops::RangeInclusive<f64>,
                          unit: &str| match map.get(key) {
            None | Some(Value::Null) => default,
            Some(value) => match value.as_f64() {
                Some(n) if range.contains(&n) => n,
                _ => {
                    errors.add(
                        key,
                        format!("a number from {} to {} {unit}", range.start(), range.end()),
                    );
                    default
                }
            },
        };
        let target = number("target", if mono { -19.0 } else { -16.0 }, TARGETS, "LUFS");
        let true_peak = number("true_peak", -1.0, CEILINGS, "dBTP");
        let format = match map.get("format") {
            None | Some(Value::Null) => Format::Mp3,
            Some(value) => match value.as_str().map(Format::from_name) {
                Some(Ok(format)) => format,
                Some(Err(why)) => {
                    errors.add("format", why);
                    Format::Mp3
                }
                None => {
                    errors.add("format", "mp3, aac or opus");
                    Format::Mp3
                }
            },
        };
        let bitrate = match map.get("bitrate") {
            None | Some(Value::Null) => format.default_bitrate(channels),
            Some(value) => {
                let bitrate = value.as_u64().and_then(|b| u32::try_from(b).ok());
                match bitrate.map(|b| (b, format.check_bitrate(b))) {
                    Some((b, Ok(()))) => b,
                    Some((_, Err(why))) => {
                        errors.add("bitrate", why);
                        format.default_bitrate(channels)
                    }
                    None => {
                        errors.add("bitrate", "a whole number of kbit/s");
                        format.default_bitrate(channels)
                    }
                }
            }
        };
        let mut alternate = None;
        match map.get("alternates") {
            None | Some(Value::Null) => {}
            Some(Value::Array(names)) => {
                for name in names {
                    match name.as_str().map(Format::from_name) {
                        Some(Ok(other)) if other != format && alternate.is_none() => {
                            alternate = Some(other);
                        }
                        Some(Ok(_)) => {
                            errors.add("alternates", "another format than `format`, named once")
                        }
                        Some(Err(why)) => errors.add("alternates", why),
                        None => errors.add("alternates", "format names"),
                    }
                }
            }
            Some(_) => errors.add("alternates", "a list of format names"),
        }
        errors.into_result()?;
        Ok(MasterOptions {
            target,
            true_peak,
            format,
            bitrate,
            alternate,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn defaults_follow_the_channels() {
        let stereo = MasterOptions::from_params(&Value::Null, 2).unwrap();
        assert_eq!(
            (stereo.target, stereo.true_peak, stereo.bitrate),
            (-16.0, -1.0, 128)
        );
        let mono = MasterOptions::from_params(&json!({}), 1).unwrap();
        assert_eq!((mono.target, mono.bitrate), (-19.0, 64));
    }

    #[test]
    fn refusals_name_their_field() {
        let cases = [
            (json!({"target": -4}), "target"),
            (json!({"target": -71}), "target"),
            (json!({"target": "loud"}), "target"),
            (json!({"true_peak": 1}), "true_peak"),
            (json!({"format": "flac"}), "format"),
            (json!({"format": "opus", "bitrate": 600}), "bitrate"),
            (json!({"alternates": ["mp3"]}), "alternates"),
            (json!({"bitrate": 100}), "bitrate"),
            (json!({"gain": 3}), "gain"),
        ];
        for (params, field) in cases {
            let error = MasterOptions::from_params(&params, 2).unwrap_err();
            assert!(error.is_invalid_field(field), "{params}: {error:?}");
        }
    }
}
