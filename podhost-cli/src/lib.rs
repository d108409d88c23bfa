//! The `podhost` command line as a library: [`Cli`] is what clap parses, [`run`] does it.
//!
//! Every command drives the core directly on the store (no server needed). The forms listed in
//! docs/command-line.md (every flag in docs/cli.md, generated from this parser), their `--json` shapes and their exit codes are a contract
//! admins' scripts rely on: keep them stable.
#![deny(missing_docs)]

mod cmd;
mod context;
pub mod error;
pub mod logs;
mod output;
mod progress;

use clap::{Parser, Subcommand};

pub use context::{Global, LogFormat};
pub use output::Output;

/// podhost: podcast hosting. This command drives the store directly (no server needed).
#[derive(Debug, Parser)]
#[command(name = "podhost", version, about, propagate_version = true)]
pub struct Cli {
    /// The options every command takes.
    #[command(flatten)]
    pub global: Global,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Declares the subcommands, one line each, and runs the one parsed.
macro_rules! commands {
    ($($(#[$meta:meta])* $name:ident($ty:ty),)*) => {
        /// The subcommands.
        #[derive(Debug, Subcommand)]
        pub enum Command {
            $($(#[$meta])* $name($ty),)*
        }

        impl Command {
            async fn run(self, env: &context::Env) -> anyhow::Result<()> {
                match self {
                    $(Command::$name(command) => cmd::Run::run(command, env).await,)*
                }
            }
        }
    };
}

commands! {
    /// Accounts.
    #[command(subcommand)] User(cmd::user::UserCommand),
    /// API tokens.
    #[command(subcommand)] Token(cmd::token::TokenCommand),
    /// Members of an account (people with a role) and who did what.
    #[command(subcommand)] Member(cmd::member::MemberCommand),
    /// Podcasts (feeds).
    #[command(subcommand)] Feed(cmd::feed::FeedCommand),
    /// Episodes of a podcast.
    #[command(subcommand)] Episode(cmd::episode::EpisodeCommand),
    /// Media files: audio, images, documents.
    #[command(subcommand)] Media(cmd::media::MediaCommand),
    /// A media file's tags, chapters, cover and ad breaks.
    #[command(subcommand)] Metadata(cmd::metadata::MetadataCommand),
    /// Asks for the waveform of an audio file (BBC audiowaveform's format).
    Waveform(cmd::waveform::WaveformArgs),
    /// Asks for the silences of an audio file and suggested ad breaks.
    Silence(cmd::silence::SilenceArgs),
    /// Asks for the loudness of an audio file (EBU R128: integrated, range, true and sample peak).
    Loudness(cmd::loudness::LoudnessArgs),
    /// Masters an audio file into a new MP3 (or Opus): normalised to a loudness target, true
    /// peaks limited.
    Master(cmd::master::MasterArgs),
    /// Background jobs (waveforms, silences, loudness, mastering, tag writes, imports).
    #[command(subcommand)] Job(cmd::job::JobCommand),
    /// Download statistics.
    Stats(cmd::stats::StatsArgs),
    /// Subscribers of a private podcast, each with a feed URL of their own.
    #[command(subcommand)] Subscriber(cmd::subscriber::SubscriberCommand),
    /// Ad campaigns: the ad, where it goes, which podcasts, when, until how many impressions.
    #[command(subcommand)] Campaign(cmd::campaign::CampaignCommand),
    /// Webhook subscriptions and their deliveries.
    #[command(subcommand)] Webhook(cmd::webhook::WebhookCommand),
    /// The fediverse: a podcast's followers, its episodes' comments, blocked actors and instances.
    #[command(subcommand)] Fediverse(cmd::fediverse::FediverseCommand),
    /// The store's format and the servers on it; raising the format after an upgrade.
    #[command(subcommand)] Store(cmd::store::StoreCommand),
    /// Removes blobs of failed or cut-off uploads.
    Sweep(cmd::sweep::SweepArgs),
    /// Runs the REST API server.
    Serve(cmd::serve::ServeArgs),
    /// Prints a shell completion script.
    Completions(cmd::completions::CompletionsArgs),
    /// Makes a demo podcast with every field filled and generated audio episodes.
    Demo(cmd::demo::DemoArgs),
    /// Imports a podcast from its RSS feed (a URL, or the feed.xml of `podhost export`).
    Import(cmd::import::ImportArgs),
    /// Writes everything of one podcast to a folder that `podhost import` restores.
    Export(cmd::export::ExportArgs),
}

/// Runs a parsed command line.
pub async fn run(cli: Cli) -> anyhow::Result<()> {
    let env = context::Env::new(cli.global, <Cli as clap::CommandFactory>::command);
    cli.command.run(&env).await
}
