//! The store's format: which releases can read what it holds, and which servers run on it.
//!
//! A store holds format 1 (what release 0.1 wrote) until it is raised. Each release reads every
//! format up to its own [`FORMAT`] and writes what the store's format allows: a kind of record
//! or a field that a release before could not read is written only once the store's format is
//! the one that brought it (the table [`FORMATS`] says which). So servers of two releases run
//! side by side on one store while it is upgraded one server at a time, and the format is
//! raised (`podhost store upgrade`) once every live server reads the new one.
//!
//! The format is a marker `store/format/{n:06}.json`, written once (put-if-absent) when the
//! store is raised to `n`; the highest marker is the store's format. It names the first release
//! that reads it, so a server of an older release, which does not know the number, can say
//! which release it needs. A new store (no account yet) is made at the newest format.
//!
//! Each server keeps a record `servers/{owner}.json`: its release, the highest format it reads,
//! its host and process, renewed every [`RENEW_EVERY`] and live until [`SERVER_TTL`] after the
//! last renewal (a server killed without a goodbye stops counting then). Only its owner writes it.
//!
//! Each server, as it starts, also records the public URL its links start with
//! (`store/public_url.json`, [`RecordedPublicUrl`]): a command run on the store without
//! `--public-url` makes its links with it, so they point where the server serves. It stays when
//! the server stops; the last server to start wins.

use std::sync::Arc;

use futures::TryStreamExt;
use jiff::{SignedDuration, Timestamp};
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};
use serde::{Deserialize, Serialize};

use crate::{
    error::{Error, Result},
    store::{delete_quietly, get_json, layout, put_if_absent},
};

/// This build's release.
pub const RELEASE: &str = env!("CARGO_PKG_VERSION");

/// The newest store format this build reads and writes.
pub const FORMAT: u32 = FORMATS[FORMATS.len() - 1].number;

/// How often a server renews its record.
pub const RENEW_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// How long after its last renewal a server's record counts as live.
pub const SERVER_TTL: SignedDuration = SignedDuration::from_secs(15);

/// The format that brought the fediverse's records: podcasts' actor keys, followers, comments,
/// reactions, blocks, ActivityPub deliveries (webhook subscriptions of a kind a release before
/// cannot read) and the `follower.added` event. Below it, the fediverse is off.
pub const FEDIVERSE: u32 = 2;

/// What a process last read of the store's format, and when (kept by the host).
#[derive(Default)]
pub(crate) struct KnownFormat(pub(crate) std::sync::Mutex<Option<(u32, std::time::Instant)>>);

/// One store format: its number, the first release that reads it, and what it brought.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// The format's number.
    pub number: u32,
    /// The first release that reads (and writes) it.
    pub release: &'static str,
    /// What a store of this format may hold that the format before could not.
    pub brings: &'static str,
}

/// Every format, oldest first: the one table of what each release reads.
pub const FORMATS: &[Format] = &[
    Format {
        number: 1,
        release: "0.1.0",
        brings: "accounts, podcasts, episodes, media, statistics, webhooks, ads, video and AAC",
    },
    Format {
        number: FEDIVERSE,
        release: "0.2.0",
        brings: "the fediverse: actor keys, followers, comments, reactions, blocks, ActivityPub \
                 deliveries and the follower.added event",
    },
];

/// The marker of a raised format.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Marker {
    /// The format the store holds.
    pub format: u32,
    /// The first release that reads it.
    pub release: String,
    /// When it was raised.
    pub raised_at: Timestamp,
    /// The release that raised it.
    pub raised_by: String,
}

impl Marker {
    /// The marker of `format` (one of [`FORMATS`]), raised now by this build.
    pub(crate) fn of(format: u32, now: Timestamp) -> Result<Marker> {
        let known = FORMATS.iter().find(|f| f.number == format).ok_or_else(|| {
            Error::invalid(
                "format",
                format!("this podhost ({RELEASE}) knows formats 1 to {FORMAT}"),
            )
        })?;
        Ok(Marker {
            format,
            release: known.release.to_string(),
            raised_at: now,
            raised_by: RELEASE.to_string(),
        })
    }

    /// Refuses a store of a format newer than this build reads, saying which release it needs.
    pub(crate) fn check_readable(&self) -> Result<()> {
        if self.format > FORMAT {
            return Err(Error::invalid(
                "store",
                format!(
                    "the store holds format {} (read by podhost {} and later); this podhost \
                     ({RELEASE}) reads formats up to {FORMAT}: run podhost {} or later",
                    self.format, self.release, self.release
                ),
            ));
        }
        Ok(())
    }
}

/// The store's format: its highest marker, none for a store never raised (format 1).
pub(crate) async fn read(store: &Arc<dyn ObjectStore>) -> Result<Option<Marker>> {
    let listed: Vec<_> = store
        .list(Some(&layout::format_prefix()))
        .try_collect()
        .await?;
    let highest = listed
        .iter()
        .filter_map(|meta| layout::parse_format(&meta.location).map(|n| (n, &meta.location)))
        .max_by_key(|(n, _)| *n);
    match highest {
        Some((_, path)) => get_json(store, path).await,
        None => Ok(None),
    }
}

/// The format number of `marker` (1 when the store was never raised).
pub fn number(marker: Option<&Marker>) -> u32 {
    marker.map_or(1, |m| m.format)
}

/// Raises the store to `marker`'s format; false when it was raised to it already.
pub(crate) async fn raise(store: &Arc<dyn ObjectStore>, marker: &Marker) -> Result<bool> {
    let body = serde_json::to_vec(marker).map_err(|e| Error::storage(e.to_string()))?;
    put_if_absent(
        store,
        &layout::format(marker.format),
        PutPayload::from(body),
    )
    .await
}

/// Whether the store holds no account yet (a new store, made at the newest format).
pub(crate) async fn is_new(store: &Arc<dyn ObjectStore>) -> Result<bool> {
    let mut accounts = store.list(Some(&layout::accounts_prefix()));
    Ok(accounts.try_next().await?.is_none())
}

/// A server running on the store, as its record says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerRecord {
    /// The process's id in the store (its leases' owner).
    pub owner: String,
    /// Its release.
    pub release: String,
    /// The newest store format it reads.
    pub reads: u32,
    /// The machine's host name.
    pub host: String,
    /// The process id on that machine.
    pub pid: u32,
    /// Where it listens, when it serves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listen: Option<String>,
    /// When it started.
    pub started: Timestamp,
    /// When it last renewed its record.
    pub renewed: Timestamp,
}

impl ServerRecord {
    /// Whether it renewed its record recently enough to count as running at `now`.
    pub fn live(&self, now: Timestamp) -> bool {
        now.duration_since(self.renewed) <= SERVER_TTL
    }

    /// How an operator recognises it: its host, process and release.
    pub fn describe(&self) -> String {
        let at = self
            .listen
            .as_deref()
            .map(|l| format!(" on {l}"))
            .unwrap_or_default();
        format!(
            "podhost {} (reads up to format {}) on {} pid {}{at}",
            self.release, self.reads, self.host, self.pid
        )
    }
}

/// The public URL the last server to start on the store made its links with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedPublicUrl {
    /// The public base URL (`https://pod.example`).
    pub public_url: String,
    /// When the server that recorded it started.
    pub recorded_at: Timestamp,
    /// That server's release.
    pub release: String,
}

/// Records `public_url` as the one the servers on the store make their links with, unless it
/// is recorded already.
pub(crate) async fn put_public_url(
    store: &Arc<dyn ObjectStore>,
    public_url: &str,
    now: Timestamp,
) -> Result<()> {
    if recorded_public_url(store)
        .await?
        .is_some_and(|recorded| recorded.public_url == public_url)
    {
        return Ok(());
    }
    let record = RecordedPublicUrl {
        public_url: public_url.to_string(),
        recorded_at: now,
        release: RELEASE.to_string(),
    };
    let body = serde_json::to_vec(&record).map_err(|e| Error::storage(e.to_string()))?;
    store
        .put(&layout::public_url(), PutPayload::from(body))
        .await?;
    Ok(())
}

/// The public URL the last server to start on the store recorded, if any server did (and
/// its record reads).
pub async fn recorded_public_url(
    store: &Arc<dyn ObjectStore>,
) -> Result<Option<RecordedPublicUrl>> {
    let Some(bytes) = crate::store::get_optional(store, &layout::public_url()).await? else {
        return Ok(None);
    };
    // A record cut short, or of a shape this build does not know, is no record.
    Ok(serde_json::from_slice(&bytes).ok())
}

/// Writes (or renews) a server's record.
pub(crate) async fn put_server(store: &Arc<dyn ObjectStore>, record: &ServerRecord) -> Result<()> {
    let body = serde_json::to_vec(record).map_err(|e| Error::storage(e.to_string()))?;
    store
        .put(&layout::server(&record.owner), PutPayload::from(body))
        .await?;
    Ok(())
}

/// Removes a server's record (it stopped).
pub(crate) async fn remove_server(store: &Arc<dyn ObjectStore>, owner: &str) -> Result<()> {
    delete_quietly(store, &layout::server(owner)).await
}

/// Every server record in the store, live or not (records of servers that stopped without a
/// goodbye stay until [`sweep_servers`]).
pub(crate) async fn servers(store: &Arc<dyn ObjectStore>) -> Result<Vec<ServerRecord>> {
    let listed: Vec<_> = store
        .list(Some(&layout::servers_prefix()))
        .try_collect()
        .await?;
    let mut records = Vec::new();
    for meta in listed {
        // A record that does not read (cut short, or of a shape this build does not know) is
        // a server this build cannot vouch for: it counts, as reading nothing newer than 1.
        match get_json::<ServerRecord>(store, &meta.location).await {
            Ok(Some(record)) => records.push(record),
            Ok(None) => {}
            Err(_) => records.push(ServerRecord {
                owner: meta.location.filename().unwrap_or_default().to_string(),
                release: "unknown".into(),
                reads: 1,
                host: "unknown".into(),
                pid: 0,
                listen: None,
                started: Timestamp::UNIX_EPOCH,
                renewed: Timestamp::from_millisecond(meta.last_modified.timestamp_millis())
                    .unwrap_or(Timestamp::UNIX_EPOCH),
            }),
        }
    }
    records.sort_by(|a, b| a.started.cmp(&b.started).then(a.owner.cmp(&b.owner)));
    Ok(records)
}

/// Deletes the records of servers that stopped renewing them before `now`.
pub(crate) async fn sweep_servers(store: &Arc<dyn ObjectStore>, now: Timestamp) -> Result<usize> {
    let mut swept = 0;
    for record in servers(store).await? {
        if !record.live(now) {
            remove_server(store, &record.owner).await?;
            swept += 1;
        }
    }
    Ok(swept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_ordered_and_the_newest_is_this_builds() {
        for (i, format) in FORMATS.iter().enumerate() {
            assert_eq!(format.number, i as u32 + 1);
        }
        assert_eq!(FORMAT, FORMATS.last().unwrap().number);
        assert_eq!(
            FORMATS.last().unwrap().release,
            RELEASE,
            "the newest format is read first by this release: bump one with the other"
        );
    }

    #[test]
    fn a_newer_format_is_refused_naming_the_release_it_needs() {
        let marker = Marker {
            format: FORMAT + 1,
            release: "9.0.0".into(),
            raised_at: Timestamp::UNIX_EPOCH,
            raised_by: "9.0.0".into(),
        };
        let refused = marker.check_readable().unwrap_err().to_string();
        assert!(refused.contains("run podhost 9.0.0 or later"), "{refused}");
        assert!(
            Marker::of(FORMAT, Timestamp::UNIX_EPOCH)
                .unwrap()
                .check_readable()
                .is_ok()
        );
    }
}
