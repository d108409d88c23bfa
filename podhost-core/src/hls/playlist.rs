//! The playlists of a package (RFC 8216): the multivariant playlist, each rendition's media
//! playlist and each video rendition's I-frame playlist. Every URI is relative (`720p/index.m3u8`,
//! `00001.m4s`), so a playlist fetched through a subscriber's key leads only to URIs under it.

use std::fmt::Write;

use super::package::{Package, Segment, Track, names};
use super::splice::{self, Insert, Run};

/// The media type of a playlist.
pub const MIME: &str = "application/vnd.apple.mpegurl";

/// The multivariant playlist: one variant per video rendition (each with the audio group, and
/// the subtitles' when `subtitles` names their language), the audio-only variant, and an
/// I-frame variant per video rendition, and the chapters' session data when `chapters`. Every
/// video variant carries `BANDWIDTH` (its peak
/// segment rate with the audio's), `AVERAGE-BANDWIDTH`, `CODECS`, `RESOLUTION` and
/// `FRAME-RATE`.
pub fn multivariant(package: &Package, subtitles: Option<&str>, chapters: bool) -> String {
    let video: Vec<&Track> = package.video.iter().collect();
    render_multivariant(package, &video, true, subtitles, chapters)
}

/// The multivariant playlist of a web page's `<video>`: the video variants from the rendition
/// named `from` up, it first, and no audio-only variant (as [`multivariant`] otherwise). A
/// browser's player starts at the first variant (Safari) or at the one of the least
/// bandwidth (Chromium), so both start at `from`, the rung that fits the page, and climb as
/// the bandwidth allows. `None` when no video rendition is named `from`.
pub fn multivariant_from(
    package: &Package,
    from: &str,
    subtitles: Option<&str>,
    chapters: bool,
) -> Option<String> {
    let at = package.video.iter().position(|t| t.is_named(from))?;
    // The renditions are top first: `from`, then those above it, nearest first.
    let video: Vec<&Track> = std::iter::once(&package.video[at])
        .chain(package.video[..at].iter().rev())
        .collect();
    Some(render_multivariant(
        package, &video, false, subtitles, chapters,
    ))
}

fn render_multivariant(
    package: &Package,
    videos: &[&Track],
    audio_only: bool,
    subtitles: Option<&str>,
    chapters: bool,
) -> String {
    let mut out = String::from("#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-INDEPENDENT-SEGMENTS\n");
    if chapters {
        out.push_str(&super::chapter_data::session_data());
        out.push('\n');
    }
    if let Some(language) = subtitles {
        let _ = writeln!(
            out,
            "#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subs\",NAME=\"Transcript\",LANGUAGE=\"{}\",DEFAULT=NO,AUTOSELECT=YES,URI=\"{}/{}\"",
            language.replace(['"', ',', '\n'], ""),
            super::subtitles::TRACK,
            names::MEDIA
        );
    }
    let audio = package.audio.as_ref();
    if let Some(audio) = audio {
        let _ = writeln!(
            out,
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aac\",NAME=\"Audio\",LANGUAGE=\"und\",DEFAULT=YES,AUTOSELECT=YES,CHANNELS=\"2\",URI=\"{}/{}\"",
            audio.name,
            names::MEDIA
        );
    }
    let (audio_peak, audio_average) =
        audio.map_or((0, 0), |a| (a.peak_bitrate(), a.average_bitrate()));
    for video in videos {
        let codecs = match audio {
            Some(a) => format!("{},{}", video.codec, a.codec),
            None => video.codec.clone(),
        };
        let _ = write!(
            out,
            "#EXT-X-STREAM-INF:BANDWIDTH={},AVERAGE-BANDWIDTH={},CODECS=\"{codecs}\",RESOLUTION={}x{},FRAME-RATE={:.3}",
            video.peak_bitrate() + audio_peak,
            video.average_bitrate() + audio_average,
            video.width,
            video.height,
            package.frame_rate,
        );
        if audio.is_some() {
            out.push_str(",AUDIO=\"aac\"");
        }
        if subtitles.is_some() {
            out.push_str(",SUBTITLES=\"subs\"");
        }
        let _ = writeln!(out, "\n{}/{}", video.name, names::MEDIA);
    }
    if let Some(audio) = audio.filter(|_| audio_only) {
        let _ = writeln!(
            out,
            "#EXT-X-STREAM-INF:BANDWIDTH={audio_peak},AVERAGE-BANDWIDTH={audio_average},CODECS=\"{}\",AUDIO=\"aac\"\n{}/{}",
            audio.codec,
            audio.name,
            names::MEDIA
        );
    }
    for video in videos {
        let _ = writeln!(
            out,
            "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH={},AVERAGE-BANDWIDTH={},CODECS=\"{}\",RESOLUTION={}x{},URI=\"{}/{}\"",
            iframe_peak(video),
            iframe_average(video),
            video.codec,
            video.width,
            video.height,
            video.name,
            names::IFRAMES
        );
    }
    out
}

/// A rendition's media playlist: its init segment and every media segment, a whole VOD, with
/// `inserts` spliced in (each ad's own init segment and segments between two
/// `EXT-X-DISCONTINUITY`s; none for a listener without ads).
pub fn media(package: &Package, track: &Track, inserts: &[Insert]) -> String {
    let mut out = header(package, inserts);
    out.push_str("#EXT-X-INDEPENDENT-SEGMENTS\n");
    spliced(&mut out, track, inserts, |out, segment, uri| {
        let _ = writeln!(out, "#EXTINF:{:.6},\n{uri}", segment.duration);
    });
    out.push_str("#EXT-X-ENDLIST\n");
    out
}

/// A video rendition's I-frame playlist: the key frame that starts each segment, as a byte
/// range of that segment, lasting until the next one; with `inserts` spliced in as in
/// [`media`].
pub fn iframes(package: &Package, track: &Track, inserts: &[Insert]) -> String {
    let mut out = header(package, inserts);
    out.push_str("#EXT-X-I-FRAMES-ONLY\n");
    spliced(&mut out, track, inserts, |out, segment, uri| {
        let _ = writeln!(
            out,
            "#EXTINF:{:.6},\n#EXT-X-BYTERANGE:{}@0\n{uri}",
            segment.duration, segment.key_frame
        );
    });
    out.push_str("#EXT-X-ENDLIST\n");
    out
}

/// Writes the runs of `track` with `inserts`: each run's `EXT-X-MAP` and its segments (by
/// `entry`), a discontinuity between two runs.
fn spliced(
    out: &mut String,
    track: &Track,
    inserts: &[Insert],
    mut entry: impl FnMut(&mut String, &Segment, &str),
) {
    let durations: Vec<f64> = track.segments.iter().map(|s| s.duration).collect();
    for (i, run) in splice::runs(&durations, inserts).into_iter().enumerate() {
        if i > 0 {
            out.push_str("#EXT-X-DISCONTINUITY\n");
        }
        match run {
            Run::Own(range) => {
                let _ = writeln!(out, "#EXT-X-MAP:URI=\"{}\"", names::INIT);
                for n in range {
                    entry(out, &track.segments[n], &names::segment(n));
                }
            }
            Run::Ad(insert) => {
                let Some(ad) = insert.package.track(&track.name) else {
                    continue;
                };
                let _ = writeln!(
                    out,
                    "#EXT-X-MAP:URI=\"{}\"",
                    names::ad_file(&insert.name, names::INIT)
                );
                for (n, segment) in ad.segments.iter().enumerate() {
                    entry(
                        out,
                        segment,
                        &names::ad_file(&insert.name, &names::segment(n)),
                    );
                }
            }
        }
    }
}

/// The header of a media playlist of `package` with `inserts`: the target duration is the
/// longest segment's of all.
fn header(package: &Package, inserts: &[Insert]) -> String {
    let target = inserts
        .iter()
        .map(|i| i.package.target_duration)
        .fold(package.target_duration, u32::max);
    format!(
        "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:{target}\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n"
    )
}

fn iframe_peak(track: &Track) -> u64 {
    track
        .segments
        .iter()
        .filter(|s| s.duration > 0.0)
        .map(|s| (s.key_frame as f64 * 8.0 / s.duration).ceil() as u64)
        .max()
        .unwrap_or(0)
}

fn iframe_average(track: &Track) -> u64 {
    let seconds = track.duration();
    if seconds <= 0.0 {
        return 0;
    }
    (track.segments.iter().map(|s| s.key_frame).sum::<u64>() as f64 * 8.0 / seconds).ceil() as u64
}

/// The target duration of segments of these durations: the longest, rounded to the nearest
/// second (RFC 8216 §4.3.3.1 compares each rounded duration with it), at least 1.
pub fn target_duration<'a>(durations: impl IntoIterator<Item = &'a f64>) -> u32 {
    durations
        .into_iter()
        .map(|d| d.round() as u32)
        .max()
        .unwrap_or(1)
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::super::package::Segment;
    use super::*;

    fn track(name: &str, height: u32, codec: &str, sizes: &[(f64, u64)]) -> Track {
        Track {
            name: name.into(),
            width: height * 16 / 9,
            height,
            codec: codec.into(),
            copied: false,
            init_size: 800,
            segments: sizes
                .iter()
                .map(|&(duration, size)| Segment {
                    duration,
                    size,
                    key_frame: if height > 0 { size / 10 } else { 0 },
                })
                .collect(),
        }
    }

    fn package() -> Package {
        Package {
            video: vec![
                track(
                    "720p",
                    720,
                    "avc1.64001f",
                    &[(6.0, 2_250_000), (6.0, 1_500_000), (2.0, 500_000)],
                ),
                track(
                    "240p",
                    240,
                    "avc1.640015",
                    &[(6.0, 225_000), (6.0, 225_000), (2.0, 75_000)],
                ),
            ],
            audio: Some(track(
                "audio",
                0,
                "mp4a.40.2",
                &[(6.016, 96_000), (5.995, 96_000), (2.026, 32_000)],
            )),
            frame_rate: 29.97,
            target_duration: 6,
        }
    }

    #[test]
    fn every_video_variant_says_its_rates_codecs_size_and_frame_rate() {
        let text = multivariant(&package(), None, false);
        let variants: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("#EXT-X-STREAM-INF:") && l.contains("RESOLUTION"))
            .collect();
        assert_eq!(variants.len(), 2);
        for line in &variants {
            for attribute in [
                "BANDWIDTH=",
                "AVERAGE-BANDWIDTH=",
                "CODECS=\"avc1.",
                ",mp4a.40.2\"",
                "RESOLUTION=",
                "FRAME-RATE=29.970",
                "AUDIO=\"aac\"",
            ] {
                assert!(line.contains(attribute), "{attribute} missing from {line}");
            }
        }
        // The 720p variant's peak is its largest segment's (3 Mbit/s) and the audio's (96,000 bytes in 5.995 s).
        assert!(
            variants[0].starts_with("#EXT-X-STREAM-INF:BANDWIDTH=3128107,"),
            "{}",
            variants[0]
        );
        assert!(text.contains("\n720p/index.m3u8\n") && text.contains("\n240p/index.m3u8\n"));
        assert!(text.contains("CODECS=\"mp4a.40.2\",AUDIO=\"aac\"\naudio/index.m3u8\n"));
        assert_eq!(text.matches("#EXT-X-I-FRAME-STREAM-INF:").count(), 2);
        assert!(text.contains("URI=\"720p/iframes.m3u8\""));
    }

    #[test]
    fn a_pages_playlist_starts_at_its_rung_and_climbs_without_the_lower_ones() {
        let from_low = multivariant_from(&package(), "240p", None, false).unwrap();
        let uris: Vec<&str> = from_low.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(uris, ["240p/index.m3u8", "720p/index.m3u8"], "{from_low}");
        // No audio-only variant, which a player would start on for its small bandwidth.
        assert!(
            !from_low.contains("CODECS=\"mp4a.40.2\",AUDIO"),
            "{from_low}"
        );
        let from_top = multivariant_from(&package(), "720p", Some("en"), false).unwrap();
        let uris: Vec<&str> = from_top.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(uris, ["720p/index.m3u8"], "{from_top}");
        assert!(!from_top.contains("240p"), "{from_top}");
        assert!(from_top.contains("TYPE=SUBTITLES") && from_top.contains("TYPE=AUDIO"));
        assert_eq!(multivariant_from(&package(), "480p", None, false), None);
        assert_eq!(multivariant_from(&package(), "audio", None, false), None);
    }

    #[test]
    fn a_media_playlist_is_a_whole_vod_of_relative_segments() {
        let package = package();
        let text = media(&package, &package.video[0], &[]);
        assert_eq!(
            text,
            "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:0\n\
             #EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-MAP:URI=\"init.mp4\"\n\
             #EXTINF:6.000000,\n00000.m4s\n#EXTINF:6.000000,\n00001.m4s\n#EXTINF:2.000000,\n00002.m4s\n\
             #EXT-X-ENDLIST\n"
        );
        let iframes = iframes(&package, &package.video[0], &[]);
        assert!(iframes.contains("#EXT-X-I-FRAMES-ONLY\n"));
        assert!(iframes.contains("#EXTINF:6.000000,\n#EXT-X-BYTERANGE:225000@0\n00000.m4s\n"));
    }

    #[test]
    fn the_target_duration_is_the_longest_segment_rounded() {
        assert_eq!(target_duration(&[6.0, 6.4, 2.0]), 6);
        assert_eq!(target_duration(&[6.0, 6.5]), 7);
        assert_eq!(target_duration(&[]), 1);
    }
}
