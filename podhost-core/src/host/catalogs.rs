//! The account catalogs this process holds open: at most a bound of bytes of them (estimated
//! from their states, [`Journal::weight`](crate::catalog::Journal::weight)), the least recently
//! used let go first. A catalog let go is opened again from the store (its snapshot, then the
//! entries after it) when the account is next asked for; whoever still holds the one let go
//! finishes with it, and both are clients of one log, so neither's writes are lost.

use crate::lock::Locked;
use std::{
    collections::{BTreeMap, HashMap},
    sync::{Arc, Mutex, MutexGuard},
};

use tokio::sync::OnceCell;

use crate::{catalog::Catalog, ids::AccountId, state::AccountState};

/// An account's catalog.
pub(super) type AccountCatalog = Catalog<AccountState>;

impl AccountCatalog {
    /// Decides and writes one change to the account, recording `by` as its actor in the same
    /// entry (see [`Catalog::commit_by`]): every change of an account says who made it.
    pub(crate) async fn commit<R: serde::Serialize + serde::de::DeserializeOwned>(
        &self,
        at: jiff::Timestamp,
        by: &crate::model::Actor,
        decide: impl FnMut(&AccountState) -> crate::error::Result<(Vec<crate::state::Change>, R)>,
    ) -> crate::error::Result<R> {
        self.commit_by(at, Some(crate::state::Change::By(by.clone())), decide)
            .await
    }
}

/// The ids of the accounts in `store`, listed (no account is opened).
pub(crate) async fn account_ids(
    store: &dyn object_store::ObjectStore,
) -> crate::error::Result<Vec<AccountId>> {
    let listed = store
        .list_with_delimiter(Some(&crate::store::layout::accounts()))
        .await?;
    Ok(listed
        .common_prefixes
        .iter()
        .filter_map(crate::store::layout::account_of)
        .collect())
}

/// A slot of an account: its catalog once opened (concurrent first uses share one open).
pub(super) type Cell = Arc<OnceCell<Arc<AccountCatalog>>>;

/// The open catalogs, least recently used first to go.
pub(super) struct OpenCatalogs {
    slots: Mutex<Slots>,
    bound: usize,
}

#[derive(Default)]
struct Slots {
    by_account: HashMap<AccountId, Slot>,
    /// Accounts by their last use (a tick of this process), oldest first.
    by_use: BTreeMap<u64, AccountId>,
    tick: u64,
    /// The weights of the opened slots, and how many they are.
    bytes: usize,
    opened: usize,
}

struct Slot {
    cell: Cell,
    used: u64,
    /// Its estimated bytes, once opened.
    weight: usize,
}

impl OpenCatalogs {
    /// No catalog open; at most `bound` bytes of them kept.
    pub(super) fn new(bound: usize) -> Self {
        OpenCatalogs {
            slots: Mutex::default(),
            bound,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Slots> {
        self.slots.locked()
    }

    /// The account's slot (a new, empty one when it has none), marked as just used.
    pub(super) fn cell(&self, account: &AccountId) -> Cell {
        let mut slots = self.lock();
        slots.tick += 1;
        let tick = slots.tick;
        let Slots {
            by_account, by_use, ..
        } = &mut *slots;
        let slot = by_account.entry(account.clone()).or_insert_with(|| Slot {
            cell: Cell::default(),
            used: 0,
            weight: 0,
        });
        by_use.remove(&slot.used);
        slot.used = tick;
        by_use.insert(tick, account.clone());
        slot.cell.clone()
    }

    /// Records that the account's `cell` holds a catalog of `weight` bytes now (at its open,
    /// and at each use: an account grows), then lets go of the least recently used others while
    /// the kept bytes pass the bound. The weight is kept with the catalog's state
    /// ([`Journal::weight`](crate::catalog::Journal::weight) costs no walk).
    /// Whether anything changed (the held catalogs and their bytes).
    pub(super) fn weighed(&self, account: &AccountId, cell: &Cell, weight: usize) -> bool {
        let mut slots = self.lock();
        let Some(slot) = slots.by_account.get_mut(account) else {
            return false;
        };
        if !Arc::ptr_eq(&slot.cell, cell) {
            return false;
        }
        // Never zero, so that an opened slot is told from one still opening.
        let weight = weight.max(1);
        let (old, opened) = (slot.weight, slot.weight == 0);
        if weight == old {
            return false;
        }
        slot.weight = weight;
        slots.bytes = slots.bytes - old + weight;
        if opened {
            slots.opened += 1;
        }
        // The oldest opened slots (never this one, never one still opening: its opener is
        // about to use it) until enough bytes are let go.
        let mut over = slots.bytes.saturating_sub(self.bound);
        let mut going = Vec::new();
        for (used, oldest) in &slots.by_use {
            if over == 0 {
                break;
            }
            match slots.by_account.get(oldest) {
                Some(slot) if slot.weight > 0 && oldest != account => {
                    going.push((*used, oldest.clone()));
                    over = over.saturating_sub(slot.weight);
                }
                _ => {}
            }
        }
        for (used, oldest) in going {
            slots.by_use.remove(&used);
            if let Some(slot) = slots.by_account.remove(&oldest) {
                slots.bytes -= slot.weight;
                slots.opened -= 1;
            }
        }
        true
    }

    /// Removes the account's slot when it is `cell` and was never opened (an unknown account,
    /// or a failed open, leaves nothing behind).
    pub(super) fn forget_unopened(&self, account: &AccountId, cell: &Cell) {
        let mut slots = self.lock();
        let unopened = slots
            .by_account
            .get(account)
            .is_some_and(|s| Arc::ptr_eq(&s.cell, cell) && !s.cell.initialized());
        if unopened && let Some(slot) = slots.by_account.remove(account) {
            slots.by_use.remove(&slot.used);
        }
    }

    /// How many catalogs are open, and their estimated bytes.
    pub(super) fn held(&self) -> (usize, usize) {
        let slots = self.lock();
        (slots.opened, slots.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(name: &str) -> AccountId {
        name.parse().unwrap()
    }

    #[test]
    fn the_least_recently_used_goes_first_and_the_bound_holds() {
        let open = OpenCatalogs::new(250);
        let mut cells = Vec::new();
        for name in ["aaa", "bbb", "ccc"] {
            let cell = open.cell(&id(name));
            // Stand in for an opened catalog: the bookkeeping only looks at weights.
            open.weighed(&id(name), &cell, 100);
            cells.push(cell);
        }
        // Three of 100 bytes pass the bound of 250: the oldest, aaa, went.
        assert_eq!(open.held(), (2, 200));
        assert!(!open.lock().by_account.contains_key(&id("aaa")));
        // Using bbb makes ccc the oldest.
        open.cell(&id("bbb"));
        let cell = open.cell(&id("ddd"));
        open.weighed(&id("ddd"), &cell, 100);
        let kept: Vec<String> = {
            let slots = open.lock();
            slots.by_use.values().map(ToString::to_string).collect()
        };
        assert_eq!(kept, ["bbb", "ddd"]);
        assert_eq!(open.held(), (2, 200));
    }

    #[test]
    fn a_slot_still_opening_is_never_let_go() {
        let open = OpenCatalogs::new(100);
        let opening = open.cell(&id("slow"));
        let cell = open.cell(&id("fast"));
        open.weighed(&id("fast"), &cell, 150);
        // Over the bound, yet the slot being opened stays (and the one just opened too).
        assert!(Arc::ptr_eq(&open.cell(&id("slow")), &opening));
        assert_eq!(open.held(), (1, 150));
    }
}

#[cfg(test)]
mod weight_tests {
    use std::sync::Arc;

    use crate::{
        catalog::Journal,
        model::{EpisodePatch, FeedPatch, NewEpisode, NewFeed},
        state::AccountState,
    };

    /// The weight of the state as loaded afresh, which walks every podcast and episode (what
    /// `weight` did on every call before it was kept with the state).
    fn walked(state: &AccountState) -> usize {
        let mut fresh = state.clone();
        fresh.after_load();
        fresh.weight()
    }

    #[tokio::test]
    async fn the_weight_kept_with_the_state_is_the_weight_of_a_walk() {
        let host = crate::PodcastHost::new(
            crate::HostConfig::new("https://pod.test").unwrap(),
            Arc::new(object_store::memory::InMemory::new()),
        );
        host.access().create_account("alice").await.unwrap();
        let alice = "alice".parse().unwrap();
        let owner = host.access().owner(&alice).await.unwrap();
        let mut feeds = Vec::new();
        for id in ["one", "two"] {
            let mut new = NewFeed::titled(id, id);
            new.fields.description = Some(format!("About {id}, at some length."));
            feeds.push(
                host.podcasts()
                    .create_feed(&owner, new)
                    .await
                    .unwrap()
                    .feed
                    .id,
            );
        }
        let mut episodes = Vec::new();
        for n in 0..12 {
            let feed = &feeds[n % 2];
            let mut new = NewEpisode::titled(format!("Episode {n}"));
            new.fields.description = Some("notes ".repeat(n + 1));
            let made = host
                .podcasts()
                .create_episode(&owner, feed, new)
                .await
                .unwrap();
            episodes.push((feed.clone(), made.episode.id));
        }
        let longer = EpisodePatch {
            description: Some("much longer notes ".repeat(40)),
            ..Default::default()
        };
        for (feed, id) in &episodes[..4] {
            host.podcasts()
                .update_episode(&owner, feed, *id, &longer)
                .await
                .unwrap();
        }
        let (feed, id) = &episodes[4];
        host.podcasts()
            .delete_episode(&owner, feed, *id)
            .await
            .unwrap();
        let renamed = FeedPatch {
            description: Some("Shorter.".into()),
            ..Default::default()
        };
        host.podcasts()
            .update_feed(&owner, &feeds[0], &renamed)
            .await
            .unwrap();
        let catalog = host.catalog(&alice).await.unwrap();
        let (kept, walk) = catalog.read(|s| (s.weight(), walked(s))).await;
        assert_eq!(kept, walk);
        host.podcasts()
            .delete_feed(&owner, &feeds[1])
            .await
            .unwrap();
        let (kept, walk) = catalog.read(|s| (s.weight(), walked(s))).await;
        assert_eq!(kept, walk);
        assert!(kept > 8 * 1024, "{kept}");
    }
}
