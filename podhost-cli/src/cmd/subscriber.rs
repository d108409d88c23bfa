//! `podhost subscriber add|list|remove`: the subscribers of a private podcast, each with a feed
//! URL of their own (make the podcast private with `podhost feed update --private true`).

use clap::Subcommand;
use podhost_core::{FeedId, SubscriberId};
use podhost_http::wire;

use crate::{context::Env, output::time};

/// Subscriber commands.
#[derive(Debug, Subcommand)]
pub enum SubscriberCommand {
    /// Adds a subscriber and prints their feed URL.
    Add {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The podcast.
        #[arg(long)]
        feed: String,
        /// Who it is for.
        #[arg(long, default_value = "")]
        label: String,
    },
    /// Lists a podcast's subscribers with their feed URLs, revoked ones included.
    List {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The podcast.
        #[arg(long)]
        feed: String,
    },
    /// Revokes a subscriber: their feed and files answer 410 from then on.
    Remove {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The podcast.
        #[arg(long)]
        feed: String,
        /// The subscriber (sub_...).
        subscriber_id: String,
    },
}

impl super::Run for SubscriberCommand {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        let out = env.out();
        match self {
            SubscriberCommand::Add { user, feed, label } => {
                let user = env.user(&host, user.name()).await?;
                let feed: FeedId = feed.parse()?;
                let s = user.hint(
                    host.delivery()
                        .add_subscriber(&user.who, &feed, &label)
                        .await,
                )?;
                let url = host.delivery().subscriber_feed_url(&s);
                out.print(wire::subscriber(&host, &s), || format!("{} {url}", s.id))?;
            }
            SubscriberCommand::List { user, feed } => {
                let user = env.user(&host, user.name()).await?;
                let feed: FeedId = feed.parse()?;
                let rows = user
                    .hint(host.delivery().list_subscribers(&user.who, &feed).await)?
                    .iter()
                    .map(|s| {
                        let state = match s.revoked {
                            Some(at) => format!("revoked {}", time(at)),
                            None => "active".to_string(),
                        };
                        (
                            wire::subscriber(&host, s),
                            vec![
                                s.id.to_string(),
                                s.label.clone(),
                                time(s.created),
                                state,
                                host.delivery().subscriber_feed_url(s),
                            ],
                        )
                    })
                    .collect();
                out.table(&["ID", "LABEL", "CREATED", "STATE", "FEED URL"], rows)?;
            }
            SubscriberCommand::Remove {
                user,
                feed,
                subscriber_id,
            } => {
                let user = env.user(&host, user.name()).await?;
                let feed: FeedId = feed.parse()?;
                let id: SubscriberId = subscriber_id.trim().parse()?;
                let s = user.hint(
                    host.delivery()
                        .remove_subscriber(&user.who, &feed, &id)
                        .await,
                )?;
                out.print(wire::subscriber(&host, &s), || format!("revoked {}", s.id))?;
            }
        }
        Ok(())
    }
}
