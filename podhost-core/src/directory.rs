//! The deployment's directory of public podcasts, for the home page: one small object per
//! public podcast (`directory/{hex of feed id}`: its account and title), written after the
//! commit that creates, renames, makes public or private, or deletes it, so that listing the
//! podcasts never opens an account.
//!
//! Each server keeps the directory in memory ([`Directory`]): its own writes at once, the
//! other servers' within [`REFRESH`] (the listing is read again in the background, and only
//! entries new or changed since are fetched). Two servers renaming one podcast within
//! milliseconds may leave the older title in the directory until the next repair of the work
//! index, which rewrites every entry from the accounts.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use futures::TryStreamExt;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};
use serde::{Deserialize, Serialize};

use crate::{
    error::{Error, Result},
    ids::{AccountId, FeedId},
    store::{delete_quietly, get_json, layout},
};

/// How old the listing a server answers from may be before it is read again.
pub const REFRESH: Duration = Duration::from_secs(10);

/// A public podcast's entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Entry {
    pub(crate) account: AccountId,
    pub(crate) title: String,
}

/// Writes a public podcast's entry.
pub(crate) async fn put(store: &Arc<dyn ObjectStore>, feed: &FeedId, entry: &Entry) -> Result<()> {
    let body = serde_json::to_vec(entry).map_err(|e| Error::storage(e.to_string()))?;
    store
        .put(&layout::directory_entry(feed), PutPayload::from(body))
        .await?;
    Ok(())
}

/// Removes a podcast from the directory (private, deleted).
pub(crate) async fn remove(store: &Arc<dyn ObjectStore>, feed: &FeedId) -> Result<()> {
    delete_quietly(store, &layout::directory_entry(feed)).await
}

/// Where a server learnt a title.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    /// A listing, from this version of the entry's object.
    Listed(String),
    /// This server's own write, then.
    Written(Instant),
}

/// The directory as one server knows it.
#[derive(Default)]
pub(crate) struct Directory {
    known: Mutex<Known>,
    /// Serialises reading the listing again.
    refresh: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct Known {
    /// Each podcast's title, with where it was learnt.
    titles: HashMap<FeedId, (Source, String)>,
    listed: Option<Instant>,
}

impl Directory {
    /// This server wrote a podcast's entry (`Some`) or removed it (`None`).
    pub(crate) fn wrote(&self, feed: &FeedId, title: Option<&str>) {
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        match title {
            Some(title) => {
                known.titles.insert(
                    feed.clone(),
                    (Source::Written(Instant::now()), title.to_string()),
                );
            }
            None => {
                known.titles.remove(feed);
            }
        }
    }

    /// Up to `limit` public podcasts by title (then id). Answers from memory; the listing is
    /// read again when older than [`REFRESH`] (the first call waits for it, later ones are
    /// answered from what is known while one call reads it).
    pub(crate) async fn podcasts(
        &self,
        store: &Arc<dyn ObjectStore>,
        limit: usize,
    ) -> Result<Vec<(FeedId, String)>> {
        let listed = self.known.lock().unwrap_or_else(|e| e.into_inner()).listed;
        match listed {
            None => self.read_listing(store).await?,
            Some(at) if at.elapsed() >= REFRESH => {
                if let Ok(_reading) = self.refresh.try_lock() {
                    self.read_listing_locked(store).await?;
                }
            }
            Some(_) => {}
        }
        let known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        let mut podcasts: Vec<(String, &FeedId, &String)> = known
            .titles
            .iter()
            .map(|(feed, (_, title))| (title.to_lowercase(), feed, title))
            .collect();
        podcasts.sort();
        Ok(podcasts
            .into_iter()
            .take(limit)
            .map(|(_, feed, title)| (feed.clone(), title.clone()))
            .collect())
    }

    async fn read_listing(&self, store: &Arc<dyn ObjectStore>) -> Result<()> {
        let _reading = self.refresh.lock().await;
        let fresh = self
            .known
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .listed
            .is_some();
        if fresh {
            return Ok(());
        }
        self.read_listing_locked(store).await
    }

    /// Lists the directory and fetches the entries new or changed since the last listing.
    async fn read_listing_locked(&self, store: &Arc<dyn ObjectStore>) -> Result<()> {
        let started = Instant::now();
        let listed: Vec<_> = store.list(Some(&layout::directory())).try_collect().await?;
        let mut seen = HashMap::with_capacity(listed.len());
        for meta in listed {
            let Some(feed) = layout::directory_entry_of(&meta.location) else {
                continue;
            };
            let version = meta
                .e_tag
                .clone()
                .unwrap_or_else(|| meta.last_modified.to_rfc3339());
            let known = self
                .known
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .titles
                .get(&feed)
                .filter(|(source, _)| *source == Source::Listed(version.clone()))
                .map(|(_, title)| title.clone());
            let title = match known {
                Some(title) => title,
                None => match get_json::<Entry>(store, &meta.location).await? {
                    Some(entry) => entry.title,
                    None => continue,
                },
            };
            seen.insert(feed, (Source::Listed(version), title));
        }
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        // What this server wrote while the listing was read may be missing from it.
        for (feed, (source, title)) in known.titles.drain() {
            if matches!(source, Source::Written(at) if at >= started) {
                seen.insert(feed, (source, title));
            }
        }
        known.titles = seen;
        known.listed = Some(started);
        Ok(())
    }
}
