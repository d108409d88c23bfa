//! Who may act as whom, over random histories of a team: invitations by random members (through
//! the site or a token of fewer scopes), invitations accepted by whoever holds the link, role
//! and podcast changes (of others and of oneself), removals, sign-ins by random people with
//! their own passwords, and accounts an operator makes later, with or without a password, on
//! logins people may have made already.
//!
//! Two rules are checked after every step against a plain model, not against the core's own
//! [`Reach`](podhost_core::authorization::Reach):
//! - **no member ever holds or grants more than the one who granted it**: every invitation
//!   and every widening change the core accepts was within the caller's reach as the account
//!   held it then (the actions of its role, the scopes of its token, its podcasts), every
//!   member changed or removed was one whose role and podcasts the caller covers, and every
//!   such call that the core refused with 403 is a failure too (the rule must not be a wall);
//! - **a login is never reached by anyone but its holder**: a login belongs to the person who
//!   made it first (accepting an invitation with their password, or an operator giving the
//!   account's founder theirs); every session a sign-in or an accepted invitation opens is a
//!   member that person holds, and every member a login reaches (the accounts its password
//!   opens, the site's switch included) is held by that one person.
//!
//! [`history`] is the strategy, [`check_history`] runs one and names the first violation;
//! the testkit's `tests/teams.rs` runs it as a proptest that shrinks a failing history.

use std::collections::{BTreeMap, BTreeSet};

use podhost_core::{
    AccountId, Action, Error, FeedId, MemberId, PodcastHost, Principal, Scope, Scopes,
    authorization::role_scopes,
    model::{MemberPatch, MemberStatus, NewFeed, NewMember, Role},
};
use proptest::prelude::*;

/// People in the world, each with a password of their own.
pub const PEOPLE: usize = 3;
/// The logins a history uses; the first is the account that exists from the start, whose
/// founder is person 0.
pub const LOGINS: [&str; 4] = ["acme", "beta", "ann", "bob"];
/// The podcasts of the first account.
pub const PODCASTS: [&str; 2] = ["p0", "p1"];

/// One step. Indexes pick among what exists when the step runs (modulo its count); a step
/// with nothing to pick from does nothing.
#[derive(Clone, Debug)]
pub enum Step {
    /// A caller invites a login with a role and podcasts (none: all).
    Invite {
        /// Which caller.
        by: usize,
        /// Which login.
        login: usize,
        /// The role.
        role: Role,
        /// The podcasts, by index (none: all).
        feeds: Option<Vec<usize>>,
    },
    /// A person opens an invitation's link and accepts it with their own password.
    Accept {
        /// Which invitation (of those made so far).
        invitation: usize,
        /// Who.
        person: usize,
    },
    /// A caller changes a member's role or podcasts (possibly their own).
    Change {
        /// Which caller.
        by: usize,
        /// Which member of the caller's account (themselves included).
        member: usize,
        /// A new role.
        role: Option<Role>,
        /// New podcasts (`Some(None)`: all).
        feeds: Option<Option<Vec<usize>>>,
    },
    /// A caller removes a member.
    Remove {
        /// Which caller.
        by: usize,
        /// Which member of the caller's account.
        member: usize,
    },
    /// A person signs in as a login with their own password.
    SignIn {
        /// Who.
        person: usize,
        /// As which login.
        login: usize,
    },
    /// A caller makes a token of some scopes, which then acts as a caller of its own.
    Token {
        /// Which caller.
        by: usize,
        /// The scopes, as a mask over [`Scope::ALL`].
        scopes: u32,
    },
    /// An operator makes an account of a login's name (`podhost user create`).
    CreateAccount {
        /// Which login (never the first account's).
        login: usize,
        /// Whose password its founder gets (`--password-stdin`); none: no password.
        password: Option<usize>,
        /// Made for the person who holds the login already (`--existing-person`).
        for_person: bool,
    },
}

fn role() -> impl Strategy<Value = Role> {
    prop::sample::select(Role::ALL.to_vec())
}

fn podcasts() -> impl Strategy<Value = Option<Vec<usize>>> {
    prop::option::weighted(0.6, prop::collection::vec(0..PODCASTS.len(), 0..=2))
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (any::<usize>(), 0..LOGINS.len(), role(), podcasts())
            .prop_map(|(by, login, role, feeds)| Step::Invite { by, login, role, feeds }),
        4 => (any::<usize>(), 0..PEOPLE)
            .prop_map(|(invitation, person)| Step::Accept { invitation, person }),
        3 => (any::<usize>(), any::<usize>(), prop::option::of(role()), prop::option::of(podcasts()))
            .prop_map(|(by, member, role, feeds)| Step::Change { by, member, role, feeds }),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(by, member)| Step::Remove { by, member }),
        3 => (0..PEOPLE, 0..LOGINS.len()).prop_map(|(person, login)| Step::SignIn { person, login }),
        2 => (any::<usize>(), any::<u32>()).prop_map(|(by, scopes)| Step::Token { by, scopes }),
        2 => (1..LOGINS.len(), prop::option::of(0..PEOPLE), any::<bool>())
            .prop_map(|(login, password, for_person)| Step::CreateAccount {
                login,
                password: password.filter(|_| !for_person),
                for_person,
            }),
    ]
}

/// Histories of up to `max` steps.
pub fn history(max: usize) -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(step(), 1..=max)
}

fn password(person: usize) -> String {
    format!("the password of person {person}")
}

/// What a caller holds, in the model's own terms.
#[derive(Clone, Debug)]
struct Held {
    role: Role,
    scopes: Scopes,
    feeds: Option<BTreeSet<FeedId>>,
}

impl Held {
    fn of(role: Role, feeds: Option<BTreeSet<FeedId>>) -> Held {
        Held {
            role,
            scopes: role_scopes(role),
            feeds,
        }
    }

    /// What may be granted: every right of `other`'s role is this role's, every scope this
    /// one's, every podcast.
    fn covers(&self, other: &Held) -> bool {
        self.manages_one(other) && self.scopes.covers(&other.scopes)
    }

    /// Who may be changed or removed: every right of `other`'s role is this role's, every
    /// podcast (taking away grants nothing, so a token's scopes do not bound it).
    fn manages_one(&self, other: &Held) -> bool {
        let role = Action::ALL
            .iter()
            .all(|a| !a.allowed_to(other.role) || a.allowed_to(self.role));
        let feeds = match (&self.feeds, &other.feeds) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(mine), Some(theirs)) => theirs.is_subset(mine),
        };
        role && feeds
    }

    /// Whether the table lets this caller manage members at all.
    fn manages(&self) -> bool {
        Action::ManageMembers.allowed_to(self.role) && self.scopes.allows(Scope::Members)
    }
}

impl std::fmt::Display for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let feeds = match &self.feeds {
            None => "every podcast".to_string(),
            Some(feeds) if feeds.is_empty() => "no podcast".to_string(),
            Some(feeds) => feeds
                .iter()
                .map(FeedId::as_str)
                .collect::<Vec<_>>()
                .join(", "),
        };
        write!(
            f,
            "{} with the scopes {} on {feeds}",
            self.role, self.scopes
        )
    }
}

/// Who holds a login or a member in the model, in words.
fn holder_name(holder: Option<usize>) -> String {
    holder.map_or_else(|| "no one".to_string(), |p| format!("person {p}"))
}

/// A caller a history acts through.
#[derive(Clone, Debug)]
enum Caller {
    /// The operator (the command line), as an account's owner.
    Operator(AccountId),
    /// A signed-in session's cookie.
    Session(String),
    /// A token's secret, with the scopes it was made with.
    Token(String, Scopes),
}

/// An invitation made, its link's secret, the account and the login.
#[derive(Clone, Debug)]
struct Invitation {
    secret: String,
    account: AccountId,
    login: String,
}

/// The model: who holds each login, who holds each member, the callers and invitations.
struct Model {
    /// The person who made each login first.
    logins: BTreeMap<String, usize>,
    /// The person who holds each member (none: no one can sign in as it yet).
    members: BTreeMap<(AccountId, MemberId), Option<usize>>,
    callers: Vec<Caller>,
    invitations: Vec<Invitation>,
    accounts: Vec<AccountId>,
}

fn feed_set(indexes: &[usize]) -> BTreeSet<FeedId> {
    indexes
        .iter()
        .map(|i| PODCASTS[i % PODCASTS.len()].parse().expect("a feed id"))
        .collect()
}

impl Model {
    /// The principal of a caller now, and what it holds as the account holds it now (its
    /// member's role and podcasts, its token's scopes within that role). None when it can no
    /// longer act (signed out by a removal, a revoked token).
    async fn act(&self, host: &PodcastHost, caller: &Caller) -> Option<(Principal, Held)> {
        let who = match caller {
            Caller::Operator(account) => host.access().owner(account).await.ok()?,
            Caller::Session(cookie) => host.access().session(cookie).await.ok()?.0,
            Caller::Token(secret, _) => host.access().authenticate(secret).await.ok()?,
        };
        let Some(id) = who.member_id() else {
            return Some((
                who,
                Held {
                    role: Role::Owner,
                    scopes: Scopes::all(),
                    feeds: None,
                },
            ));
        };
        let operator = host.access().owner(who.account()).await.ok()?;
        let me = host.access().get_member(&operator, id).await.ok()?;
        let mut held = Held::of(me.role, me.feeds.clone());
        if let Caller::Token(_, scopes) = caller {
            held.scopes = scopes.intersect(&held.scopes);
        }
        Some((who, held))
    }
}

/// The configuration of a history's host: [`test_config`](crate::test_config) with sessions
/// that outlive the history (each step is 16 minutes of its clock).
pub fn config() -> podhost_core::HostConfig {
    let mut config = crate::test_config();
    config.sessions.idle = std::time::Duration::from_secs(7 * 24 * 3600);
    config.sessions.absolute = std::time::Duration::from_secs(7 * 24 * 3600);
    config
}

impl Model {
    /// The caller picked by `by` acting now, and the member of its account picked by
    /// `member` (none when either is not there).
    async fn caller_and_member(
        &self,
        host: &PodcastHost,
        by: usize,
        member: usize,
    ) -> Option<(Principal, Held, podhost_core::model::Member)> {
        let caller = self.callers.get(by % self.callers.len().max(1))?.clone();
        let (who, held) = self.act(host, &caller).await?;
        let mut members = members_of(host, who.account()).await;
        if members.is_empty() {
            return None;
        }
        let picked = members.swap_remove(member % members.len());
        Some((who, held, picked))
    }
}

/// Runs one history on `host` (a fresh store, made with [`config`]) and names the first step
/// that broke a rule.
pub async fn check_history(
    host: &PodcastHost,
    clock: &podhost_core::ManualClock,
    steps: &[Step],
) -> Result<(), String> {
    let acme: AccountId = LOGINS[0].parse().expect("an account name");
    host.access()
        .create_account(acme.as_str())
        .await
        .map_err(|e| format!("setup: {e}"))?;
    host.access()
        .set_password(&acme, Some(&password(0)))
        .await
        .map_err(|e| format!("setup: {e}"))?;
    let operator = host.access().owner(&acme).await.expect("the operator");
    for feed in PODCASTS {
        host.podcasts()
            .create_feed(&operator, NewFeed::titled(feed, feed))
            .await
            .map_err(|e| format!("setup: {e}"))?;
    }
    let mut model = Model {
        logins: BTreeMap::from([(LOGINS[0].to_string(), 0)]),
        members: BTreeMap::from([((acme.clone(), MemberId::founder(&acme)), Some(0))]),
        callers: vec![Caller::Operator(acme.clone())],
        invitations: Vec::new(),
        accounts: vec![acme],
    };
    for (n, step) in steps.iter().enumerate() {
        // Sixteen minutes a step: a failed sign-in's back-off (at most 15 minutes) is over,
        // invitations still hold (a history lasts under 7 days).
        clock.advance(jiff::SignedDuration::from_mins(16));
        run_step(host, &mut model, step)
            .await
            .map_err(|e| format!("step {n} ({step:?}): {e}"))?;
    }
    Ok(())
}

/// The members of `account`, oldest first, as its operator lists them.
async fn members_of(host: &PodcastHost, account: &AccountId) -> Vec<podhost_core::model::Member> {
    let operator = host.access().owner(account).await.expect("the operator");
    host.access()
        .list_members(&operator)
        .await
        .expect("the members")
        .into_iter()
        .map(|m| m.member)
        .collect()
}

/// A 403 the model says should not be, or a success it says should not be.
fn judge<T>(
    what: &str,
    allowed: bool,
    result: &Result<T, Error>,
    caller: &Held,
) -> Result<(), String> {
    match result {
        Ok(_) if !allowed => Err(format!(
            "{what} was done by a caller holding {caller}, which does not cover it"
        )),
        Err(Error::Forbidden { message }) if allowed => Err(format!(
            "{what} was refused though the caller's reach ({caller}) covers it: {message}"
        )),
        _ => Ok(()),
    }
}

async fn run_step(host: &PodcastHost, model: &mut Model, step: &Step) -> Result<(), String> {
    let pick = |i: usize, n: usize| (n > 0).then(|| i % n);
    match step {
        Step::Invite {
            by,
            login,
            role,
            feeds,
        } => {
            let Some(c) = pick(*by, model.callers.len()) else {
                return Ok(());
            };
            let Some((who, held)) = model.act(host, &model.callers[c].clone()).await else {
                return Ok(());
            };
            let login = LOGINS[*login].to_string();
            let feeds = feeds.as_deref().map(feed_set);
            let target = Held::of(*role, feeds.clone());
            let before = members_of(host, who.account()).await;
            let again = before.iter().find(|m| m.login.as_str() == login);
            let allowed = held.manages()
                && held.covers(&target)
                && again.is_none_or(|m| held.manages_one(&Held::of(m.role, m.feeds.clone())));
            let result = host
                .access()
                .invite_member(
                    &who,
                    NewMember {
                        login: login.clone(),
                        name: String::new(),
                        role: *role,
                        feeds: feeds.map(|f| f.into_iter().collect()),
                    },
                )
                .await;
            judge(
                &format!("inviting {login} as {role}"),
                allowed,
                &result,
                &held,
            )?;
            if let Ok(invited) = result {
                let secret = invited
                    .invitation_url
                    .rsplit('/')
                    .next()
                    .expect("a secret")
                    .to_string();
                model.invitations.push(Invitation {
                    secret,
                    account: who.account().clone(),
                    login,
                });
            }
        }
        Step::Accept { invitation, person } => {
            let Some(i) = pick(*invitation, model.invitations.len()) else {
                return Ok(());
            };
            let invitation = model.invitations[i].clone();
            let result = host
                .access()
                .accept_invitation(&invitation.secret, &password(*person), None, "192.0.2.1")
                .await;
            if let Ok(signed_in) = result {
                let holder = model.logins.get(&invitation.login).copied();
                if holder.is_some_and(|h| h != *person) {
                    return Err(format!(
                        "person {person} joined as {}, a login person {} made first",
                        invitation.login,
                        holder.unwrap_or_default()
                    ));
                }
                model.logins.insert(invitation.login.clone(), *person);
                let member = signed_in.session.member.clone().expect("a member");
                model
                    .members
                    .insert((invitation.account.clone(), member), Some(*person));
                model.callers.push(Caller::Session(signed_in.cookie));
            }
        }
        Step::Change {
            by,
            member,
            role,
            feeds,
        } => {
            let Some((who, held, before)) = model.caller_and_member(host, *by, *member).await
            else {
                return Ok(());
            };
            let before = &before;
            let mut after = Held::of(before.role, before.feeds.clone());
            if let Some(role) = role {
                after = Held::of(*role, after.feeds);
            }
            let new_feeds = feeds
                .as_ref()
                .map(|f| f.as_deref().map(feed_set).map(|s| s.into_iter().collect()));
            if let Some(f) = &new_feeds {
                after.feeds = f
                    .as_ref()
                    .map(|f: &Vec<FeedId>| f.iter().cloned().collect());
            }
            // Narrowing a member grants nothing; anything wider is a grant.
            let was = Held::of(before.role, before.feeds.clone());
            let allowed = held.manages()
                && held.manages_one(&was)
                && (was.covers(&after) || held.covers(&after));
            let result = host
                .access()
                .update_member(
                    &who,
                    &before.id,
                    &MemberPatch {
                        name: None,
                        role: *role,
                        feeds: new_feeds,
                    },
                )
                .await;
            judge(
                &format!("changing {} into {after}", before.login),
                allowed,
                &result,
                &held,
            )?;
        }
        Step::Remove { by, member } => {
            let Some((who, held, target)) = model.caller_and_member(host, *by, *member).await
            else {
                return Ok(());
            };
            let target = &target;
            let allowed =
                held.manages() && held.manages_one(&Held::of(target.role, target.feeds.clone()));
            let result = host.access().remove_member(&who, &target.id).await;
            judge(
                &format!("removing {}", target.login),
                allowed,
                &result,
                &held,
            )?;
        }
        Step::SignIn { person, login } => {
            let login = LOGINS[*login];
            let result = host
                .access()
                .sign_in(login, &password(*person), "192.0.2.2")
                .await;
            if let Ok(signed_in) = result {
                let account = signed_in.session.account.clone();
                let member = signed_in
                    .session
                    .member
                    .clone()
                    .unwrap_or_else(|| MemberId::founder(&account));
                let holder = model.members.get(&(account.clone(), member.clone()));
                if holder != Some(&Some(*person)) {
                    return Err(format!(
                        "person {person} signed in as {login} and acts as {member} of {account}, \
                         which the model says is held by {}",
                        holder
                            .map_or_else(|| "no member it knows".to_string(), |h| holder_name(*h))
                    ));
                }
                model.callers.push(Caller::Session(signed_in.cookie));
            }
        }
        Step::Token { by, scopes } => {
            let Some(c) = pick(*by, model.callers.len()) else {
                return Ok(());
            };
            let Some((who, _)) = model.act(host, &model.callers[c].clone()).await else {
                return Ok(());
            };
            if who.member_id().is_none() {
                return Ok(());
            }
            let scopes: Scopes = Scope::ALL
                .into_iter()
                .enumerate()
                .filter(|(i, _)| scopes & (1 << i) != 0)
                .map(|(_, s)| s)
                .collect();
            if let Ok(token) = host
                .access()
                .create_token(&who, "by a history", scopes.clone())
                .await
            {
                model.callers.push(Caller::Token(token.secret, scopes));
            }
        }
        Step::CreateAccount {
            login,
            password: given,
            for_person,
        } => {
            let name = LOGINS[*login];
            let made = match for_person {
                true => host.access().create_account_for_person(name).await,
                false => host.access().create_account(name).await,
            };
            let Ok(account) = made else {
                return Ok(());
            };
            let holder = model.logins.get(name).copied();
            let founder = (account.id.clone(), MemberId::founder(&account.id));
            match (holder, for_person, given) {
                // Made for the person who holds the login: theirs.
                (Some(holder), true, _) => {
                    model.members.insert(founder, Some(holder));
                }
                (Some(holder), false, _) => {
                    return Err(format!(
                        "the account {name} was made for someone new, though person {holder} \
                         holds the login {name} already"
                    ));
                }
                (None, _, Some(person)) => {
                    host.access()
                        .set_password(&account.id, Some(&password(*person)))
                        .await
                        .map_err(|e| format!("setting the founder's password: {e}"))?;
                    model.logins.insert(name.to_string(), *person);
                    model.members.insert(founder, Some(*person));
                }
                (None, _, None) => {
                    model.members.insert(founder, None);
                }
            }
            model.accounts.push(account.id.clone());
            model.callers.push(Caller::Operator(account.id));
        }
    }
    // Every active member of every account is one the model knows.
    for account in &model.accounts {
        for member in members_of(host, account).await {
            let key = (account.clone(), member.id.clone());
            if member.status == MemberStatus::Active && !model.members.contains_key(&key) {
                return Err(format!(
                    "{} of {account} is active, but no one the model knows joined as it",
                    member.login
                ));
            }
        }
    }
    // Every member a login reaches (what its password opens, the site's switch included) is
    // held by one person, the one who made the login first; a login no one made reaches only
    // members no one holds yet.
    for login in LOGINS {
        let parsed = podhost_core::Login::new(login).expect("a login");
        let reached = host
            .access()
            .person_accounts(&parsed)
            .await
            .map_err(|e| format!("the accounts of {login}: {e}"))?;
        let maker = model.logins.get(login).copied();
        for (account, member) in reached {
            let held = model.members.get(&(account.clone(), member.id.clone()));
            if held != Some(&maker) {
                return Err(format!(
                    "the login {login} (made first by {}) reaches {} of {account}, which the \
                     model says is held by {}",
                    holder_name(maker),
                    member.id,
                    held.map_or_else(|| "no member it knows".to_string(), |h| holder_name(*h))
                ));
            }
        }
    }
    Ok(())
}
