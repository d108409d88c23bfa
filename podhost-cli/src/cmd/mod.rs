//! One module per subcommand; each command type implements [`Run`].

pub mod campaign;
pub mod completions;
pub mod demo;
pub mod episode;
pub mod export;
pub mod fediverse;
pub mod feed;
pub mod import;
pub mod job;
pub mod loudness;
pub mod master;
pub mod media;
pub mod member;
pub mod metadata;
pub mod serve;
pub mod silence;
pub mod stats;
pub mod store;
pub mod subscriber;
pub mod sweep;
pub mod token;
pub mod user;
pub mod waveform;
pub mod webhook;

use crate::context::Env;

/// A parsed subcommand that can be run.
pub(crate) trait Run {
    /// Runs the command in `env`: prints its result, or returns why it failed.
    async fn run(self, env: &Env) -> anyhow::Result<()>;
}

/// Every page of a paged core listing: `fetch(number, size)` gives one page's items.
pub(crate) async fn all_pages<T, F, Fut>(mut fetch: F) -> anyhow::Result<Vec<T>>
where
    F: FnMut(podhost_core::model::PageRequest) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<Vec<T>>>,
{
    use podhost_core::model::PageRequest;
    let size = PageRequest::MAX_SIZE;
    let mut items = Vec::new();
    for number in 1.. {
        let page = fetch(PageRequest::new(Some(number), Some(i64::from(size)))?).await?;
        let done = page.len() < size as usize;
        items.extend(page);
        if done {
            break;
        }
    }
    Ok(items)
}

/// A media id given on the command line.
pub(crate) fn media_id(id: &str) -> anyhow::Result<podhost_core::MediaId> {
    Ok(id.trim().parse::<podhost_core::MediaId>()?)
}

/// Prints a job that was asked for and not waited for, saying how to get its result.
pub(crate) fn print_queued(
    env: &Env,
    host: &podhost_core::PodcastHost,
    user: &crate::context::User,
    job: &podhost_core::model::Job,
) -> anyhow::Result<()> {
    let kind = job.kind.as_str();
    let media = job.media.map(|m| m.to_string()).unwrap_or_default();
    env.out().print(podhost_http::wire::job(host, job), || {
        format!(
            "{kind} job {} {} is {}: a running `podhost serve` does it, or wait for it here with `podhost {kind} {media} --user {} --wait`",
            job.id,
            subject(job),
            job.status.as_str(),
            user.name
        )
    })?;
    Ok(())
}

/// What a job works on, in words: `of media 7`, or `of an import`.
pub(crate) fn subject(job: &podhost_core::model::Job) -> String {
    match job.media {
        Some(media) => format!("of media {media}"),
        None => "of an import".to_string(),
    }
}

/// Asks for an analysis job of `kind` on media `id` with `params`. The core answers with the
/// job already waiting or running for the file and kind, if any: when that one has other
/// options, a note on stderr says so.
pub(crate) async fn submit_job(
    host: &podhost_core::PodcastHost,
    user: &crate::context::User,
    id: podhost_core::MediaId,
    kind: podhost_core::model::JobKind,
    params: serde_json::Map<String, serde_json::Value>,
) -> anyhow::Result<podhost_core::model::Job> {
    let params = serde_json::Value::Object(params);
    let job = user.hint(
        host.work()
            .submit_job(&user.who, id, kind, params.clone())
            .await,
    )?;
    let asked = |p: &serde_json::Value| match p {
        serde_json::Value::Null => serde_json::Value::Object(Default::default()),
        other => other.clone(),
    };
    if asked(&job.params) != asked(&params) {
        eprintln!(
            "podhost: note: a {} job of media {id} was already waiting with the options {}; this is that job",
            kind.as_str(),
            asked(&job.params)
        );
    }
    Ok(job)
}
