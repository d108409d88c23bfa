//! Audio analysis: waveforms (BBC audiowaveform's output, value for value), silences (ffmpeg's
//! `silencedetect` rule) with suggested mid-roll ad breaks, and loudness (EBU R128: integrated,
//! range, true and sample peak), computed in one decoding pass.
//!
//! [`analyze`] is synchronous and CPU-bound: run it on a blocking thread. It reads its
//! [`MediaSource`] front to back once (a few seeks for the container's headers), decodes with
//! symphonia (MP3, AAC in MP4/M4A or ADTS, FLAC, Vorbis in Ogg, WAV), and keeps only constant
//! state besides the waveform it builds, so memory does not grow with the file's length.
//!
//! Decoding follows ffmpeg where the two could differ: encoder delay and padding announced by a
//! LAME tag are trimmed (gapless), an MP3 without a Xing/Info header is decoded to its last frame
//! (symphonia would stop at the length it estimates from the first frames' bitrate), and the edit
//! list of an MP4 track (AAC priming) is applied. Floating-point samples become 16-bit integers
//! by symphonia's conversion (scaled by 32,768, truncated, saturated) for the waveform; silence
//! is tested on the decoded samples themselves, as ffmpeg does.
//!
//! ```no_run
//! use podhost_core::analysis::{analyze, SilenceOptions, WaveformOptions};
//! let file = std::fs::File::open("episode.mp3").unwrap();
//! let analysis = analyze(
//!     Box::new(file),
//!     Some("audio/mpeg"),
//!     Some(&WaveformOptions::default()),
//!     Some(&SilenceOptions::default()),
//!     true,
//! )
//! .unwrap();
//! println!("{}", analysis.waveform.unwrap().to_json());
//! println!("{:?}", analysis.silence.unwrap().midrolls);
//! println!("{:?} LUFS", analysis.loudness.unwrap().integrated);
//! ```

mod decode;
mod edit_list;
mod loudness;
mod outcome;
mod parameters;
mod silence;
mod waveform;

use symphonia::core::io::MediaSource;

pub use decode::Tap;
pub use loudness::Loudness;
pub(crate) use loudness::LoudnessMeter;
pub use outcome::{Analysis, AnalysisError};
pub use parameters::{
    MAX_MIN_DURATION, MAX_PIXELS_PER_SECOND, MAX_SAMPLES_PER_PIXEL, MIN_NOISE_DB, SilenceOptions,
    WaveformOptions,
};
pub use silence::{MIDROLL_SPACING, Silence, SilenceReport, midrolls};
pub use waveform::{Waveform, WaveformParseError};

/// Decodes `source` once and computes what is asked (the waveform, the silences, the loudness:
/// any of them) from the same decoded samples. `mime_hint` (e.g. `audio/mpeg`) helps pick the container reader;
/// the content decides.
///
/// Blocking and CPU-bound. Options should have passed their `check`; they are checked again
/// (an invalid one gives [`AnalysisError::Options`]). A damaged or non-audio file gives an
/// error, never a panic or an endless loop.
pub fn analyze(
    source: Box<dyn MediaSource>,
    mime_hint: Option<&str>,
    waveform: Option<&WaveformOptions>,
    silence: Option<&SilenceOptions>,
    loudness: bool,
) -> Result<Analysis, AnalysisError> {
    if let Some(w) = waveform {
        w.check().map_err(options_error)?;
    }
    if let Some(s) = silence {
        s.check().map_err(options_error)?;
    }
    decode::run(
        source,
        mime_hint,
        waveform.copied(),
        silence.copied(),
        loudness,
        None,
    )
}

/// [`analyze`], with every decoded frame also given to `tap` (as `f32` planes, after the
/// encoder delay and edit list are applied): one decode for the analyses and a transformation
/// of the audio. Blocking and CPU-bound.
pub fn analyze_with(
    source: Box<dyn MediaSource>,
    mime_hint: Option<&str>,
    loudness: bool,
    tap: &mut dyn Tap,
) -> Result<Analysis, AnalysisError> {
    decode::run(source, mime_hint, None, None, loudness, Some(tap))
}

fn options_error(errors: crate::FieldErrors) -> AnalysisError {
    let (field, message) = errors
        .fields()
        .iter()
        .next()
        .map(|(f, m)| (f.clone(), m.join("; ")))
        .unwrap_or_default();
    let field = match field.as_str() {
        "samples_per_pixel" => "samples_per_pixel",
        "pixels_per_second" => "pixels_per_second",
        "bits" => "bits",
        "noise" => "noise",
        "duration" => "duration",
        _ => "options",
    };
    AnalysisError::Options { field, message }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::Arc;

    use object_store::memory::InMemory;
    use object_store::path::Path;
    use object_store::{ObjectStore, ObjectStoreExt, PutPayload};

    use super::*;
    use crate::probe::store_source::StoreSource;

    /// A mono 16-bit WAV: 1 s of a square wave at ±1000, 3 s of silence, 1 s of the wave.
    fn wav() -> Vec<u8> {
        let rate = 8000u32;
        let samples: Vec<i16> = (0..5 * rate)
            .map(|i| {
                if (rate..4 * rate).contains(&i) {
                    0
                } else if i % 2 == 0 {
                    1000
                } else {
                    -1000
                }
            })
            .collect();
        let data_len = samples.len() as u32 * 2;
        let mut out = b"RIFF".to_vec();
        out.extend_from_slice(&(36 + data_len).to_le_bytes());
        out.extend_from_slice(b"WAVEfmt ");
        out.extend_from_slice(&16u32.to_le_bytes());
        for v in [1u16, 1] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&rate.to_le_bytes());
        out.extend_from_slice(&(rate * 2).to_le_bytes());
        for v in [2u16, 16] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(b"data");
        out.extend_from_slice(&data_len.to_le_bytes());
        for s in samples {
            out.extend_from_slice(&s.to_le_bytes());
        }
        out
    }

    #[test]
    fn analyses_an_object_in_the_store() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        let loc = Path::from("blob");
        let bytes = wav();
        let size = bytes.len() as u64;
        rt.block_on(store.put(&loc, PutPayload::from(bytes)))
            .unwrap();
        let handle = rt.handle().clone();
        let analysis = rt
            .block_on(rt.spawn_blocking(move || {
                let source = StoreSource::whole(store, loc, handle, size);
                analyze(
                    Box::new(source),
                    Some("audio/wav"),
                    Some(&WaveformOptions {
                        samples_per_pixel: Some(4000),
                        pixels_per_second: None,
                        bits: 16,
                    }),
                    Some(&SilenceOptions::default()),
                    true,
                )
            }))
            .unwrap()
            .unwrap();
        assert_eq!(analysis.duration_ms, 5000);
        let silence = analysis.silence.unwrap();
        let spans: Vec<(f64, f64)> = silence.silences.iter().map(|s| (s.start, s.end)).collect();
        assert_eq!(spans, [(1.0, 4.0)]);
        let loudness = analysis.loudness.unwrap();
        assert_eq!(loudness.sample_peak, Some(-30.31), "20 log10(1000 / 32768)");
        let waveform = analysis.waveform.unwrap();
        assert_eq!(
            waveform.data,
            [
                -1000, 1000, -1000, 1000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1000, 1000, -1000,
                1000
            ]
        );
    }
}
