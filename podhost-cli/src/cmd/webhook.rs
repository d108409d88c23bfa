//! `podhost webhook add|list|remove|deliveries|redeliver|process`: an account's webhook
//! subscriptions and the deliveries of their events.

use clap::Subcommand;
use podhost_core::{PodcastHost, webhooks::subscription::NewWebhook};
use podhost_http::{HttpWebhookSender, wire};
use serde_json::json;

use crate::{context::Env, output::time};

/// Webhook commands.
#[derive(Debug, Subcommand)]
pub enum WebhookCommand {
    /// Subscribes a URL to an account's events and prints the signing secret (shown this once).
    Add {
        #[command(flatten)]
        user: crate::context::UserArg,
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
        #[command(flatten)]
        user: crate::context::UserArg,
    },
    /// Removes a subscription.
    Remove {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The subscription id (wh_...).
        webhook_id: String,
    },
    /// Lists the recent deliveries of a subscription's events, newest first.
    Deliveries {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The subscription id (wh_...).
        webhook_id: String,
    },
    /// Sends an event to a subscription again, now.
    Redeliver {
        #[command(flatten)]
        user: crate::context::UserArg,
        /// The subscription id (wh_...).
        webhook_id: String,
        /// The event's sequence number (SEQ in `podhost webhook deliveries`).
        seq: u64,
    },
    /// Delivers the account's due events now (a running `podhost serve` does it every second).
    Process {
        #[command(flatten)]
        user: crate::context::UserArg,
    },
}

fn delivery_row(
    d: &podhost_core::webhooks::attempts::Delivery,
) -> (serde_json::Value, Vec<String>) {
    let value = serde_json::to_value(wire::delivery(d)).unwrap_or_default();
    let last = d
        .attempts
        .last()
        .map(|a| {
            a.status
                .map_or_else(|| "no answer".to_string(), |s| s.to_string())
        })
        .unwrap_or_default();
    let next = value["next_at"].as_str().unwrap_or_default().to_string();
    let cells = vec![
        d.seq.to_string(),
        d.kind.clone(),
        d.status.as_str().to_string(),
        d.attempts.len().to_string(),
        last,
        next,
    ];
    (value, cells)
}

const DELIVERY_HEADER: [&str; 6] = ["SEQ", "TYPE", "STATUS", "ATTEMPTS", "LAST", "NEXT"];

impl super::Run for WebhookCommand {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        run(&host, env, self).await
    }
}

async fn run(host: &PodcastHost, env: &Env, command: WebhookCommand) -> anyhow::Result<()> {
    let out = env.out();
    match command {
        WebhookCommand::Add {
            user,
            url,
            events,
            description,
            secret,
        } => {
            let user = env.user(host, user.name()).await?;
            let events = events
                .split(',')
                .map(str::trim)
                .filter(|e| !e.is_empty())
                .map(str::to_string)
                .collect();
            let webhook = host
                .work()
                .create_webhook(
                    &user.who,
                    NewWebhook {
                        url,
                        events,
                        description,
                        secret,
                    },
                )
                .await?;
            out.print(wire::webhook(&webhook, true), || {
                format!("{} {}", webhook.id, webhook.secret)
            })?;
        }
        WebhookCommand::List { user } => {
            let user = env.user(host, user.name()).await?;
            let rows = host
                .work()
                .list_webhooks(&user.who)
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
                        wire::webhook(&w, false),
                        vec![w.id, w.url, events, w.description, created],
                    )
                })
                .collect();
            out.table(&["ID", "URL", "EVENTS", "DESCRIPTION", "CREATED"], rows)?;
        }
        WebhookCommand::Remove { user, webhook_id } => {
            let user = env.user(host, user.name()).await?;
            user.hint(host.work().delete_webhook(&user.who, &webhook_id).await)?;
            out.print(json!({"id": webhook_id, "removed": true}), || {
                format!("removed {webhook_id}")
            })?;
        }
        WebhookCommand::Deliveries { user, webhook_id } => {
            let user = env.user(host, user.name()).await?;
            let deliveries =
                user.hint(host.work().webhook_deliveries(&user.who, &webhook_id).await)?;
            out.table(
                &DELIVERY_HEADER,
                deliveries.iter().map(delivery_row).collect(),
            )?;
        }
        WebhookCommand::Redeliver {
            user,
            webhook_id,
            seq,
        } => {
            let user = env.user(host, user.name()).await?;
            let sender = HttpWebhookSender::new();
            let renderer = wire::WireEvents::new(host.clone());
            let delivery = user.hint(
                host.work()
                    .redeliver(&user.who, &webhook_id, seq, &sender, &renderer)
                    .await,
            )?;
            let (value, cells) = delivery_row(&delivery);
            out.print(value, || {
                crate::output::text_table(&DELIVERY_HEADER, &[cells])
            })?;
        }
        WebhookCommand::Process { user } => {
            let user = env.user(host, user.name()).await?;
            let sender = HttpWebhookSender::new();
            let renderer = wire::WireEvents::new(host.clone());
            let run = host
                .work()
                .process_webhooks(&user.who, &sender, &renderer)
                .await?;
            out.fields(wire::webhook_run(&run), || {
                vec![
                    ("attempted", run.attempted.to_string()),
                    ("delivered", run.delivered.to_string()),
                    ("failed", run.failed.to_string()),
                    ("pending", run.pending.to_string()),
                ]
            })?;
        }
    }
    Ok(())
}
