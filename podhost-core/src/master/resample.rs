//! Sample-rate conversion for an encoder that does not take the source's rate (Opus at 44.1 kHz,
//! MP3 at 88.2 or 96 kHz): `rubato`'s synchronous FFT resampler, its delay dropped from the
//! front and the output made exactly as long as the input at the new rate.

use rubato::{Fft, FixedSync, Indexing, Resampler, audioadapter_buffers::direct::InterleavedSlice};

use super::failure::MasterError;

/// Input frames per resampling chunk.
const CHUNK: usize = 1024;

fn failed(e: impl std::fmt::Display) -> MasterError {
    MasterError::Encoder(format!("resampling: {e}"))
}

/// Interleaved audio going from one rate to another.
pub(super) struct Resample {
    fft: Fft<f32>,
    channels: usize,
    /// Input not resampled yet.
    waiting: Vec<f32>,
    /// One chunk of output.
    out: Vec<f32>,
    /// Output frames still to drop: the resampler's delay.
    delay: usize,
    /// Frames given, and frames made (after the delay).
    given: u64,
    made: u64,
    from: u32,
    to: u32,
}

impl Resample {
    /// A resampler of `channels` channels from `from` Hz to `to` Hz.
    pub(super) fn new(from: u32, to: u32, channels: usize) -> Result<Self, MasterError> {
        let fft = Fft::<f32>::new(
            from as usize,
            to as usize,
            CHUNK,
            channels,
            FixedSync::Input,
        )
        .map_err(|e| MasterError::Unsupported(format!("resampling {from} Hz to {to} Hz: {e}")))?;
        Ok(Resample {
            delay: fft.output_delay(),
            fft,
            channels,
            waiting: Vec::new(),
            out: Vec::new(),
            given: 0,
            made: 0,
            from,
            to,
        })
    }

    /// Takes interleaved frames; appends to `into` the frames resampled so far.
    pub(super) fn push(
        &mut self,
        interleaved: &[f32],
        into: &mut Vec<f32>,
    ) -> Result<(), MasterError> {
        self.given += (interleaved.len() / self.channels) as u64;
        self.waiting.extend_from_slice(interleaved);
        let chunk = CHUNK * self.channels;
        let mut start = 0;
        while self.waiting.len() - start >= chunk {
            self.run(start, None, into, u64::MAX)?;
            start += chunk;
        }
        self.waiting.drain(..start);
        Ok(())
    }

    /// Appends the rest to `into`: in all, as many frames as the input's length at the new rate.
    pub(super) fn finish(mut self, into: &mut Vec<f32>) -> Result<(), MasterError> {
        let due = self.given * u64::from(self.to) / u64::from(self.from);
        let mut rest = Some(self.waiting.len() / self.channels);
        while self.made < due {
            self.run(0, Some(rest.take().unwrap_or(0)), into, due)?;
            self.waiting.clear();
        }
        Ok(())
    }

    /// Resamples the chunk of `waiting` at `start` (or its first `partial` frames, the rest
    /// silence) and appends it to `into`, without the delay and without passing `due` frames.
    fn run(
        &mut self,
        start: usize,
        partial: Option<usize>,
        into: &mut Vec<f32>,
        due: u64,
    ) -> Result<(), MasterError> {
        let channels = self.channels;
        let needed = self.fft.input_frames_next();
        let mut input = vec![0.0; needed * channels];
        let have = (self.waiting.len() - start).min(input.len());
        input[..have].copy_from_slice(&self.waiting[start..start + have]);
        self.out
            .resize(self.fft.output_frames_max() * channels, 0.0);
        let frames_out = self.out.len() / channels;
        let input = InterleavedSlice::new(&input, channels, needed).map_err(failed)?;
        let mut output =
            InterleavedSlice::new_mut(&mut self.out, channels, frames_out).map_err(failed)?;
        let indexing = partial.map(|n| Indexing {
            partial_len: Some(n),
            ..Default::default()
        });
        let (_, made) = self
            .fft
            .process_into_buffer(&input, &mut output, indexing.as_ref())
            .map_err(failed)?;
        let skip = self.delay.min(made);
        self.delay -= skip;
        let keep = ((made - skip) as u64).min(due.saturating_sub(self.made)) as usize;
        self.made += keep as u64;
        into.extend_from_slice(&self.out[skip * channels..(skip + keep) * channels]);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sine at 44.1 kHz resampled to 48 kHz: exactly as long, in phase (the delay dropped),
    /// pushed in odd-sized pieces.
    #[test]
    fn a_sine_keeps_its_length_and_its_phase() {
        let (from, to, hz) = (44_100u32, 48_000u32, 440.0f32);
        let seconds = 1.2345;
        let frames = (f64::from(from) * seconds) as usize;
        let sine =
            |i: usize, rate: u32| (i as f32 / rate as f32 * hz * std::f32::consts::TAU).sin();
        let input: Vec<f32> = (0..frames)
            .flat_map(|i| [sine(i, from), -sine(i, from)])
            .collect();
        let mut resample = Resample::new(from, to, 2).unwrap();
        let mut out = Vec::new();
        for piece in input.chunks(2 * 777) {
            resample.push(piece, &mut out).unwrap();
        }
        resample.finish(&mut out).unwrap();
        let want = frames as u64 * u64::from(to) / u64::from(from);
        assert_eq!(out.len() as u64, 2 * want);
        // Away from the edges, every sample is the sine at the new rate.
        for i in 1000..(want as usize - 1000) {
            let (left, right) = (out[2 * i], out[2 * i + 1]);
            assert!((left - sine(i, to)).abs() < 0.01, "frame {i}: {left}");
            assert!((right + sine(i, to)).abs() < 0.01, "frame {i}: {right}");
        }
    }
}
