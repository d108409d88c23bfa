//! `podhost job get`: a background job as `GET /api/jobs/{id}` shows it; `podhost job run`:
//! runs a queued job here (no server needed), e.g. the mastering a podcast asked for.

use clap::Subcommand;

use crate::context::Env;

/// Jobs.
#[derive(Debug, Subcommand)]
pub enum JobCommand {
    /// One job: its kind, status, error and result.
    Get {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The job id (job_…).
        id: String,
    },
    /// Runs a queued job in this process until it ends (taking it over when its worker died;
    /// waiting while another process runs it), then shows it as `job get` does.
    Run {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The job id (job_…).
        id: String,
    },
}

impl super::Run for JobCommand {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let (run, user, id) = match self {
            JobCommand::Get { user, id } => (false, user, id),
            JobCommand::Run { user, id } => (true, user, id),
        };
        let host = env.host()?;
        let user = env.user(&host, user.name()).await?;
        let id: podhost_core::JobId = id
            .trim()
            .parse()
            .map_err(|_| anyhow::Error::from(podhost_core::Error::NotFound { what: "job", id }))?;
        let job = match run {
            true => user.hint(host.work().run_job(&user.who, &id).await)?,
            false => user.hint(host.work().get_job(&user.who, &id).await)?,
        };
        let json = serde_json::to_value(podhost_http::wire::job(&host, &job))?;
        env.out().print(json.clone(), || {
            let mut lines = vec![
                format!("id        {}", job.id),
                format!("kind      {} {}", job.kind.as_str(), super::subject(&job)),
                format!("status    {}", job.status.as_str()),
            ];
            if let Some(error) = &job.error {
                lines.push(format!("error     {error}"));
            }
            if !json["result"].is_null() {
                lines.push(format!("result    {}", json["result"]));
            }
            lines.join("\n")
        })?;
        Ok(())
    }
}
