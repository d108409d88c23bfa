//! Loudness by EBU R128 / ITU-R BS.1770-4, measured by the `ebur128` crate (a port of
//! libebur128 that passes the EBU Tech 3341 and 3342 tests): integrated loudness, loudness
//! range, true peak (4× oversampled below 96 kHz) and sample peak, as ffmpeg's `ebur128` filter
//! reports them with `peak=true`.

use ebur128::{EbuR128, Mode};
use serde::{Deserialize, Serialize};

/// The loudness of a whole file. Levels are rounded to hundredths; `None` where the file has
/// nothing to measure (digital silence, or no block above the absolute gate of -70 LUFS).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Loudness {
    /// Integrated loudness, in LUFS (gated over the whole file).
    pub integrated: Option<f64>,
    /// Loudness range, in LU (the spread of the short-term loudness).
    pub range: f64,
    /// The highest true peak of any channel, in dBTP.
    pub true_peak: Option<f64>,
    /// The highest sample of any channel, in dBFS.
    pub sample_peak: Option<f64>,
}

/// Measures the loudness of the samples fed to it, in constant memory.
pub(crate) struct LoudnessMeter {
    meter: EbuR128,
    channels: u32,
}

impl LoudnessMeter {
    /// A meter for `channels` channels at `rate` Hz (the caller checked both are sensible).
    pub(crate) fn new(channels: usize, rate: u32) -> Result<Self, String> {
        let channels = u32::try_from(channels).map_err(|e| e.to_string())?;
        let meter = EbuR128::new(
            channels,
            rate,
            Mode::I | Mode::LRA | Mode::TRUE_PEAK | Mode::SAMPLE_PEAK,
        )
        .map_err(|e| format!("cannot measure loudness at {rate} Hz, {channels} channels: {e}"))?;
        Ok(LoudnessMeter { meter, channels })
    }

    /// The meter of a mono signal heard on two channels (BS.1770's dual mono: 3 dB louder than
    /// one channel), such as HE-AACv2's core, from which parametric stereo is made.
    pub(crate) fn dual_mono(mut self) -> Self {
        if self.channels == 1 {
            // One channel, channel 0: the meter cannot refuse it.
            let _ = self.meter.set_channel(0, ebur128::Channel::DualMono);
        }
        self
    }

    /// Feeds planar samples in [-1, 1], one plane per channel, of equal lengths.
    pub(crate) fn push(&mut self, planes: &[&[f32]]) {
        // The planes have the meter's channel count and equal lengths: it cannot refuse them.
        let _ = self.meter.add_frames_planar_f32(planes);
    }

    /// Feeds interleaved samples of `channels` channels (the meter's count).
    pub(crate) fn push_interleaved(&mut self, frames: &[f32], channels: usize) {
        if channels as u32 == self.channels {
            let _ = self.meter.add_frames_f32(frames);
        }
    }

    /// The measurement of everything fed.
    pub(crate) fn finish(self) -> Loudness {
        let peak = |read: &dyn Fn(u32) -> Result<f64, ebur128::Error>| {
            let linear = (0..self.channels)
                .filter_map(|c| read(c).ok())
                .fold(0.0f64, f64::max);
            (linear > 0.0).then(|| hundredths(20.0 * linear.log10()))
        };
        let integrated = self
            .meter
            .loudness_global()
            .ok()
            .filter(|l| l.is_finite())
            .map(hundredths);
        Loudness {
            integrated,
            range: self
                .meter
                .loudness_range()
                .ok()
                .filter(|r| r.is_finite())
                .map_or(0.0, hundredths),
            true_peak: peak(&|c| self.meter.true_peak(c)),
            sample_peak: peak(&|c| self.meter.sample_peak(c)),
        }
    }
}

fn hundredths(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1 kHz stereo sine whose level is chosen to read -23 LUFS (EBU Tech 3341 case 1 is a
    /// 1 kHz stereo sine at -23 dBFS, which reads -23.0 LUFS).
    #[test]
    fn a_1_khz_sine_at_minus_23_dbfs_reads_minus_23_lufs() {
        let rate = 48_000u32;
        let amplitude = 10f32.powf(-23.0 / 20.0);
        let wave: Vec<f32> = (0..rate * 20)
            .map(|i| {
                amplitude * (2.0 * std::f32::consts::PI * 1000.0 * i as f32 / rate as f32).sin()
            })
            .collect();
        let mut meter = LoudnessMeter::new(2, rate).unwrap();
        for chunk in wave.chunks(1152) {
            meter.push(&[chunk, chunk]);
        }
        let loudness = meter.finish();
        let integrated = loudness.integrated.unwrap();
        assert!(
            (integrated + 23.0).abs() < 0.05,
            "reads -23.0: {loudness:?}"
        );
        assert!(loudness.range < 0.1, "{loudness:?}");
        let peak = loudness.sample_peak.unwrap();
        assert!((peak + 23.0).abs() < 0.01, "{loudness:?}");
        assert!(loudness.true_peak.unwrap() >= peak, "{loudness:?}");
    }

    #[test]
    fn digital_silence_has_no_level() {
        let mut meter = LoudnessMeter::new(1, 44_100).unwrap();
        let zeros = vec![0f32; 44_100 * 5];
        meter.push(&[&zeros[..]]);
        assert_eq!(
            meter.finish(),
            Loudness {
                integrated: None,
                range: 0.0,
                true_peak: None,
                sample_peak: None
            }
        );
    }
}
