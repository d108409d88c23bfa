//! What one analysis pass gives: the results, or why the file could not be analysed.

use super::{loudness::Loudness, silence::SilenceReport, waveform::Waveform};

/// What one analysis pass produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// The waveform, when asked for.
    pub waveform: Option<Waveform>,
    /// The silences, when asked for.
    pub silence: Option<SilenceReport>,
    /// The loudness, when asked for.
    pub loudness: Option<Loudness>,
    /// Duration of the decoded audio, in milliseconds (rounded down).
    pub duration_ms: u64,
}

/// Why a file could not be analysed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AnalysisError {
    /// The file is not audio in a format this build reads (or has no audio track).
    #[error("not an audio file: {0}")]
    NotAudio(String),
    /// The audio is in a codec this build cannot decode.
    #[error("unsupported audio codec: {0}")]
    UnsupportedCodec(String),
    /// The audio data is damaged; `at` is the position reached, in seconds.
    #[error("corrupt audio data at {at:.3} s: {reason}")]
    Corrupt {
        /// Seconds of audio decoded before the damage.
        at: f64,
        /// What is wrong.
        reason: String,
    },
    /// Reading the file failed (the store's error).
    #[error("reading the audio failed: {0}")]
    Io(#[source] std::io::Error),
    /// The options do not fit this file (e.g. more pixels per second than half its sample rate).
    #[error("{field}: {message}")]
    Options {
        /// The option's field name (`pixels_per_second`, ...).
        field: &'static str,
        /// What is wrong.
        message: String,
    },
}
