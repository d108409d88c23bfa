//! The members of an account and its record of who did what, on the wire.

use std::borrow::Cow;

use podhost_core::model::{Activity, Actor, Member, MemberStatus, Role};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{Example, schema::Clearable};

/// A role by its name (`owner`, `admin`, `editor`, `author`, `analyst`): the core's [`Role`],
/// read and written by its serde names, described by the core's list.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RoleName(pub Role);

impl JsonSchema for RoleName {
    fn schema_name() -> Cow<'static, str> {
        "RoleName".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let names: Vec<&str> = Role::ALL.iter().map(|r| r.as_str()).collect();
        json_schema!({"type": "string", "enum": names})
    }
}

/// A person in the account, with a role.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Member")]
pub struct MemberRecord {
    /// Its id (`mem_…`).
    pub id: String,
    /// The person's login: a lowercase name or an e-mail address.
    pub login: String,
    /// Their name as the account shows it.
    pub name: String,
    /// What they may do.
    pub role: RoleName,
    /// The podcasts they may touch; null: all of the account's.
    pub feeds: Option<Vec<String>>,
    /// `invited` until they accept the invitation, then `active`.
    #[schemars(extend("enum" = ["invited", "active"]))]
    pub status: String,
    /// When they were invited.
    #[schemars(extend("format" = "date-time"))]
    pub created: String,
    /// When they last acted, to the minute.
    pub last_seen: Option<String>,
}

/// A member as the API shows them.
pub fn member(m: &Member, last_seen: Option<jiff::Timestamp>) -> MemberRecord {
    MemberRecord {
        id: m.id.to_string(),
        login: m.login.to_string(),
        name: m.name.clone(),
        role: RoleName(m.role),
        feeds: m
            .feeds
            .as_ref()
            .map(|f| f.iter().map(|id| id.to_string()).collect()),
        status: match m.status {
            MemberStatus::Invited => "invited",
            MemberStatus::Active => "active",
        }
        .to_string(),
        created: m.created.to_string(),
        last_seen: last_seen.map(|t| t.to_string()),
    }
}

/// A member just invited, with the invitation's URL (shown only here).
#[derive(Debug, Serialize, JsonSchema)]
pub struct InvitedMember {
    /// The member.
    #[serde(flatten)]
    pub record: MemberRecord,
    /// The page where the person sets a password (or signs in) and joins: one use, 7 days.
    pub invitation_url: String,
    /// When the invitation stops working.
    #[schemars(extend("format" = "date-time"))]
    pub invitation_expires: String,
}

/// A member just invited as the API and the CLI show them, with the invitation's URL.
pub fn invited(invited: &podhost_core::model::Invited) -> InvitedMember {
    InvitedMember {
        invitation_expires: invited
            .member
            .invitation_expires()
            .map(|t| t.to_string())
            .unwrap_or_default(),
        record: member(&invited.member, None),
        invitation_url: invited.invitation_url.clone(),
    }
}

/// An invitation to the account.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewMember {
    /// The login of the person invited: a lowercase name or an e-mail address.
    #[schemars(length(min = 1, max = 254), regex(pattern = podhost_core::Login::PATTERN))]
    pub login: String,
    /// Their name (default: the login).
    #[schemars(length(max = 255))]
    pub name: Option<String>,
    /// Their role.
    pub role: RoleName,
    /// The podcasts they may touch; null or absent: all of the account's.
    pub feeds: Option<Vec<String>>,
}

impl Example for NewMember {
    fn example() -> Value {
        json!({"login": "sam@example.com", "name": "Sam", "role": "editor", "feeds": null})
    }
}

/// A change to a member: each field given is changed.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MemberUpdate {
    /// A new name.
    #[schemars(length(min = 1, max = 255))]
    pub name: Option<String>,
    /// A new role.
    pub role: Option<RoleName>,
    /// New podcasts; null: all of the account's.
    #[serde(default)]
    pub feeds: Clearable<Vec<String>>,
}

impl Example for MemberUpdate {
    fn example() -> Value {
        json!({"role": "author"})
    }
}

/// Who made a change.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ActorRecord {
    /// The member; null for the command line and podhost itself.
    pub member_id: Option<String>,
    /// The member's login when they acted.
    pub login: Option<String>,
    /// How: `token`, `oauth`, `site`, `cli` or `podhost` (jobs and schedules).
    #[schemars(extend("enum" = ["token", "oauth", "site", "cli", "podhost"]))]
    pub via: String,
    /// The token used, for `token` and `oauth`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_id: Option<String>,
    /// The OAuth application, for `oauth`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
}

/// An actor as the API and webhook events show it.
pub fn actor(a: &Actor) -> ActorRecord {
    ActorRecord {
        member_id: a.member.as_ref().map(|m| m.to_string()),
        login: a.login.as_ref().map(|l| l.to_string()),
        via: a.via.as_str().to_string(),
        token_id: a.token.as_ref().map(|t| t.to_string()),
        client_id: a.client.as_ref().map(|c| c.to_string()),
    }
}

/// What a change touched.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ActivityObjectRecord {
    /// `podcast`, `episode`, `media`, `campaign`, `webhook`, `member` or `token`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Its id.
    pub id: String,
    /// The podcast it belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feed_id: Option<String>,
}

/// One change, with who made it.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Activity")]
pub struct ActivityRecord {
    /// When.
    #[schemars(extend("format" = "date-time"))]
    pub at: String,
    /// Who.
    pub actor: ActorRecord,
    /// What: `{type}.{verb}`, such as `episode.created`, `episode.published`, `podcast.deleted`,
    /// `member.invited`, `token.revoked`.
    pub action: String,
    /// To what.
    pub object: ActivityObjectRecord,
}

/// A change as the API shows it.
pub fn activity(a: &Activity) -> ActivityRecord {
    ActivityRecord {
        at: a.at.to_string(),
        actor: actor(&a.actor),
        action: a.action.clone(),
        object: ActivityObjectRecord {
            kind: a.object.kind.clone(),
            id: a.object.id.clone(),
            feed_id: a.object.feed.as_ref().map(|f| f.to_string()),
        },
    }
}
