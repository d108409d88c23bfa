//! An ad encoded like the episodes it goes into: the episode's MP3 stream or AAC-LC in M4A
//! (sample rate, channels, bitrate) at the episode's loudness, made once per shape by a
//! background job and stored beside the ad's own file.

use serde::{Deserialize, Serialize};

use super::{BlobKey, Media};
use std::ops::Range;

use crate::ids::{CampaignId, JobId};

/// The codec of an episode that takes ads, and of the ads encoded for it.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum AdCodec {
    /// MP3 (MPEG-1/2 Layer III): frames stitched as they are.
    #[default]
    Mp3,
    /// AAC-LC in M4A: frames stitched behind a new `moov`.
    Aac,
}

/// AAC bitrates an ad is encoded at, in kbit/s: the class nearest the episode's average.
const AAC_CLASSES: [u32; 9] = [32, 48, 64, 96, 128, 160, 192, 256, 320];

/// The stream an ad must have to be stitched into an episode: MP3, or AAC-LC in M4A, at the
/// episode's sample rate, channels and bitrate, at its loudness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct AdShape {
    /// The codec (MP3 for shapes stored before AAC was stitched).
    #[serde(default)]
    pub codec: AdCodec,
    /// Sample rate in Hz.
    pub rate: u32,
    /// Channels: 1 or 2.
    pub channels: u16,
    /// Bitrate in kbit/s: one MP3 takes, or an AAC class.
    pub bitrate: u32,
    /// Integrated loudness in tenths of a LUFS, on a half-LU grid (episodes within a quarter
    /// LU of each other share one encoding; the issue allows ±1 LU).
    pub loudness: i32,
}

impl AdShape {
    /// The shape of an ad in episode audio `media`: `None` unless it is MP3, or AAC-LC in M4A
    /// (HE-AAC has no encoder here; a file probed before profiles were read is taken for LC,
    /// and the stitcher checks its configuration). `fallback` is the loudness (LUFS) taken
    /// when the episode's was never measured.
    pub fn of(media: &Media, fallback: f64) -> Option<AdShape> {
        let audio = media.facts.audio.as_ref()?;
        if !(1..=2).contains(&audio.channels) {
            return None;
        }
        let kbps = audio.bitrate / 1000;
        let (codec, bitrate) = match audio.codec.as_str() {
            "mp3" => (
                AdCodec::Mp3,
                crate::master::mp3_bitrate_near(audio.sample_rate, kbps),
            ),
            "aac"
                if media.facts.mime == "audio/mp4"
                    && matches!(audio.profile.as_deref(), None | Some("LC")) =>
            {
                let class = AAC_CLASSES.into_iter().min_by_key(|b| b.abs_diff(kbps));
                (AdCodec::Aac, class.unwrap_or(128))
            }
            _ => return None,
        };
        let loudness = media
            .results
            .loudness
            .as_ref()
            .and_then(|l| l.integrated)
            .unwrap_or(fallback);
        Some(AdShape {
            codec,
            rate: audio.sample_rate,
            channels: audio.channels,
            bitrate,
            loudness: ((loudness * 2.0).round() * 5.0) as i32,
        })
    }

    /// The loudness in LUFS.
    pub fn lufs(&self) -> f64 {
        f64::from(self.loudness) / 10.0
    }
}

/// An ad encoded to one shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdAudio {
    /// The shape.
    pub shape: AdShape,
    /// The job that encodes it.
    pub job: JobId,
    /// Where the encoding is stored, once the job succeeded.
    pub blob: Option<BlobKey>,
    /// Its size in bytes (0 until stored).
    pub size: u64,
}

/// An ad in a stitched answer: its campaign and where its bytes are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdSpan {
    /// The campaign.
    pub campaign: CampaignId,
    /// Its bytes in the answer.
    pub bytes: Range<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::AudioFacts;

    fn media(mime: &str, codec: &str, profile: Option<&str>, kbps: u32, channels: u16) -> Media {
        let audio = AudioFacts {
            codec: codec.into(),
            duration_ms: 60_000,
            bitrate: kbps * 1000,
            sample_rate: 44_100,
            channels,
            profile: profile.map(str::to_owned),
        };
        Media::audio_for_test(1, "episode", mime, audio)
    }

    #[test]
    fn an_episode_takes_ads_in_its_own_codec_at_its_bitrate_class() {
        use AdCodec::{Aac, Mp3};
        let cases = [
            // (MIME type, codec, profile, kbit/s, channels) → (codec, bitrate)
            (("audio/mpeg", "mp3", None, 128, 2), Some((Mp3, 128))),
            (("audio/mpeg", "mp3", None, 100, 1), Some((Mp3, 96))),
            (("audio/mp4", "aac", Some("LC"), 131, 2), Some((Aac, 128))),
            (("audio/mp4", "aac", Some("LC"), 70, 1), Some((Aac, 64))),
            // Probed before profiles were read: taken for LC (the stitcher checks).
            (("audio/mp4", "aac", None, 96, 2), Some((Aac, 96))),
            // HE-AAC: no encoder here makes it.
            (("audio/mp4", "aac", Some("HE-AAC"), 48, 2), None),
            (("audio/mp4", "aac", Some("HE-AACv2"), 32, 2), None),
            // ADTS: no moov to make.
            (("audio/aac", "aac", Some("LC"), 128, 2), None),
            (("audio/ogg", "opus", None, 64, 2), None),
            (("audio/mpeg", "mp3", None, 128, 6), None),
        ];
        for ((mime, codec, profile, kbps, channels), want) in cases {
            let shape = AdShape::of(&media(mime, codec, profile, kbps, channels), -16.0);
            assert_eq!(
                shape.map(|s| (s.codec, s.bitrate)),
                want,
                "{mime} {codec} {profile:?} {kbps}"
            );
        }
    }

    #[test]
    fn a_shape_stored_before_codecs_is_mp3() {
        let stored = r#"{"rate":44100,"channels":2,"bitrate":128,"loudness":-160}"#;
        let shape: AdShape = serde_json::from_str(stored).unwrap();
        assert_eq!(shape.codec, AdCodec::Mp3);
    }
}
