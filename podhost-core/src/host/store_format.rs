//! The store's format and the servers on it, as this process sees them (see
//! [`store::format`](crate::store::format)): the check at start, the format a write may use,
//! this server's record, and the operator's status and upgrade.

use std::time::{Duration, Instant};

use serde::Serialize;

use super::PodcastHost;
use crate::{
    error::{Error, Result},
    lock::Locked,
    store::format::{self, FORMAT, Marker, RELEASE, RENEW_EVERY, ServerRecord},
};

/// How long this process goes by the format it last read before reading it again (a raise by
/// `podhost store upgrade` is seen within it).
const FORMAT_FRESH: Duration = RENEW_EVERY;

/// How long a client refused for the store's format is asked to wait (an upgrade goes one
/// server at a time).
const FORMAT_WAIT: Duration = Duration::from_secs(60);

/// The store's format and the servers on it, for `podhost store status` and `/readyz`.
#[derive(Clone, Debug, Serialize)]
pub struct StoreStatus {
    /// The format the store holds (1 when it was never raised).
    pub format: u32,
    /// Its marker, when it was raised.
    pub marker: Option<Marker>,
    /// The newest format this process reads.
    pub reads: u32,
    /// This process's release.
    pub release: &'static str,
    /// The servers whose records are in the store, with whether each is live.
    pub servers: Vec<ServerState>,
}

/// What `podhost store upgrade` did: the store's status after it, and what it made for the
/// records kept before the format was raised.
#[derive(Clone, Debug, Serialize)]
pub struct StoreUpgrade {
    /// The store after the upgrade.
    #[serde(flatten)]
    pub status: StoreStatus,
    /// Podcasts made before the store kept the fediverse's records, given their actor's key
    /// (they are followable now).
    pub actors_made: usize,
}

/// A server's record and whether it renewed it recently.
#[derive(Clone, Debug, Serialize)]
pub struct ServerState {
    /// Its record.
    #[serde(flatten)]
    pub record: ServerRecord,
    /// It renewed its record within [`SERVER_TTL`](format::SERVER_TTL).
    pub live: bool,
}

impl PodcastHost {
    /// The store's format, as last read (read again once 5 s old). `Invalid` when the
    /// store holds a format newer than this build reads: this process must not write to it.
    pub async fn store_format(&self) -> Result<u32> {
        if let Some((known, at)) = *self.inner.kernel.format.0.locked()
            && at.elapsed() < FORMAT_FRESH
        {
            return Ok(known);
        }
        self.read_store_format().await
    }

    /// Reads the store's format now, refusing one newer than this build reads.
    async fn read_store_format(&self) -> Result<u32> {
        let marker = format::read(self.store()).await?;
        if let Some(marker) = &marker {
            marker.check_readable()?;
        }
        let number = format::number(marker.as_ref());
        *self.inner.kernel.format.0.locked() = Some((number, Instant::now()));
        Ok(number)
    }

    /// Whether the store's format holds what `format` brought (see
    /// [`FORMATS`](format::FORMATS)); `Unavailable` (retry in a minute) naming the upgrade
    /// when it does not yet.
    pub(crate) async fn require_format(&self, needed: u32, what: &str) -> Result<()> {
        let holds = self.store_format().await?;
        if holds >= needed {
            return Ok(());
        }
        let release = format::FORMATS
            .iter()
            .find(|f| f.number == needed)
            .map_or(RELEASE, |f| f.release);
        Err(Error::Unavailable {
            message: format!(
                "{what} needs the store's format {needed} (podhost {release}); the store holds \
                 format {holds} while servers of an older release may run on it: once every \
                 server runs {release} or later, `podhost store upgrade` raises it"
            ),
            retry_after: FORMAT_WAIT,
        })
    }

    /// Before the first account of a new store: makes it at the newest format, so a new
    /// deployment never runs at an old one. A store that holds accounts keeps its format.
    pub(crate) async fn prepare_new_store(&self) -> Result<()> {
        if format::read(self.store()).await?.is_some() || !format::is_new(self.store()).await? {
            return Ok(());
        }
        format::raise(self.store(), &Marker::of(FORMAT, self.now())?).await?;
        *self.inner.kernel.format.0.locked() = None;
        Ok(())
    }

    /// This server's record, written at start and renewed every
    /// [`RENEW_EVERY`](format::RENEW_EVERY) by [`renew_server`](Self::renew_server).
    fn server_record(&self, listen: Option<&str>, started: jiff::Timestamp) -> ServerRecord {
        ServerRecord {
            owner: self.inner.kernel.owner.clone(),
            release: RELEASE.to_string(),
            reads: FORMAT,
            host: hostname(),
            pid: std::process::id(),
            listen: listen.map(str::to_string),
            started,
            renewed: self.now(),
        }
    }

    /// Records this server in the store (its release and the formats it reads), after checking
    /// that it reads the store's format, and the public URL its links start with (which
    /// commands run on the store without one make their links with:
    /// [`recorded_public_url`](format::recorded_public_url)). `Invalid`, saying which release
    /// it needs, when not.
    pub async fn register_server(&self, listen: Option<&str>) -> Result<ServerRecord> {
        self.read_store_format().await?;
        let record = self.server_record(listen, self.now());
        format::put_server(self.store(), &record).await?;
        format::put_public_url(self.store(), self.urls().base(), self.now()).await?;
        Ok(record)
    }

    /// Renews this server's record and reads the store's format again. `Invalid` when the
    /// store was raised past what this build reads: the server must stop.
    pub async fn renew_server(&self, record: &ServerRecord) -> Result<()> {
        let renewed = ServerRecord {
            renewed: self.now(),
            ..record.clone()
        };
        format::put_server(self.store(), &renewed).await?;
        self.read_store_format().await.map(|_| ())
    }

    /// Removes this server's record (it stops); a store that does not answer leaves it to
    /// expire.
    pub async fn deregister_server(&self) {
        if let Err(e) = format::remove_server(self.store(), &self.inner.kernel.owner).await {
            tracing::warn!(error = %e, "could not remove this server's record; it expires");
        }
    }

    /// Keeps this server's `record` in the store until `stop` resolves, renewing it every
    /// [`RENEW_EVERY`](format::RENEW_EVERY), then removes it. A renewal that finds the store
    /// raised past what this build reads is logged as an error on every renewal (an operator
    /// forced it while this server ran: it must be replaced).
    pub async fn keep_server_record(
        &self,
        record: ServerRecord,
        stop: impl std::future::Future<Output = ()>,
    ) {
        let mut stop = std::pin::pin!(stop);
        loop {
            tokio::select! {
                () = &mut stop => break,
                () = tokio::time::sleep(RENEW_EVERY) => {}
            }
            match self.renew_server(&record).await {
                Ok(()) => {}
                Err(e @ Error::Invalid(_)) => {
                    tracing::error!(error = %e, "this server cannot read the store's format");
                }
                Err(e) => tracing::warn!(error = %e, "could not renew this server's record"),
            }
        }
        self.deregister_server().await;
    }

    /// The store's format, this build's, and the servers on the store.
    pub async fn store_status(&self) -> Result<StoreStatus> {
        let marker = format::read(self.store()).await?;
        let now = self.now();
        let servers = format::servers(self.store())
            .await?
            .into_iter()
            .map(|record| ServerState {
                live: record.live(now),
                record,
            })
            .collect();
        Ok(StoreStatus {
            format: format::number(marker.as_ref()),
            marker,
            reads: FORMAT,
            release: RELEASE,
            servers,
        })
    }

    /// Raises the store's format to `to` (this build's newest when none), once every live
    /// server reads it: `Conflict`, naming the servers that do not, while one lives. Records of
    /// servers that stopped are swept first. Raising to the format the store holds changes
    /// nothing; a lower one is refused (a format is never lowered). Then what the format
    /// brings is made for what was there before it: once the store keeps the fediverse's
    /// records, every podcast without an actor's key gets one (again on a repeat, for what an
    /// interrupted upgrade left).
    pub async fn upgrade_store(&self, to: Option<u32>) -> Result<StoreUpgrade> {
        let status = self.raise_format(to).await?;
        let actors_made = match status.format >= format::FEDIVERSE {
            true => self.podcasts().make_actors().await?,
            false => 0,
        };
        Ok(StoreUpgrade {
            status,
            actors_made,
        })
    }

    /// The raise of [`upgrade_store`](Self::upgrade_store).
    async fn raise_format(&self, to: Option<u32>) -> Result<StoreStatus> {
        let to = to.unwrap_or(FORMAT);
        let target = Marker::of(to, self.now())?;
        let holds = self.store_format().await?;
        if to < holds {
            return Err(Error::invalid(
                "format",
                format!("the store holds format {holds}; a format is never lowered"),
            ));
        }
        if to > holds {
            format::sweep_servers(self.store(), self.now()).await?;
            let behind: Vec<String> = format::servers(self.store())
                .await?
                .into_iter()
                .filter(|s| s.live(self.now()) && s.reads < to)
                .map(|s| s.describe())
                .collect();
            if !behind.is_empty() {
                return Err(Error::conflict(format!(
                    "format {to} cannot be raised while servers that read only older formats \
                     run on the store: {}; upgrade them to podhost {} or later first",
                    behind.join("; "),
                    target.release
                )));
            }
            // Every format between is raised too, so each marker says what the store held.
            for step in holds + 1..=to {
                format::raise(self.store(), &Marker::of(step, self.now())?).await?;
            }
            *self.inner.kernel.format.0.locked() = None;
        }
        self.store_status().await
    }
}

/// This machine's host name, for operators to recognise a server by.
fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "unknown".into())
}
