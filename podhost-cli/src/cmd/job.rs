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
    /// Cancels a job: a waiting one never runs, a running one is stopped (at its worker's next
    /// lease renewal when another process runs it) and nothing it made is kept; it ends
    /// `failed`. A job that has ended is shown as it is.
    Cancel {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The job id (job_…).
        id: String,
    },
}

/// What `job` does with the job.
enum Verb {
    Get,
    Run,
    Cancel,
}

impl super::Run for JobCommand {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let (verb, user, id) = match self {
            JobCommand::Get { user, id } => (Verb::Get, user, id),
            JobCommand::Run { user, id } => (Verb::Run, user, id),
            JobCommand::Cancel { user, id } => (Verb::Cancel, user, id),
        };
        let host = env.host()?;
        let user = env.user(&host, user.name()).await?;
        let id: podhost_core::JobId = id
            .trim()
            .parse()
            .map_err(|_| anyhow::Error::from(podhost_core::Error::NotFound { what: "job", id }))?;
        let job = match verb {
            Verb::Run => user.hint(host.work().run_job(&user.who, &id).await)?,
            Verb::Get => user.hint(host.work().get_job(&user.who, &id).await)?,
            Verb::Cancel => user.hint(host.work().cancel_job(&user.who, &id).await)?,
        };
        let json = serde_json::to_value(podhost_http::wire::job(&host, &job))?;
        env.out().print(json.clone(), || {
            let mut lines = vec![
                format!("id        {}", job.id),
                format!("kind      {} {}", job.kind.as_str(), super::subject(&job)),
                format!("status    {}", job.status.as_str()),
            ];
            if let Some(done) = job.progress {
                lines.push(format!("progress  {:.0} %", done * 100.0));
            }
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
