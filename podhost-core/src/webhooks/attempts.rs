//! Where deliveries are recorded, and the retry schedule.
//!
//! ```text
//! accounts/{a}/webhooks/{wh}/cursor                    the last event finished for {wh}
//! accounts/{a}/webhooks/{wh}/deliveries/{seq:020}.json the attempts of one event's delivery
//! accounts/{a}/webhooks/{wh}/claims/{seq:020}-{n:03}   who sends attempt n (put-if-absent)
//! ```
//!
//! Events of one subscription are delivered in order: the next one waits until the current one
//! is delivered or given up. Only the process that won an attempt's claim sends it and records
//! it, so no attempt is sent twice at once; a claim whose process died is recorded as failed
//! after [`STALE_CLAIM`] and the next attempt claimed.

use std::{sync::Arc, time::Duration};

use futures::TryStreamExt;
use jiff::{SignedDuration, Timestamp};
use object_store::{ObjectStore, ObjectStoreExt, PutPayload, path::Path};
use serde::{Deserialize, Serialize};

use crate::store::{get_json, layout, put_if_absent};
use crate::{
    error::{Error, Result},
    ids::AccountId,
};

/// The waits after a failed attempt, in order: retries over about a day (Standard Webhooks'
/// suggested schedule), each stretched or shortened by up to a fifth at random (jitter).
pub const RETRY_AFTER: [Duration; 7] = [
    Duration::from_secs(5),
    Duration::from_secs(5 * 60),
    Duration::from_secs(30 * 60),
    Duration::from_secs(2 * 3600),
    Duration::from_secs(5 * 3600),
    Duration::from_secs(10 * 3600),
    Duration::from_secs(10 * 3600),
];

/// Attempts before a delivery is given up.
pub const MAX_ATTEMPTS: usize = RETRY_AFTER.len() + 1;

/// How long a claimed attempt may stay unrecorded before it counts as failed (its process died).
/// A live sender records its attempt within [`TIMEOUT`](super::TIMEOUT) (10 s) and one store
/// write (the default store timeout, 10 s): 30 s leaves a third more, and a server killed while
/// delivering holds up its deliveries half a minute, not a whole one.
pub const STALE_CLAIM: Duration = Duration::from_secs(30);

/// Where a delivery stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryStatus {
    /// Not yet delivered; retried at `next_at`.
    Pending,
    /// A 2xx answer came.
    Delivered,
    /// Every attempt failed; kept for inspection.
    Failed,
}

impl DeliveryStatus {
    /// The name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryStatus::Pending => "pending",
            DeliveryStatus::Delivered => "delivered",
            DeliveryStatus::Failed => "failed",
        }
    }
}

/// One attempt of a delivery.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// When it was made.
    pub at: Timestamp,
    /// The answer's status, when there was an answer.
    pub status: Option<u16>,
    /// The start of the answer's body, or why there was no answer.
    pub excerpt: String,
    /// Whether it was a redelivery asked for by the account (outside the schedule).
    #[serde(default)]
    pub manual: bool,
}

/// The delivery of one event to one subscription.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Delivery {
    /// The event's sequence number.
    pub seq: u64,
    /// The event's id (the `webhook-id`).
    pub event_id: String,
    /// The event's kind, on the wire.
    pub kind: String,
    /// Where it stands.
    pub status: DeliveryStatus,
    /// Its attempts, oldest first.
    pub attempts: Vec<Attempt>,
    /// When the next attempt is due.
    pub next_at: Timestamp,
}

impl Delivery {
    /// Scheduled attempts so far (manual redeliveries do not count).
    pub fn scheduled_attempts(&self) -> usize {
        self.attempts.iter().filter(|a| !a.manual).count()
    }

    /// Records an attempt and decides what comes next.
    pub fn record(&mut self, attempt: Attempt) {
        let success = attempt.status.is_some_and(|s| (200..300).contains(&s));
        let manual = attempt.manual;
        let at = attempt.at;
        self.attempts.push(attempt);
        if success {
            self.status = DeliveryStatus::Delivered;
        } else if manual {
            // A failed redelivery changes nothing of the schedule.
        } else if self.scheduled_attempts() >= MAX_ATTEMPTS {
            self.status = DeliveryStatus::Failed;
        } else {
            let wait = RETRY_AFTER[self.scheduled_attempts() - 1];
            let jitter = 0.8 + rand::random::<f64>() * 0.4;
            let wait = SignedDuration::try_from(wait.mul_f64(jitter)).unwrap_or_default();
            self.next_at = at + wait;
        }
    }
}

fn delivery_path(account: &AccountId, webhook: &str, seq: u64) -> Path {
    layout::webhook_delivery(account, webhook, seq)
}

fn claim_path(account: &AccountId, webhook: &str, seq: u64, attempt: usize) -> Path {
    layout::webhook_claim(account, webhook, seq, attempt)
}

async fn put_json<T: Serialize>(
    store: &Arc<dyn ObjectStore>,
    path: &Path,
    value: &T,
) -> Result<()> {
    let body = serde_json::to_vec(value).map_err(|e| Error::storage(e.to_string()))?;
    store.put(path, PutPayload::from(body)).await?;
    Ok(())
}

/// The sequence number of the last event finished for a subscription.
pub(crate) async fn cursor(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
    webhook: &str,
) -> Result<u64> {
    #[derive(Deserialize)]
    struct Cursor {
        seq: u64,
    }
    Ok(
        get_json::<Cursor>(store, &layout::webhook_cursor(account, webhook))
            .await?
            .map_or(0, |c| c.seq),
    )
}

/// Moves a subscription's cursor past `seq` (never back).
pub(crate) async fn advance(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
    webhook: &str,
    seq: u64,
) -> Result<()> {
    if cursor(store, account, webhook).await? >= seq {
        return Ok(());
    }
    put_json(
        store,
        &layout::webhook_cursor(account, webhook),
        &serde_json::json!({ "seq": seq }),
    )
    .await
}

/// The delivery of event `seq` to a subscription, if it was attempted.
pub(crate) async fn read(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
    webhook: &str,
    seq: u64,
) -> Result<Option<Delivery>> {
    get_json(store, &delivery_path(account, webhook, seq)).await
}

/// Stores a delivery (only the holder of its latest claim writes it).
pub(crate) async fn write(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
    webhook: &str,
    delivery: &Delivery,
) -> Result<()> {
    put_json(
        store,
        &delivery_path(account, webhook, delivery.seq),
        delivery,
    )
    .await
}

/// The recent deliveries of a subscription, newest first.
pub(crate) async fn recent(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
    webhook: &str,
    limit: usize,
) -> Result<Vec<Delivery>> {
    let listed: Vec<_> = store
        .list(Some(&layout::webhook_deliveries(account, webhook)))
        .try_collect()
        .await?;
    let mut paths: Vec<Path> = listed.into_iter().map(|m| m.location).collect();
    paths.sort_by(|a, b| b.as_ref().cmp(a.as_ref()));
    let mut out = Vec::new();
    for path in paths.into_iter().take(limit) {
        if let Some(delivery) = get_json(store, &path).await? {
            out.push(delivery);
        }
    }
    Ok(out)
}

/// Claims attempt `attempt` of event `seq` for a subscription. `Ok(true)` when this process
/// won; `Ok(false)` when another process holds it (and it is not stale).
pub(crate) async fn claim(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
    webhook: &str,
    seq: u64,
    attempt: usize,
    now: Timestamp,
) -> Result<Claim> {
    let path = claim_path(account, webhook, seq, attempt);
    let body = serde_json::to_vec(&serde_json::json!({ "at": now }))
        .map_err(|e| Error::storage(e.to_string()))?;
    if put_if_absent(store, &path, PutPayload::from(body)).await? {
        return Ok(Claim::Won);
    }
    #[derive(Deserialize)]
    struct Held {
        at: Timestamp,
    }
    let held: Option<Held> = get_json(store, &path).await?;
    let stale = held.is_none_or(|h| {
        now.duration_since(h.at) > SignedDuration::try_from(STALE_CLAIM).unwrap_or_default()
    });
    Ok(if stale { Claim::Stale } else { Claim::Held })
}

/// The result of a claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Claim {
    /// This process sends the attempt.
    Won,
    /// Another process is sending it.
    Held,
    /// Another process claimed it long ago and never recorded it: it died.
    Stale,
}
