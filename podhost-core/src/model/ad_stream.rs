//! An ad packaged like the video streams it goes into: the same renditions (names and picture
//! sizes) at the same frame rate, so a listener's media playlists can splice its segments
//! between the episode's. A video ad is scaled into each picture; an audio ad is shown over the
//! podcast's cover. Made once per ad and shape by a background job (its package stored under
//! the job's results, as a video's is).

use serde::{Deserialize, Serialize};

use crate::ids::{JobId, MediaId};

/// The stream an ad must have to be spliced into a video's: its video renditions, its frame
/// rate and, for an audio ad, the picture it is shown over.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct StreamShape {
    /// The video renditions, top first: name (`720p`), width, height.
    pub renditions: Vec<(String, u32, u32)>,
    /// Frames per second, in thousandths.
    pub frame_rate_milli: u32,
    /// The image an audio ad is shown over (the podcast's cover); `None` for a video ad, or an
    /// audio ad in a podcast without one (a black picture).
    pub cover: Option<MediaId>,
}

impl StreamShape {
    /// Frames per second.
    pub fn frame_rate(&self) -> f64 {
        f64::from(self.frame_rate_milli) / 1000.0
    }
}

/// An ad packaged to one stream shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdStream {
    /// The shape.
    pub shape: StreamShape,
    /// The job that packages it (its package is under the job's results).
    pub job: JobId,
    /// Whether the package is stored (the job succeeded).
    pub ready: bool,
}
