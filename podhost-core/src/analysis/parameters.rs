//! The options of the two analyses and their checks.

use crate::FieldErrors;

/// Largest accepted `samples_per_pixel` (about six minutes of 44.1 kHz audio per point).
pub const MAX_SAMPLES_PER_PIXEL: u32 = 1 << 24;
/// Largest accepted `pixels_per_second`.
pub const MAX_PIXELS_PER_SECOND: u32 = 100_000;
/// Quietest accepted silence threshold, in dB (below the floor of 24-bit audio).
pub const MIN_NOISE_DB: f64 = -150.0;
/// Longest accepted minimum silence duration, in seconds.
pub const MAX_MIN_DURATION: f64 = 3600.0;

/// How to compute a waveform, as BBC audiowaveform's options `--zoom` (`samples_per_pixel`),
/// `--pixels-per-second` and `--bits`.
///
/// At most one of `samples_per_pixel` and `pixels_per_second` is given; with neither, a point
/// covers 256 samples. With `pixels_per_second`, a point covers `sample_rate /
/// pixels_per_second` samples (integer division, audiowaveform's rule), which must come to at
/// least 2 for the file's sample rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaveformOptions {
    /// Samples (per channel) summarised by one min/max point; at least 2.
    pub samples_per_pixel: Option<u32>,
    /// Points per second of audio, instead of `samples_per_pixel`.
    pub pixels_per_second: Option<u32>,
    /// Resolution of the values: 8 (from -128 to 127, what peaks.js reads best) or 16.
    pub bits: u8,
}

impl Default for WaveformOptions {
    fn default() -> Self {
        WaveformOptions {
            samples_per_pixel: None,
            pixels_per_second: None,
            bits: 8,
        }
    }
}

impl WaveformOptions {
    /// The default number of samples per point.
    pub const DEFAULT_SAMPLES_PER_PIXEL: u32 = 256;

    /// Checks the options: one scale at most, in range, and 8 or 16 bits. The messages are keyed
    /// by `samples_per_pixel`, `pixels_per_second` and `bits`.
    pub fn check(&self) -> Result<(), FieldErrors> {
        let mut errors = FieldErrors::default();
        if self.samples_per_pixel.is_some() && self.pixels_per_second.is_some() {
            let both = "give samples_per_pixel or pixels_per_second, not both";
            errors.add("samples_per_pixel", both);
            errors.add("pixels_per_second", both);
        }
        if let Some(spp) = self.samples_per_pixel {
            if !(2..=MAX_SAMPLES_PER_PIXEL).contains(&spp) {
                errors.add(
                    "samples_per_pixel",
                    format!("must be from 2 to {MAX_SAMPLES_PER_PIXEL}"),
                );
            }
        }
        if let Some(pps) = self.pixels_per_second {
            if !(1..=MAX_PIXELS_PER_SECOND).contains(&pps) {
                errors.add(
                    "pixels_per_second",
                    format!("must be from 1 to {MAX_PIXELS_PER_SECOND}"),
                );
            }
        }
        if self.bits != 8 && self.bits != 16 {
            errors.add("bits", "must be 8 or 16");
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// Samples per point for audio at `sample_rate`, or `None` when `pixels_per_second` asks
    /// for fewer than 2 samples per point at that rate.
    pub fn samples_per_pixel_at(&self, sample_rate: u32) -> Option<u32> {
        let spp = match (self.samples_per_pixel, self.pixels_per_second) {
            (Some(spp), _) => spp,
            (None, Some(pps)) => sample_rate.checked_div(pps)?,
            (None, None) => Self::DEFAULT_SAMPLES_PER_PIXEL,
        };
        (spp >= 2).then_some(spp)
    }
}

/// How to find silences, as ffmpeg's `silencedetect=noise=…dB:duration=…`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SilenceOptions {
    /// The threshold in dB relative to full scale: a sample is silent when its magnitude is
    /// below `10^(noise_db / 20)`. Default -60.
    pub noise_db: f64,
    /// The shortest silence reported, in seconds. Default 2.
    pub min_duration: f64,
}

impl Default for SilenceOptions {
    fn default() -> Self {
        SilenceOptions {
            noise_db: -60.0,
            min_duration: 2.0,
        }
    }
}

impl SilenceOptions {
    /// Checks the options: a threshold from -150 to 0 dB and a duration above 0 and at most
    /// an hour. The messages are keyed by `noise` and `duration` (the names of the request's
    /// fields).
    pub fn check(&self) -> Result<(), FieldErrors> {
        let mut errors = FieldErrors::default();
        if !(self.noise_db.is_finite() && (MIN_NOISE_DB..=0.0).contains(&self.noise_db)) {
            errors.add("noise", format!("must be from {MIN_NOISE_DB} to 0 (dB)"));
        }
        if !(self.min_duration.is_finite()
            && self.min_duration > 0.0
            && self.min_duration <= MAX_MIN_DURATION)
        {
            errors.add(
                "duration",
                format!("must be above 0 and at most {MAX_MIN_DURATION} (seconds)"),
            );
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// The threshold as an amplitude ratio (ffmpeg: `pow(10, dB / 20)`).
    pub fn noise_ratio(&self) -> f64 {
        10f64.powf(self.noise_db / 20.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(r: Result<(), FieldErrors>) -> Vec<String> {
        r.err()
            .map(|e| e.fields().keys().cloned().collect())
            .unwrap_or_default()
    }

    #[test]
    fn waveform_checks() {
        assert!(WaveformOptions::default().check().is_ok());
        let both = WaveformOptions {
            samples_per_pixel: Some(512),
            pixels_per_second: Some(10),
            bits: 16,
        };
        assert_eq!(
            fields(both.check()),
            ["pixels_per_second", "samples_per_pixel"]
        );
        let zero = WaveformOptions {
            samples_per_pixel: Some(0),
            ..Default::default()
        };
        assert_eq!(fields(zero.check()), ["samples_per_pixel"]);
        let one = WaveformOptions {
            samples_per_pixel: Some(1),
            ..Default::default()
        };
        assert_eq!(fields(one.check()), ["samples_per_pixel"]);
        let pps0 = WaveformOptions {
            pixels_per_second: Some(0),
            bits: 9,
            ..Default::default()
        };
        assert_eq!(fields(pps0.check()), ["bits", "pixels_per_second"]);
        let huge = WaveformOptions {
            samples_per_pixel: Some(u32::MAX),
            ..Default::default()
        };
        assert_eq!(fields(huge.check()), ["samples_per_pixel"]);
    }

    #[test]
    fn scale_by_rate() {
        let d = WaveformOptions::default();
        assert_eq!(d.samples_per_pixel_at(44_100), Some(256));
        let pps = WaveformOptions {
            pixels_per_second: Some(100),
            ..Default::default()
        };
        assert_eq!(pps.samples_per_pixel_at(44_100), Some(441));
        assert_eq!(pps.samples_per_pixel_at(22_050), Some(220));
        let fine = WaveformOptions {
            pixels_per_second: Some(30_000),
            ..Default::default()
        };
        assert_eq!(fine.samples_per_pixel_at(44_100), None);
    }

    #[test]
    fn silence_checks() {
        assert!(SilenceOptions::default().check().is_ok());
        assert!((SilenceOptions::default().noise_ratio() - 0.001).abs() < 1e-12);
        let bad = SilenceOptions {
            noise_db: 3.0,
            min_duration: 0.0,
        };
        assert_eq!(fields(bad.check()), ["duration", "noise"]);
        let nan = SilenceOptions {
            noise_db: f64::NAN,
            min_duration: f64::INFINITY,
        };
        assert_eq!(fields(nan.check()), ["duration", "noise"]);
    }
}
