//! A podcast's audio setting: whether its episodes' audio is mastered before it is published,
//! to which loudness and encoding, and which alternate encodings go beside it.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::{
    error::{Error, FieldErrors},
    master::{Format, MasterOptions},
};

/// How a podcast's episodes' audio is prepared. With `master` set, each episode's audio is
/// mastered by a background job (see [`MasterOptions`]) and the feed's enclosure is the mastered
/// file; an episode waits for it before it is published.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FeedAudio {
    /// Master each episode's audio.
    pub master: bool,
    /// Integrated loudness in LUFS; `None`: -16 for stereo, -19 for mono.
    pub target: Option<f64>,
    /// The true-peak ceiling in dBTP.
    pub true_peak: f64,
    /// The encoding of the enclosure.
    pub format: Format,
    /// The bitrate in kbit/s; `None`: the format's default for the channels.
    pub bitrate: Option<u32>,
    /// Other encodings published beside the enclosure (`podcast:alternateEnclosure`).
    pub alternates: Vec<Format>,
}

impl Default for FeedAudio {
    fn default() -> Self {
        FeedAudio {
            master: false,
            target: None,
            true_peak: -1.0,
            format: Format::Mp3,
            bitrate: None,
            alternates: Vec::new(),
        }
    }
}

/// A change of a podcast's audio setting: `None` leaves a field as it is; `Some(None)` of
/// `target` and `bitrate` returns them to their defaults.
#[derive(Clone, Debug, Default, PartialEq)]
#[allow(missing_docs)]
pub struct AudioPatch {
    pub master: Option<bool>,
    pub target: Option<Option<f64>>,
    pub true_peak: Option<f64>,
    /// The format's wire name (`mp3`, `opus`).
    pub format: Option<String>,
    pub bitrate: Option<Option<u32>>,
    /// The formats' wire names.
    pub alternates: Option<Vec<String>>,
}

impl FeedAudio {
    /// The parameters of the mastering job of an episode's audio (those of `POST
    /// /api/generate/master/{id}`).
    pub fn job_params(&self) -> Value {
        let mut params = json!({ "true_peak": self.true_peak, "format": self.format });
        if let Some(target) = self.target {
            params["target"] = json!(target);
        }
        if let Some(bitrate) = self.bitrate {
            params["bitrate"] = json!(bitrate);
        }
        if !self.alternates.is_empty() {
            params["alternates"] = json!(self.alternates);
        }
        params
    }

    /// Applies a change; what cannot be applied is reported to `errors` under `audio.`, by the
    /// rules of a mastering job's options.
    pub fn apply(&mut self, patch: &AudioPatch, errors: &mut FieldErrors) {
        if let Some(master) = patch.master {
            self.master = master;
        }
        if let Some(target) = patch.target {
            self.target = target;
        }
        if let Some(true_peak) = patch.true_peak {
            self.true_peak = true_peak;
        }
        if let Some(bitrate) = patch.bitrate {
            self.bitrate = bitrate;
        }
        if let Some(name) = &patch.format {
            match Format::from_name(name) {
                Ok(format) => self.format = format,
                Err(why) => errors.add("audio.format", why),
            }
        }
        if let Some(names) = &patch.alternates {
            self.alternates.clear();
            for name in names {
                match Format::from_name(name) {
                    Ok(format) => self.alternates.push(format),
                    Err(why) => errors.add("audio.alternates", why),
                }
            }
        }
        // The job's own rules, once: any channel count takes the same ranges.
        if let Err(Error::Invalid(found)) = MasterOptions::from_params(&self.job_params(), 2) {
            for (field, messages) in found.fields() {
                for message in messages {
                    errors.add(format!("audio.{field}"), message.clone());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn applied(patch: AudioPatch) -> Result<FeedAudio, FieldErrors> {
        let mut audio = FeedAudio::default();
        let mut errors = FieldErrors::default();
        audio.apply(&patch, &mut errors);
        if errors.is_empty() {
            Ok(audio)
        } else {
            Err(errors)
        }
    }

    #[test]
    fn the_setting_makes_the_job_params() {
        let audio = applied(AudioPatch {
            master: Some(true),
            target: Some(Some(-18.0)),
            bitrate: Some(Some(96)),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(
            audio.job_params(),
            json!({"target": -18.0, "true_peak": -1.0, "format": "mp3", "bitrate": 96})
        );
        let defaults = FeedAudio::default().job_params();
        assert_eq!(defaults, json!({"true_peak": -1.0, "format": "mp3"}));
        let options = MasterOptions::from_params(&defaults, 1).unwrap();
        assert_eq!((options.target, options.bitrate), (-19.0, 64));
    }

    #[test]
    fn refusals_name_the_audio_field() {
        let cases = [
            (
                AudioPatch {
                    target: Some(Some(-3.0)),
                    ..Default::default()
                },
                "audio.target",
            ),
            (
                AudioPatch {
                    true_peak: Some(2.0),
                    ..Default::default()
                },
                "audio.true_peak",
            ),
            (
                AudioPatch {
                    format: Some("flac".into()),
                    ..Default::default()
                },
                "audio.format",
            ),
            (
                AudioPatch {
                    bitrate: Some(Some(100)),
                    ..Default::default()
                },
                "audio.bitrate",
            ),
            (
                AudioPatch {
                    alternates: Some(vec!["mp3".into()]),
                    ..Default::default()
                },
                "audio.alternates",
            ),
        ];
        for (patch, field) in cases {
            let errors = applied(patch.clone()).unwrap_err();
            assert!(errors.fields().contains_key(field), "{patch:?}: {errors}");
        }
    }
}
