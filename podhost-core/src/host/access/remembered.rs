//! What access remembers in this process (a leaf: the host holds it, the service reads it):
//! which account each token is of, sessions read lately, throttled addresses, when uses were
//! last written down, and this process's side of the rate limit.

use std::{collections::HashMap, sync::Mutex, time::Instant};

use jiff::Timestamp;

use crate::{
    ids::{AccountId, MemberId, SessionId, TokenId},
    model::Session,
};

/// What access remembers in this process.
#[derive(Default)]
pub(crate) struct Remembered {
    /// The account of each bearer token this process has seen, by the token's id.
    pub(crate) token_accounts: Mutex<HashMap<String, AccountId>>,
    /// Addresses this process knows are throttled for bearer tokens, until when.
    pub(crate) throttled: Mutex<HashMap<String, Timestamp>>,
    /// Sessions this process read lately.
    pub(crate) sessions: Mutex<HashMap<SessionId, (Instant, Session)>>,
    /// When this process last wrote down each token's use.
    pub(crate) token_uses: Mutex<HashMap<TokenId, Timestamp>>,
    /// When this process last wrote down that each member acted.
    pub(crate) members_seen: Mutex<HashMap<MemberId, Timestamp>>,
    /// This process's side of the rate limit.
    pub(crate) ratelimit: crate::ratelimit::Limiter,
}
