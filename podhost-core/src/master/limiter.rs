//! A look-ahead peak limiter: the gain at every sample keeps it at or below the ceiling, and it
//! changes smoothly, so that limiting neither clips nor pumps on speech.
//!
//! The gain each frame needs (`ceiling / peak`, at most 1, the channels linked) goes through
//! a minimum over the next `L` frames (the look-ahead), an instant-attack exponential release,
//! and a moving average over `L + 1` frames; the audio is delayed by `L` frames to meet it. Every
//! value averaged for a peak's frame comes from a window that contains the peak, so the gain
//! there is at most what the peak needs: the output never exceeds the ceiling.

use std::collections::VecDeque;

/// Look-ahead, in seconds: the gain starts falling this long before a peak.
const LOOKAHEAD: f64 = 0.005;
/// Release time constant, in seconds: slow enough not to pump between syllables.
const RELEASE: f64 = 0.150;

/// The limiter's state for one stream of frames.
pub(crate) struct Limiter {
    ceiling: f32,
    channels: usize,
    lookahead: usize,
    release: f32,
    /// Frames waiting for their gain, interleaved, `lookahead` of them once full.
    delayed: VecDeque<f32>,
    /// The gain each frame needs, with its frame number, as a monotonic queue of minima.
    minima: VecDeque<(u64, f32)>,
    /// Frames seen.
    seen: u64,
    /// The released envelope.
    envelope: f32,
    /// The last `lookahead + 1` envelope values and their sum.
    window: VecDeque<f32>,
    sum: f64,
}

impl Limiter {
    /// A limiter for `channels` interleaved channels at `rate` Hz, holding peaks at or below
    /// `ceiling` (linear, in (0, 1]).
    pub(crate) fn new(channels: usize, rate: u32, ceiling: f32) -> Self {
        let lookahead = ((f64::from(rate) * LOOKAHEAD).round() as usize).max(1);
        let release = (-1.0 / (f64::from(rate) * RELEASE)).exp() as f32;
        Limiter {
            ceiling,
            channels,
            lookahead,
            release,
            delayed: VecDeque::with_capacity((lookahead + 1) * channels),
            minima: VecDeque::new(),
            seen: 0,
            envelope: 1.0,
            window: VecDeque::with_capacity(lookahead + 2),
            sum: 0.0,
        }
    }

    /// Takes interleaved frames; appends the limited frames that are ready to `out`.
    pub(crate) fn process(&mut self, frames: &[f32], out: &mut Vec<f32>) {
        for frame in frames.chunks_exact(self.channels) {
            let peak = frame.iter().fold(0f32, |m, s| m.max(s.abs()));
            let need = if peak > self.ceiling {
                self.ceiling / peak
            } else {
                1.0
            };
            self.push_need(need);
            self.delayed.extend(frame.iter().copied());
            if self.seen > self.lookahead as u64 {
                self.emit(out);
            }
        }
    }

    /// Lets out the frames still delayed (the stream ended).
    pub(crate) fn finish(&mut self, out: &mut Vec<f32>) {
        for _ in 0..self.lookahead.min(self.seen as usize) {
            self.push_need(1.0);
            self.emit(out);
        }
    }

    fn push_need(&mut self, need: f32) {
        while self.minima.back().is_some_and(|&(_, g)| g >= need) {
            self.minima.pop_back();
        }
        self.minima.push_back((self.seen, need));
        self.seen += 1;
    }

    /// Applies the gain of the oldest delayed frame and writes it out.
    fn emit(&mut self, out: &mut Vec<f32>) {
        // The frame going out is `lookahead` frames behind the newest need; the minimum over
        // the needs from it to the newest is at the queue's front.
        let first = self.seen - 1 - self.lookahead as u64;
        while self.minima.front().is_some_and(|&(at, _)| at < first) {
            self.minima.pop_front();
        }
        let minimum = self.minima.front().map_or(1.0, |&(_, g)| g);
        self.envelope = if minimum < self.envelope {
            minimum
        } else {
            minimum + (self.envelope - minimum) * self.release
        };
        self.window.push_back(self.envelope);
        self.sum += f64::from(self.envelope);
        if self.window.len() > self.lookahead + 1 {
            self.sum -= f64::from(self.window.pop_front().unwrap_or(1.0));
        }
        // The average of a full window; before it fills, the smallest value is as safe.
        let gain = if self.window.len() == self.lookahead + 1 {
            (self.sum / self.window.len() as f64) as f32
        } else {
            self.window.iter().fold(1f32, |m, &g| m.min(g))
        };
        for _ in 0..self.channels {
            let sample = self.delayed.pop_front().unwrap_or(0.0);
            out.push((sample * gain).clamp(-self.ceiling, self.ceiling));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limited(input: &[f32], channels: usize, ceiling: f32) -> Vec<f32> {
        let mut limiter = Limiter::new(channels, 48_000, ceiling);
        let mut out = Vec::new();
        for chunk in input.chunks(1000 * channels) {
            limiter.process(chunk, &mut out);
        }
        limiter.finish(&mut out);
        out
    }

    #[test]
    fn every_frame_comes_out_once_in_order() {
        let input: Vec<f32> = (0..9_999).map(|i| (i as f32 * 0.001).sin() * 0.1).collect();
        assert_eq!(
            limited(&input, 1, 0.5),
            input,
            "below the ceiling: untouched"
        );
        let stereo: Vec<f32> = (0..2 * 5_001).map(|i| i as f32 * 1e-5).collect();
        assert_eq!(limited(&stereo, 2, 1.0), stereo);
    }

    #[test]
    fn peaks_stay_at_the_ceiling_without_clipping_the_gain() {
        // A 100 Hz tone at full scale with bursts of 2x over it.
        let input: Vec<f32> = (0..48_000)
            .map(|i| {
                let burst = if (i / 4_800) % 2 == 1 { 2.0 } else { 1.0 };
                burst * (i as f32 * 2.0 * std::f32::consts::PI * 100.0 / 48_000.0).sin()
            })
            .collect();
        let ceiling = 0.8;
        let out = limited(&input, 1, ceiling);
        assert_eq!(out.len(), input.len());
        let peak = out.iter().fold(0f32, |m, s| m.max(s.abs()));
        assert!(peak <= ceiling, "{peak}");
        assert!(peak > 0.79, "the loud parts reach the ceiling: {peak}");
        // No clipping: the gain (out / in) is smooth, never stepping by more than a little from
        // one sample to the next, so the limited wave keeps the input's shape.
        let gain = |i: usize| out[i] / input[i];
        let step = (1..input.len())
            .filter(|&i| input[i - 1].abs() > 0.2 && input[i].abs() > 0.2)
            .map(|i| (gain(i) - gain(i - 1)).abs())
            .fold(0f32, f32::max);
        assert!(step < 0.005, "{step}");
    }
}
