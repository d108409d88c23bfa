//! The record of who did what: each change of an entry that names its actor, as an action on
//! an object, kept as the entry applies (so every process holds the same record).

use jiff::Timestamp;

use super::{AccountState, Change, KEEP_ACTIVITY};
use crate::model::{Activity, ActivityObject, Actor, Member, MemberStatus, Role};

/// The action and object of one change, seen from the state before it: none for changes that
/// are bookkeeping (jobs, events, encodings, keys) rather than something a person did. Every
/// change is named here, so a new one is decided on.
fn action_of(state: &AccountState, change: &Change) -> Option<(&'static str, ActivityObject)> {
    let object = |kind: &str, id: String, feed: Option<&crate::ids::FeedId>| ActivityObject {
        kind: kind.to_string(),
        id,
        feed: feed.cloned(),
    };
    let verb = |existed: bool| if existed { "updated" } else { "created" };
    Some(match change {
        Change::FeedPut(feed) => (
            pick("podcast", verb(state.feeds.contains_key(&feed.id))),
            object("podcast", feed.id.to_string(), Some(&feed.id)),
        ),
        Change::FeedRemoved { id, .. } => (
            "podcast.deleted",
            object("podcast", id.to_string(), Some(id)),
        ),
        Change::EpisodePut(episode) => {
            let before = state.episode(&episode.feed, episode.id);
            let action = match before {
                None => "episode.created",
                Some(b) if !b.is_public && episode.is_public => "episode.published",
                Some(b) if b.is_public && !episode.is_public => "episode.unpublished",
                Some(_) => "episode.updated",
            };
            (
                action,
                object("episode", episode.id.to_string(), Some(&episode.feed)),
            )
        }
        Change::EpisodeRemoved { feed, id, .. } => (
            "episode.deleted",
            object("episode", id.to_string(), Some(feed)),
        ),
        Change::MediaPut(media) => (
            pick("media", verb(state.media.contains_key(&media.id))),
            object("media", media.id.to_string(), None),
        ),
        Change::MediaRemoved { id } => ("media.deleted", object("media", id.to_string(), None)),
        Change::CampaignPut(campaign) => (
            pick("campaign", verb(state.campaigns.contains_key(&campaign.id))),
            object("campaign", campaign.id.to_string(), None),
        ),
        Change::CampaignRemoved { id } => {
            ("campaign.deleted", object("campaign", id.to_string(), None))
        }
        // A follower's delivery channel is the fediverse's bookkeeping, not a person's doing.
        Change::WebhookPut(webhook)
            if webhook.kind == crate::webhooks::subscription::SubscriptionKind::ActivityPub =>
        {
            return None;
        }
        Change::WebhookRemoved { id }
            if id.starts_with(crate::webhooks::subscription::ACTIVITYPUB_PREFIX) =>
        {
            return None;
        }
        Change::Fediverse(super::federation::FediverseChange::BlockPut(block)) => (
            "fediverse.blocked",
            object("block", block.target.as_str().to_string(), None),
        ),
        Change::Fediverse(super::federation::FediverseChange::BlockRemoved { target }) => (
            "fediverse.unblocked",
            object("block", target.as_str().to_string(), None),
        ),
        Change::Fediverse(super::federation::FediverseChange::CommentPut(comment))
            if comment.hidden
                != state
                    .fediverse
                    .comments
                    .get(&comment.episode)
                    .and_then(|list| list.iter().find(|c| c.id == comment.id))
                    .is_some_and(|c| c.hidden) =>
        {
            (
                if comment.hidden {
                    "comment.hidden"
                } else {
                    "comment.shown"
                },
                object("comment", comment.id.clone(), Some(&comment.feed)),
            )
        }
        Change::WebhookPut(webhook) => (
            pick("webhook", verb(state.webhooks.contains_key(&webhook.id))),
            object("webhook", webhook.id.clone(), None),
        ),
        Change::WebhookRemoved { id } => ("webhook.deleted", object("webhook", id.clone(), None)),
        Change::MemberPut(member) => {
            let action = match state.members.get(&member.id) {
                None => "member.invited",
                Some(b)
                    if b.status == MemberStatus::Invited
                        && member.status == MemberStatus::Active =>
                {
                    "member.joined"
                }
                Some(_) => "member.updated",
            };
            (action, object("member", member.id.to_string(), None))
        }
        Change::MemberRemoved { id } => ("member.removed", object("member", id.to_string(), None)),
        Change::Announced { feed, id, .. } => (
            "episode.published",
            object("episode", id.to_string(), Some(feed)),
        ),
        Change::TokenPut(token) if token.grant.is_none() => {
            let action = match state.tokens.get(&token.id) {
                None => "token.created",
                Some(b) if b.revoked.is_none() && token.revoked.is_some() => "token.revoked",
                Some(_) => return None,
            };
            (action, object("token", token.id.to_string(), None))
        }
        Change::TokenPut(_)
        | Change::By(_)
        | Change::AccountCreated(_)
        | Change::PasswordSet { .. }
        | Change::ClientPut(_)
        | Change::ClientRemoved { .. }
        | Change::GrantPut(_)
        | Change::SubscriberPut(_)
        | Change::AdAudioPut { .. }
        | Change::AdStreamPut { .. }
        | Change::JobPut(_)
        | Change::EventRecorded(_)
        | Change::Key(_)
        | Change::Fediverse(_) => return None,
    })
}

/// `{kind}.{verb}` for the verbs of puts.
fn pick(kind: &str, verb: &str) -> &'static str {
    match (kind, verb) {
        ("podcast", "created") => "podcast.created",
        ("podcast", _) => "podcast.updated",
        ("media", "created") => "media.created",
        ("media", _) => "media.updated",
        ("campaign", "created") => "campaign.created",
        ("campaign", _) => "campaign.updated",
        ("webhook", "created") => "webhook.created",
        _ => "webhook.updated",
    }
}

impl AccountState {
    /// Applies one entry, recording in the activity who made each of its changes (when the
    /// entry names its actor) and giving its events their actor.
    pub(super) fn apply_recorded(&mut self, at: Timestamp, changes: &[Change]) {
        let actor: Option<Actor> = changes.iter().find_map(|c| match c {
            Change::By(actor) => Some(actor.clone()),
            _ => None,
        });
        let Some(actor) = actor else {
            changes.iter().for_each(|c| self.apply_one(c));
            return;
        };
        for change in changes {
            if let Some((action, object)) = action_of(self, change) {
                self.note_activity(at, &actor, action, object);
            }
            match change {
                Change::EventRecorded(event) if event.actor.is_none() => {
                    let mut event = event.clone();
                    event.actor = Some(actor.clone());
                    self.apply_one(&Change::EventRecorded(event));
                }
                other => self.apply_one(other),
            }
        }
    }

    /// Records one change in the activity, the oldest let go past [`KEEP_ACTIVITY`].
    fn note_activity(
        &mut self,
        at: Timestamp,
        actor: &Actor,
        action: &str,
        object: ActivityObject,
    ) {
        let seq = self.next_activity.max(1);
        self.next_activity = seq + 1;
        self.activity.insert(
            seq,
            Activity {
                seq,
                at,
                actor: actor.clone(),
                action: action.to_string(),
                object,
            },
        );
        while self.activity.len() > KEEP_ACTIVITY {
            self.activity.pop_first();
        }
    }

    /// The member an account is created with: its founding owner, whose login is the account's
    /// name (how the account signed in before it had members).
    pub(crate) fn founder(account: &crate::model::Account) -> Member {
        Member {
            id: crate::ids::MemberId::founder(&account.id),
            login: crate::ids::Login::new(account.id.as_str())
                .unwrap_or_else(|_| unreachable!("an account name is a login")),
            name: account.id.to_string(),
            role: Role::Owner,
            feeds: None,
            status: MemberStatus::Active,
            created: account.created,
            invitation: None,
        }
    }

    /// The owners that are active members.
    pub(crate) fn active_owners(&self) -> usize {
        self.members
            .values()
            .filter(|m| m.is_active_owner())
            .count()
    }
}
