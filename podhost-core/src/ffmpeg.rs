//! ffmpeg (Debian's, as a child process): how it is run, and why it failed. The one runtime
//! dependency beyond the binary, for video packaging ([`crate::hls`]) and AAC encoding
//! ([`crate::master`]) only. A child is killed when its future (or its holder) is dropped.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

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

/// Why ffmpeg did not do what it was asked.
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

impl Ffmpeg {
    /// Runs ffmpeg with `args` until it ends, calling `progress` with the seconds of media it
    /// has written so far. Dropping the future kills the child.
    pub async fn run(
        &self,
        args: &[OsString],
        mut progress: impl FnMut(f64),
    ) -> Result<(), FfmpegError> {
        self.lines(args, |line| {
            if let Some(us) = line.strip_prefix("out_time_us=")
                && let Ok(us) = us.trim().parse::<i64>()
            {
                progress(us.max(0) as f64 / 1e6);
            }
        })
        .await
    }

    /// Runs ffmpeg with `args` until it ends, calling `line` with each line it writes on its
    /// standard output (as it writes them, so a long output is never held whole). Dropping
    /// the future kills the child.
    pub async fn lines(
        &self,
        args: &[OsString],
        mut line: impl FnMut(&str),
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
            while let Ok(Some(text)) = lines.next_line().await {
                line(&text);
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
