//! The index of background work, in the store, so that a server's idle pass costs what is due
//! rather than what exists, and several servers share the work instead of repeating it.
//!
//! ```text
//! work/deliver/{account}                        events of the account wait for delivery
//!                                               (written after the commit that recorded
//!                                               them; removed by the pass that drains them)
//! work/due/{day}/{unix seconds:011}-{account}   a publication of the account scheduled at
//!                                               that second (written with the schedule;
//!                                               removed once announced)
//! work/leases/{unit}/{epoch}                    which server handles a unit, until when
//!                                               (see [`crate::lease`])
//! work/repair/{period:010}                      the server that repairs the index in a
//!                                               period (put-if-absent: one per period)
//! ```
//!
//! The index only says where to look. What is delivered or announced stays decided in the
//! account's catalog and by each delivery's claim, so a marker written twice, a unit
//! done again after its lease ran out under a stalled store, or a key left behind by a crash
//! cost a look, never a second delivery. What a crash or a lost object leaves out of the index is found by the
//! repair, a full pass over the accounts once per period by one server.

use std::sync::Arc;

use futures::TryStreamExt;
use jiff::Timestamp;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload, path::Path};

use crate::{
    error::Result,
    ids::AccountId,
    store::{delete_quietly, layout, put_if_absent},
};

/// Marks the account as having events to deliver.
pub(crate) async fn mark_delivery(store: &Arc<dyn ObjectStore>, account: &AccountId) -> Result<()> {
    store
        .put(&layout::delivery_marker(account), PutPayload::default())
        .await?;
    Ok(())
}

/// Removes the account's delivery marker.
pub(crate) async fn unmark_delivery(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
) -> Result<()> {
    delete_quietly(store, &layout::delivery_marker(account)).await
}

/// The accounts marked as having events to deliver.
pub(crate) async fn marked_deliveries(store: &Arc<dyn ObjectStore>) -> Result<Vec<AccountId>> {
    let listed: Vec<_> = store
        .list(Some(&layout::deliveries()))
        .try_collect()
        .await?;
    Ok(listed
        .iter()
        .filter_map(|meta| layout::delivery_marker_of(&meta.location))
        .collect())
}

/// Records that a publication of the account is scheduled at `at`.
pub(crate) async fn schedule(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
    at: Timestamp,
) -> Result<()> {
    store
        .put(&layout::due_key(at, account), PutPayload::default())
        .await?;
    Ok(())
}

/// A scheduled publication whose time has come.
#[derive(Debug, Clone)]
pub(crate) struct Due {
    /// Its key, removed once announced.
    pub(crate) key: Path,
    pub(crate) account: AccountId,
    pub(crate) at: Timestamp,
}

/// The scheduled publications due at `now`: the days up to today are listed (a folder per day
/// with a key, so the cost is the days with keys and the keys of today and before).
pub(crate) async fn due(store: &Arc<dyn ObjectStore>, now: Timestamp) -> Result<Vec<Due>> {
    let today = now.to_zoned(jiff::tz::TimeZone::UTC).date();
    let days = store.list_with_delimiter(Some(&layout::due())).await?;
    let mut out = Vec::new();
    for folder in days.common_prefixes {
        if layout::due_day_of(&folder).is_none_or(|day| day > today) {
            continue;
        }
        let keys: Vec<_> = store.list(Some(&folder)).try_collect().await?;
        for meta in keys {
            if let Some((at, account)) = layout::due_key_of(&meta.location)
                && at <= now
            {
                out.push(Due {
                    key: meta.location,
                    account,
                    at,
                });
            }
        }
    }
    out.sort_by_key(|due| due.at);
    Ok(out)
}

/// Removes the key of a publication announced.
pub(crate) async fn done(store: &Arc<dyn ObjectStore>, due: &Due) -> Result<()> {
    delete_quietly(store, &due.key).await
}

/// Whether this server repairs the index now: the first to ask in each period of `every` does
/// (put-if-absent of the period's claim), and removes the claims of periods before.
pub(crate) async fn repair_due(
    store: &Arc<dyn ObjectStore>,
    owner: &str,
    now: Timestamp,
    every: std::time::Duration,
) -> Result<bool> {
    let every = i64::try_from(every.as_millis()).unwrap_or(i64::MAX).max(1);
    let period = now.as_millisecond().div_euclid(every);
    let won = put_if_absent(
        store,
        &layout::work_repair(period),
        PutPayload::from(owner.as_bytes().to_vec()),
    )
    .await?;
    if won {
        let claims: Vec<_> = store
            .list(Some(&layout::work_repairs()))
            .try_collect()
            .await?;
        for meta in claims {
            if meta.location != layout::work_repair(period) {
                delete_quietly(store, &meta.location).await?;
            }
        }
    }
    Ok(won)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> Arc<dyn ObjectStore> {
        Arc::new(object_store::memory::InMemory::new())
    }

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    #[tokio::test]
    async fn due_keys_are_found_when_their_time_comes_and_not_before() {
        let store = store();
        let alice: AccountId = "alice".parse().unwrap();
        let bob: AccountId = "bob-2".parse().unwrap();
        schedule(&store, &alice, at("2026-11-26T10:00:00Z"))
            .await
            .unwrap();
        schedule(&store, &bob, at("2026-11-25T23:59:59Z"))
            .await
            .unwrap();
        schedule(&store, &bob, at("2026-11-27T00:00:00Z"))
            .await
            .unwrap();
        let found = |now| {
            let store = store.clone();
            async move {
                due(&store, at(now))
                    .await
                    .unwrap()
                    .into_iter()
                    .map(|d| (d.account.to_string(), d.at.to_string()))
                    .collect::<Vec<_>>()
            }
        };
        assert_eq!(
            found("2026-11-25T12:00:00Z").await,
            Vec::<(String, String)>::new()
        );
        assert_eq!(
            found("2026-11-26T09:59:59Z").await,
            [("bob-2".to_string(), "2026-11-25T23:59:59Z".to_string())]
        );
        let both = due(&store, at("2026-11-26T10:00:00Z")).await.unwrap();
        assert_eq!(both.len(), 2);
        for d in &both {
            done(&store, d).await.unwrap();
        }
        assert_eq!(
            found("2026-11-26T23:00:00Z").await,
            Vec::<(String, String)>::new()
        );
        assert_eq!(found("2026-11-27T00:00:00Z").await.len(), 1);
    }

    #[tokio::test]
    async fn one_repair_per_period() {
        let store = store();
        let every = std::time::Duration::from_secs(3600);
        let now = at("2026-11-26T10:00:00Z");
        assert!(repair_due(&store, "one", now, every).await.unwrap());
        assert!(!repair_due(&store, "two", now, every).await.unwrap());
        let next = at("2026-11-26T11:00:00Z");
        assert!(repair_due(&store, "two", next, every).await.unwrap());
        let claims: Vec<_> = store.list(None).try_collect().await.unwrap();
        assert_eq!(claims.len(), 1, "the older period's claim is removed");
    }
}
