//! Ads spliced into a listener's stream: where each ad goes in each rendition (the segment
//! boundary nearest its break), and where every segment of the audio rendition is in the
//! listener's whole stream (what counting and impressions measure, as for a file). The
//! playlists are rendered from these runs by [`playlist`](super::playlist) and
//! [`subtitles`](super::subtitles); nothing is stored per listener.

use std::{ops::Range, sync::Arc};

use super::package::{Package, Track};

/// An ad in a listener's stream.
#[derive(Clone, Debug, PartialEq)]
pub struct Insert {
    /// Where it goes: seconds of the episode (0 before it, infinity after it); each rendition
    /// takes its segment boundary nearest to it.
    pub at: f64,
    /// The ad's package's name in URIs (its packaging job's id).
    pub name: String,
    /// The ad's package (the renditions of the episode's names).
    pub package: Arc<Package>,
}

impl Insert {
    /// Whether the ad has every rendition of `package` (so it splices into each of them).
    pub fn fits(&self, package: &Package) -> bool {
        package
            .video
            .iter()
            .chain(package.audio.as_ref())
            .all(|t| self.package.track(&t.name).is_some())
    }

    /// Seconds of the ad (its audio rendition's, else its top video rendition's).
    pub fn duration(&self) -> f64 {
        self.package
            .audio
            .as_ref()
            .or(self.package.top())
            .map_or(0.0, Track::duration)
    }
}

/// A run of a listener's rendition: some of the episode's own segments, or an ad.
#[derive(Clone, Debug, PartialEq)]
pub enum Run<'a> {
    /// The episode's segments in this range.
    Own(Range<usize>),
    /// Every segment of this ad.
    Ad(&'a Insert),
}

/// The runs of a rendition whose segments last `durations` with `inserts` (in order) spliced
/// in, each at the boundary nearest its place; no empty run.
pub fn runs<'a>(durations: &[f64], inserts: &'a [Insert]) -> Vec<Run<'a>> {
    let mut out = Vec::new();
    let mut from = 0;
    for insert in inserts {
        let at = nearest_boundary(durations, insert.at).max(from);
        if at > from {
            out.push(Run::Own(from..at));
        }
        out.push(Run::Ad(insert));
        from = at;
    }
    if from < durations.len() {
        out.push(Run::Own(from..durations.len()));
    }
    out
}

/// The segment boundary (0 to `durations.len()`) nearest to `seconds`.
pub fn nearest_boundary(durations: &[f64], seconds: f64) -> usize {
    if seconds == f64::INFINITY {
        return durations.len();
    }
    let mut best = (0, seconds.abs());
    let mut at = 0.0;
    for (n, d) in durations.iter().enumerate() {
        at += d;
        let off = (seconds - at).abs();
        if off < best.1 {
            best = (n + 1, off);
        }
    }
    best.0
}

/// The boundary of a rendition whose segments last `durations` nearest to `seconds`, in
/// seconds (infinity stays: after the last).
pub fn snap(durations: &[f64], seconds: f64) -> f64 {
    if seconds == f64::INFINITY {
        return seconds;
    }
    durations[..nearest_boundary(durations, seconds)]
        .iter()
        .sum()
}

/// A segment of a listener's audio rendition: the episode's own, or an ad's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AudioSegment<'a> {
    /// The episode's segment `n`.
    Own(usize),
    /// Segment `n` of the ad named so.
    Ad(&'a str, usize),
}

/// The listener's audio rendition as one file: its bytes, its length, where each ad is.
#[derive(Clone, Debug, PartialEq)]
pub struct AudioLine {
    /// Bytes of all its segments.
    pub len: u64,
    /// Milliseconds.
    pub duration_ms: u64,
    /// Per insert that is in it, in order: its index among the inserts, and its bytes.
    pub ads: Vec<(usize, Range<u64>)>,
    /// Where `segment` starts, when it is in the line.
    pub offset: Option<u64>,
}

/// The audio rendition `audio` with `inserts` spliced in, and where `segment` is in it.
pub fn audio_line(audio: &Track, inserts: &[Insert], segment: AudioSegment<'_>) -> AudioLine {
    let durations: Vec<f64> = audio.segments.iter().map(|s| s.duration).collect();
    let mut line = AudioLine {
        len: 0,
        duration_ms: 0,
        ads: Vec::new(),
        offset: None,
    };
    let mut seconds = 0.0;
    for run in runs(&durations, inserts) {
        match run {
            Run::Own(range) => {
                for n in range {
                    if segment == AudioSegment::Own(n) {
                        line.offset = Some(line.len);
                    }
                    line.len += audio.segments[n].size;
                    seconds += audio.segments[n].duration;
                }
            }
            Run::Ad(insert) => {
                let Some(track) = insert.package.track(&audio.name) else {
                    continue;
                };
                let start = line.len;
                for (n, s) in track.segments.iter().enumerate() {
                    if segment == AudioSegment::Ad(&insert.name, n) {
                        line.offset = Some(line.len);
                    }
                    line.len += s.size;
                    seconds += s.duration;
                }
                let index = inserts
                    .iter()
                    .position(|i| std::ptr::eq(i, insert))
                    .unwrap_or(0);
                line.ads.push((index, start..line.len));
            }
        }
    }
    line.duration_ms = (seconds * 1000.0).round() as u64;
    line
}

/// How far `inserts` move a moment `ms` of the episode (the ads before it, by the reference
/// rendition whose segments last `durations`): the moment in the listener's stream.
pub fn retime(durations: &[f64], inserts: &[Insert], ms: u64) -> u64 {
    let mut own = 0.0;
    let mut added = 0.0;
    for run in runs(durations, inserts) {
        match run {
            Run::Own(range) => own += durations[range].iter().sum::<f64>(),
            Run::Ad(insert) => {
                if (own * 1000.0) as u64 > ms {
                    break;
                }
                added += insert.duration();
            }
        }
    }
    ms + (added * 1000.0).round() as u64
}

#[cfg(test)]
mod tests {
    use super::super::package::Segment;
    use super::*;

    fn track(name: &str, durations: &[f64], size: u64) -> Track {
        Track {
            name: name.into(),
            width: 0,
            height: 0,
            codec: "mp4a.40.2".into(),
            copied: false,
            init_size: 700,
            segments: durations
                .iter()
                .map(|&duration| Segment {
                    duration,
                    size,
                    key_frame: 0,
                })
                .collect(),
        }
    }

    fn ad(name: &str, at: f64, seconds: &[f64]) -> Insert {
        Insert {
            at,
            name: name.into(),
            package: Arc::new(Package {
                video: Vec::new(),
                audio: Some(track("audio", seconds, 10)),
                frame_rate: 30.0,
                target_duration: 6,
            }),
        }
    }

    #[test]
    fn each_ad_goes_at_the_boundary_nearest_its_break() {
        let episode = [6.0, 6.0, 6.0, 2.0];
        let inserts = [
            ad("pre", 0.0, &[5.0]),
            ad("mid", 7.1, &[6.0, 4.0]),
            ad("post", f64::INFINITY, &[3.0]),
        ];
        let got = runs(&episode, &inserts);
        assert_eq!(
            got,
            [
                Run::Ad(&inserts[0]),
                Run::Own(0..1),
                Run::Ad(&inserts[1]),
                Run::Own(1..4),
                Run::Ad(&inserts[2]),
            ]
        );
        // Two breaks nearest one boundary: both ads there, in order.
        let close = [ad("a", 11.0, &[1.0]), ad("b", 12.5, &[1.0])];
        assert_eq!(
            runs(&episode, &close),
            [
                Run::Own(0..2),
                Run::Ad(&close[0]),
                Run::Ad(&close[1]),
                Run::Own(2..4)
            ]
        );
        assert_eq!(nearest_boundary(&episode, 2.9), 0);
        assert_eq!(nearest_boundary(&episode, 3.1), 1);
        assert_eq!(nearest_boundary(&episode, 100.0), 4);
    }

    #[test]
    fn the_audio_line_counts_the_ads_bytes_where_the_listener_hears_them() {
        let audio = track("audio", &[6.0, 6.0, 2.0], 100);
        let inserts = [ad("pre", 0.0, &[6.0, 1.5]), ad("mid", 6.0, &[3.0])];
        let line = audio_line(&audio, &inserts, AudioSegment::Own(1));
        // pre (20 bytes), own 0 (100), mid (10), own 1 (100), own 2 (100).
        assert_eq!(line.len, 330);
        assert_eq!(line.duration_ms, 24_500);
        assert_eq!(line.ads, [(0, 0..20), (1, 120..130)]);
        assert_eq!(line.offset, Some(130));
        let in_ad = audio_line(&audio, &inserts, AudioSegment::Ad("pre", 1));
        assert_eq!(in_ad.offset, Some(10));
        assert_eq!(
            audio_line(&audio, &inserts, AudioSegment::Ad("other", 0)).offset,
            None
        );
        // A moment after the midroll is moved by both ads; one before it, by the preroll.
        let durations = [6.0, 6.0, 2.0];
        assert_eq!(retime(&durations, &inserts, 1000), 1000 + 7500);
        assert_eq!(retime(&durations, &inserts, 7000), 7000 + 10_500);
    }
}
