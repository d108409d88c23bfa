//! A podcast's posts delivered to its followers' inboxes: the attempt of a delivery channel of
//! kind [`ActivityPub`](crate::webhooks::subscription::SubscriptionKind::ActivityPub), one per
//! podcast and inbox (an instance's shared inbox serves all its followers at once). The rounds,
//! order, claims, retries and records are the webhooks' (`webhook_rounds.rs`); this file says
//! what each event is as an activity, signed with the podcast's key.

use serde_json::Value;

use crate::{
    activitypub::{
        documents::{self, ACTIVITY_JSON, Verb},
        signatures,
    },
    host::{PodcastHost, views::view_of},
    ids::AccountId,
    state::AccountState,
    webhooks::{
        RequestMethod, SendOutcome, WebhookRequest, WebhookSender,
        event::{Event, EventKind, Subject},
        subscription::Webhook,
    },
};

/// What a delivery of one event to an inbox is: an activity to post where, or nothing to send.
enum Post {
    /// `body` to `inbox`, signed with the podcast's key.
    Send {
        inbox: String,
        body: Value,
        key: crate::activitypub::keys::ActorKey,
    },
    /// Nothing to send, and why (the delivery is done).
    Nothing(&'static str),
}

/// The activity `event` is for the podcast's channel `webhook`, from the state as it is now
/// (an episode published and then made a draft before its delivery is not posted).
fn post_of(
    state: &AccountState,
    account: &AccountId,
    webhook: &Webhook,
    event: &Event,
    urls: &crate::urls::Urls,
    now: jiff::Timestamp,
) -> Post {
    let Some(feed) = &webhook.feed else {
        return Post::Nothing("a channel of no podcast");
    };
    let Some((entry, key)) = state.actor(feed) else {
        return Post::Nothing("the podcast is not on the fediverse");
    };
    let send = |inbox: &str, body: Value| Post::Send {
        inbox: inbox.to_string(),
        body,
        key: key.clone(),
    };
    let episode_now = |id| entry.episodes.get(&id).filter(|ep| ep.is_published(now));
    match (&event.subject, event.kind) {
        (Subject::Follower { follower, .. }, EventKind::FollowerAdded) => {
            let still = state
                .fediverse
                .followers
                .get(feed)
                .and_then(|f| f.get(&follower.actor))
                .is_some_and(|f| f.follow == follower.follow);
            if !still {
                return Post::Nothing("the follower no longer follows");
            }
            let accept =
                documents::accept(urls, feed, &follower.actor, &follower.follow, &event.id);
            send(&follower.inbox, accept)
        }
        (Subject::Episode(view), kind) => {
            let id = view.episode.id;
            let post = |verb| {
                episode_now(id).map(|episode| {
                    let view = view_of(state, episode.clone(), now);
                    let note = documents::note(urls, account, &entry.feed, &view);
                    send(
                        &webhook.url,
                        documents::activity(urls, feed, id, verb, &event.id, note),
                    )
                })
            };
            let delete = || send(&webhook.url, documents::delete(urls, feed, id, &event.id));
            // Its post was made: published when the event was recorded, or announced since.
            let posted = view.is_published || state.announced.contains_key(&id);
            match kind {
                EventKind::EpisodePublished => {
                    post(Verb::Create).unwrap_or(Post::Nothing("no longer published"))
                }
                EventKind::EpisodeUpdated => {
                    // The change that publishes an episode records its publication next: that
                    // one's `Create` says it.
                    let publishes = state.events.get(&(event.seq + 1)).is_some_and(|next| {
                        next.kind == EventKind::EpisodePublished
                            && matches!(&next.subject, Subject::Episode(v) if v.episode.id == id)
                    });
                    match (publishes, view.is_published, episode_now(id)) {
                        (true, _, _) => Post::Nothing("its publication posts it"),
                        (false, true, Some(_)) => {
                            post(Verb::Update).unwrap_or(Post::Nothing("no longer published"))
                        }
                        // Made a draft again, or rescheduled: its post goes.
                        (false, false, None) if posted => delete(),
                        _ => Post::Nothing("not a published episode's change"),
                    }
                }
                EventKind::EpisodeDeleted if posted => delete(),
                _ => Post::Nothing("not a published episode's change"),
            }
        }
        (Subject::Feed(_), EventKind::FeedUpdated) => {
            let actor = documents::actor(
                urls,
                &documents::ActorSource {
                    feed: &entry.feed,
                    logo: entry.feed.logo.and_then(|m| state.media.get(&m)),
                    account,
                    public_key_pem: key.public_pem(),
                },
            );
            send(
                &webhook.url,
                documents::update_actor(urls, feed, &event.id, actor),
            )
        }
        _ => Post::Nothing("nothing the fediverse is told of"),
    }
}

impl PodcastHost {
    /// Sends `event` to the podcast's fediverse channel `webhook` (see the module's docs): an
    /// activity signed with the podcast's key (the draft HTTP Signature Mastodon requires), or
    /// nothing, which completes the delivery.
    pub(super) async fn post_activity(
        &self,
        account: &AccountId,
        webhook: &Webhook,
        event: &Event,
        sender: &dyn WebhookSender,
    ) -> SendOutcome {
        let done = |why: &str| SendOutcome::Answered {
            status: 204,
            excerpt: format!("nothing to send: {why}"),
        };
        let catalog = match self.catalog(account).await {
            Ok(catalog) => catalog,
            Err(e) => {
                return SendOutcome::Failed {
                    reason: format!("the account could not be read: {e}"),
                };
            }
        };
        let now = self.now();
        let urls = self.urls();
        let post = catalog
            .read(|state| post_of(state, account, webhook, event, urls, now))
            .await;
        let (inbox, body, key) = match post {
            Post::Send { inbox, body, key } => (inbox, body, key),
            Post::Nothing(why) => return done(why),
        };
        let Some(feed) = &webhook.feed else {
            return done("a channel of no podcast");
        };
        let body = serde_json::to_vec(&body).unwrap_or_default();
        let key_id = urls.actor_key(feed);
        let signed = match signatures::sign_draft(&key, &key_id, "POST", &inbox, Some(&body), now) {
            Ok(headers) => headers,
            Err(e) => {
                return SendOutcome::Failed {
                    reason: format!("the activity could not be signed: {e}"),
                };
            }
        };
        let mut headers = vec![
            ("content-type".to_string(), ACTIVITY_JSON.to_string()),
            (
                "user-agent".to_string(),
                format!("podhost/{} (+{})", env!("CARGO_PKG_VERSION"), urls.base()),
            ),
        ];
        headers.extend(signed);
        sender
            .send(WebhookRequest {
                method: RequestMethod::Post,
                url: inbox,
                headers,
                body: body.into(),
                allow_private: self.config().allow_private_webhooks,
            })
            .await
    }
}
