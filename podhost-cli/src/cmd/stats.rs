//! `podhost stats`: download statistics (IAB v2.2) of an account's podcasts.

use clap::Args;
use podhost_core::{
    EpisodeId, FeedId,
    stats::{Count, StatsQuery},
};
use podhost_http::wire;

use crate::{context::Env, error::Failure, output::text_table};

/// Statistics options.
#[derive(Debug, Args)]
pub struct StatsArgs {
    #[command(flatten)]
    user: crate::context::UserArg,
    /// Only this podcast (also a deleted one).
    #[arg(long)]
    feed: Option<String>,
    /// Only this episode of the podcast --feed.
    #[arg(long, requires = "feed")]
    episode: Option<String>,
    /// The first day, YYYY-MM-DD (UTC; default 29 days before --to).
    #[arg(long, value_name = "YYYY-MM-DD")]
    from: Option<String>,
    /// The last day, YYYY-MM-DD (UTC; default today). At most 366 days in all.
    #[arg(long, value_name = "YYYY-MM-DD")]
    to: Option<String>,
    /// Print one breakdown only (the text output; --json prints the whole report).
    #[arg(long, value_enum)]
    by: Option<By>,
}

/// A breakdown as the text shows it: which, whether the whole text has it, its header, rows.
type Breakdown = (By, bool, &'static [&'static str], Vec<Vec<String>>);

/// A breakdown of the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum By {
    Day,
    Feed,
    Episode,
    App,
    Platform,
    Country,
}

fn day(flag: &str, value: Option<&str>) -> anyhow::Result<Option<jiff::civil::Date>> {
    value
        .map(|v| {
            v.trim().parse().map_err(|_| {
                Failure::invalid(format!("{flag} takes a day as YYYY-MM-DD, not \"{v}\"")).into()
            })
        })
        .transpose()
}

impl super::Run for StatsArgs {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        let user = env.user(&host, self.user.name()).await?;
        let query = StatsQuery {
            feed: self.feed.as_deref().map(str::parse::<FeedId>).transpose()?,
            episode: self
                .episode
                .as_deref()
                .map(|e| e.trim().parse::<EpisodeId>())
                .transpose()?,
            from: day("--from", self.from.as_deref())?,
            to: day("--to", self.to.as_deref())?,
        };
        // No server loop runs in the CLI: it closes the days due first, as a server does each
        // minute (a statistics read only reads).
        host.analytics().close_stats_days().await?;
        let report = user.hint(host.analytics().download_stats(&user.who, &query).await)?;
        env.out().print(wire::stats_report(&report), || {
            let count = |n: u64| n.to_string();
            let mut sections = vec![format!(
                "downloads from {} to {}: {}",
                report.from, report.to, report.total
            )];
            // Each breakdown, and whether the whole text shows it (devices only when asked).
            // Each breakdown's rows: what was counted, and its downloads.
            fn rows<K: std::fmt::Display>(counts: &[Count<K>]) -> Vec<Vec<String>> {
                counts
                    .iter()
                    .map(|c| vec![c.of.to_string(), c.downloads.to_string()])
                    .collect()
            }
            let breakdowns: [Breakdown; 6] = [
                (By::Day, true, &["DAY", "DOWNLOADS"], rows(&report.days)),
                (By::Feed, true, &["FEED", "DOWNLOADS"], rows(&report.feeds)),
                (
                    By::Episode,
                    true,
                    &["FEED", "EPISODE", "DOWNLOADS"],
                    report
                        .episodes
                        .iter()
                        .map(|e| {
                            let (feed, episode) = &e.of;
                            vec![feed.to_string(), episode.to_string(), count(e.downloads)]
                        })
                        .collect(),
                ),
                (By::App, true, &["APP", "DOWNLOADS"], rows(&report.apps)),
                (
                    By::Country,
                    true,
                    &["COUNTRY", "DOWNLOADS"],
                    rows(&report.countries),
                ),
                (
                    By::Platform,
                    false,
                    &["PLATFORM", "DOWNLOADS"],
                    rows(&report.platforms),
                ),
            ];
            for (by, in_whole, header, rows) in breakdowns {
                let asked = match self.by {
                    Some(only) => only == by,
                    // The whole text: every day of the period, the other breakdowns when not empty.
                    None => in_whole && (by == By::Day || !rows.is_empty()),
                };
                if asked {
                    sections.push(text_table(header, &rows));
                }
            }
            sections.join("\n\n")
        })?;
        Ok(())
    }
}
