//! Accounts and their API tokens.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::{
    ids::{AccountId, TokenId},
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
}

/// A token just created: the only moment its secret is known.
#[derive(Clone, Debug)]
pub struct NewToken {
    /// The stored token.
    pub token: Token,
    /// The bearer secret; show it once, it cannot be recovered.
    pub secret: String,
}
