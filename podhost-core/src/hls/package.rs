//! A packaged video as stored: every rendition's init segment and media segments, with what a
//! playlist says of them (durations, sizes, bit rates, codecs). Written once by the packaging
//! job as `hls.json` beside the files; playlists are rendered from it.

use serde::{Deserialize, Serialize};

/// A video packaged for HLS.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Package {
    /// The video renditions, top first.
    pub video: Vec<Track>,
    /// The audio rendition (AAC-LC), which every video variant plays and the audio-only
    /// variant is; none for a video without sound.
    pub audio: Option<Track>,
    /// Frames per second of the video renditions.
    pub frame_rate: f64,
    /// The longest segment, whole seconds rounded up (`EXT-X-TARGETDURATION`).
    pub target_duration: u32,
}

/// One rendition: its init segment and media segments.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Track {
    /// Its name in URIs (`720p`, `audio`).
    pub name: String,
    /// Picture width (0 for audio).
    pub width: u32,
    /// Picture height (0 for audio).
    pub height: u32,
    /// RFC 6381 codec of the track (`avc1.64001f`, `mp4a.40.2`).
    pub codec: String,
    /// Whether the source's stream was copied as it was.
    pub copied: bool,
    /// Size of the init segment (`init.mp4`).
    pub init_size: u64,
    /// The media segments, in order (`{n:05}.m4s`, from 0).
    pub segments: Vec<Segment>,
}

/// One media segment.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Segment {
    /// Seconds of media.
    pub duration: f64,
    /// Bytes.
    pub size: u64,
    /// Bytes from its start to the end of its first (key) frame: its `moof` and that frame,
    /// the byte range of the I-frame playlist (0 for audio).
    pub key_frame: u64,
}

/// The file names a package uses.
pub mod names {
    /// The package's description, beside its files.
    pub const MANIFEST: &str = "hls.json";
    /// A rendition's init segment.
    pub const INIT: &str = "init.mp4";
    /// The multivariant playlist.
    pub const MULTIVARIANT: &str = "master.m3u8";
    /// A rendition's media playlist.
    pub const MEDIA: &str = "index.m3u8";
    /// A video rendition's I-frame playlist.
    pub const IFRAMES: &str = "iframes.m3u8";

    /// Media segment `n` of a rendition.
    pub fn segment(n: usize) -> String {
        format!("{n:05}.m4s")
    }

    /// File `file` (`init.mp4`, `{n:05}.m4s`, `{n:05}.vtt`) of the ad whose package is named
    /// `name`, as a listener's playlist names it beside the episode's files.
    pub fn ad_file(name: &str, file: &str) -> String {
        format!("{AD_PREFIX}{name}-{file}")
    }

    /// The ad's package name and its file, of a file name [`ad_file`] made.
    pub fn ad_parts(file: &str) -> Option<(&str, &str)> {
        file.strip_prefix(AD_PREFIX)?
            .rsplit_once('-')
            .filter(|(name, file)| !name.is_empty() && !file.is_empty())
    }

    const AD_PREFIX: &str = "ad-";

    /// The number of a media segment's file name.
    pub fn segment_number(name: &str) -> Option<usize> {
        numbered(name, ".m4s")
    }

    /// The number `n` of a file name `{n:05}{extension}`.
    pub fn numbered(name: &str, extension: &str) -> Option<usize> {
        let digits = name.strip_suffix(extension)?;
        (digits.len() == 5 && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| digits.parse().ok())
            .flatten()
    }
}

impl Track {
    /// Seconds of media.
    pub fn duration(&self) -> f64 {
        self.segments.iter().map(|s| s.duration).sum()
    }

    /// Bytes of media (init and segments).
    pub fn bytes(&self) -> u64 {
        self.init_size + self.segments.iter().map(|s| s.size).sum::<u64>()
    }

    /// Peak bits per second: the largest segment's rate (what `BANDWIDTH` must not be below).
    pub fn peak_bitrate(&self) -> u64 {
        self.segments
            .iter()
            .filter(|s| s.duration > 0.0)
            .map(|s| (s.size as f64 * 8.0 / s.duration).ceil() as u64)
            .max()
            .unwrap_or(0)
    }

    /// Average bits per second over the whole rendition (`AVERAGE-BANDWIDTH`).
    pub fn average_bitrate(&self) -> u64 {
        let seconds = self.duration();
        if seconds <= 0.0 {
            return 0;
        }
        (self.segments.iter().map(|s| s.size).sum::<u64>() as f64 * 8.0 / seconds).ceil() as u64
    }

    /// The track a rendition is in a URI: a name podhost made (`720p`, `audio`).
    pub fn is_named(&self, name: &str) -> bool {
        self.name == name
    }
}

impl Package {
    /// The rendition named `name`.
    pub fn track(&self, name: &str) -> Option<&Track> {
        self.video
            .iter()
            .chain(self.audio.as_ref())
            .find(|t| t.is_named(name))
    }

    /// The top video rendition.
    pub fn top(&self) -> Option<&Track> {
        self.video.first()
    }
}
