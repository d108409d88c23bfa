//! ffmpeg as the encoder of the ladder: one child process reads the source once and writes
//! every rendition's fragmented MP4 segments and ffmpeg's own media playlists (read back by
//! [`read_output`](super::read_output); podhost renders the playlists it serves itself). The
//! child's threads are bounded, and it is killed when its future is dropped (the job was
//! cancelled, its lease lost, or the server stops).

use std::ffi::OsString;
use std::path::Path;

use super::ladder::{AUDIO_BITRATE, SEGMENT_SECONDS, VideoRendition};

/// The arguments that make `ladder` (and the audio rendition when `audio`) from `source` into
/// `out`: `out/{name}/index.m3u8`, `out/{name}/init_{i}.mp4`, `out/{name}/{n:05}.m4s`; and,
/// in the same run, the soundtrack as an M4A file (AAC-LC, `moov` first) at `soundtrack` when
/// the source has sound.
pub fn arguments(
    source: &Path,
    out: &Path,
    ladder: &[VideoRendition],
    soundtrack: Option<&Path>,
    threads: usize,
) -> Vec<OsString> {
    let audio = soundtrack.is_some();
    let threads = threads.max(1).to_string();
    let mut args: Vec<OsString> = Vec::new();
    push(
        &mut args,
        &["-hide_banner", "-nostdin", "-loglevel", "error", "-nostats"],
    );
    push(&mut args, &["-progress", "pipe:1", "-threads", &threads]);
    args.push("-i".into());
    args.push(source.into());
    ladder_graph(&mut args, "[0:v:0]", ladder, &threads);
    ladder_output(&mut args, out, ladder, audio.then_some("0:a:0"), &threads);
    if let Some(soundtrack) = soundtrack {
        push(
            &mut args,
            &[
                "-map",
                "0:a:0",
                "-vn",
                "-c:a",
                "aac",
                "-b:a",
                &AUDIO_BITRATE.to_string(),
            ],
        );
        push(
            &mut args,
            &[
                "-ac",
                "2",
                "-ar",
                "48000",
                "-threads",
                &threads,
                "-movflags",
                "+faststart",
            ],
        );
        push(&mut args, &["-f", "mp4"]);
        args.push(soundtrack.into());
    }
    args
}

/// The arguments that list `source`'s video frames without decoding them (ffmpeg's
/// `framecrc` of its first video stream, copied): one line a frame, read by [`KeyFrames`].
pub fn key_frame_arguments(source: &Path) -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::new();
    push(
        &mut args,
        &["-hide_banner", "-nostdin", "-loglevel", "error", "-nostats"],
    );
    args.push("-i".into());
    args.push(source.into());
    push(
        &mut args,
        &["-map", "0:v:0", "-c", "copy", "-f", "framecrc", "-"],
    );
    args
}

/// A source's video frames as ffmpeg's `framecrc` lists them ([`key_frame_arguments`]): each
/// frame's presentation time and whether it is a key frame, fed a line at a time.
#[derive(Debug, Default)]
pub struct KeyFrames {
    time_base: Option<(i64, i64)>,
    frames: Vec<(i64, bool)>,
    unreadable: bool,
}

impl KeyFrames {
    /// Reads one line of the listing: `#tb 0: 1/15360` (the time base), or a frame,
    /// `0, dts, pts, duration, size, crc` with `, F=0x…` (its flags) when it is not only a key
    /// frame.
    pub fn line(&mut self, line: &str) {
        let line = line.trim();
        if let Some(base) = line.strip_prefix("#tb 0:") {
            let mut parts = base.trim().splitn(2, '/');
            match (
                parts.next().and_then(|n| n.trim().parse().ok()),
                parts.next().and_then(|d| d.trim().parse().ok()),
            ) {
                (Some(num), Some(den)) => self.time_base = Some((num, den)),
                _ => self.unreadable = true,
            }
            return;
        }
        if line.is_empty() || line.starts_with('#') {
            return;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.first() != Some(&"0") {
            return;
        }
        // A frame without a time (`NOPTS`) cannot be placed on the grid.
        let Some(pts) = fields.get(2).and_then(|p| p.parse::<i64>().ok()) else {
            self.unreadable = true;
            return;
        };
        let key = match fields.iter().find_map(|f| f.strip_prefix("F=0x")) {
            Some(flags) => u32::from_str_radix(flags, 16).is_ok_and(|f| f & 1 == 1),
            None => true,
        };
        self.frames.push((pts, key));
    }

    /// Whether the frames read start every segment of the grid with a key frame
    /// ([`ladder::copyable`](super::ladder::copyable)).
    pub fn on_grid(mut self) -> bool {
        match (self.unreadable, self.time_base) {
            (false, Some(base)) => super::ladder::copyable(&mut self.frames, base),
            _ => false,
        }
    }
}

/// What an ad's picture is made from.
#[derive(Clone, Copy, Debug)]
pub enum AdPicture<'a> {
    /// The ad's own video (scaled into each rendition's picture, the rest black).
    Video,
    /// A still image (the podcast's cover) the ad's sound plays over.
    Still(&'a Path),
    /// Black: an audio ad in a podcast without a cover.
    Black,
}

/// An ad to package: its file, what its picture is made from, whether it has sound, and how
/// long it lasts.
#[derive(Clone, Copy, Debug)]
pub struct AdSource<'a> {
    /// The ad's file.
    pub file: &'a Path,
    /// Its picture.
    pub picture: AdPicture<'a>,
    /// Whether it has sound (else silence).
    pub sound: bool,
    /// Seconds.
    pub seconds: f64,
}

/// The arguments that make `ad` into the renditions `ladder` at `frame_rate` and the audio
/// rendition, written into `out` as [`arguments`] writes a video's (every rendition encoded,
/// key frames on the same 6-second grid, the same AAC-LC audio), so its segments splice
/// between the video's.
pub fn ad_arguments(
    ad: &AdSource<'_>,
    out: &Path,
    ladder: &[VideoRendition],
    frame_rate: f64,
    threads: usize,
) -> Vec<OsString> {
    let (source, picture, sound, seconds) = (ad.file, ad.picture, ad.sound, ad.seconds);
    let threads = threads.max(1).to_string();
    let rate = format!("{frame_rate:.3}");
    let mut args: Vec<OsString> = Vec::new();
    push(
        &mut args,
        &["-hide_banner", "-nostdin", "-loglevel", "error", "-nostats"],
    );
    push(&mut args, &["-progress", "pipe:1", "-threads", &threads]);
    // Input 0 is the picture, input 1 the sound.
    match picture {
        AdPicture::Video => {
            args.push("-i".into());
            args.push(source.into());
        }
        AdPicture::Still(image) => {
            push(&mut args, &["-loop", "1", "-framerate", &rate, "-i"]);
            args.push(image.into());
        }
        AdPicture::Black => push(
            &mut args,
            &[
                "-f",
                "lavfi",
                "-i",
                &format!("color=c=black:s=16x16:r={rate}"),
            ],
        ),
    }
    match (picture, sound) {
        (AdPicture::Video, true) => {}
        (_, true) => {
            args.push("-i".into());
            args.push(source.into());
        }
        (_, false) => push(
            &mut args,
            &["-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo"],
        ),
    }
    let audio = match (picture, sound) {
        (AdPicture::Video, true) => "0:a:0",
        _ => "1:a:0",
    };
    ladder_graph(&mut args, &format!("[0:v:0]fps={rate},"), ladder, &threads);
    push(&mut args, &["-t", &format!("{seconds:.3}")]);
    ladder_output(&mut args, out, ladder, Some(audio), &threads);
    args
}

fn push(args: &mut Vec<OsString>, items: &[&str]) {
    args.extend(items.iter().map(OsString::from));
}

/// The filter graph that scales `input` (a pad label, with any filters to apply first and a
/// trailing comma) into each encoded rendition of `ladder` (`[v{i}]`), letterboxed when the
/// aspect differs.
fn ladder_graph(args: &mut Vec<OsString>, input: &str, ladder: &[VideoRendition], threads: &str) {
    let encoded: Vec<(usize, &VideoRendition)> = ladder
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.copied)
        .collect();
    if encoded.is_empty() {
        return;
    }
    let outputs: String = encoded.iter().map(|(i, _)| format!("[s{i}]")).collect();
    let mut graph = format!("{input}split={}{outputs}", encoded.len());
    for (i, r) in &encoded {
        let (w, h) = (r.width, r.height);
        graph.push_str(&format!(
            ";[s{i}]scale={w}:{h}:force_original_aspect_ratio=decrease,\
             pad={w}:{h}:(ow-iw)/2:(oh-ih)/2,setsar=1[v{i}]"
        ));
    }
    push(
        args,
        &[
            "-filter_complex_threads",
            threads,
            "-filter_complex",
            &graph,
        ],
    );
}

/// The maps, encoders and HLS muxer of `ladder` (from `[v{i}]`, or input 0's video where
/// copied) and the audio rendition from `audio` (a stream specifier), into `out`.
fn ladder_output(
    args: &mut Vec<OsString>,
    out: &Path,
    ladder: &[VideoRendition],
    audio: Option<&str>,
    threads: &str,
) {
    for (i, r) in ladder.iter().enumerate() {
        match r.copied {
            true => push(args, &["-map", "0:v:0"]),
            false => push(args, &["-map", &format!("[v{i}]")]),
        }
    }
    if let Some(audio) = audio {
        push(args, &["-map", audio]);
    }
    let keys = format!("expr:gte(t,n_forced*{SEGMENT_SECONDS})");
    for (i, r) in ladder.iter().enumerate() {
        let v = format!("v:{i}");
        // Every key frame carries its parameter sets (SPS, PPS), so a decoder that meets an
        // ad's segments after an `EXT-X-DISCONTINUITY` (and the episode's after the ad) takes
        // the new ones: ffmpeg's HLS reader keeps the first init segment's otherwise.
        if r.copied {
            push(
                args,
                &[
                    &format!("-c:{v}"),
                    "copy",
                    &format!("-bsf:{v}"),
                    "h264_mp4toannexb",
                ],
            );
            continue;
        }
        let rate = |k: f64| format!("{}", (f64::from(r.bitrate) * k) as u64);
        push(
            args,
            &[
                &format!("-c:{v}"),
                "libx264",
                &format!("-preset:{v}"),
                "veryfast",
                &format!("-profile:{v}"),
                if r.height <= 360 { "main" } else { "high" },
                &format!("-pix_fmt:{v}"),
                "yuv420p",
                &format!("-b:{v}"),
                &rate(1.0),
                &format!("-maxrate:{v}"),
                &rate(1.1),
                &format!("-bufsize:{v}"),
                &rate(2.0),
                &format!("-force_key_frames:{v}"),
                &keys,
                &format!("-sc_threshold:{v}"),
                "0",
                &format!("-x264-params:{v}"),
                "repeat-headers=1",
            ],
        );
    }
    if audio.is_some() {
        push(
            args,
            &[
                "-c:a",
                "aac",
                "-b:a",
                &AUDIO_BITRATE.to_string(),
                "-ac",
                "2",
                "-ar",
                "48000",
            ],
        );
    }
    push(args, &["-threads", threads]);
    push(
        args,
        &[
            "-f",
            "hls",
            "-hls_time",
            &SEGMENT_SECONDS.to_string(),
            "-hls_playlist_type",
            "vod",
            "-hls_segment_type",
            "fmp4",
            "-hls_flags",
            "independent_segments",
            "-hls_fmp4_init_filename",
            "init.mp4",
        ],
    );
    let mut map: Vec<String> = ladder
        .iter()
        .enumerate()
        .map(|(i, r)| format!("v:{i},name:{}", r.name))
        .collect();
    if audio.is_some() {
        map.push("a:0,name:audio".into());
    }
    push(args, &["-var_stream_map", &map.join(" ")]);
    args.push("-hls_segment_filename".into());
    args.push(out.join("%v").join("%05d.m4s").into());
    args.push(out.join("%v").join("index.m3u8").into());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framecrc_lines_give_each_frames_time_and_key() {
        let mut frames = KeyFrames::default();
        for line in [
            "#tb 0: 1/15360",
            "#media_type 0: video",
            "0,          0,          0,      512,    32264, 0xaae1bd4e",
            "0,        512,       1024,      512,      100, 0x00000001, F=0x0",
            "0,       1024,        512,      512,      100, 0x00000002, F=0x0",
        ] {
            frames.line(line);
        }
        assert_eq!(frames.time_base, Some((1, 15_360)));
        assert_eq!(frames.frames, [(0, true), (1024, false), (512, false)]);
        assert!(
            frames.on_grid(),
            "shorter than a segment: one key frame suffices"
        );
        let mut none = KeyFrames::default();
        none.line("0, 0, NOPTS, 512, 100, 0x1");
        assert!(!none.on_grid());
    }
}
