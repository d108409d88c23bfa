//! Keyed requests (see [`idempotency`](crate::idempotency)): begun, renewed while they run,
//! answered or released, in the account's catalog, so every server sees them.

use crate::{
    error::{Error, Result},
    idempotency::{Begin, HEADER, KEY_LEASE, KeyChange, KeyedRun, StoredAnswer, check_key},
    principal::Principal,
    state::Change,
};

use super::PodcastHost;

impl PodcastHost {
    /// Begins the request `target` (its method and path) of `who` under `key`: to run (again,
    /// replaying the steps that landed) or to answer as before. Refused while another server
    /// runs it ([`Error::InProgress`](crate::Error::InProgress)) and when the key was used for
    /// another method or path (invalid, naming the key). A key belongs to the caller's account.
    pub async fn begin_keyed(&self, who: &Principal, key: &str, target: &str) -> Result<Begin> {
        check_key(key)?;
        let account = who.account().clone();
        let catalog = self.catalog(&account).await?;
        let now = self.now();
        let owner = self.inner.kernel.owner.clone();
        catalog
            .commit(now, &who.actor(), |state| {
                if let Some(record) = state.keys.get(key) {
                    if record.target != target {
                        return Err(Error::invalid(
                            HEADER,
                            format!(
                                "this key was used for {}; a key names one request",
                                record.target
                            ),
                        ));
                    }
                    if let Some(answer) = &record.answer {
                        return Ok((Vec::new(), Begin::Replay(answer.clone())));
                    }
                    if let Some(until) = record.until
                        && until > now
                    {
                        let left = until.duration_since(now).as_secs().max(1);
                        return Err(Error::InProgress {
                            retry_after: std::time::Duration::from_secs(left.unsigned_abs()),
                        });
                    }
                }
                let begun = KeyChange::Begun {
                    key: key.to_string(),
                    target: target.to_string(),
                    owner: owner.clone(),
                    at: now,
                    until: now + KEY_LEASE,
                };
                let run = KeyedRun {
                    account: account.clone(),
                    key: key.to_string(),
                };
                Ok((vec![Change::Key(begun)], Begin::Run(run)))
            })
            .await
    }

    /// Extends this server's claim of a running keyed request (every few seconds while it
    /// runs, so that a repeat waits rather than takes it over).
    pub async fn renew_keyed(&self, run: &KeyedRun) -> Result<()> {
        let catalog = self.catalog(&run.account).await?;
        let now = self.now();
        let owner = self.inner.kernel.owner.clone();
        catalog
            .commit(now, &crate::model::Actor::podhost(), |state| {
                let Some(record) = state.keys.get(&run.key) else {
                    return Ok((Vec::new(), ()));
                };
                if record.answer.is_some() || record.owner.as_deref() != Some(owner.as_str()) {
                    return Ok((Vec::new(), ()));
                }
                let renewed = KeyChange::Begun {
                    key: run.key.clone(),
                    target: record.target.clone(),
                    owner: owner.clone(),
                    at: record.at,
                    until: now + KEY_LEASE,
                };
                Ok((vec![Change::Key(renewed)], ()))
            })
            .await
    }

    /// Keeps the answer given to a keyed request, for its repeats.
    pub async fn answer_keyed(&self, run: &KeyedRun, answer: StoredAnswer) -> Result<()> {
        let catalog = self.catalog(&run.account).await?;
        catalog
            .commit(self.now(), &crate::model::Actor::podhost(), |state| {
                if state.keys.get(&run.key).is_none_or(|r| r.answer.is_some()) {
                    return Ok((Vec::new(), ()));
                }
                let answered = KeyChange::Answered {
                    key: run.key.clone(),
                    answer: answer.clone(),
                };
                Ok((vec![Change::Key(answered)], ()))
            })
            .await
    }

    /// Gives up a keyed request without an answer (an internal error): a repeat runs it again
    /// at once, replaying the steps that landed. A claim another server took over meanwhile
    /// stays its.
    pub async fn release_keyed(&self, run: &KeyedRun) -> Result<()> {
        let catalog = self.catalog(&run.account).await?;
        let owner = self.inner.kernel.owner.clone();
        catalog
            .commit(self.now(), &crate::model::Actor::podhost(), |state| {
                if state.keys.get(&run.key).is_none_or(|r| {
                    r.answer.is_some() || r.owner.as_deref() != Some(owner.as_str())
                }) {
                    return Ok((Vec::new(), ()));
                }
                let released = KeyChange::Released {
                    key: run.key.clone(),
                };
                Ok((vec![Change::Key(released)], ()))
            })
            .await
    }
}
