//! What every command starts from: the global options, the host they open, the user `--user`
//! names.

use std::path::PathBuf;

use clap::Args;
use podhost_core::{AccountId, HostConfig, OpenedStore, PodcastHost, Principal};

use crate::{
    error::{Code, Failure, not_found_hint},
    output::Output,
};

/// The public base URL guessed when neither `--public-url` nor the store (a server's record)
/// says it: `serve`'s default address.
const GUESSED_PUBLIC_URL: &str = "http://127.0.0.1:8080";

/// Where the public base URL of a command's links comes from when `--public-url` is not given.
#[derive(Debug, Clone, Copy)]
pub enum DefaultPublicUrl<'a> {
    /// The URL of the address `serve` listens on.
    Listening(&'a str),
    /// The one the last server on the store recorded, else a guess (which a note on stderr
    /// says when a link with it is printed).
    Recorded,
}

/// Says `message` on stderr as the logs are written (see [`Env::say`]).
fn say_as(format: LogFormat, message: &str) {
    match format {
        LogFormat::Text => eprintln!("podhost: {message}"),
        LogFormat::Json => tracing::info!(target: "podhost", "{message}"),
    }
}

/// The public URL the last server on `store` recorded, read on this command's runtime (`None`
/// without a multi-threaded one, whose thread may block, or when the store does not answer:
/// the guess stands then).
fn recorded_public_url(opened: &OpenedStore) -> Option<String> {
    let runtime = tokio::runtime::Handle::try_current().ok()?;
    if runtime.runtime_flavor() != tokio::runtime::RuntimeFlavor::MultiThread {
        return None;
    }
    let read = podhost_core::store_format::recorded_public_url(&opened.store);
    match tokio::task::block_in_place(|| runtime.block_on(read)) {
        Ok(recorded) => recorded.map(|r| r.public_url),
        Err(e) => {
            tracing::warn!(error = %e, "could not read the public URL recorded in the store");
            None
        }
    }
}

/// The options every command takes.
#[derive(Debug, Args)]
pub struct Global {
    /// Where podhost keeps everything: a folder, file://PATH, memory:// or s3://BUCKET/PREFIX.
    #[arg(long, global = true, env = "PODHOST_STORE", default_value = podhost_core::DEFAULT_STORE)]
    pub store: String,
    /// The public base URL links start with [default: http://LISTEN for serve; for other
    /// commands, the one the last server on the store recorded, else a guess,
    /// http://127.0.0.1:8080, which a note on stderr says].
    #[arg(long, global = true, env = "PODHOST_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Print JSON: one value on stdout; a failure as {"error": {"message", "code"}} on stderr.
    #[arg(long, global = true)]
    pub json: bool,
    /// Allow webhook targets on loopback, private, link-local and metadata addresses (closed
    /// networks, tests).
    #[arg(long, global = true, env = "PODHOST_ALLOW_PRIVATE_WEBHOOKS", action = clap::ArgAction::SetTrue, value_parser = clap::builder::BoolishValueParser::new())]
    pub allow_private_webhooks: bool,
    /// A folder for the working files of background jobs (tag writing rewrites a copy of the
    /// audio there) [default: .podhost/scratch in a local-folder store, else podhost in the
    /// system's temporary folder].
    #[arg(long, global = true, env = "PODHOST_SCRATCH_DIR")]
    pub scratch_dir: Option<PathBuf>,
    /// The ffmpeg program that packages video for HLS (a path, or a name on PATH).
    #[arg(
        long,
        global = true,
        env = "PODHOST_FFMPEG",
        default_value = "ffmpeg",
        value_name = "PROGRAM"
    )]
    pub ffmpeg: PathBuf,
    /// Threads ffmpeg may use for each of its decoding, scaling and encoders.
    #[arg(
        long,
        global = true,
        env = "PODHOST_FFMPEG_THREADS",
        default_value_t = 2,
        value_name = "N"
    )]
    pub ffmpeg_threads: usize,
    /// Seconds a request to the store may take (a second more per MiB it moves) before the
    /// operation is refused: the API answers 503 with Retry-After, a command exits with 75.
    #[arg(
        long,
        global = true,
        env = "PODHOST_STORE_TIMEOUT",
        default_value_t = podhost_core::HostConfig::DEFAULT_STORE_TIMEOUT.as_secs(),
        value_parser = clap::value_parser!(u64).range(1..=3600),
        value_name = "SECONDS"
    )]
    pub store_timeout: u64,
    /// A WebSub hub to name in every public feed and to tell of each feed change (repeatable;
    /// the environment takes a comma-separated list).
    #[arg(
        long = "websub-hub",
        global = true,
        env = "PODHOST_WEBSUB_HUBS",
        value_delimiter = ',',
        value_name = "URL"
    )]
    pub websub_hubs: Vec<String>,
    /// The Podping server to tell of each feed change (feeds then say
    /// `<podcast:podping usesPodping="true"/>`).
    #[arg(long, global = true, env = "PODHOST_PODPING_URL", value_name = "URL")]
    pub podping_url: Option<String>,
    /// The `Authorization` header value Podping notifications carry.
    #[arg(
        long,
        global = true,
        env = "PODHOST_PODPING_TOKEN",
        hide_env_values = true
    )]
    pub podping_token: Option<String>,
    /// How log lines (on stderr) are written: `text`, or `json` (one object a line, with the
    /// request, job or delivery they belong to). PODHOST_LOG (a tracing filter, else RUST_LOG)
    /// says how many: by default podhost's from INFO, libraries' from WARN.
    #[arg(long, global = true, env = "PODHOST_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// Also log the libraries podhost uses below WARN (their INFO lines); without it, only
    /// their warnings and errors are logged beside podhost's own lines.
    #[arg(long, global = true, env = "PODHOST_LOG_LIBRARIES", action = clap::ArgAction::SetTrue, value_parser = clap::builder::BoolishValueParser::new())]
    pub log_libraries: bool,
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// For people: one line each, its request's, job's or delivery's fields in front.
    Text,
    /// For log collectors: one JSON object a line.
    Json,
}

/// `--user NAME`: the account a command acts on, as its owner (declared once for every
/// command that takes it).
#[derive(Debug, Clone, Args)]
pub struct UserArg {
    /// The account.
    #[arg(long)]
    pub user: Option<String>,
}

impl UserArg {
    /// The account's name, when given.
    pub fn name(&self) -> Option<&str> {
        self.user.as_deref()
    }
}

/// A command's surroundings: the global options and where to print.
#[derive(Debug)]
pub struct Env {
    global: Global,
    out: Output,
    /// The whole command line's definition (for `completions`, which describes every command).
    definition: fn() -> clap::Command,
}

impl Env {
    /// The surroundings of a command run with `global`, in a command line defined by
    /// `definition`.
    pub fn new(global: Global, definition: fn() -> clap::Command) -> Self {
        let out = Output::new(global.json);
        Env {
            global,
            out,
            definition,
        }
    }

    /// Says `message` on stderr as the logs are written: `podhost: message` as text, or a
    /// log line of its own in JSON (so that every line of stderr is an object).
    pub fn say(&self, message: &str) {
        say_as(self.global.log_format, message);
    }

    /// The public base URL `--public-url` (or `PODHOST_PUBLIC_URL`) gives, if it is given.
    pub fn public_url(&self) -> Option<&str> {
        self.global.public_url.as_deref()
    }

    /// The whole command line's definition.
    pub fn definition(&self) -> clap::Command {
        (self.definition)()
    }

    /// Where results go.
    pub fn out(&self) -> &Output {
        &self.out
    }

    /// The host over the store of `--store`, configured by the global options.
    pub fn host(&self) -> anyhow::Result<PodcastHost> {
        self.host_with(DefaultPublicUrl::Recorded, |_, _| Ok(()))
    }

    /// The host, with the public URL of `--public-url`, else of `default_public_url`, and the
    /// command's own settings applied by `adjust`.
    pub fn host_with(
        &self,
        default_public_url: DefaultPublicUrl<'_>,
        adjust: impl FnOnce(&mut HostConfig, &OpenedStore) -> anyhow::Result<()>,
    ) -> anyhow::Result<PodcastHost> {
        let opened = podhost_core::open_store(&self.global.store)?;
        let public_url = match (&self.global.public_url, default_public_url) {
            (Some(given), _) => given.clone(),
            (None, DefaultPublicUrl::Listening(url)) => url.to_string(),
            (None, DefaultPublicUrl::Recorded) => match recorded_public_url(&opened) {
                Some(recorded) => recorded,
                None => {
                    let _ = crate::output::GUESSED.set((
                        GUESSED_PUBLIC_URL.to_string(),
                        matches!(self.global.log_format, LogFormat::Json),
                    ));
                    GUESSED_PUBLIC_URL.to_string()
                }
            },
        };
        let mut config = HostConfig::new(&public_url)?;
        config.local_root = opened.local_root.clone();
        config.scratch_dir = Some(
            self.global
                .scratch_dir
                .clone()
                .or_else(|| opened.scratch_dir.clone())
                .unwrap_or_else(|| std::env::temp_dir().join("podhost")),
        );
        config.allow_private_webhooks = self.global.allow_private_webhooks;
        config.store_timeout = std::time::Duration::from_secs(self.global.store_timeout);
        config.jobs.ffmpeg = podhost_core::ffmpeg::Ffmpeg {
            program: self.global.ffmpeg.clone(),
            threads: self.global.ffmpeg_threads.max(1),
        };
        config.notify = notifiers(&self.global)?;
        config.fetcher = Some(std::sync::Arc::new(podhost_http::HttpFetcher::new()));
        adjust(&mut config, &opened)?;
        Ok(PodcastHost::new(config, opened.store))
    }

    /// The user `--user NAME` names, acting as the account's owner. Without `--user`, or with
    /// a user that does not exist, the failure lists the users there are.
    pub async fn user(&self, host: &PodcastHost, name: Option<&str>) -> anyhow::Result<User> {
        let Some(name) = name else {
            let names = user_names(host).await?;
            let message = if names.is_empty() {
                "--user NAME is required, and there are no users yet: create one with `podhost user create NAME`".to_string()
            } else {
                format!(
                    "--user NAME is required: the users are {}",
                    names.join(", ")
                )
            };
            return Err(Failure::new(Code::Usage, message).into());
        };
        let found = match name.parse::<AccountId>() {
            Ok(account) => match host.access().owner(&account).await {
                Ok(who) => Some(who),
                Err(podhost_core::Error::NotFound { .. }) => None,
                Err(e) => return Err(e.into()),
            },
            Err(_) => None,
        };
        match found {
            Some(who) => Ok(User {
                name: name.to_string(),
                who,
            }),
            None => {
                let names = user_names(host).await?;
                let message = if names.is_empty() {
                    format!(
                        "user {name} not found: there are no users yet; create one with `podhost user create NAME`"
                    )
                } else {
                    format!("user {name} not found: the users are {}", names.join(", "))
                };
                Err(Failure::new(Code::NotFound, message).into())
            }
        }
    }
}

/// The user a command acts for, as the account's owner.
#[derive(Debug)]
pub struct User {
    /// The name given with `--user`.
    pub name: String,
    /// The owner of the account.
    pub who: Principal,
}

impl User {
    /// A core answer, with a `NotFound` that says where to look.
    pub fn hint<T>(&self, result: podhost_core::Result<T>) -> anyhow::Result<T> {
        result.map_err(|e| not_found_hint(e, &self.name, None))
    }

    /// [`hint`](Self::hint) for an answer about an episode of the podcast `feed`.
    pub fn hint_in<T>(&self, feed: &str, result: podhost_core::Result<T>) -> anyhow::Result<T> {
        result.map_err(|e| not_found_hint(e, &self.name, Some(feed)))
    }

    /// The wire context of answers to this user (`podhost_http::wire`).
    pub fn ctx<'a>(&'a self, host: &'a PodcastHost) -> podhost_http::wire::Ctx<'a> {
        podhost_http::wire::Ctx::of(host, &self.who)
    }
}

/// The names of the deployment's users, for messages that list them.
async fn user_names(host: &PodcastHost) -> anyhow::Result<Vec<String>> {
    Ok(host
        .access()
        .list_accounts()
        .await?
        .into_iter()
        .map(|a| a.id.to_string())
        .collect())
}

/// The feed-change notifiers of the command line, each URL checked as a webhook target is.
fn notifiers(global: &Global) -> anyhow::Result<podhost_core::webhooks::notify::Notifiers> {
    let check = |flag: &str, url: &str| -> anyhow::Result<String> {
        let url = url.trim().to_string();
        podhost_core::webhooks::target::check_url(&url, global.allow_private_webhooks)
            .map_err(|why| crate::error::Failure::invalid(format!("{flag} {url}: {why}")))?;
        Ok(url)
    };
    let websub_hubs = global
        .websub_hubs
        .iter()
        .filter(|u| !u.trim().is_empty())
        .map(|u| check("--websub-hub", u))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let podping_url = match global.podping_url.as_deref().map(str::trim) {
        Some(url) if !url.is_empty() => Some(check("--podping-url", url)?),
        _ => None,
    };
    Ok(podhost_core::webhooks::notify::Notifiers {
        websub_hubs,
        podping_url,
        podping_token: global.podping_token.clone(),
    })
}
