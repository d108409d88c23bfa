//! Events: what happened to an account's objects, recorded in the same log entry as the change
//! (a transactional outbox), with a snapshot of the object so that the delivered body shows it
//! as it was.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::{
    ids::AccountId,
    model::{EpisodeView, FeedView, Job, Media},
};

/// The kinds of events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum EventKind {
    /// A media file was uploaded or copied.
    #[serde(rename = "media.created")]
    MediaCreated,
    /// A media file's record changed: renamed, another category, ad breaks, or a new file with
    /// its tags written (a new download URL).
    #[serde(rename = "media.updated")]
    MediaUpdated,
    /// A media file was deleted.
    #[serde(rename = "media.deleted")]
    MediaDeleted,
    /// A podcast was created.
    #[serde(rename = "feed.created")]
    FeedCreated,
    /// A podcast's channel fields changed.
    #[serde(rename = "feed.updated")]
    FeedUpdated,
    /// A podcast was deleted.
    #[serde(rename = "feed.deleted")]
    FeedDeleted,
    /// An episode was created.
    #[serde(rename = "episode.created")]
    EpisodeCreated,
    /// An episode changed.
    #[serde(rename = "episode.updated")]
    EpisodeUpdated,
    /// An episode became published: made public with a date that has come, or its scheduled
    /// time came.
    #[serde(rename = "episode.published")]
    EpisodePublished,
    /// An episode was deleted.
    #[serde(rename = "episode.deleted")]
    EpisodeDeleted,
    /// A background job succeeded.
    #[serde(rename = "job.succeeded")]
    JobSucceeded,
    /// A background job failed.
    #[serde(rename = "job.failed")]
    JobFailed,
    /// Someone on the fediverse followed a podcast.
    #[serde(rename = "follower.added")]
    FollowerAdded,
}

impl EventKind {
    /// Every kind.
    pub const ALL: [EventKind; 13] = [
        EventKind::MediaCreated,
        EventKind::MediaUpdated,
        EventKind::MediaDeleted,
        EventKind::FeedCreated,
        EventKind::FeedUpdated,
        EventKind::FeedDeleted,
        EventKind::EpisodeCreated,
        EventKind::EpisodeUpdated,
        EventKind::EpisodePublished,
        EventKind::EpisodeDeleted,
        EventKind::JobSucceeded,
        EventKind::JobFailed,
        EventKind::FollowerAdded,
    ];

    /// The name on the wire, e.g. `episode.published`.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::MediaCreated => "media.created",
            EventKind::MediaUpdated => "media.updated",
            EventKind::MediaDeleted => "media.deleted",
            EventKind::FeedCreated => "feed.created",
            EventKind::FeedUpdated => "feed.updated",
            EventKind::FeedDeleted => "feed.deleted",
            EventKind::EpisodeCreated => "episode.created",
            EventKind::EpisodeUpdated => "episode.updated",
            EventKind::EpisodePublished => "episode.published",
            EventKind::EpisodeDeleted => "episode.deleted",
            EventKind::JobSucceeded => "job.succeeded",
            EventKind::JobFailed => "job.failed",
            EventKind::FollowerAdded => "follower.added",
        }
    }

    /// The kind of a wire name.
    pub fn parse(name: &str) -> Option<EventKind> {
        EventKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

/// The object an event is about, as it was.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "object", rename_all = "snake_case")]
pub enum Subject {
    /// A media file.
    Media(Box<Media>),
    /// A podcast.
    Feed(Box<FeedView>),
    /// An episode.
    Episode(Box<EpisodeView>),
    /// A job.
    Job(Box<Job>),
    /// A podcast's follower on the fediverse.
    Follower {
        /// The podcast.
        feed: crate::ids::FeedId,
        /// Who follows it.
        follower: Box<crate::model::social::Follower>,
    },
}

/// One event of an account.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Its place in the account's sequence of events (deliveries keep this order).
    pub seq: u64,
    /// Its id, also the `webhook-id` of its deliveries (stable across retries).
    pub id: String,
    /// What happened.
    pub kind: EventKind,
    /// When.
    pub at: Timestamp,
    /// To what.
    pub subject: Subject,
    /// The id of the request that made it (the log lines of its deliveries carry it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// Who made the change (none for events recorded before podhost kept it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<crate::model::Actor>,
}

/// Turns an event's subject into the `data` of the delivered body: the object as the API shows
/// it. Implemented by the frontend that owns the wire shapes (podhost-http).
pub trait EventRenderer: std::fmt::Debug + Send + Sync {
    /// The `data` of the body.
    fn render(&self, account: &AccountId, subject: &Subject) -> serde_json::Value;

    /// The `actor` of the delivered body: who made the change.
    fn render_actor(&self, actor: &crate::model::Actor) -> serde_json::Value {
        serde_json::to_value(actor).unwrap_or(serde_json::Value::Null)
    }
}
