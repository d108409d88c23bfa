//! The `data` of webhook bodies: the event's object as the API shows it.

use podhost_core::{
    AccountId, PodcastHost,
    webhooks::event::{EventRenderer, Subject},
};
use serde_json::Value;

use super::Ctx;

/// Renders events' objects in the API's wire shapes.
#[derive(Debug, Clone)]
pub struct WireEvents {
    host: PodcastHost,
}

impl WireEvents {
    /// A renderer over `host` (its URLs and display time zone).
    pub fn new(host: PodcastHost) -> Self {
        WireEvents { host }
    }
}

impl EventRenderer for WireEvents {
    fn render(&self, account: &AccountId, subject: &Subject) -> Value {
        let ctx = Ctx {
            host: &self.host,
            account,
        };
        let value = match subject {
            Subject::Media(media) => serde_json::to_value(super::media_single(&ctx, media)),
            Subject::Feed(view) => serde_json::to_value(super::feed_single(&ctx, view)),
            Subject::Episode(view) => serde_json::to_value(super::episode_single(&ctx, view)),
            Subject::Job(job) => serde_json::to_value(super::job(&self.host, job)),
            Subject::Follower { feed, follower } => {
                serde_json::to_value(super::fediverse::follower(feed, follower))
            }
        };
        value.unwrap_or(Value::Null)
    }

    fn render_actor(&self, actor: &podhost_core::model::Actor) -> Value {
        serde_json::to_value(super::members::actor(actor)).unwrap_or(Value::Null)
    }
}
