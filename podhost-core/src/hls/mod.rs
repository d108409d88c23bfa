//! Video for HLS: the ladder a source gets ([`ladder`]), ffmpeg as its encoder ([`transcode`]),
//! the package as stored ([`package`]) and the playlists served from it ([`playlist`]).
//!
//! The packaging job (in the host's work) copies the source to a working folder, has ffmpeg
//! write every rendition's CMAF segments there, reads them back ([`read_output`]: durations
//! from ffmpeg's playlists, sizes, codecs and key-frame ends from the files), and stores them
//! with the package's description under the job's results:
//!
//! ```text
//! accounts/{account}/results/{job}/hls.json                 the Package
//! accounts/{account}/results/{job}/hls/{track}/init.mp4     a rendition's init segment
//! accounts/{account}/results/{job}/hls/{track}/{n:05}.m4s   its media segments
//! ```

pub mod chapter_data;
pub mod fragment;
pub mod ladder;
pub mod package;
pub mod playlist;
pub mod splice;
pub mod subtitles;
pub mod transcode;

use std::path::{Path, PathBuf};

pub use package::{Package, Segment, Track};

/// One rendition as ffmpeg wrote it: its description and its files, in order.
#[derive(Debug)]
pub struct Written {
    /// The rendition.
    pub track: Track,
    /// Its init segment's file.
    pub init: PathBuf,
    /// Its media segments' files.
    pub segments: Vec<PathBuf>,
}

/// Whether every copied video rendition of `tracks` is cut where the encoded ones are: the
/// same number of segments, each starting within half a frame of theirs; with no encoded one
/// to compare with, each segment `n` starting at `n` × [`ladder::SEGMENT_SECONDS`] or within a
/// frame and a half after. The encoded renditions' key frames are forced there, so a copied
/// rendition that is not (its source's key frames were not where they seemed) would make
/// segments that do not line up across the ladder.
pub fn copied_cut_alike(tracks: &[&Track], frame_rate: f64) -> bool {
    let frame = if frame_rate > 0.0 {
        1.0 / frame_rate
    } else {
        0.04
    };
    let starts = |track: &Track| -> Vec<f64> {
        track
            .segments
            .iter()
            .scan(0.0, |at, s| {
                let start = *at;
                *at += s.duration;
                Some(start)
            })
            .collect()
    };
    let reference = tracks.iter().find(|t| !t.copied).map(|t| starts(t));
    tracks.iter().filter(|t| t.copied).all(|copied| {
        let cuts = starts(copied);
        match &reference {
            Some(encoded) => {
                cuts.len() == encoded.len()
                    && cuts
                        .iter()
                        .zip(encoded)
                        .all(|(a, b)| (a - b).abs() <= frame / 2.0 + 1e-3)
            }
            None => cuts.iter().enumerate().all(|(n, at)| {
                let grid = n as f64 * f64::from(ladder::SEGMENT_SECONDS);
                *at >= grid - 1e-3 && *at < grid + 1.5 * frame
            }),
        }
    })
}

/// Reads back the rendition `name` that ffmpeg wrote under `out/{name}` (its media playlist
/// names the init segment and the segments with their durations), measuring each file.
/// `size` is the picture's (0 for audio). Blocking: call it off the runtime's threads.
pub fn read_output(
    out: &Path,
    name: &str,
    size: (u32, u32),
    copied: bool,
) -> Result<Written, String> {
    let dir = out.join(name);
    let playlist = std::fs::read_to_string(dir.join(package::names::MEDIA))
        .map_err(|e| format!("ffmpeg wrote no playlist for {name}: {e}"))?;
    let mut init = None;
    let mut pending: Option<f64> = None;
    let mut listed = Vec::new();
    for line in playlist.lines().map(str::trim) {
        if let Some(map) = line.strip_prefix("#EXT-X-MAP:URI=\"") {
            init = map.strip_suffix('"').map(|uri| dir.join(uri));
        } else if let Some(extinf) = line.strip_prefix("#EXTINF:") {
            let seconds = extinf.split(',').next().unwrap_or("").trim();
            pending = Some(
                seconds
                    .parse()
                    .map_err(|_| format!("ffmpeg's playlist for {name} says EXTINF:{extinf}"))?,
            );
        } else if !line.is_empty() && !line.starts_with('#') {
            let duration = pending.take().ok_or_else(|| {
                format!("ffmpeg's playlist for {name} lists {line} without a duration")
            })?;
            listed.push((duration, dir.join(line)));
        }
    }
    let init = init.ok_or_else(|| format!("ffmpeg's playlist for {name} names no init segment"))?;
    let init_bytes =
        std::fs::read(&init).map_err(|e| format!("the init segment of {name}: {e}"))?;
    let codec = fragment::codec(&init_bytes)
        .ok_or_else(|| format!("the init segment of {name} holds no H.264 or AAC track"))?;
    let video = size.1 > 0;
    let mut segments = Vec::with_capacity(listed.len());
    let mut files = Vec::with_capacity(listed.len());
    for (duration, file) in listed {
        let bytes = std::fs::read(&file)
            .map_err(|e| format!("segment {} of {name}: {e}", file.display()))?;
        let key_frame = match video {
            true => fragment::first_frame_end(&bytes)
                .ok_or_else(|| format!("segment {} of {name} has no frame", file.display()))?,
            false => 0,
        };
        segments.push(Segment {
            duration,
            size: bytes.len() as u64,
            key_frame,
        });
        files.push(file);
    }
    if segments.is_empty() {
        return Err(format!("ffmpeg wrote no segment for {name}"));
    }
    Ok(Written {
        track: Track {
            name: name.to_string(),
            width: size.0,
            height: size.1,
            codec,
            copied,
            init_size: init_bytes.len() as u64,
            segments,
        },
        init,
        segments: files,
    })
}
