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
