//! The caller of an operation: an account and what it may do.

use crate::{
    error::{Error, Result},
    ids::{AccountId, TokenId},
    scope::{Scope, Scopes},
};

/// Who is calling: made only by [`PodcastHost::authenticate`](crate::PodcastHost::authenticate)
/// (a bearer token) or [`PodcastHost::owner`](crate::PodcastHost::owner) (the account's owner,
/// for operators and embedding applications). Every operation checks it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    account: AccountId,
    scopes: Scopes,
    token: Option<TokenId>,
}

impl Principal {
    pub(crate) fn token(account: AccountId, scopes: Scopes, token: TokenId) -> Self {
        Principal {
            account,
            scopes,
            token: Some(token),
        }
    }

    pub(crate) fn owner(account: AccountId) -> Self {
        Principal {
            account,
            scopes: Scopes::all(),
            token: None,
        }
    }

    /// The account acted for.
    pub fn account(&self) -> &AccountId {
        &self.account
    }

    /// What the caller may do.
    pub fn scopes(&self) -> &Scopes {
        &self.scopes
    }

    /// The token used, when the caller authenticated with one.
    pub fn token_id(&self) -> Option<&TokenId> {
        self.token.as_ref()
    }

    /// `Forbidden` unless the caller has a scope that allows `scope`.
    pub fn require(&self, scope: Scope) -> Result<()> {
        if self.scopes.allows(scope) {
            Ok(())
        } else {
            Err(Error::missing_scope(scope))
        }
    }
}
