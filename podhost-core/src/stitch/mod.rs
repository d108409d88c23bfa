//! Dynamic ad insertion's stitching: an episode with ads at its breaks, answered from stored
//! parts and never stored whole.
//!
//! [`Mp3Layout`] reads where a file's audio frames are and how each uses the bit reservoir;
//! [`stitch`] makes the [`Arrangement`] of an episode with ads in its slots (cuts on frame
//! boundaries, clean seams, the Xing/Info frames left out); an `Arrangement` maps any byte range
//! of the answer to ranges of the stored blobs and of the few bytes made for it.

mod arrangement;
mod mp3;
mod plan;
pub(crate) mod transcript;

pub use arrangement::{Arrangement, Piece};
pub use mp3::{Frame, Mp3Layout, StitchError};
pub use plan::{AdPart, Cuts, Insert, Mp3File, Slot, Stitched, stitch};
pub use transcript::{Timed, retime_transcript};
