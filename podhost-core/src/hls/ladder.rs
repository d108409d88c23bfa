//! Which renditions a video gets: Apple's HLS authoring ladder (H.264 at 1080p, 720p, 480p,
//! 360p and 240p, AAC-LC audio), cut at the source's size, never above it; the top one copied
//! when the source already is what it would be encoded to.

use serde::{Deserialize, Serialize};

use crate::probe::VideoFacts;

/// One rung of the ladder: a height and the average bit rate at 30 frames per second (Apple's
/// HLS authoring specification, table of H.264 variants).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rung {
    /// Lines of the picture.
    pub height: u32,
    /// Average video bits per second at up to 30 frames per second.
    pub bitrate: u32,
}

/// The rungs, top first.
pub const RUNGS: [Rung; 5] = [
    Rung {
        height: 1080,
        bitrate: 6_000_000,
    },
    Rung {
        height: 720,
        bitrate: 3_000_000,
    },
    Rung {
        height: 480,
        bitrate: 1_100_000,
    },
    Rung {
        height: 360,
        bitrate: 730_000,
    },
    Rung {
        height: 240,
        bitrate: 300_000,
    },
];

/// The audio every variant plays: AAC-LC, stereo.
pub const AUDIO_BITRATE: u32 = 128_000;

/// How long a segment is, in seconds (it ends on the first key frame after it).
pub const SEGMENT_SECONDS: u32 = 6;

/// Above this frame rate the bit rates are 1.5 times the table's (Apple's 60 fps rows).
const HIGH_FRAME_RATE: f64 = 31.0;

/// One video rendition to make.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VideoRendition {
    /// Its name in URIs: the height and `p` (`720p`).
    pub name: String,
    /// Picture width (even, the source's aspect kept).
    pub width: u32,
    /// Picture height.
    pub height: u32,
    /// Target average bits per second (the source's own rate when copied).
    pub bitrate: u32,
    /// The source's video stream, as it is (no encode).
    pub copied: bool,
}

/// The renditions of a source: one per rung at or below its height, and the source's own
/// height on top when it falls between rungs (a 900-line source gets 900p, 720p, ...; a source
/// below 240 lines gets its own height alone). The top one is copied when the source is H.264
/// no larger than 1080p and no faster than 60 frames per second, at no more than 1.5 times the
/// top rung's rate (the packaging job copies it only when the source's key frames also fall
/// on the segments' grid, [`copyable`]; else it encodes the top with [`plan_encoded`]).
pub fn plan(source: &VideoFacts) -> Vec<VideoRendition> {
    plan_with(source, true)
}

/// The renditions of [`plan`], every one encoded (none copied): for a source whose key frames
/// are not on the segments' grid, so that every segment of every rendition starts on a key
/// frame at the same time.
pub fn plan_encoded(source: &VideoFacts) -> Vec<VideoRendition> {
    plan_with(source, false)
}

/// Whether the plan of `source` copies its top rendition (and so whether its key frames need
/// looking at).
pub fn copies_top(source: &VideoFacts) -> bool {
    plan(source).first().is_some_and(|r| r.copied)
}

fn plan_with(source: &VideoFacts, may_copy: bool) -> Vec<VideoRendition> {
    let height = even(source.height.max(2));
    let width = source.width.max(2);
    let width_at = |h: u32| even((u64::from(width) * u64::from(h) / u64::from(height)) as u32);
    let capped = height.min(RUNGS[0].height);
    let mut heights = Vec::new();
    if !RUNGS.iter().any(|r| r.height == capped) {
        // Between two rungs (or below the last): the source's size on top.
        heights.push(capped);
    }
    heights.extend(RUNGS.iter().map(|r| r.height).filter(|h| *h <= capped));
    let mut out: Vec<VideoRendition> = heights
        .into_iter()
        .map(|h| VideoRendition {
            name: format!("{h}p"),
            width: width_at(h),
            height: h,
            bitrate: bitrate_at(h, source.frame_rate),
            copied: false,
        })
        .collect();
    let copy = may_copy
        && source.codec == "h264"
        && height <= RUNGS[0].height
        && source.frame_rate <= 61.0
        && source.bitrate > 0
        && f64::from(source.bitrate)
            <= 1.5 * f64::from(bitrate_at(RUNGS[0].height, source.frame_rate));
    if copy && let Some(top) = out.first_mut() {
        top.width = source.width;
        top.height = source.height;
        top.bitrate = source.bitrate;
        top.copied = true;
    }
    out
}

/// The renditions an ad is encoded to so that it splices into a video of `shape`: the video's
/// names and picture sizes, each at its rung's rate (none copied).
pub fn for_ad(shape: &crate::model::StreamShape) -> Vec<VideoRendition> {
    shape
        .renditions
        .iter()
        .map(|(name, width, height)| VideoRendition {
            name: name.clone(),
            width: *width,
            height: *height,
            bitrate: bitrate_at(*height, shape.frame_rate()),
            copied: false,
        })
        .collect()
}

/// The average bit rate of a rendition `height` lines high at `frame_rate`: its rung's (1.5
/// times above 31 fps); between two rungs (or below the last), the rung below's scaled by
/// area, never above the top rung's.
fn bitrate_at(height: u32, frame_rate: f64) -> u32 {
    let scale = if frame_rate > HIGH_FRAME_RATE {
        1.5
    } else {
        1.0
    };
    let rate = |r: u32| (f64::from(r) * scale) as u32;
    if let Some(rung) = RUNGS.iter().find(|r| r.height == height) {
        return rate(rung.bitrate);
    }
    let capped = height.min(RUNGS[0].height);
    let below = RUNGS
        .iter()
        .find(|r| r.height < capped)
        .copied()
        .unwrap_or(RUNGS[RUNGS.len() - 1]);
    let area = f64::from(capped) / f64::from(below.height);
    (f64::from(rate(below.bitrate)) * area * area).min(f64::from(rate(RUNGS[0].bitrate))) as u32
}

/// Whether a source whose video frames are `frames` (each its presentation time in units of
/// `time_base` seconds, a fraction, and whether it is a key frame; in any order) can be cut
/// into segments on the grid of [`SEGMENT_SECONDS`] as it is: its first frame is a key frame,
/// and so is the first frame at or after every multiple of the segment duration from it
/// (where ffmpeg's HLS muxer cuts, and where the encoded renditions force their key frames).
/// A source of no frames is not.
pub fn copyable(frames: &mut [(i64, bool)], time_base: (i64, i64)) -> bool {
    let (num, den) = time_base;
    if num <= 0 || den <= 0 {
        return false;
    }
    frames.sort_unstable_by_key(|(pts, _)| *pts);
    let Some(&(first, first_key)) = frames.first() else {
        return false;
    };
    if !first_key {
        return false;
    }
    let grid = i128::from(SEGMENT_SECONDS) * i128::from(den);
    // Frame at `pts` is at or after grid point n when (pts - first) * num >= n * grid.
    let at = |pts: i64| i128::from(pts - first) * i128::from(num);
    let last = at(frames[frames.len() - 1].0);
    let mut n: i128 = 1;
    while n * grid <= last {
        let i = frames.partition_point(|(pts, _)| at(*pts) < n * grid);
        match frames.get(i) {
            Some((_, true)) => {}
            _ => return false,
        }
        n += 1;
    }
    true
}

fn even(n: u32) -> u32 {
    (n / 2 * 2).max(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(codec: &str, width: u32, height: u32, fps: f64, bitrate: u32) -> VideoFacts {
        VideoFacts {
            codec: codec.into(),
            width,
            height,
            frame_rate: fps,
            duration_ms: 60_000,
            bitrate,
        }
    }

    /// (source, names of the renditions top first, whether the top is copied)
    #[test]
    fn the_ladder_stops_at_the_source_and_copies_what_already_fits() {
        let cases: [(VideoFacts, &[&str], bool); 7] = [
            (
                source("h264", 1920, 1080, 30.0, 5_000_000),
                &["1080p", "720p", "480p", "360p", "240p"],
                true,
            ),
            (
                source("hevc", 1920, 1080, 30.0, 5_000_000),
                &["1080p", "720p", "480p", "360p", "240p"],
                false,
            ),
            (
                source("h264", 3840, 2160, 30.0, 20_000_000),
                &["1080p", "720p", "480p", "360p", "240p"],
                false,
            ),
            (
                source("h264", 1280, 720, 30.0, 2_000_000),
                &["720p", "480p", "360p", "240p"],
                true,
            ),
            (
                source("vp9", 1600, 900, 25.0, 0),
                &["900p", "720p", "480p", "360p", "240p"],
                false,
            ),
            (source("h264", 320, 180, 30.0, 200_000), &["180p"], true),
            (
                source("h264", 1920, 1080, 30.0, 40_000_000),
                &["1080p", "720p", "480p", "360p", "240p"],
                false,
            ),
        ];
        for (facts, names, copied) in cases {
            let plan = plan(&facts);
            let got: Vec<&str> = plan.iter().map(|r| r.name.as_str()).collect();
            assert_eq!(got, names, "{facts:?}");
            assert_eq!(plan[0].copied, copied, "{facts:?}");
            assert!(plan.iter().skip(1).all(|r| !r.copied));
            assert!(
                plan.iter()
                    .all(|r| r.width % 2 == 0 && r.height <= facts.height.max(2))
            );
            assert!(plan.windows(2).all(|w| w[0].height > w[1].height));
        }
    }

    #[test]
    fn a_source_is_copyable_only_with_a_key_frame_at_every_segment_start() {
        // 30 fps in 1/15360 units (512 a frame), 20 s: 600 frames.
        let frames = |key: &dyn Fn(i64) -> bool| -> Vec<(i64, bool)> {
            (0..600).map(|f| (f * 512, key(f))).collect()
        };
        let tb = (1, 15_360);
        // A key frame every 2 s: on the grid.
        assert!(copyable(&mut frames(&|f| f % 60 == 0), tb));
        // Every 6 s from the start: on the grid, in any order.
        let mut shuffled = frames(&|f| f % 180 == 0);
        shuffled.reverse();
        assert!(copyable(&mut shuffled, tb));
        // At 0, 6 and 12 s only: the segment at 18 s would start without one.
        assert!(!copyable(
            &mut frames(&|f| f == 0 || f == 180 || f == 360),
            tb
        ));
        // Every 250 frames (x264's default): 8.3 s, off the grid.
        assert!(!copyable(&mut frames(&|f| f % 250 == 0), tb));
        // A frame late at 6 s: off the grid.
        assert!(!copyable(&mut frames(&|f| f % 180 == 1 || f == 0), tb));
        // The first frame is not a key frame; no frames at all.
        assert!(!copyable(&mut frames(&|f| f % 60 == 1), tb));
        assert!(!copyable(&mut [], tb));
        // Timestamps that start late count from the first frame.
        let mut late: Vec<(i64, bool)> = (0..600).map(|f| (1024 + f * 512, f % 180 == 0)).collect();
        assert!(copyable(&mut late, tb));
    }

    #[test]
    fn a_plan_encoded_copies_nothing() {
        let facts = source("h264", 1280, 720, 30.0, 2_000_000);
        assert!(copies_top(&facts));
        let plan = plan_encoded(&facts);
        assert!(plan.iter().all(|r| !r.copied));
        assert_eq!(
            (plan[0].width, plan[0].height, plan[0].bitrate),
            (1280, 720, 3_000_000)
        );
    }

    #[test]
    fn widths_keep_the_aspect_and_fast_video_gets_more_bits() {
        let plan30 = plan(&source("vp9", 1920, 1080, 30.0, 0));
        assert_eq!(
            plan30
                .iter()
                .map(|r| (r.width, r.height))
                .collect::<Vec<_>>(),
            [
                (1920, 1080),
                (1280, 720),
                (852, 480),
                (640, 360),
                (426, 240)
            ]
        );
        let plan60 = plan(&source("vp9", 1920, 1080, 60.0, 0));
        assert_eq!(plan60[0].bitrate, 9_000_000);
        assert_eq!(plan30[0].bitrate, 6_000_000);
    }
}
