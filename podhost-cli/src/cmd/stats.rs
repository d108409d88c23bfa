//! `podhost stats`: download statistics (IAB v2.2) of an account's podcasts.

use clap::Args;
use podhost_core::{EpisodeId, FeedId, stats::StatsQuery};
use podhost_http::wire;

use crate::{context::Env, error::Failure, output::text_table};

/// Statistics options.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// The account.
    #[arg(long)]
    user: Option<String>,
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
                Failure::invalid(format!("{flag} takes a day as YYYY-MM-DD, not {v:?}")).into()
            })
        })
        .transpose()
}

impl super::Run for StatsArgs {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        let user = env.user(&host, self.user.as_deref()).await?;
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
        let report = user.hint(host.download_stats(&user.who, &query).await)?;
        env.out().print(wire::stats_report(&report), || {
            let count = |n: u64| n.to_string();
            let mut sections = vec![format!(
                "downloads from {} to {}: {}",
                report.from, report.to, report.total
            )];
            let rows = |pairs: Vec<(String, u64)>| -> Vec<Vec<String>> {
                pairs.into_iter().map(|(k, n)| vec![k, count(n)]).collect()
            };
            match self.by {
                Some(By::Country) => {
                    let pairs = report
                        .countries
                        .iter()
                        .map(|c| (c.country.clone(), c.downloads));
                    sections.push(text_table(
                        &["COUNTRY", "DOWNLOADS"],
                        &rows(pairs.collect()),
                    ));
                    return sections.join("\n\n");
                }
                Some(By::Platform) => {
                    let pairs = report
                        .platforms
                        .iter()
                        .map(|p| (p.platform.clone(), p.downloads));
                    sections.push(text_table(
                        &["PLATFORM", "DOWNLOADS"],
                        &rows(pairs.collect()),
                    ));
                    return sections.join("\n\n");
                }
                _ => {}
            }
            let all = self.by.is_none();
            let days: Vec<Vec<String>> = report
                .days
                .iter()
                .map(|d| vec![d.date.to_string(), count(d.downloads)])
                .collect();
            if all || self.by == Some(By::Day) {
                sections.push(text_table(&["DAY", "DOWNLOADS"], &days));
            }
            if (all || self.by == Some(By::Feed)) && !report.feeds.is_empty() {
                let rows: Vec<Vec<String>> = report
                    .feeds
                    .iter()
                    .map(|f| vec![f.feed_id.to_string(), count(f.downloads)])
                    .collect();
                sections.push(text_table(&["FEED", "DOWNLOADS"], &rows));
            }
            if (all || self.by == Some(By::Episode)) && !report.episodes.is_empty() {
                let rows: Vec<Vec<String>> = report
                    .episodes
                    .iter()
                    .map(|e| {
                        vec![
                            e.feed_id.to_string(),
                            e.episode_id.to_string(),
                            count(e.downloads),
                        ]
                    })
                    .collect();
                sections.push(text_table(&["FEED", "EPISODE", "DOWNLOADS"], &rows));
            }
            if (all || self.by == Some(By::App)) && !report.apps.is_empty() {
                let rows: Vec<Vec<String>> = report
                    .apps
                    .iter()
                    .map(|a| vec![a.app.clone(), count(a.downloads)])
                    .collect();
                sections.push(text_table(&["APP", "DOWNLOADS"], &rows));
            }
            if all && !report.countries.is_empty() {
                let pairs = report
                    .countries
                    .iter()
                    .map(|c| (c.country.clone(), c.downloads));
                sections.push(text_table(
                    &["COUNTRY", "DOWNLOADS"],
                    &rows(pairs.collect()),
                ));
            }
            sections.join("\n\n")
        })?;
        Ok(())
    }
}
