//! Signing in to the key-management site: account passwords (Argon2id), sessions kept in the
//! store (so that signing out holds on every process within a second), and the throttling of
//! failed attempts (sign-in per account and per address, bearer tokens per address), also in
//! the store, so that no process is a way around it.

use super::Access;
use crate::lock::Locked;
use std::time::Duration;

use argon2::{
    Algorithm, Argon2, Params, Version,
    password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString},
};
use jiff::{SignedDuration, Timestamp};
use object_store::{ObjectStoreExt, PutPayload};
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

use crate::host::{
    PodcastHost,
    secrets::{random_secret, sha256_hex},
};
use crate::{
    error::{Error, FieldErrors, Result},
    ids::{AccountId, Login, SessionId},
    model::{Member, MemberStatus, Session, SignedIn},
    principal::Principal,
    store::{delete_quietly, get_json, layout},
};

/// Passwords are at least this long (OWASP: 8 without other rules) and at most this long
/// (Argon2 takes any length; this bounds the work a request can cause).
const PASSWORD_CHARS: std::ops::RangeInclusive<usize> = 8..=1024;

/// OWASP's Argon2id parameters: 19 MiB of memory, 2 passes, 1 lane.
fn argon2() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).unwrap_or_default();
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// A hash of a password no one has, checked when the account is unknown so that the answer
/// takes as long as for a wrong password.
fn dummy_hash() -> &'static str {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY.get_or_init(|| hash_password("not the password of anyone").unwrap_or_default())
}

/// A person: who signs in, with a password, into the accounts they are a member of.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Person {
    login: Login,
    #[serde(default)]
    name: String,
    /// The password's Argon2id PHC string; none: the person cannot sign in.
    hash: Option<String>,
    created: Timestamp,
}

/// The person who holds a login: what an operator is told before an account of that name is
/// made ([`Access::create_account`] refuses it, [`Access::create_account_for_person`] makes it
/// theirs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoginHolder {
    /// The login.
    pub login: Login,
    /// When they made it (joined podhost by an invitation, or were given a password).
    pub since: Timestamp,
    /// The accounts they are an active member of, with their role there.
    pub accounts: Vec<(AccountId, crate::model::Role)>,
}

impl std::fmt::Display for LoginHolder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let day = self.since.strftime("%Y-%m-%d");
        write!(
            f,
            "the login {} is a person's already: they set its password on {day}",
            self.login
        )?;
        match self.accounts.as_slice() {
            [] => write!(f, " and are a member of no account"),
            accounts => {
                let list: Vec<String> = accounts
                    .iter()
                    .map(|(account, role)| format!("{account} ({role})"))
                    .collect();
                write!(f, " and are a member of {}", list.join(", "))
            }
        }
    }
}

/// Hashes a password after checking its length (off the async workers).
async fn hash_checked(password: &str) -> Result<String> {
    let chars = password.chars().count();
    if !PASSWORD_CHARS.contains(&chars) {
        let mut errors = FieldErrors::default();
        errors.add(
            "password",
            format!(
                "{} to {} characters; this has {chars}",
                PASSWORD_CHARS.start(),
                PASSWORD_CHARS.end()
            ),
        );
        return Err(Error::Invalid(errors));
    }
    let password = password.to_string();
    tokio::task::spawn_blocking(move || hash_password(&password))
        .await
        .map_err(|e| Error::storage(format!("hashing a password: {e}")))?
}

fn hash_password(password: &str) -> Result<String> {
    let salt = SaltString::encode_b64(&rand::random::<[u8; 16]>())
        .map_err(|e| Error::storage(format!("a salt: {e}")))?;
    argon2()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|e| Error::storage(format!("hashing a password: {e}")))
}

fn verify_password(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| {
        argon2()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok()
    })
}

/// Failures of one kind from one key (an account, an address) and when they may try again.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Failures {
    count: u32,
    last: Timestamp,
    until: Timestamp,
}

/// What is throttled.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Throttle {
    /// Signing in as one account.
    Account,
    /// Signing in from one address.
    SignInAddress,
    /// Bearer tokens from one address.
    TokenAddress,
}

impl Throttle {
    fn name(self) -> &'static str {
        match self {
            Throttle::Account => "account",
            Throttle::SignInAddress => "sign-in-address",
            Throttle::TokenAddress => "token-address",
        }
    }

    /// Failures that cost nothing (typos happen; a token may be pasted wrong).
    fn free(self) -> u32 {
        match self {
            Throttle::TokenAddress => 10,
            _ => 3,
        }
    }
}

/// The wait after `count` failures: none for the free ones, then 1, 2, 4, … seconds, at most
/// 15 minutes.
pub(crate) fn backoff(kind: Throttle, count: u32) -> Duration {
    let over = count.saturating_sub(kind.free());
    if over == 0 {
        return Duration::ZERO;
    }
    Duration::from_secs(1u64 << (over - 1).min(10)).min(Duration::from_secs(15 * 60))
}

/// Failures older than this are forgotten.
const FORGET: SignedDuration = SignedDuration::from_hours(1);

impl PodcastHost {
    fn throttle_path(kind: Throttle, key: &str) -> object_store::path::Path {
        // Hashed: addresses are not kept as they are.
        layout::throttle(kind.name(), &sha256_hex(key))
    }

    /// `Throttled` while `key` must wait after its failures.
    pub(crate) async fn check_throttle(&self, kind: Throttle, key: &str) -> Result<()> {
        let now = self.now();
        let failures: Option<Failures> =
            get_json(self.store(), &Self::throttle_path(kind, key)).await?;
        match failures {
            Some(f) if f.until > now && now.duration_since(f.last) < FORGET => {
                Err(Error::Throttled {
                    retry_after: f.until.duration_since(now).try_into().unwrap_or_default(),
                })
            }
            _ => Ok(()),
        }
    }

    /// Counts a failure of `key`; returns the failures as now stored.
    pub(crate) async fn fail_throttle(&self, kind: Throttle, key: &str) -> Result<Failures> {
        let now = self.now();
        let path = Self::throttle_path(kind, key);
        let before: Failures = get_json(self.store(), &path).await?.unwrap_or_default();
        let count = match now.duration_since(before.last) < FORGET {
            true => before.count + 1,
            false => 1,
        };
        let wait = SignedDuration::try_from(backoff(kind, count)).unwrap_or_default();
        let failures = Failures {
            count,
            last: now,
            until: now + wait,
        };
        let body = serde_json::to_vec(&failures).map_err(|e| Error::storage(e.to_string()))?;
        self.store().put(&path, PutPayload::from(body)).await?;
        Ok(failures)
    }

    /// Whether `address` is one of [`HostConfig::throttle_exempt`](crate::HostConfig).
    fn exempt(&self, address: &str) -> bool {
        let exempt = &self.config().throttle_exempt;
        !exempt.is_empty()
            && address
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| exempt.iter().any(|net| net.contains(&ip)))
    }

    /// Forgets the failures of `key` (it succeeded).
    pub(crate) async fn clear_throttle(&self, kind: Throttle, key: &str) -> Result<()> {
        delete_quietly(self.store(), &Self::throttle_path(kind, key)).await
    }

    /// Writes a person's record, replacing what was there: their password's hash (none: they
    /// cannot sign in) and name. Only the operator's own command does this
    /// ([`Access::set_password`]); a person new to podhost claims their login with
    /// [`claim_person`](Self::claim_person).
    pub(crate) async fn put_person(
        &self,
        login: &Login,
        password: Option<&str>,
        name: Option<&str>,
    ) -> Result<()> {
        let body = self.person_body(login, password, name).await?;
        self.store()
            .put(&layout::person(login), PutPayload::from(body))
            .await?;
        Ok(())
    }

    /// Claims a login for a person new to podhost, with put-if-absent: whoever makes a login
    /// first holds it. `false` when someone holds it already (nothing is written).
    pub(crate) async fn claim_person(
        &self,
        login: &Login,
        password: Option<&str>,
        name: Option<&str>,
    ) -> Result<bool> {
        let body = self.person_body(login, password, name).await?;
        let create = object_store::PutOptions {
            mode: object_store::PutMode::Create,
            ..Default::default()
        };
        match self
            .store()
            .put_opts(&layout::person(login), PutPayload::from(body), create)
            .await
        {
            Ok(_) => Ok(true),
            Err(object_store::Error::AlreadyExists { .. }) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    async fn person_body(
        &self,
        login: &Login,
        password: Option<&str>,
        name: Option<&str>,
    ) -> Result<Vec<u8>> {
        let hash = match password {
            Some(password) => Some(hash_checked(password).await?),
            None => None,
        };
        let person = Person {
            login: login.clone(),
            name: name.map(|n| n.trim().to_string()).unwrap_or_default(),
            hash,
            created: self.now(),
        };
        serde_json::to_vec(&person).map_err(|e| Error::storage(e.to_string()))
    }

    /// The person who holds `login` with a password of their own, if any: when they made it
    /// and the accounts they are an active member of. A login whose record has no password
    /// (an account's founder before an operator set one) is held by no one who can sign in.
    pub(crate) async fn login_holder(&self, login: &Login) -> Result<Option<LoginHolder>> {
        let Some(person) = get_json::<Person>(self.store(), &layout::person(login)).await? else {
            return Ok(None);
        };
        if person.hash.is_none() {
            return Ok(None);
        }
        let accounts = self
            .access()
            .person_accounts(login)
            .await?
            .into_iter()
            .map(|(account, member)| (account, member.role))
            .collect();
        Ok(Some(LoginHolder {
            login: login.clone(),
            since: person.created,
            accounts,
        }))
    }

    /// The hash of a person's password: their record's, or, for a login no person has yet, the
    /// password an account of that name had before podhost knew people (its founder's).
    pub(crate) async fn person_hash(&self, login: &Login) -> Result<Option<String>> {
        if let Some(person) = get_json::<Person>(self.store(), &layout::person(login)).await? {
            return Ok(person.hash);
        }
        let Ok(account) = AccountId::new(login.as_str()) else {
            return Ok(None);
        };
        Ok(match self.existing_catalog(&account).await? {
            Some(catalog) => catalog.read(|s| s.password.clone()).await,
            None => None,
        })
    }

    /// Whether `login` names an account whose founder has no password: a person record without
    /// one, or an account of that name from before podhost knew people.
    pub(crate) async fn login_is_founder_without_password(&self, login: &Login) -> Result<bool> {
        if self.person_hash(login).await?.is_some() {
            return Ok(false);
        }
        if get_json::<Person>(self.store(), &layout::person(login))
            .await?
            .is_some()
        {
            return Ok(true);
        }
        let Ok(account) = AccountId::new(login.as_str()) else {
            return Ok(false);
        };
        Ok(self.existing_catalog(&account).await?.is_some())
    }

    /// Checks a person's password from `address`, throttled per login and per address. The
    /// same `Unauthenticated` answers an unknown login, one without a password and a wrong
    /// password, after the same work.
    pub(crate) async fn check_person_password(
        &self,
        login: &Login,
        password: &str,
        address: &str,
    ) -> Result<()> {
        let exempt = self.exempt(address);
        if !exempt {
            self.check_throttle(Throttle::SignInAddress, address)
                .await?;
        }
        self.check_throttle(Throttle::Account, login.as_str())
            .await?;
        let hash = self.person_hash(login).await?;
        let known = hash.is_some();
        let hash = hash.unwrap_or_else(|| dummy_hash().to_string());
        let given = password
            .chars()
            .take(*PASSWORD_CHARS.end() + 1)
            .collect::<String>();
        let matches = tokio::task::spawn_blocking(move || verify_password(&given, &hash))
            .await
            .map_err(|e| Error::storage(format!("checking a password: {e}")))?;
        if !(known && matches) {
            if !exempt {
                self.fail_throttle(Throttle::SignInAddress, address).await?;
            }
            self.fail_throttle(Throttle::Account, login.as_str())
                .await?;
            return Err(Error::Unauthenticated);
        }
        self.clear_throttle(Throttle::Account, login.as_str()).await
    }

    /// Writes down that a person joined an account (their list of accounts to switch between).
    pub(crate) async fn note_membership(&self, login: &Login, account: &AccountId) -> Result<()> {
        self.store()
            .put(
                &layout::person_account(login, account),
                PutPayload::from_static(b"{}"),
            )
            .await?;
        Ok(())
    }

    /// Forgets that a person is in an account; a store error is logged (the account's catalog
    /// decides membership, the list only offers it).
    pub(crate) async fn forget_membership(&self, login: &Login, account: &AccountId) {
        if let Err(e) = delete_quietly(self.store(), &layout::person_account(login, account)).await
        {
            tracing::warn!(%login, %account, error = %e, "could not forget a membership");
        }
    }

    /// A new session of `member` in `account`.
    pub(crate) async fn begin_session(
        &self,
        account: &AccountId,
        member: &Member,
    ) -> Result<SignedIn> {
        let now = self.now();
        let secret = random_secret();
        let id = SessionId::random();
        let session = Session {
            id: id.clone(),
            account: account.clone(),
            member: Some(member.id.clone()),
            login: Some(member.login.clone()),
            csrf: random_secret(),
            created: now,
            last_seen: now,
            secret_sha256: sha256_hex(&secret),
        };
        self.put_session(&session).await?;
        Ok(SignedIn {
            cookie: format!("{id}_{secret}"),
            session,
        })
    }

    async fn put_session(&self, session: &Session) -> Result<()> {
        let body = serde_json::to_vec(session).map_err(|e| Error::storage(e.to_string()))?;
        self.store()
            .put(&layout::session(&session.id), PutPayload::from(body))
            .await?;
        Ok(())
    }

    /// A session as stored, read again when this process's copy is older than a second.
    async fn read_session(&self, id: &SessionId) -> Result<Option<Session>> {
        let cached = self
            .inner
            .access
            .sessions
            .locked()
            .get(id)
            .filter(|(at, _)| at.elapsed() < SESSION_FRESHNESS)
            .map(|(_, s)| s.clone());
        if cached.is_some() {
            return Ok(cached);
        }
        let read: Option<Session> = get_json(self.store(), &layout::session(id)).await?;
        let mut sessions = self.inner.access.sessions.locked();
        if sessions.len() > 10_000 {
            sessions.retain(|_, (at, _)| at.elapsed() < SESSION_FRESHNESS);
        }
        match &read {
            Some(session) => {
                sessions.insert(id.clone(), (std::time::Instant::now(), session.clone()));
            }
            None => {
                sessions.remove(id);
            }
        }
        Ok(read)
    }

    async fn end_session(&self, id: &SessionId) -> Result<()> {
        self.inner.access.sessions.locked().remove(id);
        delete_quietly(self.store(), &layout::session(id)).await
    }
}

impl Access<'_> {
    /// [`authenticate`](Self::authenticate) for a request from `address`, with failed attempts
    /// from one address throttled: after 10 free failures, `Throttled` with an exponential
    /// back-off. While an address waits, only tokens this process has already seen are checked
    /// (in memory, so a guesser costs the store nothing); a valid one still works, so that one
    /// misbehaving client behind a shared address does not lock out the others; any other
    /// secret is `Throttled` unchecked. Valid requests cost no store access: a process learns
    /// that an address is throttled when it sees one of its failures, so across processes each
    /// one may let a single attempt through per back-off period.
    pub async fn authenticate_from(self, secret: &str, address: &str) -> Result<Principal> {
        if self.host.exempt(address) {
            return self.host.access().authenticate(secret).await;
        }
        let now = self.host.now();
        let waiting = self
            .host
            .inner
            .access
            .throttled
            .locked()
            .get(address)
            .copied()
            .filter(|until| *until > now);
        if let Some(until) = waiting {
            if self.host.knows_token(secret)
                && let Ok(who) = self.host.access().authenticate(secret).await
            {
                return Ok(who);
            }
            return Err(Error::Throttled {
                retry_after: until.duration_since(now).try_into().unwrap_or_default(),
            });
        }
        match self.host.access().authenticate(secret).await {
            Err(Error::Unauthenticated) => {
                let kind = Throttle::TokenAddress;
                let throttled = self.host.check_throttle(kind, address).await;
                let failures = self.host.fail_throttle(kind, address).await?;
                let mut throttled_map = self.host.inner.access.throttled.locked();
                if throttled_map.len() > 100_000 {
                    throttled_map.retain(|_, until| *until > now);
                }
                if failures.until > now {
                    throttled_map.insert(address.to_string(), failures.until);
                }
                throttled?;
                Err(Error::Unauthenticated)
            }
            other => other,
        }
    }

    /// Sets (or with `None` removes) the password of an account's founding owner, the person
    /// whose login is the account's name. Operator-level (`podhost user passwd`). `Invalid`
    /// for a password shorter than 8 or longer than 1,024 characters.
    pub async fn set_password(self, account: &AccountId, password: Option<&str>) -> Result<()> {
        self.host.catalog(account).await?;
        let login = Login::new(account.as_str())?;
        self.host.put_person(&login, password, None).await?;
        self.host.note_membership(&login, account).await
    }

    /// The accounts a person is an active member of, with the member they are there, the
    /// account of their own name first.
    pub async fn person_accounts(self, login: &Login) -> Result<Vec<(AccountId, Member)>> {
        let mut names: Vec<AccountId> = self
            .host
            .store()
            .list_with_delimiter(Some(&layout::person_accounts(login)))
            .await?
            .objects
            .iter()
            .filter_map(|o| o.location.filename().and_then(|n| AccountId::new(n).ok()))
            .collect();
        if let Ok(own) = AccountId::new(login.as_str()) {
            names.retain(|n| n != &own);
            names.insert(0, own);
        }
        let mut accounts = Vec::new();
        for account in names {
            let Some(catalog) = self.host.existing_catalog(&account).await? else {
                continue;
            };
            let member = catalog
                .read(|s| {
                    s.members
                        .values()
                        .find(|m| &m.login == login && m.status == MemberStatus::Active)
                        .cloned()
                })
                .await;
            if let Some(member) = member {
                accounts.push((account, member));
            }
        }
        Ok(accounts)
    }

    /// Signs in with a person's login and password from `address` (the client's), into the
    /// first of their accounts (the one of their own name, if any). The same `Unauthenticated`
    /// answers an unknown login, one without a password, a wrong password and a person in no
    /// account, after the same work; `Throttled` after repeated failures of the login or the
    /// address (exponential back-off). Returns the new session and its cookie value.
    pub async fn sign_in(self, name: &str, password: &str, address: &str) -> Result<SignedIn> {
        let login = Login::new(name).ok();
        let checked = match &login {
            Some(login) => {
                self.host
                    .check_person_password(login, password, address)
                    .await
            }
            None => {
                // The same work and the same throttling for a login that cannot be.
                let nobody = Login::new("nobody").unwrap_or_else(|_| unreachable!("a login"));
                let _ = self
                    .host
                    .check_person_password(&nobody, password, address)
                    .await;
                Err(Error::Unauthenticated)
            }
        };
        checked?;
        let login = login.ok_or(Error::Unauthenticated)?;
        let (account, member) = self
            .host
            .access()
            .person_accounts(&login)
            .await?
            .into_iter()
            .next()
            .ok_or(Error::Unauthenticated)?;
        self.host.begin_session(&account, &member).await
    }

    /// Moves a session to another account the person is an active member of (`NotFound`
    /// otherwise, as for an account that does not exist).
    pub async fn switch_account(self, cookie: &str, account: &AccountId) -> Result<Session> {
        let (_, mut session) = self.host.access().session(cookie).await?;
        let login = match &session.login {
            Some(login) => login.clone(),
            None => Login::new(session.account.as_str())?,
        };
        let (_, member) = self
            .host
            .access()
            .person_accounts(&login)
            .await?
            .into_iter()
            .find(|(a, _)| a == account)
            .ok_or_else(|| Error::not_found("account", account))?;
        session.account = account.clone();
        session.member = Some(member.id);
        session.login = Some(login);
        self.host.put_session(&session).await?;
        self.host.inner.access.sessions.locked().remove(&session.id);
        Ok(session)
    }

    /// The session of a cookie value and the account's owner acting in it. `Unauthenticated`
    /// for a value that names no live session: unknown, signed out (on any process, within a
    /// second), idle longer than [`SessionConfig::idle`](crate::SessionConfig::idle) or older than
    /// [`SessionConfig::absolute`](crate::SessionConfig::absolute).
    pub async fn session(self, cookie: &str) -> Result<(Principal, Session)> {
        let (id, secret) = parse_cookie(cookie).ok_or(Error::Unauthenticated)?;
        let now = self.host.now();
        let mut session = self
            .host
            .read_session(&id)
            .await?
            .ok_or(Error::Unauthenticated)?;
        let digest = sha256_hex(secret);
        if !bool::from(session.secret_sha256.as_bytes().ct_eq(digest.as_bytes())) {
            return Err(Error::Unauthenticated);
        }
        let config = &self.host.config().sessions;
        let idle = SignedDuration::try_from(config.idle).unwrap_or_default();
        let absolute = SignedDuration::try_from(config.absolute).unwrap_or_default();
        if now.duration_since(session.last_seen) >= idle
            || now.duration_since(session.created) >= absolute
        {
            let _ = self.host.end_session(&id).await;
            return Err(Error::Unauthenticated);
        }
        if now.duration_since(session.last_seen) >= SignedDuration::from_mins(1) {
            session.last_seen = now;
            self.host.put_session(&session).await?;
            self.host
                .inner
                .access
                .sessions
                .locked()
                .insert(id, (std::time::Instant::now(), session.clone()));
        }
        // The member as the account holds them now: removed or changed, on every server
        // within the catalog's refresh interval.
        let catalog = self
            .host
            .catalog(&session.account)
            .await
            .map_err(|e| match e {
                Error::NotFound { .. } => Error::Unauthenticated,
                other => other,
            })?;
        let member_id = session
            .member
            .clone()
            .unwrap_or_else(|| crate::ids::MemberId::founder(&session.account));
        let member = catalog
            .read(|s| s.members.get(&member_id).cloned())
            .await
            .filter(|m| {
                m.status == MemberStatus::Active
                    && session.login.as_ref().is_none_or(|l| l == &m.login)
            })
            .ok_or(Error::Unauthenticated)?;
        self.host
            .note_now(&self.host.inner.access.members_seen, &member.id, || {
                layout::member_seen(&session.account, &member.id)
            })
            .await;
        let who = Principal::member(
            session.account.clone(),
            &member,
            &crate::scope::Scopes::all(),
            crate::model::Via::Site,
            None,
            None,
        );
        Ok((who, session))
    }

    /// Ends the session of a cookie value (signing out); an unknown one is no error.
    pub async fn sign_out(self, cookie: &str) -> Result<()> {
        match parse_cookie(cookie) {
            Some((id, _)) => self.host.end_session(&id).await,
            None => Ok(()),
        }
    }
}

/// How long a process trusts its copy of a session (signing out elsewhere holds within it).
const SESSION_FRESHNESS: std::time::Duration = std::time::Duration::from_millis(900);

fn parse_cookie(cookie: &str) -> Option<(SessionId, &str)> {
    let cookie = cookie.trim();
    let (id, secret) = cookie.split_at_checked(24)?;
    let secret = secret.strip_prefix('_')?;
    (secret.len() == 43).then_some(())?;
    Some((id.parse().ok()?, secret))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn back_off_doubles_after_the_free_failures_up_to_a_quarter_hour() {
        let waits: Vec<u64> = (1..=6)
            .map(|n| backoff(Throttle::Account, n).as_secs())
            .collect();
        assert_eq!(waits, [0, 0, 0, 1, 2, 4]);
        assert_eq!(backoff(Throttle::Account, 40), Duration::from_secs(900));
        assert_eq!(backoff(Throttle::TokenAddress, 10), Duration::ZERO);
        assert_eq!(backoff(Throttle::TokenAddress, 11), Duration::from_secs(1));
    }

    #[test]
    fn passwords_are_argon2id_with_owasp_parameters() {
        let hash = hash_password("correct horse battery staple").unwrap();
        assert!(
            hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{hash}"
        );
        assert!(verify_password("correct horse battery staple", &hash));
        assert!(!verify_password("correct horse battery stapler", &hash));
        assert!(!verify_password("anything", "not a hash"));
    }

    #[test]
    fn cookies_are_an_id_and_a_secret() {
        let secret = random_secret();
        let id = SessionId::random();
        let cookie = format!("{id}_{secret}");
        let (parsed, s) = parse_cookie(&cookie).unwrap();
        assert_eq!((parsed, s), (id, secret.as_str()));
        assert!(parse_cookie("ses_x_y").is_none());
        assert!(parse_cookie("").is_none());
    }
}
