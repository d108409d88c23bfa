//! Why a file could not be mastered.

/// Why a file could not be mastered.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MasterError {
    /// The audio cannot be encoded as asked (its sample rate, or an empty file).
    #[error("{0}")]
    Unsupported(String),
    /// The encoder failed.
    #[error("the encoder failed: {0}")]
    Encoder(String),
}
