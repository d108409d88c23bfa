//! What a mastering job is asked for: `{target, true_peak, format, bitrate}`, with defaults by
//! the number of channels, checked in one place.

use serde_json::Value;

use crate::error::{Error, FieldErrors, Result};

/// The encoding of a mastered file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// MP3 (MPEG-1/2 Layer III), constant bitrate.
    Mp3,
}

impl Format {
    /// The file name extension of the format.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Mp3 => "mp3",
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
}

/// Targets allowed, in LUFS.
pub const TARGETS: std::ops::RangeInclusive<f64> = -70.0..=-5.0;
/// True-peak ceilings allowed, in dBTP.
pub const CEILINGS: std::ops::RangeInclusive<f64> = -9.0..=0.0;
/// MP3 bitrates (MPEG-1 Layer III), in kbit/s.
pub const MP3_BITRATES: [u32; 14] = [
    32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320,
];

impl MasterOptions {
    /// The settings of a job's parameters for audio of `channels` channels: absent ones take
    /// their defaults (-16 LUFS for stereo, -19 for mono; -1 dBTP; MP3 at 128 kbit/s for
    /// stereo, 64 for mono).
    pub fn from_params(params: &Value, channels: u16) -> Result<MasterOptions> {
        let empty = serde_json::Map::new();
        let map = match params {
            Value::Null => &empty,
            Value::Object(map) => map,
            _ => return Err(Error::invalid("body", "the options are a JSON object")),
        };
        let mut errors = FieldErrors::default();
        for key in map.keys() {
            if !["target", "true_peak", "format", "bitrate"].contains(&key.as_str()) {
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
            Some(Value::String(s)) if s == "mp3" => Format::Mp3,
            Some(Value::String(s)) if s == "opus" => {
                errors.add(
                    "format",
                    if cfg!(feature = "opus") {
                        "opus encoding is not available yet: mp3 only"
                    } else {
                        "opus needs a build with the `opus` feature (libopus), and its encoding \
                         is not available yet: mp3 only"
                    },
                );
                Format::Mp3
            }
            Some(_) => {
                errors.add("format", "mp3");
                Format::Mp3
            }
        };
        let bitrate = match map.get("bitrate") {
            None | Some(Value::Null) => {
                if mono {
                    64
                } else {
                    128
                }
            }
            Some(value) => match value.as_u64().and_then(|b| u32::try_from(b).ok()) {
                Some(b) if MP3_BITRATES.contains(&b) => b,
                _ => {
                    errors.add(
                        "bitrate",
                        format!("an MP3 bitrate in kbit/s: one of {MP3_BITRATES:?}"),
                    );
                    128
                }
            },
        };
        errors.into_result()?;
        Ok(MasterOptions {
            target,
            true_peak,
            format,
            bitrate,
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
            (json!({"format": "opus"}), "format"),
            (json!({"bitrate": 100}), "bitrate"),
            (json!({"gain": 3}), "gain"),
        ];
        for (params, field) in cases {
            let error = MasterOptions::from_params(&params, 2).unwrap_err();
            assert!(error.is_invalid_field(field), "{params}: {error:?}");
        }
    }
}
