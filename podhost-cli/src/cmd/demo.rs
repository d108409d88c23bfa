//! `podhost demo --user NAME [--feed-id ID] [--episodes N]`: a demo podcast with every field
//! filled, Podcasting 2.0 tags included, and a few generated audio episodes.

use clap::Args;
use serde_json::json;

use crate::context::Env;

/// Demo options.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// The account.
    #[arg(long)]
    pub user: Option<String>,
    /// The podcast's id.
    #[arg(long, default_value = "demo")]
    pub feed_id: String,
    /// How many episodes (each a generated tone of a few seconds).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=20))]
    pub episodes: u32,
}

impl super::Run for DemoArgs {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        let user = env.user(&host, self.user.as_deref()).await?;
        let demo = user.hint(
            host.create_demo(&user.who, &self.feed_id, self.episodes)
                .await,
        )?;
        let rss = host.urls().rss(&demo.feed);
        let page = host.urls().feed_page(&demo.feed);
        env.out().print(
            json!({"feed_id": demo.feed.as_str(), "rss": rss, "page": page, "episodes": demo.episodes}),
            || {
                format!(
                    "made the demo podcast {} with {} episodes\n  feed: {rss}\n  page: {page}",
                    demo.feed,
                    demo.episodes.len()
                )
            },
        )?;
        Ok(())
    }
}
