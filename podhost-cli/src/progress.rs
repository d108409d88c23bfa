//! Progress shown on a terminal: a bar per uploaded file, a spinner while a job runs. Nothing
//! is drawn when stderr is not a terminal (scripts, pipes, tests).

use std::{io::IsTerminal, path::Path, time::Duration};

use bytes::{Bytes, BytesMut};
use futures::Stream;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use podhost_core::{
    PodcastHost,
    model::{Job, JobStatus},
};
use tokio::io::AsyncReadExt;

use crate::{
    context::User,
    error::{Code, Failure},
};

/// Bytes read from a local file per chunk of an upload.
const CHUNK: usize = 256 * 1024;

fn draw_target() -> ProgressDrawTarget {
    if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    }
}

/// A bar for uploading `name`, `len` bytes long.
pub fn upload_bar(name: &str, len: u64) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(len), draw_target());
    let style = ProgressStyle::with_template(
        "{msg:30!} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} {eta}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ");
    bar.set_style(style);
    bar.set_message(name.to_string());
    bar
}

/// An opened local file to upload, with its name and size; unreadable files are bad input.
pub struct LocalFile {
    /// The file name (without folders) the upload is named after.
    pub name: String,
    /// Its size in bytes.
    pub len: u64,
    file: tokio::fs::File,
}

impl LocalFile {
    /// Opens `path`; a failure says which file and why.
    pub async fn open(path: &Path) -> anyhow::Result<Self> {
        let unreadable =
            |e: std::io::Error| Failure::invalid(format!("cannot read {}: {e}", path.display()));
        let file = tokio::fs::File::open(path).await.map_err(unreadable)?;
        let meta = file.metadata().await.map_err(unreadable)?;
        if !meta.is_file() {
            return Err(Failure::invalid(format!("{} is not a file", path.display())).into());
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        Ok(LocalFile {
            name,
            len: meta.len(),
            file,
        })
    }

    /// The file's bytes as a stream of chunks, advancing `bar` as they are read.
    pub fn into_stream(
        self,
        bar: ProgressBar,
    ) -> impl Stream<Item = Result<Bytes, std::io::Error>> + Send {
        futures::stream::try_unfold((self.file, bar), |(mut file, bar)| async move {
            let mut buf = BytesMut::with_capacity(CHUNK);
            while buf.len() < CHUNK {
                if file.read_buf(&mut buf).await? == 0 {
                    break;
                }
            }
            if buf.is_empty() {
                return Ok(None);
            }
            bar.inc(buf.len() as u64);
            Ok(Some((buf.freeze(), (file, bar))))
        })
    }
}

/// Runs the job `job` in this process until it ends ([`Work::run_job`]), with a
/// spinner on a terminal. A failed job is a failure naming the job's reason.
pub async fn wait_for_job(host: &PodcastHost, user: &User, job: &Job) -> anyhow::Result<Job> {
    let spinner = ProgressBar::with_draw_target(None, draw_target());
    spinner.set_style(
        ProgressStyle::with_template("{spinner} {msg} {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    let label = format!("{} {}", job.kind.as_str(), crate::cmd::subject(job));
    spinner.set_message(format!("{label}: {}", job.status.as_str()));
    let run = host.work().run_job(&user.who, &job.id);
    let mut run = std::pin::pin!(run);
    let mut tick = tokio::time::interval(Duration::from_millis(200));
    let ended = loop {
        tokio::select! {
            ended = &mut run => break user.hint(ended)?,
            _ = tick.tick() => {
                if let Ok(now) = host.work().get_job(&user.who, &job.id).await {
                    spinner.set_message(format!("{label}: {}", now.status.as_str()));
                }
                spinner.tick();
            }
        }
    };
    spinner.finish_and_clear();
    if ended.status == JobStatus::Failed {
        let reason = ended.error.as_deref().unwrap_or("no reason given");
        return Err(Failure::new(
            Code::JobFailed,
            format!(
                "the {} job {} {} failed: {reason}",
                ended.kind.as_str(),
                ended.id,
                crate::cmd::subject(&ended)
            ),
        )
        .into());
    }
    Ok(ended)
}
