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
    /// The podcast whose events it hears (an ActivityPub delivery channel); none: all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feed: Option<crate::ids::FeedId>,
}

/// The prefix of the id of a podcast's delivery channel to a fediverse inbox.
pub const ACTIVITYPUB_PREFIX: &str = "ap_";

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
    /// A fediverse inbox (an instance's shared inbox, or a follower's own) that follows one
    /// podcast: its episodes' posts as signed ActivityPub activities, and the `Accept` of each
    /// `Follow`.
    ActivityPub,
}

impl SubscriptionKind {
    /// Every kind.
    pub const ALL: [SubscriptionKind; 4] = [
        SubscriptionKind::Webhook,
        SubscriptionKind::WebSub,
        SubscriptionKind::Podping,
        SubscriptionKind::ActivityPub,
    ];

    /// Whether it is one of the deployment's feed-change notifiers (WebSub, Podping).
    pub fn is_notifier(self) -> bool {
        matches!(self, SubscriptionKind::WebSub | SubscriptionKind::Podping)
    }

    /// Its name as a metric's channel: `webhook`, `websub`, `podping`.
    pub fn channel(self) -> &'static str {
        match self {
            SubscriptionKind::Webhook => "webhook",
            SubscriptionKind::WebSub => "websub",
            SubscriptionKind::Podping => "podping",
            SubscriptionKind::ActivityPub => "activitypub",
        }
    }
}

impl Webhook {
    /// Whether it wants events of this kind.
    pub fn wants(&self, kind: EventKind) -> bool {
        self.events.is_empty() || self.events.contains(&kind)
    }

    /// Whether it wants `event`: of a kind it wants and, for a podcast's channel, about that
    /// podcast (an `Accept` only to the inbox its follower is delivered at).
    pub fn wants_event(&self, event: &super::event::Event) -> bool {
        use super::event::Subject;
        if !self.wants(event.kind) {
            return false;
        }
        let Some(feed) = &self.feed else {
            return true;
        };
        match &event.subject {
            Subject::Feed(view) => view.feed.id == *feed,
            Subject::Episode(view) => view.episode.feed == *feed,
            Subject::Follower { feed: of, follower } => {
                of == feed && follower.delivery_inbox() == self.url
            }
            Subject::Media(_) | Subject::Job(_) => false,
        }
    }

    /// The id of podcast `feed`'s delivery channel to `inbox`: one per podcast and inbox.
    pub fn activitypub_id(feed: &crate::ids::FeedId, inbox: &str) -> String {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(format!("{feed}\n{inbox}").as_bytes());
        format!("{ACTIVITYPUB_PREFIX}{}", &hex::encode(digest)[..32])
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
