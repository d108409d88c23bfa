//! The podcaster's side of the fediverse: a podcast's followers, its episodes' comments (hidden
//! or shown again), and the actors and instances the account blocks. A block takes effect at
//! once: the blocked stop following, their comments are hidden, and nothing more of theirs is
//! accepted.

use super::Fediverse;
use crate::{
    authorization::Action,
    error::{Error, Result},
    ids::{EpisodeId, FeedId},
    model::social::{Block, BlockTarget, Comment, Follower},
    principal::Principal,
    state::{AccountState, Change, federation::FediverseChange},
};

/// `Forbidden` for a member restricted to some podcasts: a block holds for every podcast.
fn require_every_podcast(who: &Principal) -> Result<()> {
    if who.sees_all() {
        Ok(())
    } else {
        Err(Error::Forbidden {
            message: "a member restricted to some podcasts cannot block (a block holds for every podcast of the account)".into(),
        })
    }
}

/// The episode, or `NotFound`.
fn episode_of(state: &AccountState, feed: &FeedId, episode: EpisodeId) -> Result<()> {
    if !state.feeds.contains_key(feed) {
        return Err(crate::host::refs::feed_not_found(feed));
    }
    state
        .episode(feed, episode)
        .map(|_| ())
        .ok_or_else(|| Error::not_found("episode", episode))
}

impl Fediverse<'_> {
    /// An episode's comments, in the order they arrived, hidden ones too (scope `shows:read`).
    pub async fn comments(
        self,
        who: &Principal,
        feed: &FeedId,
        episode: EpisodeId,
    ) -> Result<Vec<Comment>> {
        who.authorize(Action::ReadComments)?;
        who.require_feed(feed)?;
        let catalog = self.host.catalog(who.account()).await?;
        catalog
            .read_found(|state| {
                episode_of(state, feed, episode)?;
                Ok(state
                    .fediverse
                    .comments
                    .get(&episode)
                    .cloned()
                    .unwrap_or_default())
            })
            .await
    }

    /// Hides a comment from the episode's page, or shows it again (scope `feeds`).
    pub async fn set_comment_hidden(
        self,
        who: &Principal,
        feed: &FeedId,
        episode: EpisodeId,
        comment: &str,
        hidden: bool,
    ) -> Result<Comment> {
        who.authorize(Action::ModerateComments)?;
        who.require_feed(feed)?;
        let catalog = self.host.catalog(who.account()).await?;
        catalog
            .commit(self.host.now(), &who.actor(), |state| {
                episode_of(state, feed, episode)?;
                let mut found = state
                    .fediverse
                    .comments
                    .get(&episode)
                    .and_then(|list| list.iter().find(|c| c.id == comment))
                    .cloned()
                    .ok_or_else(|| Error::not_found("comment", comment))?;
                if found.hidden == hidden {
                    return Ok((Vec::new(), found));
                }
                found.hidden = hidden;
                Ok((
                    vec![Change::Fediverse(FediverseChange::CommentPut(Box::new(
                        found.clone(),
                    )))],
                    found,
                ))
            })
            .await
    }

    /// Who follows a podcast on the fediverse, by actor (scope `shows:read`).
    pub async fn list_followers(self, who: &Principal, feed: &FeedId) -> Result<Vec<Follower>> {
        who.authorize(Action::ReadComments)?;
        who.require_feed(feed)?;
        let catalog = self.host.catalog(who.account()).await?;
        catalog
            .read_found(|state| {
                if !state.feeds.contains_key(feed) {
                    return Err(crate::host::refs::feed_not_found(feed));
                }
                Ok(state.fediverse.followers_of(feed).cloned().collect())
            })
            .await
    }

    /// The actors and instances the account blocks (scope `shows:read`).
    pub async fn blocks(self, who: &Principal) -> Result<Vec<Block>> {
        who.authorize(Action::ReadComments)?;
        let catalog = self.host.catalog(who.account()).await?;
        Ok(catalog.read(|state| state.fediverse.blocks.clone()).await)
    }

    /// Blocks an actor (its URL) or an instance (its host name, at every port) for every
    /// podcast of the account (scope `feeds`): it stops following them (an instance's actors
    /// at any port of its host), its comments are hidden, and nothing more of it is accepted.
    /// Blocking again changes nothing.
    pub async fn block(self, who: &Principal, target: &str) -> Result<Block> {
        who.authorize(Action::ModerateComments)?;
        require_every_podcast(who)?;
        let target = BlockTarget::parse(target).map_err(|e| Error::invalid("target", e))?;
        self.host
            .require_format(crate::store::format::FEDIVERSE, "blocking on the fediverse")
            .await?;
        let catalog = self.host.catalog(who.account()).await?;
        let now = self.host.now();
        catalog
            .commit(now, &who.actor(), |state| {
                let made = state
                    .fediverse
                    .blocks
                    .iter()
                    .find(|b| b.target.same_as(&target));
                if let Some(block) = made {
                    return Ok((Vec::new(), block.clone()));
                }
                let block = Block {
                    target: target.clone(),
                    created: now,
                };
                let mut changes = vec![Change::Fediverse(FediverseChange::BlockPut(block.clone()))];
                // Every follower it covers at once (an instance's at any port of its host), so
                // that the channel of an inbox they share goes with the last of them.
                for feed in state.fediverse.followers.keys() {
                    changes.extend(super::inbox::unfollow_all(state, feed, |actor| {
                        target.covers(actor)
                    }));
                }
                for comment in state.fediverse.comments.values().flatten() {
                    if target.covers(&comment.author.id) && !comment.hidden {
                        let mut hidden = comment.clone();
                        hidden.hidden = true;
                        changes.push(Change::Fediverse(FediverseChange::CommentPut(Box::new(
                            hidden,
                        ))));
                    }
                }
                Ok((changes, block))
            })
            .await
    }

    /// Lifts a block, named by its id (`blk_…`) or its target as blocked (scope `feeds`); its
    /// comments stay hidden until shown one by one.
    pub async fn unblock(self, who: &Principal, block: &str) -> Result<()> {
        who.authorize(Action::ModerateComments)?;
        require_every_podcast(who)?;
        let block = block.trim();
        let target = match block.starts_with("blk_") {
            true => None,
            false => Some(BlockTarget::parse(block).map_err(|e| Error::invalid("target", e))?),
        };
        let catalog = self.host.catalog(who.account()).await?;
        catalog
            .commit(self.host.now(), &who.actor(), |state| {
                // Every block of the target (one made before instances were kept without
                // their port may name the same host name as one made since).
                let lifted: Vec<Change> = state
                    .fediverse
                    .blocks
                    .iter()
                    .filter(|b| match &target {
                        Some(target) => b.target.same_as(target),
                        None => b.target.id() == block,
                    })
                    .map(|b| {
                        Change::Fediverse(FediverseChange::BlockRemoved {
                            target: b.target.clone(),
                        })
                    })
                    .collect();
                if lifted.is_empty() {
                    return Err(Error::not_found("block", block));
                }
                Ok((lifted, ()))
            })
            .await
    }
}
