//! Silence detection by the rule of ffmpeg's `silencedetect` filter, and mid-roll suggestions.
//!
//! The rule, as ffmpeg applies it without its `mono` option: the samples of all channels are
//! visited in interleaved order; a sample is quiet when `-noise < sample < noise`, compared in
//! the decoded sample format (for 16- and 32-bit integers the threshold is `noise` times the
//! format's maximum, truncated to an integer; for 32-bit floats it is rounded to a float). A run
//! of `duration × sample_rate × channels` consecutive quiet samples (the duration rounded to
//! whole frames) makes a silence; it starts `duration` before the frame that completes the
//! run, and ends at the frame of the next loud sample, or at the end of the audio.

use serde::{Deserialize, Serialize};

use super::parameters::SilenceOptions;

/// One silence, in seconds from the start of the audio.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Silence {
    /// Where the silence starts.
    pub start: f64,
    /// Where it ends (the end of the audio when it runs to the end).
    pub end: f64,
    /// `end - start`.
    pub duration: f64,
}

/// The silences of an audio file and the mid-roll ad breaks they suggest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SilenceReport {
    /// Every silence, in order.
    pub silences: Vec<Silence>,
    /// Duration of the audio, in seconds.
    pub duration: f64,
    /// Suggested mid-roll ad-break times, in seconds: inside silences, after the first 20 % and
    /// before the last 20 % of the audio, at least [`MIDROLL_SPACING`] seconds apart, chosen
    /// longest silence first and listed in that order (best first).
    pub midrolls: Vec<f64>,
    /// The threshold used, in dB.
    pub noise_db: f64,
    /// The minimum silence duration used, in seconds.
    pub min_duration: f64,
}

/// Least time between two suggested mid-rolls, in seconds (6 minutes).
pub const MIDROLL_SPACING: f64 = 360.0;

/// Share of the audio at each end where no mid-roll is suggested.
const MIDROLL_MARGIN: f64 = 0.2;

/// The quiet test of one decoded sample, in its own format as ffmpeg compares it.
pub(crate) trait Quiet: Copy {
    /// True when the sample is strictly inside the threshold.
    fn quiet(self, t: &Threshold) -> bool;
}

/// The threshold in every sample format ffmpeg's filter takes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Threshold {
    f64: f64,
    f32: f32,
    i16: i16,
    i32: i32,
}

impl Threshold {
    pub(crate) fn new(ratio: f64) -> Self {
        // C's float-to-integer conversions truncate; Rust's `as` also saturates.
        Threshold {
            f64: ratio,
            f32: ratio as f32,
            i16: (ratio * f64::from(i16::MAX)) as i16,
            i32: (ratio * f64::from(i32::MAX)) as i32,
        }
    }
}

impl Quiet for f64 {
    #[inline(always)]
    fn quiet(self, t: &Threshold) -> bool {
        self < t.f64 && self > -t.f64
    }
}

impl Quiet for f32 {
    #[inline(always)]
    fn quiet(self, t: &Threshold) -> bool {
        self < t.f32 && self > -t.f32
    }
}

impl Quiet for i16 {
    #[inline(always)]
    fn quiet(self, t: &Threshold) -> bool {
        self < t.i16 && self > -t.i16
    }
}

impl Quiet for i32 {
    #[inline(always)]
    fn quiet(self, t: &Threshold) -> bool {
        self < t.i32 && self > -t.i32
    }
}

/// The streaming detector: constant memory apart from the silences found.
#[derive(Debug)]
pub(crate) struct SilenceDetector {
    options: SilenceOptions,
    threshold: Threshold,
    sample_rate: u32,
    /// Minimum duration in frames.
    min_frames: i64,
    /// Quiet samples needed: `min_frames × channels`.
    notify: i64,
    /// Consecutive quiet samples so far (not counted once a silence started).
    quiet_run: i64,
    /// First frame of the current silence, once reported.
    start: Option<i64>,
    /// Frames seen so far.
    frames: i64,
    /// Silences found, in frames.
    found: Vec<(i64, i64)>,
}

impl SilenceDetector {
    pub(crate) fn new(options: SilenceOptions, sample_rate: u32, channels: u32) -> Self {
        // ffmpeg keeps the duration in microseconds and rescales it to samples rounding to
        // nearest, halves away from zero.
        let micros = (options.min_duration * 1e6).round() as i64;
        let rate = i64::from(sample_rate);
        let min_frames = micros.saturating_mul(rate).saturating_add(500_000) / 1_000_000;
        let channels = channels.max(1);
        SilenceDetector {
            threshold: Threshold::new(options.noise_ratio()),
            options,
            sample_rate,
            min_frames,
            notify: min_frames.saturating_mul(i64::from(channels)),
            quiet_run: 0,
            start: None,
            frames: 0,
            found: Vec::new(),
        }
    }

    /// Feeds `frames` frames given as one slice per channel (planar), each sample converted
    /// by `quiet_form` to the format it is tested in.
    #[inline]
    pub(crate) fn push_planar<S: Copy, Q: Quiet>(
        &mut self,
        planes: &[&[S]],
        frames: usize,
        quiet_form: impl Fn(S) -> Q,
    ) {
        let t = self.threshold;
        if let [plane] = planes {
            for (f, &s) in plane.iter().take(frames).enumerate() {
                self.sample(quiet_form(s).quiet(&t), f);
            }
        } else {
            for f in 0..frames {
                for plane in planes {
                    let quiet = plane.get(f).is_some_and(|&s| quiet_form(s).quiet(&t));
                    self.sample(quiet, f);
                }
            }
        }
        self.frames += frames as i64;
    }

    /// One sample, of frame `f` of the current buffer (ffmpeg's `update`).
    #[inline(always)]
    fn sample(&mut self, quiet: bool, f: usize) {
        if quiet {
            if self.start.is_none() {
                self.quiet_run += 1;
                if self.quiet_run >= self.notify {
                    self.start = Some(self.frames + f as i64 + 1 - self.min_frames);
                }
            }
        } else {
            if let Some(start) = self.start.take() {
                self.found.push((start, self.frames + f as i64));
            }
            self.quiet_run = 0;
        }
    }

    /// The report; a silence still open runs to the end of the audio.
    pub(crate) fn finish(mut self) -> SilenceReport {
        if let Some(start) = self.start.take() {
            self.found.push((start, self.frames));
        }
        let rate = f64::from(self.sample_rate.max(1));
        let secs = |frames: i64| round_us(frames as f64 / rate);
        let silences: Vec<Silence> = self
            .found
            .iter()
            .map(|&(s, e)| Silence {
                start: secs(s),
                end: secs(e),
                duration: secs(e - s),
            })
            .collect();
        let duration = secs(self.frames);
        SilenceReport {
            midrolls: midrolls(&silences, duration),
            silences,
            duration,
            noise_db: self.options.noise_db,
            min_duration: self.options.min_duration,
        }
    }
}

fn round_us(s: f64) -> f64 {
    (s * 1e6).round() / 1e6
}

/// Suggested mid-roll times: silences longest first (earlier first on ties); each one's part
/// inside the middle 60 % of the audio gives its midpoint, taken when it is at least
/// [`MIDROLL_SPACING`] from every time already taken.
pub fn midrolls(silences: &[Silence], duration: f64) -> Vec<f64> {
    let lo = duration * MIDROLL_MARGIN;
    let hi = duration * (1.0 - MIDROLL_MARGIN);
    let mut order: Vec<&Silence> = silences.iter().collect();
    order.sort_by(|a, b| {
        b.duration
            .total_cmp(&a.duration)
            .then(a.start.total_cmp(&b.start))
    });
    let mut taken: Vec<f64> = Vec::new();
    for s in order {
        let (from, to) = (s.start.max(lo), s.end.min(hi));
        if from > to {
            continue;
        }
        let at = round_us((from + to) / 2.0);
        if taken.iter().all(|t| (t - at).abs() >= MIDROLL_SPACING) {
            taken.push(at);
        }
    }
    taken
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn detect(rate: u32, planes: &[Vec<i16>], options: SilenceOptions) -> SilenceReport {
        let mut d = SilenceDetector::new(options, rate, planes.len() as u32);
        let refs: Vec<&[i16]> = planes.iter().map(Vec::as_slice).collect();
        // In uneven buffers, to check that state carries over.
        let n = planes[0].len();
        let mut at = 0;
        let mut step = 7;
        while at < n {
            let len = step.min(n - at);
            let parts: Vec<&[i16]> = refs.iter().map(|p| &p[at..at + len]).collect();
            d.push_planar(&parts, len, |s: i16| s);
            at += len;
            step = step * 3 % 101 + 1;
        }
        d.finish()
    }

    fn opts(noise_db: f64, min_duration: f64) -> SilenceOptions {
        SilenceOptions {
            noise_db,
            min_duration,
        }
    }

    #[test]
    fn ffmpeg_rule_on_frames() {
        // 100 Hz, 1 s minimum = 100 frames; threshold 0.001 * 32767 = 32 (quiet: |x| < 32).
        let mut s = vec![1000i16; 50];
        s.extend(vec![31; 150]); // frames 50..200 quiet
        s.extend(vec![32; 10]); // loud (not strictly below 32)
        s.extend(vec![-31; 99]); // 99 quiet frames: too short
        s.extend(vec![-32; 1]);
        s.extend(vec![0; 120]); // runs to the end
        let r = detect(100, &[s], opts(-60.0, 1.0));
        assert_eq!(
            r.silences,
            [
                Silence {
                    start: 0.5,
                    end: 2.0,
                    duration: 1.5
                },
                Silence {
                    start: 3.1,
                    end: 4.3,
                    duration: 1.2
                }
            ]
        );
        assert_eq!(r.duration, 4.3);
    }

    #[test]
    fn every_channel_must_be_quiet() {
        let left = [vec![0i16; 300], vec![500; 10], vec![0; 200]].concat();
        let right = [vec![0i16; 150], vec![500; 1], vec![0; 359]].concat();
        let r = detect(100, &[left, right], opts(-60.0, 1.0));
        let spans: Vec<(f64, f64)> = r.silences.iter().map(|s| (s.start, s.end)).collect();
        assert_eq!(spans, [(0.0, 1.5), (1.51, 3.0), (3.1, 5.1)]);
    }

    #[test]
    fn float_threshold() {
        let t = Threshold::new(0.001);
        assert!(0.000_999_f32.quiet(&t));
        assert!(!0.001_f32.quiet(&t));
        assert!(!(-0.001_f32).quiet(&t));
        assert!(31i16.quiet(&t) && !32i16.quiet(&t) && !(-32i16).quiet(&t));
        assert!(2_147_482i32.quiet(&t) && !2_147_483i32.quiet(&t));
    }

    #[test]
    fn midroll_rule() {
        let s = |start: f64, end: f64| Silence {
            start,
            end,
            duration: end - start,
        };
        // 3600 s: the window is 720..2880.
        let silences = [
            s(100.0, 110.0), // before the window
            s(1000.0, 1003.0),
            s(1200.0, 1204.0), // longest inside, but 1202 is taken first
            s(1500.0, 1502.0), // 300 s from 1202: too close
            s(2000.0, 2002.5),
            s(2870.0, 2890.0), // crosses the end of the window: its part inside counts
            s(3500.0, 3599.0), // after
        ];
        assert_eq!(midrolls(&silences, 3600.0), [2875.0, 1202.0, 2001.25]);
        assert!(midrolls(&[], 3600.0).is_empty());
    }
}
