//! Dynamic ad insertion's stitching: an episode with ads at its breaks, answered from stored
//! parts and never stored whole.
//!
//! [`Mp3Layout`] reads where a file's audio frames are and how each uses the bit reservoir;
//! [`stitch`] makes the [`Arrangement`] of an episode with ads in its slots (cuts on frame
//! boundaries, clean seams, the Xing/Info frames left out); an `Arrangement` maps any byte range
//! of the answer to ranges of the stored blobs and of the few bytes made for it. AAC in M4A is
//! stitched the same way by [`M4aCuts`], with a `moov` made for each arrangement.

mod arrangement;
mod m4a;
mod mp3;
mod plan;
mod stitcher;
pub(crate) mod transcript;

pub use arrangement::{Arrangement, Piece};
pub use m4a::{M4aAd, M4aCuts, M4aError, M4aFile, M4aStitched};
pub use mp3::{Frame, Mp3Layout, StitchError};
pub use plan::{AdPart, Cuts, Insert, Mp3File, Slot, Stitched, stitch};
pub use stitcher::{AdFrames, EpisodeCuts, Heard, StitchFailure, Timeline};
pub use transcript::{Timed, retime_transcript};
