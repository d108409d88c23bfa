//! Subscribers of a private podcast: each has a feed URL of their own.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::ids::{FeedId, SubscriberId};

/// A subscriber of a private podcast, as the podcaster sees them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Subscriber {
    /// Its id.
    pub id: SubscriberId,
    /// The podcast.
    pub feed: FeedId,
    /// Who it is for, in the podcaster's words.
    pub label: String,
    /// When it was added.
    pub created: Timestamp,
    /// When it was revoked: its feed and files answer 410 from then on.
    pub revoked: Option<Timestamp>,
    /// The key in the subscriber's URLs (`sub_…_` and 43 random characters). Kept as it is,
    /// like a webhook secret: the podcaster may send the URL again.
    pub(crate) key: String,
}

impl Subscriber {
    /// The key in the subscriber's feed and media URLs.
    pub fn key(&self) -> &str {
        &self.key
    }
}
