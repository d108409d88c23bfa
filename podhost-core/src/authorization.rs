//! The one authorization decision: what each role and each token scope may do, as a table of
//! [`Action`]s. Every service asks it the same way, [`Principal::authorize`](crate::Principal::authorize), for the caller at
//! hand; the roles' scopes ([`role_scopes`]) are derived from the table, never written beside
//! it. Which podcasts a member may touch is the other half of a decision
//! ([`Principal::require_feed`](crate::Principal::require_feed)).
//!
//! A caller may do an action when its scopes allow the action's scope (a write scope includes
//! its read-only scope) and its role is among the action's roles (an account's own token acts
//! as its owner).
//!
//! What a caller may hand to others is the third half: a [`Reach`] (a role, the scopes, the
//! podcasts) grants only a reach it covers ([`Reach::may_grant`]), and changes or removes only
//! members whose role and podcasts it covers ([`Reach::may_manage`]), itself included. The
//! members' operations ask it, and nothing else decides it.

use std::collections::BTreeSet;

use crate::{
    error::{Error, Result},
    ids::FeedId,
    model::Role,
    scope::{Scope, Scopes},
};

/// Something a caller may or may not do in an account.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    /// Read media files and their analysis.
    ReadMedia,
    /// Upload, change, copy and delete media files; run jobs on them.
    EditMedia,
    /// Read podcasts.
    ReadPodcasts,
    /// Make, change and delete podcasts.
    EditPodcasts,
    /// Read episodes.
    ReadEpisodes,
    /// Make, change and delete draft episodes.
    EditEpisodes,
    /// Publish, schedule or unpublish an episode, or delete a published one.
    PublishEpisodes,
    /// Subscribe webhooks, see and redeliver their deliveries.
    ManageWebhooks,
    /// Read download statistics.
    ReadStatistics,
    /// List, make and revoke one's own tokens and OAuth clients.
    ManageTokens,
    /// See and revoke every personal token of the account, not only one's own.
    ManageAccountTokens,
    /// Read the server's metrics.
    ReadMetrics,
    /// Read ad campaigns and their statistics.
    ReadAds,
    /// Make, change, pause and delete ad campaigns.
    ManageAds,
    /// Read the account's members and its activity.
    ReadMembers,
    /// Invite, change and remove members who are not owners.
    ManageMembers,
    /// Make, change or remove an owner.
    ManageOwners,
    /// Read the comments and followers podcasts got on the fediverse.
    ReadComments,
    /// Hide comments, block fediverse actors and instances.
    ModerateComments,
}

use Action as A;
use Role as R;

/// Every role.
const EVERYONE: &[Role] = &[R::Owner, R::Admin, R::Editor, R::Author, R::Analyst];

/// The table: each action, the scope a token needs for it, and the roles that may do it.
const TABLE: [(Action, Scope, &[Role]); 19] = [
    (A::ReadMedia, Scope::MediaReadOnly, EVERYONE),
    (
        A::EditMedia,
        Scope::Media,
        &[R::Owner, R::Admin, R::Editor, R::Author],
    ),
    (A::ReadPodcasts, Scope::FeedsReadOnly, EVERYONE),
    (
        A::EditPodcasts,
        Scope::Feeds,
        &[R::Owner, R::Admin, R::Editor],
    ),
    (A::ReadEpisodes, Scope::ShowsReadOnly, EVERYONE),
    (
        A::EditEpisodes,
        Scope::Shows,
        &[R::Owner, R::Admin, R::Editor, R::Author],
    ),
    (
        A::PublishEpisodes,
        Scope::Shows,
        &[R::Owner, R::Admin, R::Editor],
    ),
    (
        A::ManageWebhooks,
        Scope::Webhooks,
        &[R::Owner, R::Admin, R::Editor],
    ),
    (
        A::ReadStatistics,
        Scope::Stats,
        &[R::Owner, R::Admin, R::Editor, R::Analyst],
    ),
    (A::ManageTokens, Scope::Tokens, EVERYONE),
    (A::ManageAccountTokens, Scope::Tokens, &[R::Owner, R::Admin]),
    (A::ReadMetrics, Scope::Metrics, &[R::Owner, R::Admin]),
    (
        A::ReadAds,
        Scope::AdsReadOnly,
        &[R::Owner, R::Admin, R::Editor, R::Analyst],
    ),
    (A::ManageAds, Scope::Ads, &[R::Owner, R::Admin, R::Editor]),
    (
        A::ReadMembers,
        Scope::MembersReadOnly,
        &[R::Owner, R::Admin],
    ),
    (A::ManageMembers, Scope::Members, &[R::Owner, R::Admin]),
    (A::ManageOwners, Scope::Members, &[R::Owner]),
    (A::ReadComments, Scope::ShowsReadOnly, EVERYONE),
    (
        A::ModerateComments,
        Scope::Feeds,
        &[R::Owner, R::Admin, R::Editor],
    ),
];

impl Action {
    /// Every action, in the table's order.
    pub const ALL: [Action; 19] = {
        let mut all = [A::ReadMedia; 19];
        let mut i = 0;
        while i < TABLE.len() {
            all[i] = TABLE[i].0;
            i += 1;
        }
        all
    };

    const fn row(self) -> &'static (Action, Scope, &'static [Role]) {
        // The table lists the actions in their declared order (a test keeps it so).
        &TABLE[self as usize]
    }

    /// The scope a token needs for the action.
    pub const fn scope(self) -> Scope {
        self.row().1
    }

    /// The roles that may do the action.
    pub const fn roles(self) -> &'static [Role] {
        self.row().2
    }

    /// Whether `role` may do the action.
    pub fn allowed_to(self, role: Role) -> bool {
        self.roles().contains(&role)
    }

    /// What it is, in words (a refusal names it).
    pub fn describe(self) -> &'static str {
        match self {
            A::ReadMedia => "read media files",
            A::EditMedia => "upload or change media files",
            A::ReadPodcasts => "read podcasts",
            A::EditPodcasts => "make or change podcasts",
            A::ReadEpisodes => "read episodes",
            A::EditEpisodes => "make or change episodes",
            A::PublishEpisodes => {
                "publish, schedule or unpublish episodes, or delete a published one"
            }
            A::ManageWebhooks => "manage webhooks",
            A::ReadStatistics => "read statistics",
            A::ManageTokens => "manage tokens",
            A::ManageAccountTokens => "manage the tokens of other members",
            A::ReadMetrics => "read the server's metrics",
            A::ReadAds => "read ad campaigns",
            A::ManageAds => "manage ad campaigns",
            A::ReadMembers => "read members",
            A::ManageMembers => "manage members",
            A::ManageOwners => "make, change or remove owners",
            A::ReadComments => "read comments and followers",
            A::ModerateComments => "hide comments and block fediverse actors",
        }
    }
}

/// The scopes of the actions `role` may do: a token of a member of this role allows at most
/// these. A read-only scope its write scope covers is left out, unless the role's actions need
/// every scope (then it has every scope, as [`Scopes::all`]).
pub fn role_scopes(role: Role) -> Scopes {
    let granted: Vec<Scope> = TABLE
        .iter()
        .filter(|(_, _, roles)| roles.contains(&role))
        .map(|(_, scope, _)| *scope)
        .collect();
    if Scope::ALL.iter().all(|s| granted.contains(s)) {
        return Scopes::all();
    }
    granted
        .iter()
        .copied()
        .filter(|s| {
            !granted
                .iter()
                .any(|w| w != s && Scopes::from_iter([*w]).allows(*s))
        })
        .collect()
}

/// The first action `role` may do that `holder` may not (none: `holder` covers `role`).
fn first_right_beyond(holder: Role, role: Role) -> Option<Action> {
    Action::ALL
        .into_iter()
        .find(|a| a.allowed_to(role) && !a.allowed_to(holder))
}

/// What a member holds in an account, and so the most they may hand to another (or to
/// themselves): a role, the scopes they act with (a token's, within its role's), and the
/// podcasts they may touch (none: every podcast of the account).
///
/// The rule of the team: a caller grants, changes or removes only a reach its own covers
/// (role, scopes and podcasts alike), so no member ever holds more than the one who granted it,
/// and none widens their own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reach {
    /// The role.
    pub role: Role,
    /// The scopes acted with.
    pub scopes: Scopes,
    /// The podcasts (none: all of the account's).
    pub feeds: Option<BTreeSet<FeedId>>,
}

impl Reach {
    /// The reach of a member of `role` on `feeds`: every scope of the role.
    pub fn of_role(role: Role, feeds: Option<BTreeSet<FeedId>>) -> Reach {
        Reach {
            role,
            scopes: role_scopes(role),
            feeds,
        }
    }

    /// Whether this reach covers `other`: every action of its role, every scope, every podcast.
    pub fn covers(&self, other: &Reach) -> bool {
        self.beyond(other, true).is_none()
    }

    /// `Forbidden` unless this reach covers `other` (role, scopes and podcasts): what a caller
    /// may grant. The sentence begins with `attempt` ("you may not invite sam as admin") and
    /// says what `other` holds beyond this reach.
    pub fn may_grant(&self, other: &Reach, attempt: &str) -> Result<()> {
        self.refuse_beyond(other, true, attempt)
    }

    /// `Forbidden` unless this reach covers `other`'s role and podcasts: the members a caller
    /// may change or remove (taking away grants nothing, so a token's scopes do not bound it).
    pub fn may_manage(&self, other: &Reach, attempt: &str) -> Result<()> {
        self.refuse_beyond(other, false, attempt)
    }

    fn refuse_beyond(&self, other: &Reach, scopes: bool, attempt: &str) -> Result<()> {
        match self.beyond(other, scopes) {
            None => Ok(()),
            Some(lack) => Err(Error::Forbidden {
                message: format!(
                    "{attempt}: {lack}. A member grants, changes or removes no more than they \
                     hold themselves"
                ),
            }),
        }
    }

    /// What `other` holds beyond this reach, in words (none: this covers it).
    fn beyond(&self, other: &Reach, scopes: bool) -> Option<String> {
        if let Some(action) = first_right_beyond(self.role, other.role) {
            return Some(format!(
                "the role {} may {}, and your role {} may not",
                other.role,
                action.describe(),
                self.role
            ));
        }
        let missing: Scopes = other
            .scopes
            .iter()
            .filter(|s| !self.scopes.allows(*s))
            .collect();
        if scopes && !missing.is_empty() {
            let held = match self.scopes.is_empty() {
                true => "none".to_string(),
                false => self.scopes.to_string(),
            };
            return Some(format!(
                "the role {} needs the scopes {missing}, which this token lacks (it has {held})",
                other.role
            ));
        }
        let mine = self.feeds.as_ref()?;
        let list = |feeds: &mut dyn Iterator<Item = &FeedId>| {
            feeds.map(FeedId::as_str).collect::<Vec<_>>().join(", ")
        };
        match &other.feeds {
            None => Some(format!(
                "that reaches every podcast of the account, and you may touch only {}",
                list(&mut mine.iter())
            )),
            Some(theirs) => {
                let mut extra = theirs.difference(mine).peekable();
                extra.peek()?;
                Some(format!(
                    "that reaches {}, which you may not touch (you may touch {})",
                    list(&mut extra),
                    list(&mut mine.iter())
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_lists_every_action_once_in_declared_order() {
        for (i, (action, _, _)) in TABLE.iter().enumerate() {
            assert_eq!(*action as usize, i, "{action:?} out of place");
        }
    }

    /// The roles of the API spec (`decisions.md`), as scopes: the conformance table the derived
    /// scopes must equal.
    #[test]
    fn the_roles_scopes_are_the_specs() {
        use Scope as S;
        let spec: [(Role, &[Scope]); 5] = [
            (R::Owner, &Scope::ALL),
            (R::Admin, &Scope::ALL),
            (
                R::Editor,
                &[
                    S::Media,
                    S::Feeds,
                    S::Shows,
                    S::Webhooks,
                    S::Stats,
                    S::Tokens,
                    S::Ads,
                ],
            ),
            (
                R::Author,
                &[S::Media, S::FeedsReadOnly, S::Shows, S::Tokens],
            ),
            (
                R::Analyst,
                &[
                    S::MediaReadOnly,
                    S::FeedsReadOnly,
                    S::ShowsReadOnly,
                    S::Stats,
                    S::AdsReadOnly,
                    S::Tokens,
                ],
            ),
        ];
        for (role, scopes) in spec {
            let want: Scopes = scopes.iter().copied().collect();
            assert_eq!(role_scopes(role), want, "{role}");
        }
    }

    #[test]
    fn only_owners_manage_owners_and_authors_and_analysts_never_publish() {
        let who = |a: Action| -> Vec<Role> {
            Role::ALL.into_iter().filter(|r| a.allowed_to(*r)).collect()
        };
        assert_eq!(who(A::ManageOwners), [R::Owner]);
        assert_eq!(who(A::PublishEpisodes), [R::Owner, R::Admin, R::Editor]);
    }
}
