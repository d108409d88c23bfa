//! `podhost fediverse followers|comments|hide|show|block|unblock|blocks`: a podcast's followers
//! on the fediverse, its episodes' comments (replies to their posts), and the actors and
//! instances the account blocks.

use clap::Subcommand;
use podhost_core::{EpisodeId, FeedId};
use podhost_http::wire::fediverse as wire;

use crate::{context::Env, output::time};

/// Fediverse commands.
#[derive(Debug, Subcommand)]
pub enum FediverseCommand {
    /// Lists who follows a podcast.
    Followers {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The podcast.
        #[arg(long)]
        feed: String,
    },
    /// Lists an episode's comments, hidden ones too, in the order they arrived.
    Comments {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The podcast.
        #[arg(long)]
        feed: String,
        /// The episode (`pod-3`, or 3).
        #[arg(long)]
        episode: String,
    },
    /// Hides a comment from the episode's page.
    Hide(CommentArgs),
    /// Shows a hidden comment on the episode's page again.
    Show(CommentArgs),
    /// Blocks an actor (its URL) or an instance (its host name) for every podcast: it stops
    /// following, its comments are hidden, nothing more of it is accepted.
    Block {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// `https://social.example/users/someone` or `social.example`.
        target: String,
    },
    /// Lifts a block.
    Unblock {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The actor's URL or the instance's host name, as blocked.
        target: String,
    },
    /// Lists the blocks.
    Blocks {
        #[command(flatten)]
        user: crate::context::UserArg,
    },
}

impl super::Run for FediverseCommand {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        let out = env.out();
        let fediverse = host.fediverse();
        match self {
            FediverseCommand::Followers { user, feed } => {
                let user = env.user(&host, user.name()).await?;
                let feed: FeedId = feed.parse()?;
                let rows = user
                    .hint(fediverse.list_followers(&user.who, &feed).await)?
                    .iter()
                    .map(|f| {
                        (
                            wire::follower(&feed, f),
                            vec![f.handle.clone(), f.actor.clone(), time(f.since)],
                        )
                    })
                    .collect();
                out.table(&["HANDLE", "ACTOR", "SINCE"], rows)?;
            }
            FediverseCommand::Comments {
                user,
                feed,
                episode,
            } => {
                let user = env.user(&host, user.name()).await?;
                let feed: FeedId = feed.parse()?;
                let episode = episode_id(&episode)?;
                let rows = user
                    .hint(fediverse.comments(&user.who, &feed, episode).await)?
                    .iter()
                    .map(|c| {
                        (
                            wire::comment(c),
                            vec![
                                c.id.clone(),
                                c.parent.clone().unwrap_or_else(|| "-".into()),
                                c.author.handle.clone(),
                                time(c.published),
                                if c.hidden { "hidden" } else { "shown" }.into(),
                            ],
                        )
                    })
                    .collect();
                out.table(&["ID", "ANSWERS", "AUTHOR", "PUBLISHED", "STATE"], rows)?;
            }
            FediverseCommand::Hide(comment) => hide(env, comment, true).await?,
            FediverseCommand::Show(comment) => hide(env, comment, false).await?,
            FediverseCommand::Block { user, target } => {
                let user = env.user(&host, user.name()).await?;
                let block = user.hint(fediverse.block(&user.who, &target).await)?;
                out.print(wire::block(&block), || {
                    format!("blocked {}", block.target.as_str())
                })?;
            }
            FediverseCommand::Unblock { user, target } => {
                let user = env.user(&host, user.name()).await?;
                user.hint(fediverse.unblock(&user.who, &target).await)?;
                out.print(serde_json::json!({"unblocked": target}), || {
                    format!("unblocked {target}")
                })?;
            }
            FediverseCommand::Blocks { user } => {
                let user = env.user(&host, user.name()).await?;
                let rows = user
                    .hint(fediverse.blocks(&user.who).await)?
                    .iter()
                    .map(|b| {
                        let record = wire::block(b);
                        let row = vec![
                            record.id.clone(),
                            record.kind.clone(),
                            record.target.clone(),
                            time(b.created),
                        ];
                        (record, row)
                    })
                    .collect();
                out.table(&["ID", "KIND", "TARGET", "CREATED"], rows)?;
            }
        }
        Ok(())
    }
}

/// Which comment `hide` and `show` act on.
#[derive(Debug, clap::Args)]
pub struct CommentArgs {
    #[command(flatten)]
    user: crate::context::UserArg,
    /// The podcast.
    #[arg(long)]
    feed: String,
    /// The episode (`pod-3`, or 3).
    #[arg(long)]
    episode: String,
    /// The comment (cmt_...).
    comment_id: String,
}

/// Hides a comment, or shows it again.
async fn hide(env: &Env, args: CommentArgs, hidden: bool) -> anyhow::Result<()> {
    let host = env.host()?;
    let user = env.user(&host, args.user.name()).await?;
    let feed: FeedId = args.feed.parse()?;
    let episode = episode_id(&args.episode)?;
    let comment = user.hint(
        host.fediverse()
            .set_comment_hidden(&user.who, &feed, episode, args.comment_id.trim(), hidden)
            .await,
    )?;
    let state = if comment.hidden { "hidden" } else { "shown" };
    env.out().print(wire::comment(&comment), || {
        format!("{state} {}", comment.id)
    })?;
    Ok(())
}

/// An episode's id as the API writes it (`pod-3`) or its number (`3`).
fn episode_id(text: &str) -> anyhow::Result<EpisodeId> {
    let text = text.trim();
    Ok(match text.parse::<u64>() {
        Ok(n) => EpisodeId::new(n)?,
        Err(_) => text.parse()?,
    })
}
