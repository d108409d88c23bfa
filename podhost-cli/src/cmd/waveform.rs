//! `podhost waveform ID`: asks for an audio file's waveform (BBC audiowaveform's format); with
//! `--wait`, makes it in this process and prints it.

use clap::Args;
use podhost_core::{WaveformFormat, model::JobKind};
use serde_json::{Value, json};

use crate::{context::Env, progress::wait_for_job};

/// Waveform options (as `POST /api/generate/waveform/{id}` takes them).
#[derive(Debug, Args)]
pub struct WaveformArgs {
    #[command(flatten)]
    user: crate::context::UserArg,
    /// The media id of an audio file.
    id: String,
    /// Audio samples per waveform point (default 256).
    #[arg(long, conflicts_with = "pixels_per_second")]
    samples_per_pixel: Option<u32>,
    /// Waveform points per second of audio, instead of --samples-per-pixel.
    #[arg(long)]
    pixels_per_second: Option<u32>,
    /// Bits per value: 8 (default) or 16.
    #[arg(long)]
    bits: Option<u32>,
    /// Runs the job in this process until it ends (no server needed) and prints the waveform
    /// JSON; without it, the job is queued for `podhost serve`.
    #[arg(long, conflicts_with = "latest")]
    wait: bool,
    /// Prints the latest waveform made (`GET /api/media/{id}/waveform`) instead of asking for
    /// one.
    #[arg(long)]
    latest: bool,
}

impl super::Run for WaveformArgs {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        let user = env.user(&host, self.user.name()).await?;
        let id = super::media_id(&self.id)?;
        if self.latest {
            return print(env, &host, &user, id).await;
        }
        let mut params = serde_json::Map::new();
        let options = [
            ("samples_per_pixel", self.samples_per_pixel),
            ("pixels_per_second", self.pixels_per_second),
            ("bits", self.bits),
        ];
        for (key, value) in options {
            if let Some(value) = value {
                params.insert(key.into(), json!(value));
            }
        }
        let job = super::submit_job(&host, &user, id, JobKind::Waveform, params).await?;
        if !self.wait {
            return super::print_queued(env, &host, &user, &job);
        }
        wait_for_job(&host, &user, &job).await?;
        print(env, &host, &user, id).await
    }
}

/// Prints the latest waveform of media `id`.
async fn print(
    env: &Env,
    host: &podhost_core::PodcastHost,
    user: &crate::context::User,
    id: podhost_core::MediaId,
) -> anyhow::Result<()> {
    let bytes = user.hint(
        host.work()
            .waveform(&user.who, id, WaveformFormat::Json)
            .await,
    )?;
    let waveform: Value = serde_json::from_slice(&bytes)?;
    env.out().print(waveform.clone(), || waveform.to_string())?;
    Ok(())
}
