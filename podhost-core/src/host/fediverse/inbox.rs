//! The inbox: activities posted to a podcast's inbox or the shared one. Each is read (an id, a
//! type, an actor), must carry a signature, and is then checked before it is acted on: the
//! actor and its instance not blocked, the request signed (HTTP Signatures, the draft Mastodon
//! sends or RFC 9421) for this deployment's own host by a key the activity's actor owns
//! (fetched, signed, from its instance and remembered for an hour), and only then counted
//! against its instance's rate. Then follows, replies, likes and boosts are kept in the
//! podcast's account, once each: activities and posts only under ids on their author's origin,
//! and replies, likes and boosts only of public posts (the published episodes' and their
//! comments).

use bytes::Bytes;
use serde_json::Value;

use super::{
    Fediverse,
    actors::{actor_entry, public_post},
    known_actors,
};
use crate::{
    activitypub::{
        documents::ACTIVITY_JSON,
        inbound::{self, Activity, RemoteActor, id_of, type_of},
        keys::ActorKey,
        signatures::{self, Message},
    },
    error::Error,
    ids::{EpisodeId, FeedId},
    import::fetch::{self, Fetcher},
    model::social::{Comment, Follower, Reaction, ReactionKind, RemoteAuthor, instance_of},
    state::{AccountState, Change, federation::FediverseChange},
    webhooks::{
        event::{Event, EventKind, Subject},
        subscription::{SubscriptionKind, Webhook},
    },
};

/// A request to an inbox, as it arrived.
#[derive(Debug, Clone)]
pub struct Inbound {
    /// The podcast whose inbox it is; none for the shared inbox.
    pub feed: Option<FeedId>,
    /// The request's method (`POST`).
    pub method: String,
    /// The path and query it was sent to, as received (`/ap/inbox`,
    /// `/ap/podcasts/show/inbox?x`). The URL its signature must be made for is the
    /// deployment's public base URL followed by this path: the host signed is always the
    /// deployment's own, never the request's `Host` header.
    pub path: String,
    /// The address the request came from, as the frontend knows it (the peer, or the client
    /// a trusted proxy names); none when it does not. Requests whose signature cannot be
    /// verified are counted against it (see [`Fediverse::receive`]).
    pub source: Option<std::net::IpAddr>,
    /// Its headers, names in any case.
    pub headers: Vec<(String, String)>,
    /// Its body (at most [`MAX_ACTIVITY_BYTES`](inbound::MAX_ACTIVITY_BYTES)).
    pub body: Bytes,
}

/// What the inbox did with an activity (both are answered 202).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Received {
    /// Acted on, or already known from an earlier delivery of it.
    Accepted,
    /// Not about anything of this deployment's, or of a kind podhost does not act on.
    Ignored,
}

/// Why an activity was refused.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Refusal {
    /// Not an activity podhost can read (400).
    Malformed(String),
    /// Not signed, or its signature does not verify, or its key cannot be had (401).
    Unsigned(String),
    /// Signed by a key another actor owns than the activity's, about another author's post, or
    /// a post whose id is not on its author's origin (401).
    ActorMismatch(String),
    /// A reply, like or boost of a post that is not public: no published episode's (a draft's,
    /// a scheduled or deleted episode's, or none), or a comment of such an episode. The post
    /// answers 404 to everyone, and so does this (404).
    NotPublic(String),
    /// The actor or its instance is blocked (403).
    Blocked,
    /// Its instance sent more verified activities than its share this minute (429).
    Throttled,
    /// The address it came from sent too many requests whose signature could not be verified
    /// this minute: no more keys are fetched for it until the minute ends (429).
    SourceThrottled,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Malformed(why) => write!(f, "not a readable activity: {why}"),
            Refusal::Unsigned(why) => write!(f, "the request's signature is refused: {why}"),
            Refusal::ActorMismatch(why) | Refusal::NotPublic(why) => write!(f, "{why}"),
            Refusal::Blocked => write!(f, "this actor or instance is blocked"),
            Refusal::Throttled => write!(
                f,
                "too many activities from this instance this minute (at most {} are accepted); \
                 slow down",
                known_actors::INSTANCE_PER_MINUTE
            ),
            Refusal::SourceThrottled => write!(
                f,
                "too many requests from this address whose signature could not be verified \
                 this minute (at most {}); no more signing keys are fetched for it until the \
                 minute ends",
                known_actors::UNVERIFIED_PER_SOURCE
            ),
        }
    }
}

/// The inbox's failure: a refusal, or the host's own (the store did not answer, the podcast
/// is none of this deployment's).
#[derive(Debug)]
pub enum InboxError {
    /// The activity is refused.
    Refused(Refusal),
    /// The host failed, or the podcast is not found.
    Host(Error),
}

impl From<Error> for InboxError {
    fn from(e: Error) -> Self {
        InboxError::Host(e)
    }
}

impl From<Refusal> for InboxError {
    fn from(r: Refusal) -> Self {
        InboxError::Refused(r)
    }
}

impl Fediverse<'_> {
    /// Receives an activity posted to an inbox (see the module's docs).
    ///
    /// What is counted, and when. An instance's budget (600 activities a minute) is spent only
    /// by activities whose signature verified with a key of its actor: nobody can spend a real
    /// instance's budget by naming its actors in requests they cannot sign. What costs this
    /// server before that is bounded otherwise:
    ///
    /// - a request without a readable signature is refused right after its body is parsed,
    ///   before the account is read or anything is fetched, and counted nowhere: the refusal
    ///   costs what a count would;
    /// - a signed request whose signature cannot be verified (its key cannot be fetched, it
    ///   does not verify, its signer is not its actor) is counted against the address it came
    ///   from ([`Inbound::source`]), not against an instance: its `keyId`'s host is the
    ///   sender's choice (counting there would let anyone spend a real instance's budget
    ///   again), its source address is not. An address past 120 such failures a minute has no
    ///   more keys fetched for it until the minute ends (the one costly step: a fetch of up to
    ///   10 s); a request that a remembered key verifies is never held back by it, so junk
    ///   from an address shared with a real instance (a proxy not passing the client's address
    ///   on) does not stop that instance's known actors.
    pub async fn receive(
        self,
        inbound: Inbound,
        fetcher: &dyn Fetcher,
    ) -> Result<Received, InboxError> {
        // Below the format that keeps the fediverse's records, nothing is taken in (a remote
        // server is asked to try again later: 503).
        self.host
            .require_format(crate::store::format::FEDIVERSE, "the fediverse's inbox")
            .await?;
        let activity = inbound::parse_activity(&inbound.body).map_err(Refusal::Malformed)?;
        let urls = self.host.urls();
        if !inbound.path.starts_with('/') {
            return Err(Refusal::Malformed(format!(
                "the request's path \"{}\" does not start with /",
                inbound.path
            ))
            .into());
        }
        let target_uri = format!("{}{}", urls.base(), inbound.path);
        let message = Message {
            method: &inbound.method,
            target_uri: &target_uri,
            headers: &inbound.headers,
            body: &inbound.body,
        };
        let signer = signatures::signer(&message).map_err(|e| Refusal::Unsigned(e.to_string()))?;
        let feed = match &inbound.feed {
            Some(feed) => feed.clone(),
            None => match addressed_feed(urls, &activity) {
                Some(feed) => feed,
                None => return Ok(Received::Ignored),
            },
        };
        let (_, catalog) = self.host.public_catalog(&feed).await?;
        let key = catalog
            .read_found(|state| {
                actor_entry(state, &feed)?;
                let blocked = state.fediverse.blocks(&activity.actor);
                Ok((state.actor(&feed).map(|(_, key)| key.clone()), blocked))
            })
            .await?;
        let (key, blocked) = key;
        if blocked {
            return Err(Refusal::Blocked.into());
        }
        let key = key.ok_or_else(|| Error::not_found("actor", &feed))?;
        let verified = self
            .verified_sender(&message, &signer, &activity, &feed, &key, &inbound, fetcher)
            .await;
        let sender = match verified {
            Ok(sender) => sender,
            Err(InboxError::Refused(
                refusal @ (Refusal::Unsigned(_) | Refusal::ActorMismatch(_)),
            )) => {
                if let Some(source) = inbound.source {
                    self.state().unverified(source);
                }
                return Err(refusal.into());
            }
            Err(e) => return Err(e),
        };
        // Verified: only now is the request its instance's.
        let instance = instance_of(&sender.id)
            .ok_or_else(|| Refusal::Malformed("an actor without a host".into()))?;
        if !self.state().admit(&instance) {
            return Err(Refusal::Throttled.into());
        }
        let now = self.host.now();
        let account_feed = feed.clone();
        let decided = catalog
            .commit(now, &crate::model::Actor::podhost(), |state| {
                Ok(decide(state, &account_feed, &activity, &sender, urls, now))
            })
            .await?;
        decided.map_err(InboxError::Refused)
    }

    /// The actor that signed the request, when its signature verifies with a key it owns and it
    /// is the activity's actor. A remembered key that fails is fetched again once (the actor
    /// may have rotated it). A key is fetched only for a source within its budget of
    /// unverifiable requests (see [`Fediverse::receive`]).
    #[allow(clippy::too_many_arguments)]
    async fn verified_sender(
        self,
        message: &Message<'_>,
        signer: &signatures::Signer,
        activity: &Activity,
        feed: &FeedId,
        key: &ActorKey,
        inbound: &Inbound,
        fetcher: &dyn Fetcher,
    ) -> Result<RemoteActor, InboxError> {
        let now = self.host.now();
        for fresh in [false, true] {
            let actor = match (fresh, self.state().actor(&signer.key_id)) {
                (false, Some(actor)) => actor,
                (false, None) => continue,
                (true, _) => {
                    if inbound
                        .source
                        .is_some_and(|source| !self.state().may_fetch_for(source))
                    {
                        return Err(Refusal::SourceThrottled.into());
                    }
                    self.fetch_signer(&signer.key_id, feed, key, fetcher)
                        .await?
                }
            };
            let Some((_, pem)) = actor.keys.iter().find(|(id, _)| *id == signer.key_id) else {
                return Err(Refusal::Unsigned(format!(
                    "{} is not a key of {}",
                    signer.key_id, actor.id
                ))
                .into());
            };
            match signatures::verify(message, signer, pem, now) {
                Ok(()) if actor.id == activity.actor => return Ok(actor),
                Ok(()) => {
                    return Err(Refusal::ActorMismatch(format!(
                        "signed by {}'s key, but the activity's actor is {}",
                        actor.id, activity.actor
                    ))
                    .into());
                }
                Err(e) if fresh => return Err(Refusal::Unsigned(e.to_string()).into()),
                Err(_) => self.state().forget(&signer.key_id),
            }
        }
        Err(Refusal::Unsigned("the signing key could not be verified".into()).into())
    }

    /// Fetches the actor that owns `key_id` (the key's document, then its owner when the key
    /// is served on its own), signed with the podcast's key, and remembers it.
    async fn fetch_signer(
        self,
        key_id: &str,
        feed: &FeedId,
        key: &ActorKey,
        fetcher: &dyn Fetcher,
    ) -> Result<RemoteActor, InboxError> {
        let doc = self.fetch_json(key_id, feed, key, fetcher).await?;
        let actor = match inbound::parse_key(&doc, key_id) {
            // A key on its own: its owner, who must list it.
            Some((owner, _)) if !inbound::same_origin(&owner, key_id) => {
                return Err(Refusal::Unsigned(format!(
                    "the key {key_id} names an owner on another origin ({owner})"
                ))
                .into());
            }
            Some((owner, _)) => {
                let doc = self.fetch_json(&owner, feed, key, fetcher).await?;
                inbound::parse_actor(&doc, &owner)
            }
            None => inbound::parse_actor(&doc, key_id),
        }
        .map_err(Refusal::Unsigned)?;
        self.state().remember(key_id, actor.clone());
        Ok(actor)
    }

    /// A JSON document of the fediverse at `url`, fetched signed as the podcast's actor, at
    /// most [`MAX_DOCUMENT_BYTES`](inbound::MAX_DOCUMENT_BYTES), within
    /// [`FETCH_TIMEOUT`](inbound::FETCH_TIMEOUT).
    async fn fetch_json(
        self,
        url: &str,
        feed: &FeedId,
        key: &ActorKey,
        fetcher: &dyn Fetcher,
    ) -> Result<Value, InboxError> {
        let url = url.split('#').next().unwrap_or(url).to_string();
        let key_id = self.host.urls().actor_key(feed);
        let now = self.host.now();
        let headers = move |target: &str| {
            let mut headers = vec![(
                "accept".to_string(),
                format!(
                    "{ACTIVITY_JSON}, {}",
                    crate::activitypub::documents::LD_JSON
                ),
            )];
            match signatures::sign_draft(key, &key_id, "GET", target, None, now) {
                Ok(signed) => headers.extend(signed),
                Err(e) => tracing::warn!(error = %e, "a fetch could not be signed"),
            }
            headers
        };
        let allow_private = self.host.config().allow_private_webhooks;
        let fetched = async {
            let body = fetch::follow_with(fetcher, &url, allow_private, &headers).await?;
            fetch::read_capped(body, inbound::MAX_DOCUMENT_BYTES).await
        };
        let bytes = match tokio::time::timeout(inbound::FETCH_TIMEOUT, fetched).await {
            Ok(Ok(bytes)) => bytes,
            Ok(Err(e)) => {
                return Err(Refusal::Unsigned(format!(
                    "the key's actor {url} could not be fetched: {e}"
                ))
                .into());
            }
            Err(_) => {
                return Err(Refusal::Unsigned(format!(
                    "the key's actor {url} did not answer within {} seconds",
                    inbound::FETCH_TIMEOUT.as_secs()
                ))
                .into());
            }
        };
        serde_json::from_slice(&bytes)
            .map_err(|e| Refusal::Unsigned(format!("{url} did not answer JSON: {e}")).into())
    }
}

/// The podcast of this deployment an activity at the shared inbox is about: the actor it
/// follows or undoes, the post it replies to, likes or boosts, or else the first of ours it is
/// addressed to.
fn addressed_feed(urls: &crate::urls::Urls, activity: &Activity) -> Option<FeedId> {
    let ours = |url: &str| urls.ap_object(url).map(|(feed, _)| feed);
    let object = &activity.object;
    let inner = object.get("object");
    let candidates = [
        id_of(object),
        inner.and_then(id_of),
        object.get("inReplyTo").and_then(id_of),
    ];
    if let Some(feed) = candidates.into_iter().flatten().find_map(ours) {
        return Some(feed);
    }
    ["to", "cc"]
        .iter()
        .filter_map(|field| activity.raw.get(*field))
        .flat_map(|v| match v {
            Value::Array(items) => items.iter().filter_map(Value::as_str).collect::<Vec<_>>(),
            Value::String(one) => vec![one.as_str()],
            _ => Vec::new(),
        })
        .find_map(|url| {
            // Addressed to a podcast's followers or actor.
            let url = url.strip_suffix("/followers").unwrap_or(url);
            ours(url)
        })
}

/// What an activity from `sender`, verified, changes in the podcast's account: the changes, and
/// whether it was acted on. Decided from the state as the commit finds it (a repeated delivery
/// finds its change made and makes none).
fn decide(
    state: &AccountState,
    feed: &FeedId,
    activity: &Activity,
    sender: &RemoteActor,
    urls: &crate::urls::Urls,
    now: jiff::Timestamp,
) -> (Vec<Change>, Result<Received, Refusal>) {
    // The podcast may have gone private or off between the check and the commit.
    if state.actor(feed).is_none() || state.fediverse.blocks(&activity.actor) {
        return (Vec::new(), Err(Refusal::Blocked));
    }
    // Follows, likes and boosts are kept by their activity's id (an `Undo` names it): an id on
    // another origin than its actor's would claim another server's activity.
    if !inbound::same_origin(&activity.id, &activity.actor) {
        return (
            Vec::new(),
            Err(Refusal::ActorMismatch(format!(
                "the activity {} is not on its actor's origin ({}): an activity's id must be on \
                 the scheme, host and port of its actor {}",
                activity.id,
                inbound::origin_of(&activity.actor),
                activity.actor
            ))),
        );
    }
    let actor_url = urls.actor(feed);
    let object_id = id_of(&activity.object).unwrap_or_default();
    match activity.kind.as_str() {
        "Follow" if object_id == actor_url => follow(state, feed, activity, sender, now),
        "Undo" => undo(state, feed, activity),
        "Create" => match authored_note(activity) {
            Ok(Some(note)) => reply(state, feed, note, sender, urls, now),
            Ok(None) => (Vec::new(), Ok(Received::Ignored)),
            Err(refusal) => (Vec::new(), Err(refusal)),
        },
        "Update" => match authored_note(activity) {
            Ok(Some(note)) => edit(state, feed, &note, sender),
            Ok(None) => (Vec::new(), Ok(Received::Ignored)),
            Err(refusal) => (Vec::new(), Err(refusal)),
        },
        "Delete" => remove(state, feed, object_id, sender),
        "Like" | "Announce" => react(state, feed, activity, object_id, urls, now),
        _ => (Vec::new(), Ok(Received::Ignored)),
    }
}

/// The post a `Create` or `Update` carries (none: it carries no post), refused when it is
/// another author's than the activity's actor or when its id is not on its author's origin
/// (scheme, host and port): a post is kept by its id, and an id on another origin would take
/// the place of that origin's own post (which would then be dropped as known, and its `Delete`
/// ignored).
fn authored_note(activity: &Activity) -> Result<Option<inbound::Note>, Refusal> {
    let Some(note) = inbound::parse_note(&activity.object) else {
        return Ok(None);
    };
    if note.attributed_to != activity.actor {
        return Err(Refusal::ActorMismatch(format!(
            "{} sent a post of {}",
            activity.actor, note.attributed_to
        )));
    }
    if !inbound::same_origin(&note.id, &note.attributed_to) {
        return Err(Refusal::ActorMismatch(format!(
            "the post {} is not on its author's origin ({}): a post's id must be on the \
             scheme, host and port of its author {}",
            note.id,
            inbound::origin_of(&note.attributed_to),
            note.attributed_to
        )));
    }
    Ok(Some(note))
}

/// The refusal of a reaction to `post`, which is not public.
fn not_public(post: &str) -> Refusal {
    Refusal::NotPublic(format!(
        "{post} is not a public post: replies, likes and boosts are accepted only for the posts \
         of published episodes (and the comments on them), not for drafts, scheduled or \
         deleted episodes"
    ))
}

/// A `Follow` of the podcast: its follower kept, the delivery channel to the follower's inbox
/// made when the podcast has none there yet, and `follower.added` recorded (the channel sends
/// the `Accept`). A follow already kept changes nothing.
fn follow(
    state: &AccountState,
    feed: &FeedId,
    activity: &Activity,
    sender: &RemoteActor,
    now: jiff::Timestamp,
) -> (Vec<Change>, Result<Received, Refusal>) {
    let known = state
        .fediverse
        .followers
        .get(feed)
        .and_then(|f| f.get(&sender.id))
        .is_some_and(|f| f.follow == activity.id);
    if known {
        return (Vec::new(), Ok(Received::Accepted));
    }
    let follower = Follower {
        actor: sender.id.clone(),
        handle: sender.handle.clone(),
        inbox: sender.inbox.clone(),
        shared_inbox: sender.shared_inbox.clone(),
        follow: activity.id.clone(),
        since: now,
    };
    let mut changes = Vec::new();
    let channel = Webhook::activitypub_id(feed, follower.delivery_inbox());
    let seq = state.next_event.max(1);
    if !state.webhooks.contains_key(&channel) {
        changes.push(Change::WebhookPut(Webhook {
            id: channel,
            url: follower.delivery_inbox().to_string(),
            events: ACTIVITYPUB_EVENTS.to_vec(),
            description: format!("the fediverse inbox {}", follower.delivery_inbox()),
            secret: String::new(),
            created: now,
            after_seq: seq - 1,
            kind: SubscriptionKind::ActivityPub,
            feed: Some(feed.clone()),
        }));
    }
    changes.push(Change::Fediverse(FediverseChange::FollowerPut {
        feed: feed.clone(),
        follower: follower.clone(),
    }));
    // Recorded whether or not the account has webhooks: the new channel delivers it.
    changes.push(Change::EventRecorded(Event {
        seq,
        id: format!("msg_{}", uuid::Uuid::new_v4().simple()),
        kind: EventKind::FollowerAdded,
        at: now,
        subject: Subject::Follower {
            feed: feed.clone(),
            follower: Box::new(follower),
        },
        request_id: crate::request::RequestContext::current_id(),
        actor: None,
    }));
    (changes, Ok(Received::Accepted))
}

/// The events a podcast's delivery channel sends: the `Accept` of a follow, its episodes'
/// posts as they are published, change and go, and its profile as it changes.
pub(crate) const ACTIVITYPUB_EVENTS: [EventKind; 6] = [
    EventKind::FollowerAdded,
    EventKind::EpisodePublished,
    EventKind::EpisodeUpdated,
    EventKind::EpisodeDeleted,
    EventKind::FeedUpdated,
    EventKind::FeedDeleted,
];

/// The changes that take a follower away, and its delivery channel when no other follower of
/// the podcast is delivered at that inbox.
pub(super) fn unfollow(state: &AccountState, feed: &FeedId, actor: &str) -> Vec<Change> {
    unfollow_all(state, feed, |follower| follower == actor)
}

/// The changes that take away every follower of the podcast that `gone` names (by actor), and
/// the delivery channel of each of their inboxes at which no remaining follower is delivered
/// (followers of one instance share its inbox: the channel goes with the last of them).
pub(super) fn unfollow_all(
    state: &AccountState,
    feed: &FeedId,
    gone: impl Fn(&str) -> bool,
) -> Vec<Change> {
    let mut changes = Vec::new();
    let mut inboxes = std::collections::BTreeSet::new();
    for follower in state
        .fediverse
        .followers_of(feed)
        .filter(|f| gone(&f.actor))
    {
        changes.push(Change::Fediverse(FediverseChange::FollowerRemoved {
            feed: feed.clone(),
            actor: follower.actor.clone(),
        }));
        inboxes.insert(follower.delivery_inbox());
    }
    for inbox in inboxes {
        let shared = state
            .fediverse
            .followers_of(feed)
            .any(|f| !gone(&f.actor) && f.delivery_inbox() == inbox);
        let channel = Webhook::activitypub_id(feed, inbox);
        if !shared && state.webhooks.contains_key(&channel) {
            changes.push(Change::WebhookRemoved { id: channel });
        }
    }
    changes
}

/// An `Undo` of the sender's follow, like or boost.
fn undo(
    state: &AccountState,
    feed: &FeedId,
    activity: &Activity,
) -> (Vec<Change>, Result<Received, Refusal>) {
    let undone = id_of(&activity.object).unwrap_or_default();
    let inner_actor = activity.object.get("actor").and_then(id_of);
    if inner_actor.is_some_and(|a| a != activity.actor) {
        return (
            Vec::new(),
            Err(Refusal::ActorMismatch(format!(
                "{} undid another actor's activity",
                activity.actor
            ))),
        );
    }
    let kind = type_of(&activity.object);
    let follows = state
        .fediverse
        .followers
        .get(feed)
        .and_then(|f| f.get(&activity.actor))
        .is_some_and(|f| f.follow == undone || kind == Some("Follow"));
    if follows {
        return (
            unfollow(state, feed, &activity.actor),
            Ok(Received::Accepted),
        );
    }
    let reacted = state
        .fediverse
        .reaction(undone)
        .filter(|(_, r)| r.actor == activity.actor)
        .map(|(episode, _)| episode);
    match reacted {
        Some(episode) => (
            vec![Change::Fediverse(FediverseChange::ReactionRemoved {
                episode,
                activity: undone.to_string(),
            })],
            Ok(Received::Accepted),
        ),
        None => (Vec::new(), Ok(Received::Ignored)),
    }
}

/// The episode of the podcast a post at `url` belongs to: the episode's own post, or a comment
/// of one of its episodes (and which). `None` for a post that is nothing of the podcast's;
/// refused for one of the podcast's that is not public (an episode's post that is not
/// published, or a comment on such an episode).
fn thread_of(
    state: &AccountState,
    feed: &FeedId,
    urls: &crate::urls::Urls,
    url: &str,
    now: jiff::Timestamp,
) -> Result<Option<(EpisodeId, Option<String>)>, Refusal> {
    if let Some((of, Some(episode))) = urls.ap_object(url) {
        if of != *feed {
            return Ok(None);
        }
        return match public_post(state, feed, episode, now) {
            Some(_) => Ok(Some((episode, None))),
            None => Err(not_public(url)),
        };
    }
    match state
        .fediverse
        .comment_of_post(url)
        .filter(|c| c.feed == *feed)
    {
        Some(c) if public_post(state, feed, c.episode, now).is_some() => {
            Ok(Some((c.episode, Some(c.id.clone()))))
        }
        Some(_) => Err(not_public(url)),
        None => Ok(None),
    }
}

/// A reply: a comment of the episode it (or the comment it answers) belongs to. A post that
/// answers nothing of the podcast's is ignored; one already kept changes nothing.
fn reply(
    state: &AccountState,
    feed: &FeedId,
    note: inbound::Note,
    sender: &RemoteActor,
    urls: &crate::urls::Urls,
    now: jiff::Timestamp,
) -> (Vec<Change>, Result<Received, Refusal>) {
    let Some(parent_url) = note.in_reply_to.as_deref() else {
        return (Vec::new(), Ok(Received::Ignored));
    };
    let (episode, parent) = match thread_of(state, feed, urls, parent_url, now) {
        Ok(Some(thread)) => thread,
        Ok(None) => return (Vec::new(), Ok(Received::Ignored)),
        Err(refusal) => return (Vec::new(), Err(refusal)),
    };
    let known = state
        .fediverse
        .comments
        .get(&episode)
        .is_some_and(|list| list.iter().any(|c| c.object == note.id));
    if known {
        return (Vec::new(), Ok(Received::Accepted));
    }
    let published = note
        .published
        .as_deref()
        .and_then(|p| p.parse::<jiff::Timestamp>().ok())
        .filter(|p| *p <= now)
        .unwrap_or(now);
    let comment = Comment {
        id: crate::ids::random_id("cmt_", 20),
        feed: feed.clone(),
        episode,
        object: note.id.clone(),
        url: note.url.clone(),
        parent,
        author: RemoteAuthor {
            id: sender.id.clone(),
            name: sender.name.clone(),
            handle: sender.handle.clone(),
            url: sender.url.clone(),
        },
        content: crate::publish::notes::comment_html(&note.content),
        published,
        received: now,
        hidden: false,
    };
    (
        vec![Change::Fediverse(FediverseChange::CommentPut(Box::new(
            comment,
        )))],
        Ok(Received::Accepted),
    )
}

/// The comment kept for the sender's post `object`.
fn comment_by<'s>(
    state: &'s AccountState,
    feed: &FeedId,
    object: &str,
    sender: &RemoteActor,
) -> Option<&'s Comment> {
    state
        .fediverse
        .comment_of_post(object)
        .filter(|c| c.feed == *feed && c.author.id == sender.id)
}

/// An `Update` of a post the sender wrote: its comment's words changed.
fn edit(
    state: &AccountState,
    feed: &FeedId,
    note: &inbound::Note,
    sender: &RemoteActor,
) -> (Vec<Change>, Result<Received, Refusal>) {
    match comment_by(state, feed, &note.id, sender) {
        Some(comment) => {
            let content = crate::publish::notes::comment_html(&note.content);
            if content == comment.content {
                return (Vec::new(), Ok(Received::Accepted));
            }
            let mut comment = comment.clone();
            comment.content = content;
            (
                vec![Change::Fediverse(FediverseChange::CommentPut(Box::new(
                    comment,
                )))],
                Ok(Received::Accepted),
            )
        }
        None => (Vec::new(), Ok(Received::Ignored)),
    }
}

/// A `Delete` of a post the sender wrote (its comment goes), or of the sender's own account
/// (it no longer follows).
fn remove(
    state: &AccountState,
    feed: &FeedId,
    object: &str,
    sender: &RemoteActor,
) -> (Vec<Change>, Result<Received, Refusal>) {
    if object == sender.id {
        let changes = unfollow(state, feed, &sender.id);
        let acted = if changes.is_empty() {
            Received::Ignored
        } else {
            Received::Accepted
        };
        return (changes, Ok(acted));
    }
    match comment_by(state, feed, object, sender) {
        Some(comment) => (
            vec![Change::Fediverse(FediverseChange::CommentRemoved {
                episode: comment.episode,
                id: comment.id.clone(),
            })],
            Ok(Received::Accepted),
        ),
        None => (Vec::new(), Ok(Received::Ignored)),
    }
}

/// A `Like` or `Announce` of an episode's post: refused when the post is not public.
fn react(
    state: &AccountState,
    feed: &FeedId,
    activity: &Activity,
    object: &str,
    urls: &crate::urls::Urls,
    now: jiff::Timestamp,
) -> (Vec<Change>, Result<Received, Refusal>) {
    let Some((of, Some(episode))) = urls.ap_object(object) else {
        return (Vec::new(), Ok(Received::Ignored));
    };
    if of != *feed {
        return (Vec::new(), Ok(Received::Ignored));
    }
    if public_post(state, feed, episode, now).is_none() {
        return (Vec::new(), Err(not_public(object)));
    }
    let known = state
        .fediverse
        .reactions
        .get(&episode)
        .is_some_and(|list| list.iter().any(|r| r.activity == activity.id));
    if known {
        return (Vec::new(), Ok(Received::Accepted));
    }
    let kind = if activity.kind == "Like" {
        ReactionKind::Like
    } else {
        ReactionKind::Boost
    };
    (
        vec![Change::Fediverse(FediverseChange::ReactionPut {
            episode,
            reaction: Reaction {
                kind,
                actor: activity.actor.clone(),
                activity: activity.id.clone(),
                at: now,
            },
        })],
        Ok(Received::Accepted),
    )
}
