//! Access: accounts, people and their sign-in, members of a team, tokens and OAuth.
//!
//! Its boundary is [`Access`], reached through [`PodcastHost::access`]. It reaches no other
//! service.
//!
//! **Invariant:** every caller is a [`Principal`](crate::Principal) made here (from a token, a
//! session or an OAuth grant), with the scopes and role it was given; a token or session
//! unknown to this process is looked up in the store before it is refused.

pub(crate) mod accounts;
pub(crate) mod members;
pub(crate) mod oauth;
pub(crate) mod rate_check;
pub(crate) mod remembered;
pub(crate) mod signin;

use super::PodcastHost;

/// The accounts, members, sign-in, tokens and OAuth of a host (see the module's docs). A borrowed handle, cheap to make and
/// `Copy`; its methods take it by value, so a future they return borrows only the host:
/// `host.access().create_token(&who, "ci", scopes)`.
#[derive(Clone, Copy)]
pub struct Access<'h> {
    pub(crate) host: &'h PodcastHost,
}

impl PodcastHost {
    /// The accounts, members, sign-in, tokens and OAuth service.
    pub fn access(&self) -> Access<'_> {
        Access { host: self }
    }
}
