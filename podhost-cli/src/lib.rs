//! The `podhost` command line as a library: [`Cli`] is what clap parses, [`run`] does it.
//!
//! The forms `podhost user create NAME`, `podhost token create --user NAME --scopes LIST`,
//! `podhost feed create --user NAME --id ID --title TITLE` and their `list` siblings are a
//! contract admins' scripts rely on: keep them stable.
#![deny(missing_docs)]

mod cmd;
mod output;

use clap::{Parser, Subcommand};
use podhost_core::{HostConfig, PodcastHost};

pub use output::Output;

/// podhost: podcast hosting. This command drives the store directly (no server needed).
#[derive(Debug, Parser)]
#[command(name = "podhost", version, about, propagate_version = true)]
pub struct Cli {
    /// Where podhost keeps everything: a folder, file://PATH, memory:// or s3://BUCKET/PREFIX.
    #[arg(long, global = true, env = "PODHOST_STORE", default_value = podhost_core::DEFAULT_STORE)]
    pub store: String,
    /// The public base URL links start with [default: http://LISTEN for serve, else
    /// http://127.0.0.1:8080].
    #[arg(long, global = true, env = "PODHOST_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Print JSON instead of text.
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
    pub scratch_dir: Option<std::path::PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Accounts.
    #[command(subcommand)]
    User(cmd::user::UserCommand),
    /// API tokens.
    #[command(subcommand)]
    Token(cmd::token::TokenCommand),
    /// Podcasts (feeds).
    #[command(subcommand)]
    Feed(cmd::feed::FeedCommand),
    /// Removes blobs of failed or cut-off uploads.
    Sweep(cmd::sweep::SweepArgs),
    /// Webhook subscriptions.
    #[command(subcommand)]
    Webhook(cmd::webhook::WebhookCommand),
    /// Runs the REST API server.
    Serve(cmd::serve::ServeArgs),
    /// Imports a podcast from its RSS feed (a URL, or the feed.xml of `podhost export`).
    Import(cmd::import::ImportArgs),
    /// Writes everything of one podcast to a folder that `podhost import` restores.
    Export(cmd::export::ExportArgs),
}

/// Runs a parsed command line.
pub async fn run(cli: Cli) -> anyhow::Result<()> {
    let opened = podhost_core::open_store(&cli.store)?;
    let public_url = match (&cli.public_url, &cli.command) {
        (Some(url), _) => url.clone(),
        (None, Command::Serve(serve)) => format!("http://{}", serve.listen),
        (None, _) => "http://127.0.0.1:8080".to_string(),
    };
    let mut config = HostConfig::new(&public_url)?;
    config.local_root = opened.local_root;
    config.scratch_dir = Some(
        cli.scratch_dir
            .clone()
            .or(opened.scratch_dir)
            .unwrap_or_else(|| std::env::temp_dir().join("podhost")),
    );
    config.allow_private_webhooks = cli.allow_private_webhooks;
    config.fetcher = Some(std::sync::Arc::new(podhost_http::HttpFetcher::new()));
    if let Command::Serve(serve) = &cli.command {
        config.jobs.lease = std::time::Duration::from_secs(serve.job_lease_seconds);
        config.rate_limit = serve.rate_limit;
    }
    if let Command::Serve(serve) = &cli.command
        && serve.presign_downloads
    {
        let presigner = opened.presigner.ok_or_else(|| {
            podhost_core::Error::Invalid({
                let mut errors = podhost_core::FieldErrors::default();
                errors.add("presign-downloads", "needs an s3:// store");
                errors
            })
        })?;
        config.presigned_downloads = Some(presigner);
    }
    let host = PodcastHost::new(config, opened.store);
    let out = Output::new(cli.json);
    match cli.command {
        Command::User(c) => cmd::user::run(&host, &out, c).await,
        Command::Token(c) => cmd::token::run(&host, &out, c).await,
        Command::Feed(c) => cmd::feed::run(&host, &out, c).await,
        Command::Sweep(c) => cmd::sweep::run(&host, &out, c).await,
        Command::Webhook(c) => cmd::webhook::run(&host, &out, c).await,
        Command::Serve(c) => cmd::serve::run(host, c).await,
        Command::Import(c) => cmd::import::run(&host, &out, c).await,
        Command::Export(c) => cmd::export::run(&host, &out, c).await,
    }
}

/// True when the error is a closed output pipe (`podhost ... | head`): not a failure.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Exit codes: 1 for anything unexpected, 2 for bad input, 3 for not found, 4 for conflicts.
pub fn exit_code(e: &anyhow::Error) -> u8 {
    match e.downcast_ref::<podhost_core::Error>() {
        Some(podhost_core::Error::Invalid(_)) => 2,
        Some(podhost_core::Error::NotFound { .. }) => 3,
        Some(podhost_core::Error::Conflict { .. }) => 4,
        _ => 1,
    }
}
