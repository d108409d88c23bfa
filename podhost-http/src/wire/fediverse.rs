//! The fediverse on the wire: a podcast's followers, its episodes' comments, the blocks, and
//! what the API reads to hide a comment or block an actor or instance.

use podhost_core::{
    FeedId,
    model::social::{Block, BlockTarget, Comment, Follower},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::Example;

/// Someone on the fediverse who follows a podcast.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Follower")]
pub struct FollowerRecord {
    /// The podcast.
    pub feed_id: String,
    /// Their actor (a URL).
    pub actor: String,
    /// `@name@instance`.
    pub handle: String,
    /// Where the podcast's posts reach them: their instance's shared inbox, or their own.
    pub inbox: String,
    /// When they followed.
    pub since: String,
}

/// A follower as the API shows it.
pub fn follower(feed: &FeedId, f: &Follower) -> FollowerRecord {
    FollowerRecord {
        feed_id: feed.to_string(),
        actor: f.actor.clone(),
        handle: f.handle.clone(),
        inbox: f.delivery_inbox().to_string(),
        since: f.since.to_string(),
    }
}

/// Who wrote a comment.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CommentAuthor {
    /// Their actor (a URL).
    pub actor: String,
    /// Their display name.
    pub name: String,
    /// `@name@instance`.
    pub handle: String,
    /// Their profile page.
    pub url: String,
}

/// A reply to an episode's post on the fediverse.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Comment")]
pub struct CommentRecord {
    /// Its id (`cmt_…`).
    pub id: String,
    /// The podcast.
    pub feed_id: String,
    /// The episode (`pod-…`).
    pub episode_id: String,
    /// The comment it answers; null: it answers the episode.
    pub parent_id: Option<String>,
    /// The post on its author's instance (an ActivityPub id).
    pub object: String,
    /// Its page on its author's instance.
    pub url: Option<String>,
    /// Who wrote it.
    pub author: CommentAuthor,
    /// What it says: HTML, cleaned (paragraphs, line breaks, lists, links, emphasis).
    pub content: String,
    /// When it was posted.
    pub published: String,
    /// When podhost received it.
    pub received: String,
    /// Hidden from the episode's page by the podcaster.
    pub hidden: bool,
}

/// A comment as the API shows it.
pub fn comment(c: &Comment) -> CommentRecord {
    CommentRecord {
        id: c.id.clone(),
        feed_id: c.feed.to_string(),
        episode_id: c.episode.to_string(),
        parent_id: c.parent.clone(),
        object: c.object.clone(),
        url: c.url.clone(),
        author: CommentAuthor {
            actor: c.author.id.clone(),
            name: c.author.name.clone(),
            handle: c.author.handle.clone(),
            url: c.author.url.clone(),
        },
        content: c.content.clone(),
        published: c.published.to_string(),
        received: c.received.to_string(),
        hidden: c.hidden,
    }
}

/// What `PATCH …/comments/{comment_id}` changes.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommentPatch {
    /// Hide the comment from the episode's page (`true`), or show it again.
    pub hidden: bool,
}

impl Example for CommentPatch {
    fn example() -> Value {
        json!({"hidden": true})
    }
}

/// An actor or instance the account blocks.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Block")]
pub struct BlockRecord {
    /// Its id (`blk_…`), to lift it.
    pub id: String,
    /// `actor` or `instance`.
    pub kind: String,
    /// The actor's URL, or the instance's host name.
    pub target: String,
    /// When it was made.
    pub created: String,
}

/// A block as the API shows it.
pub fn block(b: &Block) -> BlockRecord {
    BlockRecord {
        id: b.target.id(),
        kind: match b.target {
            BlockTarget::Actor(_) => "actor",
            BlockTarget::Instance(_) => "instance",
        }
        .into(),
        target: b.target.as_str().to_string(),
        created: b.created.to_string(),
    }
}

/// A new block.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BlockCreate {
    /// An actor's URL (`https://social.example/users/someone`), or an instance's host name
    /// (`social.example`): every actor of it.
    #[schemars(length(min = 1, max = 2048))]
    pub target: String,
}

impl Example for BlockCreate {
    fn example() -> Value {
        json!({"target": "spam.example"})
    }
}
