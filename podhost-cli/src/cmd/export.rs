//! `podhost export`: moving out. Everything a podcaster owns about one podcast, written to a
//! folder that `podhost import DIR/feed.xml` restores on another store.
//!
//! ```text
//! DIR/feed.xml       the RSS feed as podhost serves it
//! DIR/drafts.xml     the drafts (marked itunes:block) and scheduled episodes, as RSS
//! DIR/podcast.json   {"feed", "episodes", "media"} as the REST API shows them, and "files":
//!                    the file name in DIR of each media URL
//! DIR/<name>         every media file the podcast uses, under its name
//! DIR/<name>.chapters.json   the JSON chapters of a file that has chapters
//! ```

use std::path::PathBuf;

use clap::Args;
use futures::StreamExt;
use podhost_core::{FeedId, PodcastHost};
use podhost_http::wire::{self, Ctx};

use tokio::io::AsyncWriteExt;

use super::import::{DRAFTS, FEED, RECORDS};
use crate::{
    context::{Env, User},
    output::Output,
};

/// Export options.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The account the podcast belongs to.
    #[arg(long)]
    pub user: Option<String>,
    /// The podcast's id.
    #[arg(long)]
    pub feed: String,
    /// The folder to write to (created if missing; files in it are replaced).
    pub dir: PathBuf,
}

impl super::Run for ExportArgs {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        let user = env.user(&host, self.user.as_deref()).await?;
        export(&host, env.out(), &user, self).await
    }
}

async fn export(
    host: &PodcastHost,
    out: &Output,
    user: &User,
    args: ExportArgs,
) -> anyhow::Result<()> {
    let owner = &user.who;
    let feed = FeedId::new(&args.feed)?;
    let export = user.hint(host.podcasts().export_feed(owner, &feed).await)?;
    tokio::fs::create_dir_all(&args.dir)
        .await
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", args.dir.display()))?;
    let ctx = Ctx::of(host, owner);
    let mut files = serde_json::Map::new();
    let mut bytes = 0u64;
    for media in &export.media {
        let path = args.dir.join(&media.name);
        let (_, mut content) = host.podcasts().download_media(owner, media.id).await?;
        // Written beside its final name and renamed: a file in DIR is whole or absent.
        let partial = args.dir.join(format!(".{}.part", media.name));
        let mut file = tokio::fs::File::create(&partial)
            .await
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", partial.display()))?;
        while let Some(chunk) = content.next().await {
            let chunk = chunk?;
            bytes += chunk.len() as u64;
            file.write_all(&chunk).await?;
        }
        file.flush().await?;
        drop(file);
        tokio::fs::rename(&partial, &path).await?;
        files.insert(
            host.podcasts().media_url(owner.account(), media),
            serde_json::Value::String(media.name.clone()),
        );
        // The chapters the feed links to (`podcast:chapters`), beside the file.
        if !media.chapters.is_empty() {
            let name = format!("{}.chapters.json", media.name);
            let json = podhost_core::publish::chapters::render(&media.chapters);
            tokio::fs::write(args.dir.join(&name), json).await?;
            files.insert(
                host.urls().chapters(owner.account(), media),
                serde_json::Value::String(name),
            );
        }
    }
    let records = serde_json::json!({
        "feed": wire::feed_single(&ctx, &export.feed),
        "episodes": export.episodes.iter().map(|e| wire::episode_single(&ctx, e)).collect::<Vec<_>>(),
        "media": export.media.iter().map(|m| wire::media_single(&ctx, m)).collect::<Vec<_>>(),
        "files": files,
    });
    tokio::fs::write(args.dir.join(FEED), &export.rss).await?;
    tokio::fs::write(args.dir.join(DRAFTS), &export.drafts).await?;
    tokio::fs::write(args.dir.join(RECORDS), serde_json::to_vec_pretty(&records)?).await?;
    let summary = serde_json::json!({
        "feed_id": feed.as_str(),
        "dir": args.dir.display().to_string(),
        "episodes": export.episodes.len(),
        "files": export.media.len(),
        "bytes": bytes,
    });
    out.print(summary, || {
        format!(
            "exported {} to {}: {} episodes, {} files ({}); restore it with: podhost import --user NAME {}",
            feed,
            args.dir.display(),
            export.episodes.len(),
            export.media.len(),
            podhost_core::model::human_size(bytes),
            args.dir.join(FEED).display()
        )
    })?;
    Ok(())
}
