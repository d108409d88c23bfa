//! Members of an account (people with a role in it), who acted, and the record of what they did.

use std::collections::BTreeSet;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::ids::{ClientId, FeedId, Login, MemberId, TokenId};

/// What a member may do in an account: a fixed set of scopes and capabilities, enforced by the
/// core on every operation (a token of the member never allows more than its role).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Everything, members and owners included.
    Owner,
    /// Everything but making, changing or removing owners.
    Admin,
    /// Media, podcasts, episodes, jobs, webhooks and campaigns of their podcasts; no members.
    Editor,
    /// Uploads, and episodes of their podcasts as drafts: never publishes.
    Author,
    /// Reads their podcasts, statistics and campaigns; writes nothing of the account.
    Analyst,
}

impl Role {
    /// Every role, the most powerful first.
    pub const ALL: [Role; 5] = [
        Role::Owner,
        Role::Admin,
        Role::Editor,
        Role::Author,
        Role::Analyst,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Admin => "admin",
            Role::Editor => "editor",
            Role::Author => "author",
            Role::Analyst => "analyst",
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Role {
    type Err = crate::Error;

    fn from_str(s: &str) -> crate::Result<Self> {
        Role::ALL
            .into_iter()
            .find(|r| r.as_str() == s.trim())
            .ok_or_else(|| {
                crate::Error::invalid("role", "one of owner, admin, editor, author, analyst")
            })
    }
}

/// Whether a member has joined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemberStatus {
    /// Invited; the invitation is not yet accepted.
    Invited,
    /// Joined: signs in and acts.
    Active,
}

/// A person in an account, with a role.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Member {
    /// Its id.
    pub id: MemberId,
    /// The person's login.
    pub login: Login,
    /// The person's name as the account shows it.
    pub name: String,
    /// What they may do.
    pub role: Role,
    /// The podcasts they may touch (none: all of the account's).
    pub feeds: Option<BTreeSet<FeedId>>,
    /// Invited or active.
    pub status: MemberStatus,
    /// When they were invited (or the account created).
    pub created: Timestamp,
    /// The pending invitation: the hash of its secret and until when it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) invitation: Option<Invitation>,
}

/// A member as the account's list shows it: the member and when they last acted (to the
/// minute; none when never since podhost kept it).
#[derive(Clone, Debug, PartialEq)]
pub struct ListedMember {
    /// The member.
    pub member: Member,
    /// When they last made a request.
    pub last_seen: Option<Timestamp>,
}

/// An invitation as stored: never the secret.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Invitation {
    pub(crate) secret_sha256: String,
    pub(crate) expires: Timestamp,
}

impl Member {
    /// Whether the member may touch podcast `feed`.
    pub fn sees(&self, feed: &FeedId) -> bool {
        self.feeds.as_ref().is_none_or(|f| f.contains(feed))
    }

    /// Whether the member is an owner who joined: an account keeps at least one.
    pub fn is_active_owner(&self) -> bool {
        self.role == Role::Owner && self.status == MemberStatus::Active
    }

    /// When the pending invitation stops working.
    pub fn invitation_expires(&self) -> Option<Timestamp> {
        self.invitation.as_ref().map(|i| i.expires)
    }
}

/// An invitation to make.
#[derive(Clone, Debug)]
pub struct NewMember {
    /// The login of the person invited.
    pub login: String,
    /// Their name (the login when empty).
    pub name: String,
    /// Their role.
    pub role: Role,
    /// The podcasts they may touch (none: all).
    pub feeds: Option<Vec<FeedId>>,
}

/// A change to a member: each field set is changed.
#[derive(Clone, Debug, Default)]
pub struct MemberPatch {
    /// A new name.
    pub name: Option<String>,
    /// A new role.
    pub role: Option<Role>,
    /// New podcasts (`Some(None)`: all of the account's).
    pub feeds: Option<Option<Vec<FeedId>>>,
}

/// A member just invited: the only moment the invitation's URL is known.
#[derive(Clone, Debug)]
pub struct Invited {
    /// The member, status `invited`.
    pub member: Member,
    /// The URL that opens the invitation on the site (one use, 7 days).
    pub invitation_url: String,
}

/// How a change was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Via {
    /// A personal API token.
    Token,
    /// An OAuth application's token.
    Oauth,
    /// The key-management site, signed in.
    Site,
    /// The command line (or an application embedding podhost, acting as the owner).
    Cli,
    /// podhost itself: a job, a schedule, a repair.
    Podhost,
}

impl Via {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Via::Token => "token",
            Via::Oauth => "oauth",
            Via::Site => "site",
            Via::Cli => "cli",
            Via::Podhost => "podhost",
        }
    }
}

/// Who made a change, as its log entry records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Actor {
    /// The member (none for the command line and podhost itself).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub member: Option<MemberId>,
    /// The member's login when they acted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub login: Option<Login>,
    /// How.
    pub via: Via,
    /// The token used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<TokenId>,
    /// The OAuth application whose token it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientId>,
}

impl Actor {
    /// podhost itself (jobs, schedules, repairs).
    pub fn podhost() -> Self {
        Actor {
            member: None,
            login: None,
            via: Via::Podhost,
            token: None,
            client: None,
        }
    }
}

/// What a change touched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActivityObject {
    /// Its kind: `podcast`, `episode`, `media`, `campaign`, `webhook`, `member` or `token`.
    pub kind: String,
    /// Its id.
    pub id: String,
    /// The podcast it belongs to (a podcast's own id for a podcast).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feed: Option<FeedId>,
}

/// One change to an account, with who made it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Activity {
    /// Its place in the account's record (newer is larger).
    pub seq: u64,
    /// When.
    pub at: Timestamp,
    /// Who.
    pub actor: Actor,
    /// What, as `{kind}.{verb}`: `episode.created`, `podcast.deleted`, `token.revoked`, …
    pub action: String,
    /// To what.
    pub object: ActivityObject,
}
