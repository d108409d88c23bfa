//! ffmpeg as the encoder of the ladder: one child process reads the source once and writes
//! every rendition's fragmented MP4 segments and ffmpeg's own media playlists (read back by
//! [`read_output`](super::read_output); podhost renders the playlists it serves itself). The
//! child's threads are bounded, and it is killed when its future is dropped (the job was
//! cancelled, its lease lost, or the server stops).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

use super::ladder::{AUDIO_BITRATE, SEGMENT_SECONDS, VideoRendition};

/// How ffmpeg is run.
#[derive(Clone, Debug)]
pub struct Ffmpeg {
    /// The program: a path, or a name looked up on `PATH` (default `ffmpeg`).
    pub program: PathBuf,
    /// Threads the child may use for decoding, filtering and each encoder (default 2).
    pub threads: usize,
}

impl Default for Ffmpeg {
    fn default() -> Self {
        Ffmpeg {
            program: PathBuf::from("ffmpeg"),
            threads: 2,
        }
    }
}

/// Why ffmpeg did not make the ladder.
#[derive(Debug, thiserror::Error)]
pub enum FfmpegError {
    /// The program could not be started.
    #[error(
        "ffmpeg could not be started as `{program}`: {reason}; install ffmpeg (Debian's \
         package) or name it with --ffmpeg or PODHOST_FFMPEG"
    )]
    Missing {
        /// The program asked for.
        program: String,
        /// Why it did not start.
        reason: String,
    },
    /// It ran and failed.
    #[error("ffmpeg failed ({status}): {message}")]
    Failed {
        /// Its exit status.
        status: String,
        /// The end of what it wrote on its error output.
        message: String,
    },
}

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
    let mut push = |items: &[&str]| args.extend(items.iter().map(OsString::from));
    push(&["-hide_banner", "-nostdin", "-loglevel", "error", "-nostats"]);
    push(&["-progress", "pipe:1", "-threads", &threads]);
    args.push("-i".into());
    args.push(source.into());
    let mut push = |items: &[&str]| args.extend(items.iter().map(OsString::from));
    let encoded: Vec<(usize, &VideoRendition)> = ladder
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.copied)
        .collect();
    if !encoded.is_empty() {
        let outputs: String = encoded.iter().map(|(i, _)| format!("[s{i}]")).collect();
        let mut graph = format!("[0:v:0]split={}{outputs}", encoded.len());
        for (i, r) in &encoded {
            graph.push_str(&format!(
                ";[s{i}]scale={}:{},setsar=1[v{i}]",
                r.width, r.height
            ));
        }
        push(&[
            "-filter_complex_threads",
            &threads,
            "-filter_complex",
            &graph,
        ]);
    }
    for (i, r) in ladder.iter().enumerate() {
        match r.copied {
            true => push(&["-map", "0:v:0"]),
            false => push(&["-map", &format!("[v{i}]")]),
        }
    }
    if audio {
        push(&["-map", "0:a:0"]);
    }
    let keys = format!("expr:gte(t,n_forced*{SEGMENT_SECONDS})");
    for (i, r) in ladder.iter().enumerate() {
        let v = format!("v:{i}");
        if r.copied {
            push(&[&format!("-c:{v}"), "copy"]);
            continue;
        }
        let rate = |k: f64| format!("{}", (f64::from(r.bitrate) * k) as u64);
        push(&[
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
        ]);
    }
    if audio {
        push(&[
            "-c:a",
            "aac",
            "-b:a",
            &AUDIO_BITRATE.to_string(),
            "-ac",
            "2",
            "-ar",
            "48000",
        ]);
    }
    push(&["-threads", &threads]);
    push(&[
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
    ]);
    let mut map: Vec<String> = ladder
        .iter()
        .enumerate()
        .map(|(i, r)| format!("v:{i},name:{}", r.name))
        .collect();
    if audio {
        map.push("a:0,name:audio".into());
    }
    push(&["-var_stream_map", &map.join(" ")]);
    args.push("-hls_segment_filename".into());
    args.push(out.join("%v").join("%05d.m4s").into());
    args.push(out.join("%v").join("index.m3u8").into());
    if let Some(soundtrack) = soundtrack {
        let mut push = |items: &[&str]| args.extend(items.iter().map(OsString::from));
        push(&[
            "-map",
            "0:a:0",
            "-vn",
            "-c:a",
            "aac",
            "-b:a",
            &AUDIO_BITRATE.to_string(),
        ]);
        push(&[
            "-ac",
            "2",
            "-ar",
            "48000",
            "-threads",
            &threads,
            "-movflags",
            "+faststart",
        ]);
        push(&["-f", "mp4"]);
        args.push(soundtrack.into());
    }
    args
}

impl Ffmpeg {
    /// Runs ffmpeg with `args` until it ends, calling `progress` with the seconds of media it
    /// has written so far. Dropping the future kills the child.
    pub async fn run(
        &self,
        args: &[OsString],
        mut progress: impl FnMut(f64),
    ) -> Result<(), FfmpegError> {
        let mut child = tokio::process::Command::new(&self.program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| FfmpegError::Missing {
                program: self.program.display().to_string(),
                reason: e.to_string(),
            })?;
        let stderr = child.stderr.take();
        let errors = tokio::spawn(async move {
            let mut text = Vec::new();
            if let Some(mut stderr) = stderr {
                let _ = stderr.read_to_end(&mut text).await;
            }
            text
        });
        if let Some(stdout) = child.stdout.take() {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(us) = line.strip_prefix("out_time_us=")
                    && let Ok(us) = us.trim().parse::<i64>()
                {
                    progress(us.max(0) as f64 / 1e6);
                }
            }
        }
        let status = child.wait().await.map_err(|e| FfmpegError::Failed {
            status: "unknown".into(),
            message: e.to_string(),
        })?;
        let text = errors.await.unwrap_or_default();
        if status.success() {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&text);
        let tail: String = text
            .trim()
            .chars()
            .rev()
            .take(600)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        Err(FfmpegError::Failed {
            status: status.to_string(),
            message: tail,
        })
    }
}
