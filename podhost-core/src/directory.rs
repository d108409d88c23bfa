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
//!
//! A server that starts reads the directory in one object, `index/directory.json` (every entry
//! with the version it was listed at, written by a server whose listing found a change), and
//! then lists the entries in the background, fetching only those changed since: the first home
//! page after a start is answered from memory, whatever the number of podcasts
//! ([`Directory::warm`]).

use crate::lock::Locked;
use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use futures::{StreamExt, TryStreamExt};
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

/// The directory in one object: each podcast's title with the version of its entry's object
/// when it was listed.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Index {
    entries: Vec<(FeedId, String, String)>,
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

/// Removes a podcast that was just made private or deleted: its entry, and its line of the
/// index (a server that starts answers its first home page from the index, where such a
/// podcast must not be listed). A listing that read the entry before this removal may write
/// it back into the index; the next listing drops it again.
pub(crate) async fn unlist(store: &Arc<dyn ObjectStore>, feed: &FeedId) -> Result<()> {
    // Not listed (a private podcast changed again): nothing to take out.
    match store.head(&layout::directory_entry(feed)).await {
        Err(object_store::Error::NotFound { .. }) => return Ok(()),
        Err(e) => return Err(e.into()),
        Ok(_) => {}
    }
    remove(store, feed).await?;
    if let Some(mut index) = get_json::<Index>(store, &layout::directory_index()).await?
        && index.entries.iter().any(|(listed, _, _)| listed == feed)
    {
        index.entries.retain(|(listed, _, _)| listed != feed);
        let body = serde_json::to_vec(&index).map_err(|e| Error::storage(e.to_string()))?;
        store
            .put(&layout::directory_index(), PutPayload::from(body))
            .await?;
    }
    Ok(())
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
    refresh: Arc<tokio::sync::Mutex<()>>,
}

#[derive(Default)]
struct Known {
    /// Each podcast's title, with where it was learnt.
    titles: HashMap<FeedId, (Source, String)>,
    listed: Option<Instant>,
    /// The podcasts by title (then id), made again after a change.
    sorted: Option<Arc<Vec<(FeedId, String)>>>,
}

impl Known {
    fn sorted(&mut self) -> Arc<Vec<(FeedId, String)>> {
        let titles = &self.titles;
        self.sorted
            .get_or_insert_with(|| {
                let mut podcasts: Vec<(String, &FeedId, &String)> = titles
                    .iter()
                    .map(|(feed, (_, title))| (title.to_lowercase(), feed, title))
                    .collect();
                podcasts.sort();
                Arc::new(
                    podcasts
                        .into_iter()
                        .map(|(_, feed, title)| (feed.clone(), title.clone()))
                        .collect(),
                )
            })
            .clone()
    }
}

impl Directory {
    /// This server wrote a podcast's entry (`Some`) or removed it (`None`).
    pub(crate) fn wrote(&self, feed: &FeedId, title: Option<&str>) {
        let mut known = self.known.locked();
        known.sorted = None;
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
    /// read again when older than [`REFRESH`] (the first call waits for it; later ones answer
    /// from what is known while a background task reads it).
    pub(crate) async fn podcasts(
        self: &Arc<Self>,
        store: &Arc<dyn ObjectStore>,
        limit: usize,
    ) -> Result<Vec<(FeedId, String)>> {
        let listed = self.known.locked().listed;
        match listed {
            // The first request after a start, before the background read: the index, else
            // the whole listing.
            None if self.read_index(store).await => {}
            None => self.read_listing(store).await?,
            Some(at) if at.elapsed() >= REFRESH => {
                if let Ok(reading) = self.refresh.clone().try_lock_owned() {
                    let (directory, store) = (self.clone(), store.clone());
                    tokio::spawn(async move {
                        // A request's refresh only reads: the index is written by a server's
                        // start and by the hooks of the changes.
                        if let Err(e) = directory.read_listing_locked(&store, false).await {
                            tracing::warn!(error = %e, "could not list the directory");
                        }
                        drop(reading);
                    });
                }
            }
            Some(_) => {}
        }
        let sorted = self.known.locked().sorted();
        Ok(sorted.iter().take(limit).cloned().collect())
    }

    /// Reads the directory into memory, as a server does when it starts: the index (one
    /// object), at once, so that the first home page is answered from memory; then the listing,
    /// which fetches only the entries changed since the index was written (and writes it
    /// anew when it found a change). A missing or unreadable index leaves the listing to do it
    /// all.
    pub(crate) async fn warm(&self, store: &Arc<dyn ObjectStore>) -> Result<()> {
        self.read_index(store).await;
        let _reading = self.refresh.lock().await;
        self.read_listing_locked(store, true).await
    }

    /// Reads the index (one object) when nothing is known yet; whether the directory is known
    /// after it. A missing or unreadable index leaves the listing to do it all.
    async fn read_index(&self, store: &Arc<dyn ObjectStore>) -> bool {
        let _reading = self.refresh.lock().await;
        let known = |d: &Self| d.known.locked().listed;
        if known(self).is_some() {
            return true;
        }
        match get_json::<Index>(store, &layout::directory_index()).await {
            Ok(Some(index)) => {
                let started = Instant::now();
                let mut known = self.known.locked();
                for (feed, title, version) in index.entries {
                    // This server's own writes are newer than any index.
                    known
                        .titles
                        .entry(feed)
                        .or_insert((Source::Listed(version), title));
                }
                known.sorted = None;
                known.sorted();
                known.listed = Some(started);
                true
            }
            Ok(None) => false,
            Err(e) => {
                tracing::warn!(error = %e, "the directory's index is unreadable: listing it all");
                false
            }
        }
    }

    async fn read_listing(&self, store: &Arc<dyn ObjectStore>) -> Result<()> {
        let _reading = self.refresh.lock().await;
        let fresh = self.known.locked().listed.is_some();
        if fresh {
            return Ok(());
        }
        // The first listing of a deployment without an index writes it (once).
        self.read_listing_locked(store, true).await
    }

    /// Lists the directory and fetches the entries new or changed since the last listing; with
    /// `write_index`, writes the index anew when the listing found a change.
    async fn read_listing_locked(
        &self,
        store: &Arc<dyn ObjectStore>,
        write_index: bool,
    ) -> Result<()> {
        let started = Instant::now();
        let listed: Vec<_> = store.list(Some(&layout::directory())).try_collect().await?;
        let mut seen = HashMap::with_capacity(listed.len());
        let mut fetch = Vec::new();
        {
            let known = self.known.locked();
            for meta in listed {
                let Some(feed) = layout::directory_entry_of(&meta.location) else {
                    continue;
                };
                let version = meta
                    .e_tag
                    .clone()
                    .unwrap_or_else(|| meta.last_modified.to_rfc3339());
                let source = Source::Listed(version);
                match known.titles.get(&feed) {
                    Some((had, title)) if *had == source => {
                        seen.insert(feed, (source, title.clone()));
                    }
                    _ => fetch.push((feed, source, meta.location)),
                }
            }
        }
        // New and changed entries, read a few dozen at a time.
        let fetched: Vec<_> = futures::stream::iter(fetch)
            .map(|(feed, source, location)| async move {
                let entry = get_json::<Entry>(store, &location).await?;
                Ok::<_, Error>(entry.map(|entry| (feed, (source, entry.title))))
            })
            .buffer_unordered(32)
            .try_collect()
            .await?;
        let changed = !fetched.is_empty();
        seen.extend(fetched.into_iter().flatten());
        let (index, gone) = {
            let mut known = self.known.locked();
            let gone = known.titles.iter().any(|(feed, (source, _))| {
                matches!(source, Source::Listed(_)) && !seen.contains_key(feed)
            });
            // The listed entries, as the index keeps them.
            let index = Index {
                entries: seen
                    .iter()
                    .filter_map(|(feed, (source, title))| match source {
                        Source::Listed(version) => {
                            Some((feed.clone(), title.clone(), version.clone()))
                        }
                        Source::Written(_) => None,
                    })
                    .collect(),
            };
            // What this server wrote while the listing was read may be missing from it.
            for (feed, (source, title)) in known.titles.drain() {
                if matches!(source, Source::Written(at) if at >= started) {
                    seen.insert(feed, (source, title));
                }
            }
            known.titles = seen;
            known.sorted = None;
            // Sorted here, in the background, rather than by the next home page.
            known.sorted();
            known.listed = Some(started);
            (index, gone)
        };
        if write_index && (changed || gone) {
            let body = serde_json::to_vec(&index).map_err(|e| Error::storage(e.to_string()))?;
            store
                .put(&layout::directory_index(), PutPayload::from(body))
                .await?;
        }
        Ok(())
    }
}
