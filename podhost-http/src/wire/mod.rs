//! The JSON wire shapes of the API: built from core types by hand, at the edge. Field names and
//! order follow the specification; podhost's additions come after the specified fields.

mod event;
pub mod format;
pub mod input;
mod output;

pub use event::WireEvents;
pub use output::{
    Data, EpisodeItem, Itunes, data_array, delivery, episode_item, episode_single, feed_list_item,
    feed_single, job, media_item, media_single, metadata, silence_report, stats_report, subscriber,
    token, webhook, webhook_run,
};

/// What the wire builders need besides the object: the host (URLs, time zone).
pub struct Ctx<'a> {
    /// The host.
    pub host: &'a podhost_core::PodcastHost,
    /// The account the objects belong to.
    pub account: &'a podhost_core::AccountId,
}

impl<'a> Ctx<'a> {
    /// The context of answers to `who`.
    pub fn of(host: &'a podhost_core::PodcastHost, who: &'a podhost_core::Principal) -> Self {
        Ctx {
            host,
            account: who.account(),
        }
    }
}
