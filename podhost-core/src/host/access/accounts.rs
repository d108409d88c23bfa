//! Accounts and tokens: creating, listing, revoking, authenticating.

use super::Access;
use crate::lock::Locked;
use object_store::{ObjectStoreExt, PutPayload, path::Path};
use subtle::ConstantTimeEq;

use super::signin::LoginHolder;
use crate::host::{
    PodcastHost, claims,
    secrets::{random_secret, sha256_hex},
};
use crate::{
    authorization::Action,
    catalog::Catalog,
    error::{Error, Result},
    ids::{AccountId, MemberId, TokenId},
    model::{Account, NewToken, Token},
    principal::Principal,
    scope::Scopes,
    state::Change,
    store::layout,
};

/// Secrets look like `phk_<16 characters of the token id>_<43 characters of base64url>`.
const SECRET_PREFIX: &str = "phk_";

fn token_claim_path(id: &TokenId) -> Path {
    layout::token_claim(id)
}

impl PodcastHost {
    /// A new token of `account` (not yet committed): its id claimed deployment-wide, its
    /// secret, and the record holding only the secret's hash.
    pub(crate) async fn mint_token(
        &self,
        account: &AccountId,
        label: &str,
        scopes: Scopes,
        expires: Option<jiff::Timestamp>,
        grant: Option<crate::ids::GrantId>,
        member: Option<MemberId>,
    ) -> Result<NewToken> {
        // The claim maps the token id to the account, so a secret finds its account without a
        // deployment-wide index of secrets. Ids are random: a taken one is drawn again.
        let mut id = TokenId::random();
        while &claims::claim(self.store(), &token_claim_path(&id), account).await? != account {
            id = TokenId::random();
        }
        let secret = format!("{SECRET_PREFIX}{}_{}", &id.as_str()[4..], random_secret());
        let token = Token {
            id,
            label: label.to_string(),
            scopes,
            created: self.now(),
            revoked: None,
            secret_sha256: sha256_hex(&secret),
            expires,
            grant,
            member,
        };
        Ok(NewToken { token, secret })
    }
}

impl Access<'_> {
    /// Creates an account. Operator-level: the embedding application decides who may call it.
    /// Its founder signs in with the login of the account's name, so that login is claimed for
    /// it: `Conflict` when the name is taken, or when a person holds that login already (they
    /// joined another account by an invitation; the sentence says who, and
    /// [`create_account_for_person`](Self::create_account_for_person) makes it theirs on
    /// purpose). A login belongs to whoever made it first.
    pub async fn create_account(self, name: &str) -> Result<Account> {
        self.create_account_claiming(name, false).await
    }

    /// Creates an account for the person who holds the login of its name already (one who
    /// joined another account by an invitation): they are its owner and sign in to it with
    /// their own password. For a login no one holds, the same as
    /// [`create_account`](Self::create_account). Operator-level.
    pub async fn create_account_for_person(self, name: &str) -> Result<Account> {
        self.create_account_claiming(name, true).await
    }

    /// Who holds the login `name` with a password of their own (none: no one), for an operator
    /// deciding whether to make an account of that name. Operator-level.
    pub async fn login_holder(self, name: &str) -> Result<Option<LoginHolder>> {
        let login = crate::ids::Login::new(name)?;
        self.host.login_holder(&login).await
    }

    async fn create_account_claiming(self, name: &str, for_holder: bool) -> Result<Account> {
        let id = AccountId::new(name)?;
        // The first account of a new store: it is made at the newest format.
        self.host.prepare_new_store().await?;
        let exists = || Error::conflict(format!("the account {id} exists already"));
        if self.host.existing_catalog(&id).await?.is_some() {
            return Err(exists());
        }
        let login = crate::ids::Login::new(id.as_str())?;
        // The founder's login, claimed before the account is made (put-if-absent: an
        // invitation accepted at the same moment either made it first, and is refused here,
        // or finds it taken). A record without a password was made by an operator's command
        // and is no one's to keep.
        let claimed = self.host.claim_person(&login, None, None).await?;
        if !claimed
            && !for_holder
            && let Some(holder) = self.host.login_holder(&login).await?
        {
            return Err(Error::conflict(format!(
                "{holder}. An account {id} would be theirs to sign in to: choose another name, or make it for them on purpose"
            )));
        }
        let account = Account {
            id: id.clone(),
            created: self.host.now(),
        };
        let catalog = Catalog::create(
            self.host.store().clone(),
            PodcastHost::account_root(&id),
            self.host.config().catalog.clone(),
            account.created,
            vec![Change::AccountCreated(account.clone())],
        )
        .await
        .map_err(|e| match e {
            Error::Conflict { .. } => exists(),
            other => other,
        });
        let catalog = match catalog {
            Ok(catalog) => catalog,
            Err(e) => {
                // Made by another at the same moment: the login claimed here was not ours to
                // keep.
                if claimed {
                    let _ =
                        crate::store::delete_quietly(self.host.store(), &layout::person(&login))
                            .await;
                }
                return Err(e);
            }
        };
        let cell = self.host.inner.kernel.accounts.cell(&id);
        let catalog = std::sync::Arc::new(self.host.inner.kernel.hooked(self.host, &id, catalog));
        let weight = catalog.weight();
        if cell.set(catalog).is_ok() && self.host.inner.kernel.accounts.weighed(&id, &cell, weight)
        {
            self.host
                .metrics()
                .catalogs(self.host.inner.kernel.accounts.held());
        }
        Ok(account)
    }

    /// The accounts of the deployment, by name. Operator-level.
    pub async fn list_accounts(self) -> Result<Vec<Account>> {
        let listed = self
            .host
            .store()
            .list_with_delimiter(Some(&layout::accounts()))
            .await?;
        let mut accounts = Vec::new();
        for prefix in listed.common_prefixes {
            let Some(id) = layout::account_of(&prefix) else {
                continue;
            };
            match self.host.catalog(&id).await {
                Ok(catalog) => {
                    if let Some(account) = catalog.read(|s| s.account.clone()).await {
                        accounts.push(account);
                    }
                }
                // A folder with blobs but no log (an upload cut off before the account was
                // created cannot happen, but a stranger's folder can): not an account.
                Err(Error::NotFound { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        accounts.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(accounts)
    }

    /// The owner of an account, with every scope: for operators (the CLI) and embedding
    /// applications that authenticate users themselves. `NotFound` for an unknown account.
    pub async fn owner(self, account: &AccountId) -> Result<Principal> {
        self.host.catalog(account).await?;
        Ok(Principal::owner(account.clone()))
    }

    /// Creates a personal token for the caller's account (scope `tokens`; a token may only make
    /// tokens with scopes it has itself). The secret is in the answer and nowhere else.
    pub async fn create_token(
        self,
        who: &Principal,
        label: &str,
        scopes: Scopes,
    ) -> Result<NewToken> {
        who.authorize(Action::ManageTokens)?;
        let mut errors = crate::error::FieldErrors::default();
        crate::host::user_text::check_line(&mut errors, "label", label);
        if scopes.is_empty() {
            errors.add("scopes", "a token needs at least one scope");
        }
        errors.into_result()?;
        if !who.scopes().covers(&scopes) {
            return Err(Error::Forbidden {
                message: format!(
                    "a token with the scopes {} cannot make one with more",
                    who.scopes()
                ),
            });
        }
        let catalog = self.host.catalog(who.account()).await?;
        let new = self
            .host
            .mint_token(
                who.account(),
                label,
                scopes,
                None,
                None,
                who.member_id().cloned(),
            )
            .await?;
        let stored = new.token.clone();
        catalog
            .commit(self.host.now(), &who.actor(), move |_| {
                Ok((vec![Change::TokenPut(stored.clone())], ()))
            })
            .await?;
        Ok(new)
    }

    /// Creates a personal token for member `login` of `account`, acting as them (its scopes
    /// limited by their role at every use). Operator-level (`podhost token create --member`).
    pub async fn create_member_token(
        self,
        account: &AccountId,
        login: &str,
        label: &str,
        scopes: Scopes,
    ) -> Result<NewToken> {
        let catalog = self.host.catalog(account).await?;
        let login = crate::ids::Login::new(login)?;
        let member = catalog
            .read(|s| s.members.values().find(|m| m.login == login).cloned())
            .await
            .ok_or_else(|| Error::not_found("member", &login))?;
        let who = Principal::member(
            account.clone(),
            &member,
            &Scopes::all(),
            crate::model::Via::Cli,
            None,
            None,
        );
        let mut acting = Principal::owner(account.clone());
        acting.set_member_of(&who);
        self.host
            .access()
            .create_token(&acting, label, scopes)
            .await
    }

    /// The caller's account's personal tokens (revoked ones included), oldest first, with when
    /// each was last used (to the minute; scope `tokens`). OAuth access tokens are the grants'.
    pub async fn list_tokens(self, who: &Principal) -> Result<Vec<crate::model::ListedToken>> {
        who.authorize(Action::ManageTokens)?;
        let catalog = self.host.catalog(who.account()).await?;
        let mut tokens = catalog
            .read(|s| {
                s.tokens
                    .values()
                    .filter(|t| t.grant.is_none() && sees_token(who, t))
                    .cloned()
                    .collect::<Vec<_>>()
            })
            .await;
        tokens.sort_by(|a, b| a.created.cmp(&b.created).then(a.id.cmp(&b.id)));
        let used = noted_at_each(
            self.host,
            tokens
                .iter()
                .map(|t| layout::token_used(who.account(), &t.id)),
        )
        .await?;
        Ok(tokens
            .into_iter()
            .zip(used)
            .map(|(token, last_used)| crate::model::ListedToken { token, last_used })
            .collect())
    }

    /// Revokes a token of the caller's account (scope `tokens`). Revoking twice is not an
    /// error.
    pub async fn revoke_token(self, who: &Principal, id: &TokenId) -> Result<Token> {
        who.authorize(Action::ManageTokens)?;
        let catalog = self.host.catalog(who.account()).await?;
        let now = self.host.now();
        catalog
            .commit(now, &who.actor(), |state| {
                let mut token = state
                    .tokens
                    .get(id)
                    .filter(|t| sees_token(who, t))
                    .cloned()
                    .ok_or_else(|| Error::not_found("token", id))?;
                if token.revoked.is_some() {
                    return Ok((vec![], token));
                }
                token.revoked = Some(now);
                Ok((vec![Change::TokenPut(token.clone())], token))
            })
            .await
    }

    /// Revokes a token by id alone, whatever its account. Operator-level (the CLI).
    pub async fn revoke_token_by_id(self, id: &TokenId) -> Result<Token> {
        let account = claims::read_claim(self.host.store(), &token_claim_path(id))
            .await?
            .ok_or_else(|| Error::not_found("token", id))?;
        let owner = self.host.access().owner(&account).await?;
        self.host.access().revoke_token(&owner, id).await
    }

    /// Turns a bearer secret into its principal. `Unauthenticated` for a malformed, unknown or
    /// revoked secret; the comparison takes the same time whatever the secret.
    pub async fn authenticate(self, secret: &str) -> Result<Principal> {
        let id = parse_secret(secret).ok_or(Error::Unauthenticated)?;
        let cached = self
            .host
            .inner
            .access
            .token_accounts
            .locked()
            .get(id.as_str())
            .cloned();
        let account = match cached {
            Some(account) => account,
            None => {
                let account = claims::read_claim(self.host.store(), &token_claim_path(&id))
                    .await?
                    .ok_or(Error::Unauthenticated)?;
                // Claims never change, so the mapping can be kept.
                self.host
                    .inner
                    .access
                    .token_accounts
                    .locked()
                    .insert(id.as_str().to_string(), account.clone());
                account
            }
        };
        let catalog = match self.host.catalog(&account).await {
            Ok(catalog) => catalog,
            Err(Error::NotFound { .. }) => return Err(Error::Unauthenticated),
            Err(e) => return Err(e),
        };
        let digest = sha256_hex(secret);
        let now = self.host.now();
        // A token unknown here may have been made a moment ago by the CLI or another server:
        // the store is looked at again (paced per account) before it is refused.
        let found = catalog
            .read_some(NEW_TOKEN_PACE, |s| {
                let token = s.tokens.get(&id)?;
                Some(live_token(s, &account, token, now))
            })
            .await
            .flatten();
        match found {
            Some((token, member, client))
                if bool::from(token.secret_sha256.as_bytes().ct_eq(digest.as_bytes())) =>
            {
                if token.grant.is_none() {
                    self.host
                        .note_now(&self.host.inner.access.token_uses, &token.id, || {
                            layout::token_used(&account, &token.id)
                        })
                        .await;
                }
                self.host
                    .note_now(&self.host.inner.access.members_seen, &member.id, || {
                        layout::member_seen(&account, &member.id)
                    })
                    .await;
                let via = match client {
                    Some(_) => crate::model::Via::Oauth,
                    None => crate::model::Via::Token,
                };
                Ok(Principal::member(
                    account,
                    &member,
                    &token.scopes,
                    via,
                    Some(token.id),
                    client,
                ))
            }
            _ => Err(Error::Unauthenticated),
        }
    }
}

impl PodcastHost {
    /// Whether this process has already found the account of `secret`'s token id (so checking
    /// it needs no store access).
    pub(crate) fn knows_token(&self, secret: &str) -> bool {
        parse_secret(secret).is_some_and(|id| {
            self.inner
                .access
                .token_accounts
                .locked()
                .contains_key(id.as_str())
        })
    }
}

/// How often, at most, an unknown token sends its account's catalog back to the store.
const NEW_TOKEN_PACE: std::time::Duration = std::time::Duration::from_millis(250);

/// What a live token authenticates as in `state`: the token, the member it acts as, and its
/// OAuth client; `None` when it is expired, revoked, or its member is not active.
fn live_token(
    s: &crate::state::AccountState,
    account: &AccountId,
    token: &crate::model::Token,
    now: jiff::Timestamp,
) -> Option<(
    crate::model::Token,
    crate::model::Member,
    Option<crate::ids::ClientId>,
)> {
    // A grant's tokens end with the grant.
    let grant = match &token.grant {
        Some(g) => Some(s.grants.get(g).filter(|g| g.revoked.is_none())?),
        None => None,
    };
    if !token.is_live(now) {
        return None;
    }
    // It acts as the member who made it, as the account holds them now: a member
    // removed (or not yet joined) authenticates nothing.
    let member = grant
        .map_or(token.member.as_ref(), |g| g.member.as_ref())
        .cloned()
        .unwrap_or_else(|| MemberId::founder(account));
    let member = s
        .members
        .get(&member)
        .filter(|m| m.status == crate::model::MemberStatus::Active)?;
    Some((
        token.clone(),
        member.clone(),
        grant.map(|g| g.client.clone()),
    ))
}

/// Whether `who` may see and revoke personal token `token`: owners and admins every one of the
/// account, other members their own.
fn sees_token(who: &Principal, token: &crate::model::Token) -> bool {
    who.may(crate::authorization::Action::ManageAccountTokens)
        || who.member_id() == token.member.as_ref()
}

/// How often a token's last use is written down (at most once per this, per process).
const USE_RESOLUTION: std::time::Duration = std::time::Duration::from_secs(60);

impl PodcastHost {
    /// Writes `{"at": now}` at `path()` (a token's or a member's last use), unless this process
    /// noted `key` in `noted` in the last minute: a request that finds it noted allocates
    /// nothing. Never fails a request: a store error is logged.
    pub(crate) async fn note_now<K: std::hash::Hash + Eq + Clone>(
        &self,
        noted: &std::sync::Mutex<std::collections::HashMap<K, jiff::Timestamp>>,
        key: &K,
        path: impl FnOnce() -> object_store::path::Path,
    ) {
        let now = self.now();
        {
            let mut noted = noted.locked();
            if noted.get(key).is_some_and(|at: &jiff::Timestamp| {
                now.duration_since(*at)
                    < jiff::SignedDuration::try_from(USE_RESOLUTION).unwrap_or_default()
            }) {
                return;
            }
            noted.insert(key.clone(), now);
        }
        let path = path();
        let body = serde_json::json!({ "at": now });
        if let Err(e) = self
            .store()
            .put(&path, PutPayload::from(body.to_string().into_bytes()))
            .await
        {
            tracing::warn!(%path, error = %e, "could not write down a use");
        }
    }
}

/// When each use was last written down at `paths`, in their order: read a few at a time.
pub(crate) async fn noted_at_each(
    host: &PodcastHost,
    paths: impl Iterator<Item = object_store::path::Path>,
) -> Result<Vec<Option<jiff::Timestamp>>> {
    use futures::{StreamExt, TryStreamExt};
    // Each read owns what it reads (a borrowing closure would make the future not `Send` for
    // every lifetime, which the server's handlers need).
    async fn read(
        host: PodcastHost,
        path: object_store::path::Path,
    ) -> Result<Option<jiff::Timestamp>> {
        noted_at(&host, &path).await
    }
    let reads: Vec<_> = paths.map(|path| read(host.clone(), path)).collect();
    futures::stream::iter(reads)
        .buffered(NOTES_AT_ONCE)
        .try_collect()
        .await
}

/// How many notes of last use [`noted_at_each`] reads at once.
const NOTES_AT_ONCE: usize = 16;

/// When a use was last written down at `path` ([`PodcastHost::note_now`]).
pub(crate) async fn noted_at(
    host: &PodcastHost,
    path: &object_store::path::Path,
) -> Result<Option<jiff::Timestamp>> {
    #[derive(serde::Deserialize)]
    struct Noted {
        at: jiff::Timestamp,
    }
    Ok(crate::store::get_json::<Noted>(host.store(), path)
        .await?
        .map(|n| n.at))
}

fn parse_secret(secret: &str) -> Option<TokenId> {
    let rest = secret.trim().strip_prefix(SECRET_PREFIX)?;
    let (id_tail, random) = (rest.get(..16)?, rest.get(16..)?);
    let random = random.strip_prefix('_')?;
    if random.len() != 43 {
        return None;
    }
    format!("tok_{id_tail}").parse().ok()
}
