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
    /// An instance, by its host name, lowercase (internationalized names in their ASCII
    /// form, no trailing dot). It covers the host at every port: the port of an actor's URL is
    /// no part of its instance here. (A block made before that rule may still carry the port
    /// it was written with; it is ignored too.)
    Instance(String),
}

impl BlockTarget {
    /// The target a podcaster wrote: a URL is an actor, anything else an instance's host name
    /// (`example.social`). An instance is kept as its host name alone: a port written with it
    /// (`example.social:8443`) is dropped, since a block by host name covers every port.
    pub fn parse(text: &str) -> Result<BlockTarget, String> {
        let text = text.trim();
        if text.starts_with("https://") || text.starts_with("http://") {
            let url = url::Url::parse(text).map_err(|e| format!("not a URL: {e}"))?;
            if url.host_str().is_none() {
                return Err("a URL without a host".into());
            }
            return Ok(BlockTarget::Actor(url.to_string()));
        }
        instance_host(text.trim_end_matches('/'))
            .map(BlockTarget::Instance)
            .ok_or_else(|| {
                format!("\"{text}\" is neither an actor's URL nor an instance's host name")
            })
    }

    /// Whether it refuses the actor `actor` (a URL). An instance covers every actor whose URL
    /// is on its host name, whatever the port, the case of the letters or a trailing dot.
    pub fn covers(&self, actor: &str) -> bool {
        match self {
            BlockTarget::Actor(id) => {
                id == actor || url::Url::parse(actor).is_ok_and(|url| url.as_str() == id)
            }
            BlockTarget::Instance(_) => self
                .blocked_host()
                .is_some_and(|blocked| host_of(actor).is_some_and(|host| host == blocked)),
        }
    }

    /// Whether it refuses what `other` refuses (the same actor, or the same host name, a port
    /// written with either aside): blocking again finds the block made, and lifting finds it
    /// by the target as it was written.
    pub fn same_as(&self, other: &BlockTarget) -> bool {
        match (self, other) {
            (BlockTarget::Actor(a), BlockTarget::Actor(b)) => a == b,
            (BlockTarget::Instance(_), BlockTarget::Instance(_)) => {
                self.blocked_host().is_some() && self.blocked_host() == other.blocked_host()
            }
            _ => false,
        }
    }

    /// The host name an instance's block refuses (without the port a block made before may
    /// carry); `None` for an actor's.
    fn blocked_host(&self) -> Option<String> {
        match self {
            BlockTarget::Instance(host) => instance_host(host),
            BlockTarget::Actor(_) => None,
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

/// The host name of an instance written as `host` or `host:port` (an IPv6 address in
/// brackets): lowercase, an internationalized name in its ASCII form, no trailing dot, no
/// port. `None` for anything else (a path, a user, spaces).
fn instance_host(text: &str) -> Option<String> {
    if text.is_empty()
        || text.len() > 253 + 6
        || text
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '/' | '\\' | '@' | '?' | '#' | '%'))
    {
        return None;
    }
    let url = url::Url::parse(&format!("http://{text}/")).ok()?;
    host_of(url.as_str()).filter(|host| !host.is_empty())
}

/// The host name of a URL: lowercase, an internationalized name in its ASCII form, without
/// a trailing dot or the port; `None` when it is no URL with a host.
pub fn host_of(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    let host = url.host_str()?.trim_end_matches('.').to_ascii_lowercase();
    Some(host)
}

/// The instance of an actor's URL: its host, with its port when not the scheme's, lowercase.
/// (What the inbox counts an instance's requests by; a block by host name covers every port,
/// see [`BlockTarget::covers`].)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_by_host_name_covers_every_port_and_any_case() {
        let block = BlockTarget::parse("LocalHost").unwrap();
        assert_eq!(block, BlockTarget::Instance("localhost".into()));
        for actor in [
            "http://localhost/users/x",
            "http://localhost:42859/users/x",
            "https://LOCALHOST:8443/users/x",
            "http://localhost.:3000/users/x",
        ] {
            assert!(block.covers(actor), "{actor}");
        }
        assert!(!block.covers("http://localhost.example/users/x"));
        assert!(!block.covers("http://notlocalhost/users/x"));

        // A port written with the host name is dropped: the block is of the host.
        let written = BlockTarget::parse("Social.Example:8443/").unwrap();
        assert_eq!(written, BlockTarget::Instance("social.example".into()));
        assert!(written.covers("https://social.example/users/a"));
        // One made before that rule, with its port, covers every port too, and is the same
        // block as the host name's.
        let before = BlockTarget::Instance("127.0.0.1:42859".into());
        assert!(before.covers("http://127.0.0.1:1234/users/a"));
        assert!(before.same_as(&BlockTarget::parse("127.0.0.1").unwrap()));
        assert!(!before.same_as(&BlockTarget::parse("127.0.0.2").unwrap()));
        let v6 = BlockTarget::parse("[::1]:8080").unwrap();
        assert_eq!(v6, BlockTarget::Instance("[::1]".into()));
        assert!(v6.covers("http://[::1]:9/users/a"));

        // Internationalized names in their ASCII form, as actors' URLs are read.
        let idn = BlockTarget::parse("Bücher.example").unwrap();
        assert_eq!(idn, BlockTarget::Instance("xn--bcher-kva.example".into()));
        assert!(idn.covers("https://bücher.example/users/a"));

        for bad in [
            "not a host!",
            "",
            "a.example/users",
            "user@a.example",
            "a.example:x",
        ] {
            assert!(BlockTarget::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_block_of_an_actor_covers_its_url_however_written() {
        let block = BlockTarget::parse("https://Social.Example/users/ann").unwrap();
        assert!(block.covers("https://social.example/users/ann"));
        assert!(block.covers("https://SOCIAL.example:443/users/ann"));
        assert!(!block.covers("https://social.example/users/bob"));
        assert!(!block.covers("https://social.example:8443/users/ann"));
    }
}
