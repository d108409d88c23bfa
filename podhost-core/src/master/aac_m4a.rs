//! AAC-LC in M4A by ffmpeg's native AAC encoder, as a child process (the dependency video
//! packaging has, with its configuration). The limited signal goes to the child's standard
//! input as 32-bit float PCM; the file it writes is `moov` first, at a movie time scale of the
//! sample rate, so that its edit list (the encoder's 1,024 samples of priming skipped, the last
//! frame's padding trimmed) is exact to the sample. The same numbers are written as `iTunSMPB`
//! by [`crate::tags`], for players that read only that.

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};

use super::MasterError;
use crate::ffmpeg::Ffmpeg;

/// The sample rates AAC takes, in Hz (those ffmpeg's encoder takes).
const AAC_RATES: [u32; 13] = [
    7350, 8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000,
];

/// The rate AAC of audio at `rate` Hz is encoded at: the same when AAC has it, else the
/// nearest above (96 kHz above that).
pub(super) fn aac_rate(rate: u32) -> u32 {
    AAC_RATES.into_iter().find(|&r| r >= rate).unwrap_or(96000)
}

/// An AAC encoding under way: the child, its input, and the file it writes.
pub(super) struct AacM4a {
    child: Child,
    stdin: Option<ChildStdin>,
    /// The child's error output, read on a thread of its own so that it never blocks.
    errors: Option<std::thread::JoinHandle<Vec<u8>>>,
    /// The folder of the file the child writes (removed when this is dropped).
    out: tempfile::TempDir,
    /// Bytes of PCM, reused for every push.
    scratch: Vec<u8>,
}

impl AacM4a {
    /// Starts `ffmpeg` encoding `channels` channels at `rate` Hz to `bitrate` kbit/s.
    pub(super) fn new(
        ffmpeg: &Ffmpeg,
        channels: usize,
        rate: u32,
        bitrate: u32,
    ) -> Result<AacM4a, MasterError> {
        let out = tempfile::Builder::new()
            .prefix("podhost-aac")
            .tempdir()
            .map_err(|e| MasterError::Encoder(format!("a folder for the AAC encoding: {e}")))?;
        let mut child = Command::new(&ffmpeg.program)
            .args(["-hide_banner", "-loglevel", "error", "-nostats"])
            .args(["-f", "f32le", "-ar", &rate.to_string()])
            .args(["-ac", &channels.to_string(), "-i", "pipe:0"])
            .args(["-c:a", "aac", "-b:a", &format!("{bitrate}k")])
            .args(["-threads", &ffmpeg.threads.max(1).to_string()])
            .args(["-movie_timescale", &rate.to_string()])
            .args(["-movflags", "+faststart", "-f", "ipod", "-y"])
            .arg(out.path().join("out.m4a"))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                MasterError::Unsupported(
                    crate::ffmpeg::FfmpegError::Missing {
                        program: ffmpeg.program.display().to_string(),
                        reason: e.to_string(),
                    }
                    .to_string(),
                )
            })?;
        let stdin = child.stdin.take();
        let errors = child.stderr.take().map(|mut stderr| {
            std::thread::spawn(move || {
                let mut text = Vec::new();
                let _ = stderr.read_to_end(&mut text);
                text
            })
        });
        Ok(AacM4a {
            child,
            stdin,
            errors,
            out,
            scratch: Vec::new(),
        })
    }

    /// Interleaved samples to encode.
    pub(super) fn push(&mut self, pcm: &[f32]) -> Result<(), MasterError> {
        self.scratch.clear();
        self.scratch.reserve(pcm.len() * 4);
        for sample in pcm {
            self.scratch.extend_from_slice(&sample.to_le_bytes());
        }
        let Some(stdin) = &mut self.stdin else {
            return Err(MasterError::Encoder("the AAC encoder was finished".into()));
        };
        if stdin.write_all(&self.scratch).is_err() {
            // The child ended early: what it said is the error.
            return Err(self.failure());
        }
        Ok(())
    }

    /// The M4A file, once the child has encoded everything pushed.
    pub(super) fn finish(mut self) -> Result<Vec<u8>, MasterError> {
        drop(self.stdin.take());
        let status = self
            .child
            .wait()
            .map_err(|e| MasterError::Encoder(format!("waiting for ffmpeg: {e}")))?;
        if !status.success() {
            return Err(self.failure());
        }
        std::fs::read(self.out.path().join("out.m4a"))
            .map_err(|e| MasterError::Encoder(format!("reading ffmpeg's AAC file: {e}")))
    }

    /// Why the child failed: the end of its error output.
    fn failure(&mut self) -> MasterError {
        drop(self.stdin.take());
        let status = self
            .child
            .wait()
            .map_or_else(|e| e.to_string(), |s| s.to_string());
        let text = self
            .errors
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default();
        let text = String::from_utf8_lossy(&text);
        let tail: String = text.trim().chars().rev().take(600).collect();
        let tail: String = tail.chars().rev().collect();
        MasterError::Encoder(
            crate::ffmpeg::FfmpegError::Failed {
                status,
                message: tail,
            }
            .to_string(),
        )
    }
}

impl Drop for AacM4a {
    fn drop(&mut self) {
        // A mastering given up (an error elsewhere, the job cancelled) leaves no child behind.
        if self.stdin.take().is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aac_takes_its_rates_and_the_others_go_up() {
        for (rate, want) in [
            (44100, 44100),
            (48000, 48000),
            (8000, 8000),
            (37800, 44100),
            (192_000, 96000),
            (6000, 7350),
        ] {
            assert_eq!(aac_rate(rate), want, "{rate}");
        }
    }
}
