//! The members of an account: inviting people with a role, changing and removing them (scope
//! `members`), the invitation a person accepts, and the record of who did what (scope
//! `members-read-only`).

use super::Access;
use std::collections::BTreeSet;

use jiff::{SignedDuration, Timestamp};

use crate::host::{
    PodcastHost, claims,
    secrets::{random_secret, sha256_hex},
    user_text,
};
use crate::{
    authorization::{Action, Reach, role_scopes},
    error::{Error, FieldErrors, Result},
    ids::{AccountId, FeedId, Login, MemberId},
    model::{
        Activity, Invited, ListedMember, Member, MemberPatch, MemberStatus, NewMember, Page,
        PageRequest,
    },
    principal::Principal,
    state::{AccountState, Change},
    store::layout,
};

/// How long an invitation holds.
pub const INVITATION_LIFETIME: SignedDuration = SignedDuration::from_hours(7 * 24);

/// Invitation secrets look like `inv_<16 characters of the member id>_<43 characters>`.
const INVITATION_PREFIX: &str = "inv_";

/// What a list of the activity asks for.
#[derive(Clone, Debug, Default)]
pub struct ActivityQuery {
    /// Only changes to this podcast (and its episodes).
    pub feed: Option<FeedId>,
    /// Only changes at or after this.
    pub from: Option<Timestamp>,
    /// Only changes before this.
    pub to: Option<Timestamp>,
    /// Only changes by this member.
    pub member: Option<MemberId>,
    /// The page.
    pub page: PageRequest,
}

/// An invitation as its page shows it, before it is accepted.
#[derive(Clone, Debug)]
pub struct InvitationView {
    /// The account it is to.
    pub account: AccountId,
    /// The member it makes.
    pub member: Member,
    /// Whether the login is a person's already (they sign in rather than set a password).
    pub known_login: bool,
}

fn member_not_found(id: &MemberId) -> Error {
    Error::not_found("member", id)
}

/// Checks the podcasts of a member: each one of the account's.
fn check_feeds(
    errors: &mut FieldErrors,
    state: &AccountState,
    feeds: &Option<Vec<FeedId>>,
) -> Option<BTreeSet<FeedId>> {
    let feeds = feeds.as_ref()?;
    for feed in feeds {
        if !state.feeds.contains_key(feed) {
            errors.add("feeds", format!("the account has no podcast {feed}"));
        }
    }
    Some(feeds.iter().cloned().collect())
}

/// The caller's reach as the account holds it now, inside a commit: its member's role and
/// podcasts as the state has them (a member narrowed a moment ago holds what they hold now),
/// its token's scopes within that role. An operator (no member) holds everything.
/// `Unauthenticated` for a member no longer active; `Forbidden` for one whose role no longer
/// manages members.
fn caller_reach(who: &Principal, state: &AccountState) -> Result<Reach> {
    let Some(id) = who.member_id() else {
        return Ok(who.reach());
    };
    let member = state
        .members
        .get(id)
        .filter(|m| m.status == MemberStatus::Active)
        .ok_or(Error::Unauthenticated)?;
    let reach = Reach {
        role: member.role,
        scopes: who.scopes().intersect(&role_scopes(member.role)),
        feeds: member.feeds.clone(),
    };
    if !Action::ManageMembers.allowed_to(reach.role) {
        return Err(Error::Forbidden {
            message: format!(
                "the role {} may not {}",
                reach.role,
                Action::ManageMembers.describe()
            ),
        });
    }
    Ok(reach)
}

/// A member's reach: their role, its scopes, their podcasts.
fn member_reach(member: &Member) -> Reach {
    Reach::of_role(member.role, member.feeds.clone())
}

/// `Conflict` when the change leaves the account without an active owner.
fn check_keeps_an_owner(
    state: &AccountState,
    changed: &Member,
    after: Option<&Member>,
) -> Result<()> {
    let was_owner = changed.is_active_owner();
    let stays = after.is_some_and(Member::is_active_owner);
    if was_owner && !stays && state.active_owners() <= 1 {
        return Err(Error::conflict(
            "an account keeps at least one owner: make another member owner first",
        ));
    }
    Ok(())
}

/// The changes that remove member `id`'s tokens and grants with them.
fn revoke_credentials(state: &AccountState, id: &MemberId, now: Timestamp) -> Vec<Change> {
    let founder_tokens = state
        .account
        .as_ref()
        .is_some_and(|a| &MemberId::founder(&a.id) == id);
    let theirs = |member: &Option<MemberId>| match member {
        Some(m) => m == id,
        None => founder_tokens,
    };
    let mut changes = Vec::new();
    for grant in state.grants.values() {
        if grant.revoked.is_none() && theirs(&grant.member) {
            let mut grant = grant.clone();
            grant.revoked = Some(now);
            changes.push(Change::GrantPut(grant));
        }
    }
    for token in state.tokens.values() {
        if token.revoked.is_none() && token.grant.is_none() && theirs(&token.member) {
            let mut token = token.clone();
            token.revoked = Some(now);
            changes.push(Change::TokenPut(token));
        }
    }
    changes
}

impl PodcastHost {
    async fn pending_invitation(&self, secret: &str) -> Result<(AccountId, Member)> {
        let gone = || Error::not_found("invitation", "(this link)");
        let id = parse_invitation(secret).ok_or_else(gone)?;
        let account = claims::read_claim(self.store(), &layout::member_claim(&id))
            .await?
            .ok_or_else(gone)?;
        let catalog = self.existing_catalog(&account).await?.ok_or_else(gone)?;
        let digest = sha256_hex(secret.trim());
        let now = self.now();
        let member = catalog
            .read_found(|s| {
                s.members
                    .get(&id)
                    .filter(|m| {
                        m.invitation.as_ref().is_some_and(|i| {
                            i.expires > now
                                && bool::from(subtle::ConstantTimeEq::ct_eq(
                                    i.secret_sha256.as_bytes(),
                                    digest.as_bytes(),
                                ))
                        })
                    })
                    .cloned()
                    .ok_or_else(gone)
            })
            .await?;
        Ok((account, member))
    }
}

impl Access<'_> {
    /// The account's members, oldest first, each with when they last acted (scope
    /// `members-read-only`).
    pub async fn list_members(self, who: &Principal) -> Result<Vec<ListedMember>> {
        who.authorize(Action::ReadMembers)?;
        let catalog = self.host.catalog(who.account()).await?;
        let mut members: Vec<Member> = catalog
            .read(|s| s.members.values().cloned().collect())
            .await;
        members.sort_by(|a, b| a.created.cmp(&b.created).then(a.id.cmp(&b.id)));
        let seen = crate::host::access::accounts::noted_at_each(
            self.host,
            members
                .iter()
                .map(|m| layout::member_seen(who.account(), &m.id)),
        )
        .await?;
        Ok(members
            .into_iter()
            .zip(seen)
            .map(|(member, last_seen)| ListedMember { member, last_seen })
            .collect())
    }

    /// One member (scope `members-read-only`).
    pub async fn get_member(self, who: &Principal, id: &MemberId) -> Result<Member> {
        who.authorize(Action::ReadMembers)?;
        let catalog = self.host.catalog(who.account()).await?;
        catalog
            .read_found(|s| {
                s.members
                    .get(id)
                    .cloned()
                    .ok_or_else(|| member_not_found(id))
            })
            .await
    }

    /// When a member of the caller's account last acted (to the minute; none when never since
    /// podhost kept it; scope `members-read-only`).
    pub async fn member_last_seen(
        self,
        who: &Principal,
        id: &MemberId,
    ) -> Result<Option<Timestamp>> {
        who.authorize(Action::ReadMembers)?;
        crate::host::access::accounts::noted_at(self.host, &layout::member_seen(who.account(), id))
            .await
    }

    /// Invites a person to the account with a role (scope `members`): the caller grants no more
    /// than they hold ([`Reach`]: a role whose rights are theirs, scopes their token has,
    /// podcasts they may touch; so only an owner invites an owner). Answers the member, status
    /// `invited`, and the URL of the invitation (one use, 7 days), which is shown here and
    /// nowhere else. Inviting a login invited before makes a new invitation of the same member
    /// (the old link stops working); `Conflict` when the login is an active member already.
    pub async fn invite_member(self, who: &Principal, new: NewMember) -> Result<Invited> {
        who.authorize(Action::ManageMembers)?;
        let mut errors = FieldErrors::default();
        let login = match Login::new(&new.login) {
            Ok(login) => Some(login),
            Err(_) => {
                errors.add(
                    "login",
                    "a login is a lowercase name (letters, digits, '-' or '_') or an e-mail address",
                );
                None
            }
        };
        user_text::check_line(&mut errors, "name", &new.name);
        errors.into_result()?;
        let login = login.unwrap_or_else(|| unreachable!("checked above"));
        let catalog = self.host.catalog(who.account()).await?;
        // The member id is claimed deployment-wide: the invitation's secret carries it and finds
        // the account through the claim.
        let mut id = MemberId::random();
        while &claims::claim(self.host.store(), &layout::member_claim(&id), who.account()).await?
            != who.account()
        {
            id = MemberId::random();
        }
        let random = random_secret();
        let secret_of =
            |id: &MemberId| format!("{INVITATION_PREFIX}{}_{random}", &id.as_str()[4..]);
        let now = self.host.now();
        let name = match new.name.trim() {
            "" => login.to_string(),
            name => name.to_string(),
        };
        let member = catalog
            .commit(now, &who.actor(), |state| {
                let mut errors = FieldErrors::default();
                let feeds = check_feeds(&mut errors, state, &new.feeds);
                errors.into_result()?;
                let mine = caller_reach(who, state)?;
                mine.may_grant(
                    &Reach::of_role(new.role, feeds.clone()),
                    &format!("you may not invite {login} as {}", new.role),
                )?;
                // Invited again (a lost or expired link): the same member, a new invitation
                // (the old link stops working). A member who joined is one already.
                let again = match state.members.values().find(|m| m.login == login) {
                    Some(m) if m.status == MemberStatus::Active => {
                        return Err(Error::conflict(format!(
                            "{login} is a member of the account already"
                        )));
                    }
                    Some(m) => {
                        mine.may_manage(
                            &member_reach(m),
                            &format!("you may not replace the invitation of {login}"),
                        )?;
                        Some(m)
                    }
                    None => None,
                };
                let id = again.map_or_else(|| id.clone(), |m| m.id.clone());
                let secret = secret_of(&id);
                let member = Member {
                    id,
                    login: login.clone(),
                    name: name.clone(),
                    role: new.role,
                    feeds,
                    status: MemberStatus::Invited,
                    created: again.map_or(now, |m| m.created),
                    invitation: Some(crate::model::Invitation {
                        secret_sha256: sha256_hex(&secret),
                        expires: now + INVITATION_LIFETIME,
                    }),
                };
                Ok((vec![Change::MemberPut(member.clone())], member))
            })
            .await?;
        // The secret is never in the log, not even as a keyed request's value.
        let secret = secret_of(&member.id);
        Ok(Invited {
            member,
            invitation_url: self.host.urls().invitation(&secret),
        })
    }

    /// Changes a member's name, role or podcasts (scope `members`): the caller changes only a
    /// member whose role and podcasts they cover, and widens one (themselves included) only
    /// into a reach they cover; narrowing grants nothing ([`Reach`]; so only an owner makes,
    /// changes or demotes an owner). `Conflict` when it would leave no active owner.
    pub async fn update_member(
        self,
        who: &Principal,
        id: &MemberId,
        patch: &MemberPatch,
    ) -> Result<Member> {
        who.authorize(Action::ManageMembers)?;
        let mut errors = FieldErrors::default();
        if let Some(name) = &patch.name {
            user_text::check_line(&mut errors, "name", name);
            if name.trim().is_empty() {
                errors.add("name", "a name is required");
            }
        }
        errors.into_result()?;
        let catalog = self.host.catalog(who.account()).await?;
        catalog
            .commit(self.host.now(), &who.actor(), |state| {
                let before = state.members.get(id).ok_or_else(|| member_not_found(id))?;
                let mine = caller_reach(who, state)?;
                mine.may_manage(
                    &member_reach(before),
                    &format!("you may not change {}", before.login),
                )?;
                let mut member = before.clone();
                let mut errors = FieldErrors::default();
                if let Some(feeds) = &patch.feeds {
                    member.feeds = check_feeds(&mut errors, state, feeds);
                }
                errors.into_result()?;
                if let Some(name) = &patch.name {
                    member.name = name.trim().to_string();
                }
                if let Some(role) = patch.role {
                    member.role = role;
                }
                // Narrowing a member grants nothing; anything else is a grant.
                let after = member_reach(&member);
                if !member_reach(before).covers(&after) {
                    mine.may_grant(&after, &format!("you may not give {} that", before.login))?;
                }
                check_keeps_an_owner(state, before, Some(&member))?;
                if &member == before {
                    return Ok((vec![], member));
                }
                Ok((vec![Change::MemberPut(member.clone())], member))
            })
            .await
    }

    /// Removes a member (scope `members`; only one whose reach the caller covers, so only an
    /// owner removes an owner; `Conflict` for the last owner). Their tokens and OAuth grants are revoked in the same change: they stop
    /// working on every server within a second.
    pub async fn remove_member(self, who: &Principal, id: &MemberId) -> Result<()> {
        who.authorize(Action::ManageMembers)?;
        let catalog = self.host.catalog(who.account()).await?;
        let now = self.host.now();
        let login = catalog
            .commit(now, &who.actor(), |state| {
                let member = state.members.get(id).ok_or_else(|| member_not_found(id))?;
                caller_reach(who, state)?.may_manage(
                    &member_reach(member),
                    &format!("you may not remove {}", member.login),
                )?;
                check_keeps_an_owner(state, member, None)?;
                let mut changes = revoke_credentials(state, id, now);
                changes.push(Change::MemberRemoved { id: id.clone() });
                Ok((changes, member.login.clone()))
            })
            .await?;
        // The person's list of accounts forgets this one (the catalog is what decides).
        self.host.forget_membership(&login, who.account()).await;
        Ok(())
    }

    /// What an invitation's page shows: the account, the member it makes, and whether the
    /// login is a person's already. `NotFound` for an unknown, used or expired invitation.
    pub async fn invitation(self, secret: &str) -> Result<InvitationView> {
        let (account, member) = self.host.pending_invitation(secret).await?;
        let known_login = self.host.person_hash(&member.login).await?.is_some();
        Ok(InvitationView {
            account,
            member,
            known_login,
        })
    }

    /// Accepts an invitation from `address`: a person new to podhost sets their password
    /// (`name` optional); a known login signs in with theirs (throttled like signing in). The
    /// member becomes active, the invitation is spent, and the answer is a session in the
    /// account. `NotFound` for an unknown, used or expired invitation; `Unauthenticated` for a
    /// wrong password; `Conflict` when the login is an account's name whose owner has no
    /// password (an operator sets one first).
    pub async fn accept_invitation(
        self,
        secret: &str,
        password: &str,
        name: Option<&str>,
        address: &str,
    ) -> Result<crate::model::SignedIn> {
        let (account, member) = self.host.pending_invitation(secret).await?;
        let login = member.login.clone();
        // Whoever makes a login first holds it: a person new to podhost claims it here with
        // put-if-absent, and one who lost that race (or any known login) signs in instead.
        let mut claimed = false;
        loop {
            match self.host.person_hash(&login).await? {
                Some(_) => {
                    self.host
                        .check_person_password(&login, password, address)
                        .await?;
                    break;
                }
                None if self.host.login_is_founder_without_password(&login).await? => {
                    return Err(Error::conflict(format!(
                        "{login} is the name of an account without a password: an operator sets its password first (podhost user passwd)"
                    )));
                }
                None if !claimed => {
                    claimed = true;
                    if self.host.claim_person(&login, Some(password), name).await? {
                        break;
                    }
                }
                // Claimed by someone else meanwhile, and still without a password: refused
                // as a wrong password would be.
                None => return Err(Error::Unauthenticated),
            }
        }
        let catalog = self.host.catalog(&account).await?;
        let now = self.host.now();
        let digest = sha256_hex(secret.trim());
        let by = crate::model::Actor {
            member: Some(member.id.clone()),
            login: Some(login.clone()),
            via: crate::model::Via::Site,
            token: None,
            client: None,
        };
        let joined = catalog
            .commit(now, &by, |state| {
                let current = state
                    .members
                    .get(&member.id)
                    .filter(|m| {
                        m.invitation
                            .as_ref()
                            .is_some_and(|i| i.expires > now && i.secret_sha256 == digest)
                    })
                    .ok_or_else(|| Error::not_found("invitation", "(this link)"))?;
                let mut joined = current.clone();
                joined.status = MemberStatus::Active;
                joined.invitation = None;
                if let Some(name) = name.map(str::trim).filter(|n| !n.is_empty()) {
                    joined.name = name.to_string();
                }
                Ok((vec![Change::MemberPut(joined.clone())], joined))
            })
            .await?;
        self.host.note_membership(&login, &account).await?;
        self.host.begin_session(&account, &joined).await
    }

    /// The account's changes, newest first, paginated (scope `members-read-only`), narrowed by
    /// podcast, time and member. The account keeps its newest 20,000 changes.
    pub async fn activity(self, who: &Principal, query: &ActivityQuery) -> Result<Page<Activity>> {
        who.authorize(Action::ReadMembers)?;
        if let Some(feed) = &query.feed {
            who.require_feed(feed)?;
        }
        let catalog = self.host.catalog(who.account()).await?;
        let (start, size) = query.page.bounds();
        let (items, total) = catalog
            .read(|s| {
                let matching = s.activity.values().rev().filter(|a| {
                    query
                        .feed
                        .as_ref()
                        .is_none_or(|f| a.object.feed.as_ref() == Some(f))
                        && query.from.is_none_or(|from| a.at >= from)
                        && query.to.is_none_or(|to| a.at < to)
                        && query
                            .member
                            .as_ref()
                            .is_none_or(|m| a.actor.member.as_ref() == Some(m))
                        && a.object.feed.as_ref().is_none_or(|f| who.sees(f))
                });
                let mut total = 0;
                let mut items = Vec::new();
                for activity in matching {
                    if total >= start && items.len() < size {
                        items.push(activity.clone());
                    }
                    total += 1;
                }
                (items, total)
            })
            .await;
        Ok(Page {
            items,
            total,
            request: query.page,
            changes_at: None,
        })
    }
}

fn parse_invitation(secret: &str) -> Option<MemberId> {
    let rest = secret.trim().strip_prefix(INVITATION_PREFIX)?;
    let (tail, random) = (rest.get(..16)?, rest.get(16..)?);
    let random = random.strip_prefix('_')?;
    (random.len() == 43).then_some(())?;
    format!("mem_{tail}").parse().ok()
}
