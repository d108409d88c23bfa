//! The fediverse as a podcaster sees it: who follows a podcast, the comments its episodes got
//! as replies, the likes and boosts, and the actors and instances it refuses.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::ids::{EpisodeId, FeedId};

/// A fediverse account that follows a podcast.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Follower {
    /// Its actor's id (a URL).
    pub actor: String,
    /// `@name@instance`, as its instance gives it.
    pub handle: String,
    /// Its own inbox.
    pub inbox: String,
    /// Its instance's shared inbox, when it offers one: deliveries go there, once per instance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_inbox: Option<String>,
    /// The id of its `Follow` (the `Accept` names it).
    pub follow: String,
    /// When it followed.
    pub since: Timestamp,
}

impl Follower {
    /// Where the podcast's posts go for it: its instance's shared inbox, else its own.
    pub fn delivery_inbox(&self) -> &str {
        self.shared_inbox.as_deref().unwrap_or(&self.inbox)
    }
}

/// Who wrote a comment, as their instance showed them when it arrived.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteAuthor {
    /// The actor's id (a URL).
    pub id: String,
    /// Their display name (their handle when they have none).
    pub name: String,
    /// `@name@instance`.
    pub handle: String,
    /// Their profile page (the actor's id when it gives none).
    pub url: String,
}

/// A reply to an episode's post, or to another comment of the episode.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Comment {
    /// podhost's id for it (`cmt_` and 20 letters or digits).
    pub id: String,
    /// The podcast.
    pub feed: FeedId,
    /// The episode.
    pub episode: EpisodeId,
    /// The remote post's id (a URL).
    pub object: String,
    /// Its page on the author's instance, when it gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The comment it answers (podhost's id); none: it answers the episode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Who wrote it.
    pub author: RemoteAuthor,
    /// What it says: HTML, cleaned by podhost's policy for show notes.
    pub content: String,
    /// When its author posted it.
    pub published: Timestamp,
    /// When podhost received it.
    pub received: Timestamp,
    /// Hidden by the podcaster: kept, not shown on the episode's page.
    #[serde(default)]
    pub hidden: bool,
}

/// What a reaction to an episode's post is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReactionKind {
    /// A `Like` (a favourite).
    Like,
    /// An `Announce` (a boost).
    Boost,
}

/// A like or a boost of an episode's post.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reaction {
    /// Like or boost.
    pub kind: ReactionKind,
    /// Who.
    pub actor: String,
    /// The activity's id (its `Undo` names it).
    pub activity: String,
    /// When it arrived.
    pub at: Timestamp,
}

/// What a block refuses: one actor, or every actor of an instance.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockTarget {
    /// An actor, by its id (a URL).
    Actor(String),
    /// An instance, by its host name (with its port, when not the scheme's), lowercase.
    Instance(String),
}

impl BlockTarget {
    /// The target a podcaster wrote: a URL is an actor, anything else an instance's host name
    /// (`example.social`).
    pub fn parse(text: &str) -> Result<BlockTarget, String> {
        let text = text.trim();
        if text.starts_with("https://") || text.starts_with("http://") {
            let url = url::Url::parse(text).map_err(|e| format!("not a URL: {e}"))?;
            if url.host_str().is_none() {
                return Err("a URL without a host".into());
            }
            return Ok(BlockTarget::Actor(url.to_string()));
        }
        let host = text.trim_end_matches('/').to_ascii_lowercase();
        let valid = !host.is_empty()
            && host.len() <= 253
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'));
        if valid {
            Ok(BlockTarget::Instance(host))
        } else {
            Err(format!(
                "{text:?} is neither an actor's URL nor an instance's host name"
            ))
        }
    }

    /// Whether it refuses the actor `actor` (a URL).
    pub fn covers(&self, actor: &str) -> bool {
        match self {
            BlockTarget::Actor(id) => id == actor,
            BlockTarget::Instance(host) => instance_of(actor).is_some_and(|h| h == *host),
        }
    }

    /// Its id (`blk_` and 16 hexadecimal digits of its target's SHA-256), to lift it by.
    pub fn id(&self) -> String {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(self.as_str().as_bytes());
        format!("blk_{}", &hex::encode(digest)[..16])
    }

    /// The text it was made from.
    pub fn as_str(&self) -> &str {
        match self {
            BlockTarget::Actor(id) | BlockTarget::Instance(id) => id,
        }
    }
}

/// The instance of an actor's URL: its host, with its port when not the scheme's, lowercase.
pub fn instance_of(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    let host = url.host_str()?.to_ascii_lowercase();
    Some(match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host,
    })
}

/// An actor or an instance the account refuses: nothing from it is accepted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// What is refused.
    pub target: BlockTarget,
    /// When.
    pub created: Timestamp,
}
