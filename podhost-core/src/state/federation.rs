//! An account's part of the fediverse: each podcast's actor key, followers, the comments and
//! reactions its episodes' posts got, and the actors and instances the account refuses.

use std::collections::{BTreeMap, HashMap};

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
    /// Derived: the episode of each comment, by the remote post it was made of, so the inbox
    /// finds the comment a post edits or answers without walking every comment.
    #[serde(skip)]
    comment_posts: HashMap<String, EpisodeId>,
    /// Derived: the episode of each reaction, by its activity, for its `Undo`.
    #[serde(skip)]
    reaction_activities: HashMap<String, EpisodeId>,
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
                self.comment_posts
                    .insert(comment.object.clone(), comment.episode);
                if list.len() > KEEP_COMMENTS {
                    let oldest = list.remove(0);
                    self.comment_posts.remove(&oldest.object);
                }
            }
            FediverseChange::CommentRemoved { episode, id } => {
                if let Some(list) = self.comments.get_mut(episode) {
                    for gone in list.iter().filter(|c| c.id == *id) {
                        self.comment_posts.remove(&gone.object);
                    }
                    list.retain(|c| c.id != *id);
                }
            }
            FediverseChange::ReactionPut { episode, reaction } => {
                let list = self.reactions.entry(*episode).or_default();
                if !list.iter().any(|r| r.activity == reaction.activity) {
                    list.push(reaction.clone());
                    self.reaction_activities
                        .insert(reaction.activity.clone(), *episode);
                }
                if list.len() > KEEP_REACTIONS {
                    let oldest = list.remove(0);
                    self.reaction_activities.remove(&oldest.activity);
                }
            }
            FediverseChange::ReactionRemoved { episode, activity } => {
                if let Some(list) = self.reactions.get_mut(episode) {
                    list.retain(|r| r.activity != *activity);
                }
                self.reaction_activities.remove(activity);
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
        for comment in self.comments.remove(&episode).into_iter().flatten() {
            self.comment_posts.remove(&comment.object);
        }
        for reaction in self.reactions.remove(&episode).into_iter().flatten() {
            self.reaction_activities.remove(&reaction.activity);
        }
    }

    /// Rebuilds the derived indexes after the records were read from a snapshot.
    pub(crate) fn reindex(&mut self) {
        self.comment_posts = self
            .comments
            .iter()
            .flat_map(|(episode, list)| list.iter().map(|c| (c.object.clone(), *episode)))
            .collect();
        self.reaction_activities = self
            .reactions
            .iter()
            .flat_map(|(episode, list)| list.iter().map(|r| (r.activity.clone(), *episode)))
            .collect();
    }

    /// The comment made of the remote post `object`, if one was kept.
    pub(crate) fn comment_of_post(&self, object: &str) -> Option<&Comment> {
        let episode = self.comment_posts.get(object)?;
        self.comments
            .get(episode)?
            .iter()
            .find(|c| c.object == object)
    }

    /// The reaction recorded for `activity`, with its episode.
    pub(crate) fn reaction(&self, activity: &str) -> Option<(EpisodeId, &Reaction)> {
        let episode = *self.reaction_activities.get(activity)?;
        let reaction = self
            .reactions
            .get(&episode)?
            .iter()
            .find(|r| r.activity == activity)?;
        Some((episode, reaction))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::social::{ReactionKind, RemoteAuthor};

    fn comment(n: u32, episode: EpisodeId) -> Comment {
        let post = format!("https://remote.example/statuses/{n}");
        Comment {
            id: format!("cmt_{n}"),
            feed: "show".parse().unwrap(),
            episode,
            object: post.clone(),
            url: Some(post),
            parent: None,
            author: RemoteAuthor {
                id: "https://remote.example/users/ann".into(),
                name: "Ann".into(),
                handle: "@ann@remote.example".into(),
                url: "https://remote.example/@ann".into(),
            },
            content: "<p>Hi</p>".into(),
            published: jiff::Timestamp::UNIX_EPOCH,
            received: jiff::Timestamp::UNIX_EPOCH,
            hidden: false,
        }
    }

    fn reaction(n: u32) -> Reaction {
        Reaction {
            kind: ReactionKind::Like,
            actor: "https://remote.example/users/ann".into(),
            activity: format!("https://remote.example/likes/{n}"),
            at: jiff::Timestamp::UNIX_EPOCH,
        }
    }

    /// What the inbox looks up by post and by activity, as kept and as read back from a
    /// snapshot (the indexes are derived, not stored).
    fn found(fediverse: &Fediverse) -> (Vec<Option<EpisodeId>>, Vec<Option<EpisodeId>>) {
        let comments = (1..=4)
            .map(|n| {
                fediverse
                    .comment_of_post(&format!("https://remote.example/statuses/{n}"))
                    .map(|c| c.episode)
            })
            .collect();
        let reactions = (1..=3)
            .map(|n| {
                fediverse
                    .reaction(&format!("https://remote.example/likes/{n}"))
                    .map(|(episode, _)| episode)
            })
            .collect();
        (comments, reactions)
    }

    #[test]
    fn comments_and_reactions_are_found_by_post_and_activity_after_every_change_and_a_reload() {
        let (one, two) = (EpisodeId::new(1).unwrap(), EpisodeId::new(2).unwrap());
        let mut fediverse = Fediverse::default();
        for change in [
            FediverseChange::CommentPut(Box::new(comment(1, one))),
            FediverseChange::CommentPut(Box::new(comment(2, one))),
            FediverseChange::CommentPut(Box::new(comment(3, two))),
            FediverseChange::CommentPut(Box::new(comment(4, two))),
            FediverseChange::CommentRemoved {
                episode: two,
                id: "cmt_4".into(),
            },
            FediverseChange::ReactionPut {
                episode: one,
                reaction: reaction(1),
            },
            FediverseChange::ReactionPut {
                episode: two,
                reaction: reaction(2),
            },
            FediverseChange::ReactionPut {
                episode: two,
                reaction: reaction(3),
            },
            FediverseChange::ReactionRemoved {
                episode: two,
                activity: "https://remote.example/likes/3".into(),
            },
        ] {
            fediverse.apply(&change);
        }
        let expected = (
            vec![Some(one), Some(one), Some(two), None],
            vec![Some(one), Some(two), None],
        );
        assert_eq!(found(&fediverse), expected);
        let mut reloaded: Fediverse =
            serde_json::from_value(serde_json::to_value(&fediverse).unwrap()).unwrap();
        assert_eq!(found(&reloaded).0, vec![None; 4], "derived, not stored");
        reloaded.reindex();
        assert_eq!(found(&reloaded), expected);

        fediverse.forget_episode(one);
        assert_eq!(
            found(&fediverse),
            (
                vec![None, None, Some(two), None],
                vec![None, Some(two), None]
            )
        );
    }
}
