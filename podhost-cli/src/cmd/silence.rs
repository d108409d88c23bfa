//! `podhost silence ID`: asks for an audio file's silences and suggested ad breaks; with
//! `--wait`, finds them in this process and prints the report.

use clap::Args;
use podhost_core::model::JobKind;
use podhost_http::wire;
use serde_json::json;

use crate::{context::Env, output::text_table, progress::wait_for_job};

/// Silence options (as `POST /api/generate/silence/{id}` takes them).
#[derive(Debug, Args)]
pub struct SilenceArgs {
    #[command(flatten)]
    user: crate::context::UserArg,
    /// The media id of an audio file.
    id: String,
    /// The level below which audio is silent, in dB (default -60).
    #[arg(long, allow_negative_numbers = true, value_name = "DB")]
    noise: Option<f64>,
    /// The shortest silence reported, in seconds (default 2).
    #[arg(long, allow_negative_numbers = true, value_name = "SECONDS")]
    duration: Option<f64>,
    /// Runs the job in this process until it ends (no server needed) and prints the report;
    /// without it, the job is queued for `podhost serve`.
    #[arg(long)]
    wait: bool,
    /// Prints the latest report made (`GET /api/media/{id}/silence`) instead of asking for one.
    #[arg(long, conflicts_with = "wait")]
    latest: bool,
}

impl super::Run for SilenceArgs {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        let user = env.user(&host, self.user.name()).await?;
        let id = super::media_id(&self.id)?;
        let mut params = serde_json::Map::new();
        for (key, value) in [("noise", self.noise), ("duration", self.duration)] {
            if let Some(value) = value {
                params.insert(key.into(), json!(value));
            }
        }
        if !self.latest {
            let job = super::submit_job(&host, &user, id, JobKind::Silence, params).await?;
            if !self.wait {
                return super::print_queued(env, &host, &user, &job);
            }
            wait_for_job(&host, &user, &job).await?;
        }
        let report = user.hint(host.work().silence(&user.who, id).await)?;
        env.out().print(wire::silence_report(&report), || {
            let rows: Vec<Vec<String>> = report
                .silences
                .iter()
                .map(|s| {
                    vec![
                        format!("{:.3}", s.start),
                        format!("{:.3}", s.end),
                        format!("{:.3}", s.duration),
                    ]
                })
                .collect();
            let midrolls: Vec<String> = report.midrolls.iter().map(|t| format!("{t:.3}")).collect();
            format!(
                "{}\nduration {:.3} s; suggested mid-rolls (s): {}",
                text_table(&["START", "END", "DURATION"], &rows),
                report.duration,
                if midrolls.is_empty() {
                    "none".to_string()
                } else {
                    midrolls.join(", ")
                }
            )
        })?;
        Ok(())
    }
}
