//! An account's part of the fediverse: each podcast's actor key, followers, the comments and
//! reactions its episodes' posts got, and the actors and instances the account refuses.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{
    activitypub::keys::ActorKey,
    ids::{EpisodeId, FeedId},
    model::social::{Block, BlockTarget, Comment, Follower, Reaction},
};

/// Comments kept per episode (the oldest go first): a thread that outgrows a page of the
/// episode is read on the fediverse.
pub(crate) const KEEP_COMMENTS: usize = 1_000;

/// Reactions kept per episode.
pub(crate) const KEEP_REACTIONS: usize = 10_000;

/// The account's fediverse records.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Fediverse {
    /// Each podcast's actor key (made with the podcast).
    #[serde(default)]
    pub(crate) keys: BTreeMap<FeedId, ActorKey>,
    /// Each podcast's followers, by actor id.
    #[serde(default)]
    pub(crate) followers: BTreeMap<FeedId, BTreeMap<String, Follower>>,
    /// Each episode's comments, in the order they arrived.
    #[serde(default)]
    pub(crate) comments: BTreeMap<EpisodeId, Vec<Comment>>,
    /// Each episode's likes and boosts.
    #[serde(default)]
    pub(crate) reactions: BTreeMap<EpisodeId, Vec<Reaction>>,
    /// The actors and instances refused.
    #[serde(default)]
    pub(crate) blocks: Vec<Block>,
}

/// A change to the account's fediverse records.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "fediverse", rename_all = "snake_case")]
pub(crate) enum FediverseChange {
    /// A podcast's actor key.
    KeyPut { feed: FeedId, key: ActorKey },
    /// Someone followed a podcast (or followed again).
    FollowerPut { feed: FeedId, follower: Follower },
    /// Someone stopped following a podcast (or was blocked).
    FollowerRemoved { feed: FeedId, actor: String },
    /// A comment arrived, changed, or was hidden or shown.
    CommentPut(Box<Comment>),
    /// A comment's author deleted it.
    CommentRemoved { episode: EpisodeId, id: String },
    /// A like or a boost.
    ReactionPut {
        episode: EpisodeId,
        reaction: Reaction,
    },
    /// A like or a boost taken back.
    ReactionRemoved {
        episode: EpisodeId,
        activity: String,
    },
    /// An actor or instance refused.
    BlockPut(Block),
    /// A block lifted.
    BlockRemoved { target: BlockTarget },
}

impl Fediverse {
    /// Applies one change.
    pub(crate) fn apply(&mut self, change: &FediverseChange) {
        match change {
            FediverseChange::KeyPut { feed, key } => {
                self.keys.insert(feed.clone(), key.clone());
            }
            FediverseChange::FollowerPut { feed, follower } => {
                self.followers
                    .entry(feed.clone())
                    .or_default()
                    .insert(follower.actor.clone(), follower.clone());
            }
            FediverseChange::FollowerRemoved { feed, actor } => {
                if let Some(followers) = self.followers.get_mut(feed) {
                    followers.remove(actor);
                    if followers.is_empty() {
                        self.followers.remove(feed);
                    }
                }
            }
            FediverseChange::CommentPut(comment) => {
                let list = self.comments.entry(comment.episode).or_default();
                match list.iter_mut().find(|c| c.id == comment.id) {
                    Some(old) => *old = (**comment).clone(),
                    None => list.push((**comment).clone()),
                }
                if list.len() > KEEP_COMMENTS {
                    list.remove(0);
                }
            }
            FediverseChange::CommentRemoved { episode, id } => {
                if let Some(list) = self.comments.get_mut(episode) {
                    list.retain(|c| c.id != *id);
                }
            }
            FediverseChange::ReactionPut { episode, reaction } => {
                let list = self.reactions.entry(*episode).or_default();
                if !list.iter().any(|r| r.activity == reaction.activity) {
                    list.push(reaction.clone());
                }
                if list.len() > KEEP_REACTIONS {
                    list.remove(0);
                }
            }
            FediverseChange::ReactionRemoved { episode, activity } => {
                if let Some(list) = self.reactions.get_mut(episode) {
                    list.retain(|r| r.activity != *activity);
                }
            }
            FediverseChange::BlockPut(block) => {
                self.blocks.retain(|b| b.target != block.target);
                self.blocks.push(block.clone());
            }
            FediverseChange::BlockRemoved { target } => {
                self.blocks.retain(|b| b.target != *target);
            }
        }
    }

    /// A podcast is gone: its key, followers, and its episodes' comments and reactions go too.
    pub(crate) fn forget_feed(&mut self, feed: &FeedId, episodes: impl Iterator<Item = EpisodeId>) {
        self.keys.remove(feed);
        self.followers.remove(feed);
        for episode in episodes {
            self.forget_episode(episode);
        }
    }

    /// An episode is gone: its comments and reactions go too.
    pub(crate) fn forget_episode(&mut self, episode: EpisodeId) {
        self.comments.remove(&episode);
        self.reactions.remove(&episode);
    }

    /// Whether the account refuses `actor`.
    pub(crate) fn blocks(&self, actor: &str) -> bool {
        self.blocks.iter().any(|b| b.target.covers(actor))
    }

    /// A podcast's followers.
    pub(crate) fn followers_of(&self, feed: &FeedId) -> impl Iterator<Item = &Follower> {
        self.followers
            .get(feed)
            .into_iter()
            .flat_map(|f| f.values())
    }

    /// The records it holds, for the state's weight.
    pub(crate) fn records(&self) -> usize {
        self.keys.len()
            + self.followers.values().map(BTreeMap::len).sum::<usize>()
            + self.comments.values().map(Vec::len).sum::<usize>()
            + self.reactions.values().map(Vec::len).sum::<usize>()
            + self.blocks.len()
    }
}
