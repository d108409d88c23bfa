//! Where statistics live in the store, and how a day is closed.
//!
//! ```text
//! stats/salts/{day}                               32 random bytes, put-if-absent, deleted after
//!                                                 the next day (then the hashes are unlinkable)
//! stats/pending/{day}/{account}                   "this account has raw records of this day"
//! accounts/{a}/stats/raw/{day}/{ms}-{writer}-{n}  one flushed batch of records (JSON array)
//! accounts/{a}/stats/carry/{day}.json             listeners in an open window at the day's end
//! accounts/{a}/stats/days/{day}.json              the closed day: downloads per episode and app
//! ```
//!
//! Closing a day (any process may; the result is the same): read the previous day's carry and
//! the day's raw batches, count, put the carry and then the day with put-if-absent, then delete
//! the raw batches and the previous carry. Raw batches of a closed day that arrive late are
//! dropped. A crash at any step leaves a state the next close finishes.

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::Arc,
};

use futures::{StreamExt, TryStreamExt};
use jiff::civil::Date;
use object_store::{ObjectStore, PutPayload, path::Path};
use serde::{Deserialize, Serialize};

use super::DayCounts;
use super::counting::{Carry, Record, Row, count_day};
use super::impressions::{AdRow, count_impressions};
use crate::store::{delete_quietly, get_optional, layout, put_if_absent};
use crate::{
    error::{Error, Result},
    ids::AccountId,
};

/// The format of the stored files; a reader refuses other versions.
const VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
struct DayFile {
    v: u32,
    day: Date,
    rows: Vec<Row>,
    /// Ad impressions (files of days before ads were served have none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    ads: Vec<AdRow>,
}

#[derive(Serialize, Deserialize)]
struct CarryFile {
    v: u32,
    day: Date,
    carry: Carry,
}

#[derive(Serialize, Deserialize)]
struct BatchFile {
    v: u32,
    records: Vec<Record>,
}

fn salt_path(day: Date) -> Path {
    layout::salt(day)
}

fn pending_path(day: Date, account: &AccountId) -> Path {
    layout::pending_day(day, account)
}

fn raw_dir(account: &AccountId, day: Date) -> Path {
    layout::raw_day(account, day)
}

fn day_path(account: &AccountId, day: Date) -> Path {
    layout::closed_day(account, day)
}

fn carry_path(account: &AccountId, day: Date) -> Path {
    layout::carry(account, day)
}

fn encode<T: Serialize>(value: &T) -> Result<PutPayload> {
    serde_json::to_vec(value)
        .map(PutPayload::from)
        .map_err(|e| Error::storage(e.to_string()))
}

fn decode<T: for<'de> Deserialize<'de>>(bytes: &[u8], path: &Path) -> Result<T> {
    serde_json::from_slice(bytes).map_err(|e| Error::storage(format!("{path} is unreadable: {e}")))
}

fn check(v: u32, path: &Path) -> Result<()> {
    if v == VERSION {
        Ok(())
    } else {
        Err(Error::storage(format!(
            "{path} has statistics format {v}; this podhost reads {VERSION}"
        )))
    }
}

/// The salt of `day`: made by the first process that needs it (put-if-absent), read by the rest.
pub(crate) async fn salt(store: &Arc<dyn ObjectStore>, day: Date) -> Result<Vec<u8>> {
    let path = salt_path(day);
    if let Some(bytes) = get_optional(store, &path).await? {
        return Ok(bytes.to_vec());
    }
    let fresh: [u8; 32] = rand::random();
    put_if_absent(store, &path, PutPayload::from(fresh.to_vec())).await?;
    get_optional(store, &path)
        .await?
        .map(|b| b.to_vec())
        .ok_or_else(|| Error::storage(format!("{path} vanished")))
}

/// The salt of `day` when a process has made it; `None` before (a read makes none).
pub(crate) async fn salt_if_present(
    store: &Arc<dyn ObjectStore>,
    day: Date,
) -> Result<Option<Vec<u8>>> {
    Ok(get_optional(store, &salt_path(day))
        .await?
        .map(|bytes| bytes.to_vec()))
}

/// Deletes the salts of days before `keep_from`.
pub(crate) async fn forget_salts(store: &Arc<dyn ObjectStore>, keep_from: Date) -> Result<()> {
    let listed = store.list_with_delimiter(Some(&layout::salts())).await?;
    for meta in listed.objects {
        let old = layout::salt_day(&meta.location).is_some_and(|day| day < keep_from);
        if old {
            delete_quietly(store, &meta.location).await?;
        }
    }
    Ok(())
}

/// Stores a batch of records of one account and day, under a name no other writer uses.
pub(crate) async fn put_batch(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
    day: Date,
    name: &str,
    records: Vec<Record>,
) -> Result<()> {
    let path = layout::raw_batch(account, day, name);
    let batch = BatchFile {
        v: VERSION,
        records,
    };
    put_if_absent(store, &path, encode(&batch)?).await?;
    put_if_absent(store, &pending_path(day, account), PutPayload::default())
        .await
        .map(drop)
}

/// The days that have pending raw records, and the accounts of each.
pub(crate) async fn pending(store: &Arc<dyn ObjectStore>) -> Result<Vec<(Date, AccountId)>> {
    let listed: Vec<_> = store.list(Some(&layout::pending())).try_collect().await?;
    let mut out: Vec<_> = listed
        .iter()
        .filter_map(|meta| layout::pending_of(&meta.location))
        .collect();
    out.sort();
    Ok(out)
}

/// The days of `account` with raw records, oldest first.
pub(crate) async fn raw_days(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
) -> Result<BTreeSet<Date>> {
    let listed = store
        .list_with_delimiter(Some(&layout::raw_days(account)))
        .await?;
    Ok(listed
        .common_prefixes
        .iter()
        .filter_map(layout::raw_day_of)
        .collect())
}

/// The closed days of `account` (one listing: a read of a period asks this once instead of
/// once a day).
pub(crate) async fn closed_days(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
) -> Result<BTreeSet<Date>> {
    let listed: Vec<_> = store
        .list(Some(&layout::closed_days(account)))
        .try_collect()
        .await?;
    Ok(listed
        .iter()
        .filter_map(|meta| layout::closed_day_of(&meta.location))
        .collect())
}

/// The batches stored for `account` and `day`, by name, sorted: batches are written once under
/// names no other writer uses and only deleted when the day closes, so the same names are the
/// same records.
pub(crate) async fn raw_batches(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
    day: Date,
) -> Result<Vec<Path>> {
    let listed: Vec<_> = store
        .list(Some(&raw_dir(account, day)))
        .try_collect()
        .await?;
    let mut paths: Vec<Path> = listed.into_iter().map(|m| m.location).collect();
    paths.sort();
    Ok(paths)
}

async fn raw_records(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
    day: Date,
) -> Result<(Vec<Record>, Vec<Path>)> {
    let listed: Vec<_> = store
        .list(Some(&raw_dir(account, day)))
        .try_collect()
        .await?;
    let paths: Vec<Path> = listed.into_iter().map(|m| m.location).collect();
    let mut records = Vec::new();
    let mut reads = futures::stream::iter(paths.clone())
        .map(|path| async move {
            let bytes = get_optional(store, &path).await?;
            Ok::<_, Error>((path, bytes))
        })
        .buffer_unordered(16);
    while let Some(read) = reads.next().await {
        let (path, bytes) = read?;
        if let Some(bytes) = bytes {
            let batch: BatchFile = decode(&bytes, &path)?;
            check(batch.v, &path)?;
            records.extend(batch.records);
        }
    }
    drop(reads);
    Ok((records, paths))
}

/// The counts of a closed day, or `None` when the day is not closed.
pub(crate) async fn closed_day(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
    day: Date,
) -> Result<Option<DayCounts>> {
    let path = day_path(account, day);
    let Some(bytes) = get_optional(store, &path).await? else {
        return Ok(None);
    };
    let file: DayFile = decode(&bytes, &path)?;
    check(file.v, &path)?;
    Ok(Some(DayCounts {
        rows: file.rows,
        ads: file.ads,
    }))
}

async fn carry_of(store: &Arc<dyn ObjectStore>, account: &AccountId, day: Date) -> Result<Carry> {
    let path = carry_path(account, day);
    match get_optional(store, &path).await? {
        Some(bytes) => {
            let file: CarryFile = decode(&bytes, &path)?;
            check(file.v, &path)?;
            Ok(file.carry)
        }
        None => Ok(Carry::default()),
    }
}

fn day_end_ms(day: Date) -> Result<i64> {
    let next = day
        .tomorrow()
        .map_err(|e| Error::storage(format!("day after {day}: {e}")))?;
    let end = next
        .to_zoned(jiff::tz::TimeZone::UTC)
        .map_err(|e| Error::storage(e.to_string()))?;
    Ok(end.timestamp().as_millisecond())
}

/// Counts a day that is not closed (today, or a day waiting for its close), its stored records
/// and `extra` (records not stored yet) alike, with the carry of the day before: from its close
/// when closed, else counted the same way (up to `depth` days back; beyond that a window is
/// taken as empty).
pub(crate) async fn open_day(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
    day: Date,
    depth: u32,
    extra: &BTreeMap<Date, Vec<Record>>,
) -> Result<(DayCounts, Carry)> {
    let yesterday = day.yesterday().map_err(|e| Error::storage(e.to_string()))?;
    let carry_in = if closed_day(store, account, yesterday).await?.is_some() || depth == 0 {
        carry_of(store, account, yesterday).await?
    } else {
        Box::pin(open_day(store, account, yesterday, depth - 1, extra))
            .await?
            .1
    };
    let (mut records, _) = raw_records(store, account, day).await?;
    records.extend(extra.get(&day).into_iter().flatten().cloned());
    let ads = count_impressions(&records);
    let (rows, carry) = count_day(day_end_ms(day)?, &carry_in, records);
    Ok((DayCounts { rows, ads }, carry))
}

/// Closes `day` of `account` (whose previous days are closed), or finishes an interrupted close.
pub(crate) async fn close_day(
    store: &Arc<dyn ObjectStore>,
    account: &AccountId,
    day: Date,
) -> Result<()> {
    let yesterday = day.yesterday().map_err(|e| Error::storage(e.to_string()))?;
    let (records, paths) = raw_records(store, account, day).await?;
    if closed_day(store, account, day).await?.is_none() {
        let carry_in = carry_of(store, account, yesterday).await?;
        let ads = count_impressions(&records);
        let (rows, carry) = count_day(day_end_ms(day)?, &carry_in, records);
        // The carry first: once the day exists, the next day's close relies on it.
        let carry = CarryFile {
            v: VERSION,
            day,
            carry,
        };
        put_if_absent(store, &carry_path(account, day), encode(&carry)?).await?;
        let file = DayFile {
            v: VERSION,
            day,
            rows,
            ads,
        };
        put_if_absent(store, &day_path(account, day), encode(&file)?).await?;
    } else if !paths.is_empty() {
        tracing::warn!(%account, %day, batches = paths.len(), "statistics arrived after the day closed; dropped");
    }
    for path in &paths {
        delete_quietly(store, path).await?;
    }
    // Carries before this day are no longer read (a day without records leaves its carry).
    let carries = store
        .list_with_delimiter(Some(&layout::carries(account)))
        .await?;
    for meta in carries.objects {
        let before = layout::carry_day(&meta.location).is_some_and(|d| d < day);
        if before {
            delete_quietly(store, &meta.location).await?;
        }
    }
    delete_quietly(store, &pending_path(day, account)).await
}
