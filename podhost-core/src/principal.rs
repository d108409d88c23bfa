//! The caller of an operation: an account, the member acting in it, and what they may do.

use std::collections::BTreeSet;

use crate::{
    error::{Error, Result},
    ids::{AccountId, ClientId, FeedId, Login, MemberId, TokenId},
    model::{Actor, Member, Role, Via},
    scope::Scopes,
};

/// Who is calling: made only by the core ([`Access::authenticate`](crate::Access::authenticate)
/// for a bearer token, [`Access::session`](crate::Access::session) for the site,
/// [`Access::owner`](crate::Access::owner) for operators and embedding applications).
/// Every operation checks it: its scopes (a token's, never more than its member's role), its
/// role's capabilities and the podcasts it may touch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    account: AccountId,
    scopes: Scopes,
    token: Option<TokenId>,
    member: Option<Acting>,
    via: Via,
    client: Option<ClientId>,
}

/// The member a principal acts as, as the account held them when it was made.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Acting {
    id: MemberId,
    login: Login,
    role: Role,
    feeds: Option<BTreeSet<FeedId>>,
}

impl Principal {
    /// A member acting through a token (or the site): `scopes` limited by the member's role.
    pub(crate) fn member(
        account: AccountId,
        member: &Member,
        scopes: &Scopes,
        via: Via,
        token: Option<TokenId>,
        client: Option<ClientId>,
    ) -> Self {
        Principal {
            account,
            scopes: scopes.intersect(&crate::authorization::role_scopes(member.role)),
            token,
            member: Some(Acting {
                id: member.id.clone(),
                login: member.login.clone(),
                role: member.role,
                feeds: member.feeds.clone(),
            }),
            via,
            client,
        }
    }

    pub(crate) fn owner(account: AccountId) -> Self {
        Principal {
            account,
            scopes: Scopes::all(),
            token: None,
            member: None,
            via: Via::Cli,
            client: None,
        }
    }

    /// Acts as the member of `other` (an operator making a token for a member).
    pub(crate) fn set_member_of(&mut self, other: &Principal) {
        self.member = other.member.clone();
    }

    /// podhost itself, acting for an account (jobs, schedules): every scope.
    pub(crate) fn podhost(account: AccountId) -> Self {
        Principal {
            via: Via::Podhost,
            ..Principal::owner(account)
        }
    }

    /// The same caller with every scope (for an operation that does more on its behalf than
    /// its own scope names, such as an import); its role and podcasts still hold.
    pub(crate) fn with_every_scope(&self) -> Principal {
        Principal {
            scopes: Scopes::all(),
            ..self.clone()
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

    /// The member acting (none for operators, embedding applications and podhost itself).
    pub fn member_id(&self) -> Option<&MemberId> {
        self.member.as_ref().map(|m| &m.id)
    }

    /// The acting member's role; operators act as owners.
    pub fn role(&self) -> Role {
        self.member.as_ref().map_or(Role::Owner, |m| m.role)
    }

    /// Who this is, as a log entry records it.
    pub fn actor(&self) -> Actor {
        Actor {
            member: self.member.as_ref().map(|m| m.id.clone()),
            login: self.member.as_ref().map(|m| m.login.clone()),
            via: self.via,
            token: self.token.clone(),
            client: self.client.clone(),
        }
    }

    /// Whether the caller may touch podcast `feed` (a member restricted to some podcasts sees
    /// the others as absent).
    pub fn sees(&self, feed: &FeedId) -> bool {
        self.member
            .as_ref()
            .and_then(|m| m.feeds.as_ref())
            .is_none_or(|feeds| feeds.contains(feed))
    }

    /// The podcasts the caller is restricted to (none: all of the account's).
    pub fn feeds(&self) -> Option<&BTreeSet<FeedId>> {
        self.member.as_ref().and_then(|m| m.feeds.as_ref())
    }

    /// Whether the caller may touch every podcast of the account.
    pub fn sees_all(&self) -> bool {
        self.member.as_ref().is_none_or(|m| m.feeds.is_none())
    }

    /// What the caller holds, and so the most it may grant: its role, its scopes and its
    /// podcasts as it was made ([`Reach`](crate::authorization::Reach)).
    pub fn reach(&self) -> crate::authorization::Reach {
        crate::authorization::Reach {
            role: self.role(),
            scopes: self.scopes.clone(),
            feeds: self.feeds().cloned(),
        }
    }

    /// `NotFound` for a podcast the caller may not touch, as for another account's.
    pub fn require_feed(&self, feed: &FeedId) -> Result<()> {
        if self.sees(feed) {
            Ok(())
        } else {
            Err(Error::not_found("feed", feed))
        }
    }
}

/// The one authorization decision, asked the same way by every service (the table is
/// [`crate::authorization`]).
impl Principal {
    /// `Forbidden` unless the caller may do `action`: its scopes must allow the action's scope
    /// (the refusal names the scope) and its role must be among the action's (the refusal names
    /// the role and the action).
    pub fn authorize(&self, action: crate::authorization::Action) -> Result<()> {
        let scope = action.scope();
        if !self.scopes().allows(scope) {
            return Err(Error::missing_scope(scope));
        }
        let role = self.role();
        if !action.allowed_to(role) {
            return Err(Error::Forbidden {
                message: format!("the role {role} may not {}", action.describe()),
            });
        }
        Ok(())
    }

    /// Whether the caller may do `action` (a site shows only what its caller may do).
    pub fn may(&self, action: crate::authorization::Action) -> bool {
        self.authorize(action).is_ok()
    }
}
