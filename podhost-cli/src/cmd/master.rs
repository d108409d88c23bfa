//! `podhost master ID`: asks for an audio file mastered (normalised to a loudness target, true
//! peaks limited, encoded as MP3 or Opus) into a new media file; with `--wait`, masters it in
//! this process and prints the new file (the alternate's id is in `--json`'s job report).

use clap::Args;
use podhost_core::{MediaId, model::JobKind};
use serde_json::json;

use crate::{context::Env, progress::wait_for_job};

/// Mastering options (as `POST /api/generate/master/{id}` takes them).
#[derive(Debug, Args)]
pub struct MasterArgs {
    #[command(flatten)]
    user: crate::context::UserArg,
    /// The media id of an audio file.
    id: String,
    /// The integrated loudness to reach, in LUFS (default -16 for stereo, -19 for mono).
    #[arg(long, allow_negative_numbers = true, value_name = "LUFS")]
    target: Option<f64>,
    /// The ceiling of true peaks, in dBTP (default -1).
    #[arg(long, allow_negative_numbers = true, value_name = "DBTP")]
    true_peak: Option<f64>,
    /// The encoding: mp3 (the default), aac (AAC-LC in M4A, by ffmpeg) or opus (a build with the
    /// `opus` feature).
    #[arg(long, value_name = "FORMAT")]
    format: Option<String>,
    /// The bitrate in kbit/s (MP3: default 128 for stereo, 64 for mono; Opus: 48).
    #[arg(long, value_name = "KBPS")]
    bitrate: Option<u32>,
    /// Another encoding made in the same decode, as a second new file (e.g. opus).
    #[arg(long, value_name = "FORMAT")]
    alternate: Option<String>,
    /// Runs the job in this process until it ends (no server needed) and prints the new file;
    /// without it, the job is queued for `podhost serve`.
    #[arg(long)]
    wait: bool,
}

impl super::Run for MasterArgs {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        let user = env.user(&host, self.user.name()).await?;
        let id = super::media_id(&self.id)?;
        let mut params = serde_json::Map::new();
        for (key, value) in [
            ("target", self.target.map(|v| json!(v))),
            ("true_peak", self.true_peak.map(|v| json!(v))),
            ("format", self.format.map(|v| json!(v))),
            ("bitrate", self.bitrate.map(|v| json!(v))),
            ("alternates", self.alternate.map(|v| json!([v]))),
        ] {
            if let Some(value) = value {
                params.insert(key.into(), value);
            }
        }
        let job = super::submit_job(&host, &user, id, JobKind::Master, params).await?;
        if !self.wait {
            return super::print_queued(env, &host, &user, &job);
        }
        let job = wait_for_job(&host, &user, &job).await?;
        let made = job
            .report
            .as_ref()
            .and_then(|r| r["media_id"].as_u64())
            .and_then(|id| MediaId::new(id).ok())
            .ok_or_else(|| anyhow::anyhow!("the job made no file"))?;
        let media = user.hint(host.podcasts().get_media(&user.who, made).await)?;
        super::media::print_record(env, &host, &user, &media)
    }
}
