//! Accounts, their API tokens, and the OAuth clients and grants of the key-management site.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::{
    ids::{AccountId, ClientId, GrantId, TokenId},
    scope::Scopes,
};

/// An account: the owner of media, feeds, episodes and tokens.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Account {
    /// Its name, which is also its id.
    pub id: AccountId,
    /// When it was created.
    pub created: Timestamp,
}

/// An API token as stored: never the secret, only its SHA-256.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Token {
    /// The public id, used to list and revoke it.
    pub id: TokenId,
    /// What the owner wrote to recognise it.
    pub label: String,
    /// What it allows.
    pub scopes: Scopes,
    /// When it was created.
    pub created: Timestamp,
    /// When it was revoked; a revoked token authenticates nothing.
    pub revoked: Option<Timestamp>,
    /// Hex SHA-256 of the secret.
    pub(crate) secret_sha256: String,
    /// When it stops working by itself (OAuth access tokens); personal tokens do not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<Timestamp>,
    /// The OAuth grant it was issued under (none for a personal token).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant: Option<GrantId>,
    /// The member who made it, whom it acts as (none: the account's founder, for tokens made
    /// before members).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub member: Option<crate::ids::MemberId>,
}

impl Token {
    /// Whether it authenticates at `now`: not revoked, not expired.
    pub fn is_live(&self, now: Timestamp) -> bool {
        self.revoked.is_none() && self.expires.is_none_or(|e| now < e)
    }
}

/// A personal token as its account's list shows it: the token and when it was last used (to
/// the minute; none when never).
#[derive(Clone, Debug, PartialEq)]
pub struct ListedToken {
    /// The token.
    pub token: Token,
    /// When it last authenticated a request.
    pub last_used: Option<Timestamp>,
}

/// A token just created: the only moment its secret is known.
#[derive(Clone, Debug)]
pub struct NewToken {
    /// The stored token.
    pub token: Token,
    /// The bearer secret; show it once, it cannot be recovered.
    pub secret: String,
}

/// An OAuth client an account registered on the key-management site: an application that asks
/// users for access to their accounts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OAuthClient {
    /// Its public id, `client_id` in OAuth.
    pub id: ClientId,
    /// Its name, shown to users on the consent page.
    pub name: String,
    /// Where it may be sent back to, exactly (no pattern, no prefix).
    pub redirect_uris: Vec<String>,
    /// Whether it keeps a secret (a server) or cannot (an app in a browser or on a phone).
    pub confidential: bool,
    /// The scopes it may ask for.
    pub scopes: Scopes,
    /// When it was registered.
    pub created: Timestamp,
    /// Hex SHA-256 of its secret (confidential clients).
    pub(crate) secret_sha256: Option<String>,
}

/// A client just registered: the only moment a confidential client's secret is known.
#[derive(Clone, Debug)]
pub struct NewOAuthClient {
    /// The stored client.
    pub client: OAuthClient,
    /// Its secret (confidential clients); show it once.
    pub secret: Option<String>,
}

/// What an account allowed an OAuth client to do: the scopes it consented to, until revoked.
/// Its tokens are refreshed with a refresh token that changes at every use.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Grant {
    /// Its id.
    pub id: GrantId,
    /// The client.
    pub client: ClientId,
    /// The client's name when the grant was given.
    pub client_name: String,
    /// The scopes allowed.
    pub scopes: Scopes,
    /// When it was given.
    pub created: Timestamp,
    /// When it was revoked (by the user, or because a spent refresh token came back).
    pub revoked: Option<Timestamp>,
    /// Hex SHA-256 of the current refresh token.
    pub(crate) refresh_sha256: String,
    /// Hex SHA-256 of refresh tokens already exchanged (the newest last): one coming back means
    /// it was stolen, and the grant is revoked.
    #[serde(default)]
    pub(crate) spent: Vec<String>,
    /// The member who gave it (none: the account's founder, for grants given before members).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub member: Option<crate::ids::MemberId>,
}
