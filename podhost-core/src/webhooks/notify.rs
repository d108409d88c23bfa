//! Telling the podcast world that a feed changed, in seconds rather than at the next poll:
//! WebSub hubs (W3C WebSub: `<atom:link rel="hub">` in the feed, a `publish` ping to each hub)
//! and Podping (`<podcast:podping usesPodping="true"/>`, a `GET` to the configured Podping
//! server). Each configured notifier is a subscription of every account that has a podcast
//! (made by the delivery loop, after which the account's events are recorded), so the
//! notifications go through the webhooks' outbox and delivery: at least once, retried, one
//! process sending each attempt, the outbound address rules applied.

use super::{
    RequestMethod, WebhookRequest,
    event::{Event, EventKind, Subject},
    subscription::{SubscriptionKind, Webhook},
};

/// The deployment's notifiers (part of [`HostConfig`](crate::HostConfig)).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Notifiers {
    /// WebSub hubs (their URLs), told of every public feed change.
    pub websub_hubs: Vec<String>,
    /// The Podping server's notification URL, when Podping is used.
    pub podping_url: Option<String>,
    /// The `Authorization` header value Podping is sent with.
    pub podping_token: Option<String>,
}

/// The event kinds that change a public feed (a new episode is `episode.published` when it is
/// public; a draft's creation changes no feed).
pub const FEED_CHANGES: [EventKind; 5] = [
    EventKind::FeedUpdated,
    EventKind::FeedDeleted,
    EventKind::EpisodeUpdated,
    EventKind::EpisodePublished,
    EventKind::EpisodeDeleted,
];

impl Notifiers {
    /// Whether any notifier is configured.
    pub fn any(&self) -> bool {
        !self.websub_hubs.is_empty() || self.podping_url.is_some()
    }

    /// The subscriptions every account has for these notifiers: `(id, kind, url)`. Ids are
    /// derived from the URL, so every process agrees on them.
    pub(crate) fn subscriptions(&self) -> Vec<(String, SubscriptionKind, String)> {
        let id = |prefix: &str, url: &str| {
            use sha2::Digest;
            let digest = sha2::Sha256::digest(url.as_bytes());
            format!("{prefix}_{}", &hex::encode(digest)[..20])
        };
        let mut out: Vec<(String, SubscriptionKind, String)> = self
            .websub_hubs
            .iter()
            .map(|hub| (id("websub", hub), SubscriptionKind::WebSub, hub.clone()))
            .collect();
        if let Some(url) = &self.podping_url {
            out.push((id("podping", url), SubscriptionKind::Podping, url.clone()));
        }
        out
    }
}

/// Podping's reason for `event`: `live` when one of the podcast's live items went live since
/// the previous event about it in the outbox (`events`), `liveEnd` when one that was live
/// ended, `update` otherwise (and for events about episodes).
pub(crate) fn reason(
    events: &std::collections::BTreeMap<u64, Event>,
    event: &Event,
) -> &'static str {
    let Subject::Feed(after) = &event.subject else {
        return "update";
    };
    let live = |view: &crate::model::FeedView| view.feed.podcast.tags.live_item.clone();
    let before = events
        .range(..event.seq)
        .rev()
        .find_map(|(_, e)| match &e.subject {
            Subject::Feed(v) if v.feed.id == after.feed.id => Some(live(v)),
            _ => None,
        })
        .unwrap_or_default();
    let was = |guid: &str| {
        before
            .iter()
            .find(|l| l.guid == guid)
            .map(|l| l.status.as_str())
    };
    let after = live(after);
    if after
        .iter()
        .any(|l| l.status == "live" && was(&l.guid) != Some("live"))
    {
        "live"
    } else if after
        .iter()
        .any(|l| l.status == "ended" && was(&l.guid) == Some("live"))
    {
        "liveEnd"
    } else {
        "update"
    }
}

/// The feed an event is about: a podcast's, or an episode's podcast; `None` for media and
/// jobs.
pub(crate) fn feed_of(event: &Event) -> Option<&crate::ids::FeedId> {
    match &event.subject {
        Subject::Feed(view) => Some(&view.feed.id),
        Subject::Episode(view) => Some(&view.episode.feed),
        Subject::Media(_) | Subject::Job(_) | Subject::Follower { .. } => None,
    }
}

/// The notification to a WebSub hub or Podping that the feed at `feed_url` (of `medium`)
/// changed.
pub(crate) fn request(
    webhook: &Webhook,
    feed_url: &str,
    medium: &str,
    reason: &str,
    notifiers: &Notifiers,
    allow_private: bool,
) -> Option<WebhookRequest> {
    let medium = if medium.is_empty() { "podcast" } else { medium };
    match webhook.kind {
        SubscriptionKind::WebSub => {
            let body = url::form_urlencoded::Serializer::new(String::new())
                .append_pair("hub.mode", "publish")
                .append_pair("hub.url", feed_url)
                .finish();
            Some(WebhookRequest {
                method: RequestMethod::Post,
                url: webhook.url.clone(),
                headers: vec![
                    (
                        "content-type".into(),
                        "application/x-www-form-urlencoded".into(),
                    ),
                    ("user-agent".into(), "podhost-websub".into()),
                ],
                body: body.into_bytes().into(),
                allow_private,
            })
        }
        SubscriptionKind::Podping => {
            let query = url::form_urlencoded::Serializer::new(String::new())
                .append_pair("url", feed_url)
                .append_pair("reason", reason)
                .append_pair("medium", medium)
                .finish();
            let separator = if webhook.url.contains('?') { '&' } else { '?' };
            let mut headers = vec![("user-agent".into(), "podhost-podping".into())];
            if let Some(token) = &notifiers.podping_token {
                headers.push(("authorization".into(), token.clone()));
            }
            Some(WebhookRequest {
                method: RequestMethod::Get,
                url: format!("{}{separator}{query}", webhook.url),
                headers,
                body: Default::default(),
                allow_private,
            })
        }
        SubscriptionKind::Webhook | SubscriptionKind::ActivityPub => None,
    }
}
