//! `podhost webhook add|list|remove`: an account's webhook subscriptions.

use clap::Subcommand;
use podhost_core::{PodcastHost, webhooks::subscription::NewWebhook};
use serde_json::json;

use crate::output::{Output, time};

/// Webhook commands.
#[derive(Debug, Subcommand)]
pub enum WebhookCommand {
    /// Subscribes a URL to an account's events and prints the signing secret (shown this once).
    Add {
        /// The account.
        #[arg(long)]
        user: String,
        /// Where to send events (http or https).
        #[arg(long)]
        url: String,
        /// Comma-separated event types (e.g. episode.published,job.failed); default: all.
        #[arg(long, default_value = "")]
        events: String,
        /// What the subscription is for.
        #[arg(long)]
        description: Option<String>,
        /// A signing secret in the whsec_ form; generated when not given.
        #[arg(long)]
        secret: Option<String>,
    },
    /// Lists an account's subscriptions (never their secrets).
    List {
        /// The account.
        #[arg(long)]
        user: String,
    },
    /// Removes a subscription.
    Remove {
        /// The account.
        #[arg(long)]
        user: String,
        /// The subscription id (wh_...).
        webhook_id: String,
    },
}

pub(crate) async fn run(
    host: &PodcastHost,
    out: &Output,
    command: WebhookCommand,
) -> anyhow::Result<()> {
    match command {
        WebhookCommand::Add {
            user,
            url,
            events,
            description,
            secret,
        } => {
            let owner = super::owner(host, &user).await?;
            let events = events
                .split(',')
                .map(str::trim)
                .filter(|e| !e.is_empty())
                .map(str::to_string)
                .collect();
            let webhook = host
                .create_webhook(
                    &owner,
                    NewWebhook {
                        url,
                        events,
                        description,
                        secret,
                    },
                )
                .await?;
            out.print(
                json!({"id": webhook.id, "url": webhook.url, "secret": webhook.secret}),
                || format!("{} {}", webhook.id, webhook.secret),
            )?;
        }
        WebhookCommand::List { user } => {
            let owner = super::owner(host, &user).await?;
            let rows = host
                .list_webhooks(&owner)
                .await?
                .into_iter()
                .map(|w| {
                    let events: Vec<&str> = w.events.iter().map(|k| k.as_str()).collect();
                    let events = if events.is_empty() {
                        "all".to_string()
                    } else {
                        events.join(",")
                    };
                    let created = time(w.created);
                    (
                        json!({"id": w.id, "url": w.url, "events": events, "description": w.description, "created": created}),
                        vec![w.id, w.url, events, w.description, created],
                    )
                })
                .collect();
            out.table(&["ID", "URL", "EVENTS", "DESCRIPTION", "CREATED"], rows)?;
        }
        WebhookCommand::Remove { user, webhook_id } => {
            let owner = super::owner(host, &user).await?;
            host.delete_webhook(&owner, &webhook_id).await?;
            out.print(json!({"id": webhook_id, "removed": true}), || {
                format!("removed {webhook_id}")
            })?;
        }
    }
    Ok(())
}
