//! Subscriptions: where an account wants its events sent.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::event::EventKind;

/// One webhook subscription.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Webhook {
    /// Its id (`wh_` and 20 letters or digits).
    pub id: String,
    /// Where events are sent (http or https).
    pub url: String,
    /// The kinds it wants; empty for all.
    pub events: Vec<EventKind>,
    /// What it is for, in the account's words.
    pub description: String,
    /// The signing secret (`whsec_…`), shown only when the subscription is created.
    pub secret: String,
    /// When it was created.
    pub created: Timestamp,
    /// Events up to this sequence number happened before it existed: not sent.
    pub after_seq: u64,
    /// What is sent: a signed event (an account's own subscription), or a feed-change
    /// notification to a WebSub hub or Podping (the deployment's, see
    /// [`notify`](super::notify)).
    #[serde(default)]
    pub kind: SubscriptionKind,
}

/// What a subscription sends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubscriptionKind {
    /// The account's webhook: each event, signed (Standard Webhooks).
    #[default]
    Webhook,
    /// A WebSub hub: `POST hub.mode=publish&hub.url={feed}` for each feed change.
    WebSub,
    /// Podping: `GET {url}?url={feed}&reason=update&medium={medium}` with the configured
    /// `Authorization`, for each feed change.
    Podping,
}

impl SubscriptionKind {
    /// Every kind.
    pub const ALL: [SubscriptionKind; 3] = [
        SubscriptionKind::Webhook,
        SubscriptionKind::WebSub,
        SubscriptionKind::Podping,
    ];

    /// Its name as a metric's channel: `webhook`, `websub`, `podping`.
    pub fn channel(self) -> &'static str {
        match self {
            SubscriptionKind::Webhook => "webhook",
            SubscriptionKind::WebSub => "websub",
            SubscriptionKind::Podping => "podping",
        }
    }
}

impl Webhook {
    /// Whether it wants events of this kind.
    pub fn wants(&self, kind: EventKind) -> bool {
        self.events.is_empty() || self.events.contains(&kind)
    }
}

/// What a new subscription is made of.
#[derive(Clone, Debug, Default)]
pub struct NewWebhook {
    /// Where to send (http or https).
    pub url: String,
    /// The kinds wanted (names like `episode.published`); empty for all.
    pub events: Vec<String>,
    /// What it is for.
    pub description: Option<String>,
    /// A signing secret in the `whsec_` form; generated when not given.
    pub secret: Option<String>,
}
