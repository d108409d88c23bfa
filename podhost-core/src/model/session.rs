//! A signed-in session of the site.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::ids::{AccountId, SessionId};

/// A signed-in session, as the site uses it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// Its id.
    pub id: SessionId,
    /// The account signed in.
    pub account: AccountId,
    /// The member of the account signed in as (none: the account's founder, for sessions
    /// begun before members).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub member: Option<crate::ids::MemberId>,
    /// The person's login (none: the account's founder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub login: Option<crate::ids::Login>,
    /// The token every form of the site carries (a request without it is refused).
    pub csrf: String,
    /// When it began.
    pub created: Timestamp,
    /// When it was last used (to the minute).
    pub last_seen: Timestamp,
    /// Hex SHA-256 of the cookie's secret.
    pub(crate) secret_sha256: String,
}

/// A session just begun: the only moment its cookie value is known.
#[derive(Clone, Debug)]
pub struct SignedIn {
    /// The session.
    pub session: Session,
    /// The cookie's value (`ses_…_…`); it is the session's key.
    pub cookie: String,
}
