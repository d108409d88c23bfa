//! `podhost loudness ID`: asks for an audio file's loudness (EBU R128); with `--wait`, measures
//! it in this process (one decode, which also stores the waveform and silences at their
//! defaults) and prints it.

use clap::Args;
use podhost_core::model::JobKind;
use podhost_http::wire;

use crate::{context::Env, progress::wait_for_job};

/// `podhost loudness ID [--wait | --latest]`.
#[derive(Debug, Args)]
pub struct LoudnessArgs {
    #[command(flatten)]
    user: crate::context::UserArg,
    /// The media id of an audio file.
    id: String,
    /// Runs the job in this process until it ends (no server needed) and prints the loudness;
    /// without it, the job is queued for `podhost serve`.
    #[arg(long)]
    wait: bool,
    /// Prints the loudness measured (`GET /api/media/{id}/loudness`) instead of asking for it.
    #[arg(long, conflicts_with = "wait")]
    latest: bool,
}

impl super::Run for LoudnessArgs {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        let user = env.user(&host, self.user.name()).await?;
        let id = super::media_id(&self.id)?;
        if !self.latest {
            let params = serde_json::Map::new();
            let job = super::submit_job(&host, &user, id, JobKind::Loudness, params).await?;
            if !self.wait {
                return super::print_queued(env, &host, &user, &job);
            }
            wait_for_job(&host, &user, &job).await?;
        }
        let loudness = user.hint(host.work().loudness(&user.who, id).await)?;
        let level = |value: Option<f64>, unit: &str| {
            value.map_or_else(
                || "none (silence)".to_string(),
                |v| format!("{v:.1} {unit}"),
            )
        };
        env.out().print(wire::jobs::loudness(&loudness), || {
            format!(
                "integrated  {}\nrange       {:.1} LU\ntrue peak   {}\nsample peak {}",
                level(loudness.integrated, "LUFS"),
                loudness.range,
                level(loudness.true_peak, "dBTP"),
                level(loudness.sample_peak, "dBFS"),
            )
        })?;
        Ok(())
    }
}
