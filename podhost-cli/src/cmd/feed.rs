//! `podhost feed create|list`.

use clap::Subcommand;
use podhost_core::{
    PodcastHost,
    model::{FeedPatch, FeedView, NewFeed, PageRequest},
};
use serde_json::json;

use crate::output::Output;

/// Feed commands.
#[derive(Debug, Subcommand)]
pub enum FeedCommand {
    /// Creates a podcast.
    Create {
        /// The account.
        #[arg(long)]
        user: String,
        /// The feed id: unique in the deployment, part of public URLs.
        #[arg(long)]
        id: String,
        /// The title.
        #[arg(long)]
        title: String,
        /// The description.
        #[arg(long)]
        description: Option<String>,
        /// The language tag (default en).
        #[arg(long)]
        language: Option<String>,
        /// The author shown in podcast apps.
        #[arg(long)]
        author: Option<String>,
        /// Apple Podcasts category, e.g. Technology.
        #[arg(long)]
        category: Option<String>,
        /// Marks the podcast explicit.
        #[arg(long)]
        explicit: bool,
    },
    /// Lists an account's podcasts.
    List {
        /// The account.
        #[arg(long)]
        user: String,
    },
}

fn feed_json(host: &PodcastHost, view: &FeedView) -> serde_json::Value {
    json!({
        "id": view.feed.id.as_str(),
        "title": view.feed.title,
        "episodes": view.episode_count,
        "rss": host.urls().rss(&view.feed.id),
    })
}

pub(crate) async fn run(
    host: &PodcastHost,
    out: &Output,
    command: FeedCommand,
) -> anyhow::Result<()> {
    match command {
        FeedCommand::Create {
            user,
            id,
            title,
            description,
            language,
            author,
            category,
            explicit,
        } => {
            let owner = super::owner(host, &user).await?;
            let fields = FeedPatch {
                title: Some(title),
                description,
                language,
                itunes_author: author,
                itunes_category: category,
                itunes_explicit: Some(explicit),
                ..Default::default()
            };
            let view = host.create_feed(&owner, NewFeed { id, fields }).await?;
            out.print(feed_json(host, &view), || {
                format!(
                    "created feed {} at {}",
                    view.feed.id,
                    host.urls().rss(&view.feed.id)
                )
            })?;
        }
        FeedCommand::List { user } => {
            let owner = super::owner(host, &user).await?;
            let mut rows = Vec::new();
            let mut number = 1;
            loop {
                let page = host
                    .list_feeds(
                        &owner,
                        PageRequest::new(Some(number), Some(i64::from(PageRequest::MAX_SIZE)))?,
                    )
                    .await?;
                let done = page.items.len() < PageRequest::MAX_SIZE as usize;
                for view in page.items {
                    rows.push((
                        feed_json(host, &view),
                        vec![
                            view.feed.id.to_string(),
                            view.episode_count.to_string(),
                            view.feed.title.clone(),
                        ],
                    ));
                }
                if done {
                    break;
                }
                number += 1;
            }
            out.table(&["ID", "EPISODES", "TITLE"], rows)?;
        }
    }
    Ok(())
}
