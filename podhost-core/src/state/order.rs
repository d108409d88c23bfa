//! A podcast's episodes and an account's media files in each order their lists sort by, kept
//! sorted as records are written and removed: a page of a 10,000-episode podcast or of 10,000
//! files is read off an index instead of sorting them on every request. Derived state: never
//! stored, rebuilt on load.

use std::collections::BTreeSet;

use jiff::Timestamp;

use crate::{
    ids::{EpisodeId, MediaId},
    model::{Episode, EpisodeSort, Media, MediaSort},
};

/// The three orders, ascending; ties broken by id, as the list does.
#[derive(Debug, Default, Clone)]
pub(crate) struct EpisodeOrder {
    by_publish: Vec<(Timestamp, EpisodeId)>,
    by_update: Vec<(Timestamp, EpisodeId)>,
    by_public: Vec<(bool, Timestamp, EpisodeId)>,
}

fn insert<K: Ord>(list: &mut Vec<K>, key: K) {
    if let Err(at) = list.binary_search(&key) {
        list.insert(at, key);
    }
}

fn remove<K: Ord>(list: &mut Vec<K>, key: &K) {
    if let Ok(at) = list.binary_search(key) {
        list.remove(at);
    }
}

impl EpisodeOrder {
    /// The order of `episodes`.
    pub(crate) fn of<'a>(episodes: impl Iterator<Item = &'a Episode>) -> Self {
        let mut order = EpisodeOrder::default();
        for ep in episodes {
            order.by_publish.push((ep.publish_at, ep.id));
            order.by_update.push((ep.updated, ep.id));
            order.by_public.push((ep.is_public, ep.publish_at, ep.id));
        }
        order.by_publish.sort_unstable();
        order.by_update.sort_unstable();
        order.by_public.sort_unstable();
        order
    }

    /// `new` replaces `old` (none: a new episode).
    pub(crate) fn put(&mut self, old: Option<&Episode>, new: &Episode) {
        // Each list is touched only where the key changed: an edit of a 10,000-episode podcast
        // moves one key (its update time), not three.
        fn replace<K: Ord>(list: &mut Vec<K>, old: Option<K>, new: K) {
            if old.as_ref() == Some(&new) {
                return;
            }
            if let Some(old) = old {
                remove(list, &old);
            }
            insert(list, new);
        }
        replace(
            &mut self.by_publish,
            old.map(|o| (o.publish_at, o.id)),
            (new.publish_at, new.id),
        );
        replace(
            &mut self.by_update,
            old.map(|o| (o.updated, o.id)),
            (new.updated, new.id),
        );
        replace(
            &mut self.by_public,
            old.map(|o| (o.is_public, o.publish_at, o.id)),
            (new.is_public, new.publish_at, new.id),
        );
    }

    /// `old` is gone.
    pub(crate) fn remove(&mut self, old: &Episode) {
        remove(&mut self.by_publish, &(old.publish_at, old.id));
        remove(&mut self.by_update, &(old.updated, old.id));
        remove(
            &mut self.by_public,
            &(old.is_public, old.publish_at, old.id),
        );
    }

    /// How many episodes there are.
    pub(crate) fn len(&self) -> usize {
        self.by_publish.len()
    }

    /// The episode ids sorted by `sort`, descending or not.
    pub(crate) fn ids(
        &self,
        sort: EpisodeSort,
        descending: bool,
    ) -> Box<dyn Iterator<Item = EpisodeId> + '_> {
        fn directed<'a, T: 'a>(
            list: &'a [T],
            descending: bool,
            id: fn(&T) -> EpisodeId,
        ) -> Box<dyn Iterator<Item = EpisodeId> + 'a> {
            if descending {
                Box::new(list.iter().rev().map(id))
            } else {
                Box::new(list.iter().map(id))
            }
        }
        match sort {
            EpisodeSort::PublishDate => directed(&self.by_publish, descending, |k| k.1),
            EpisodeSort::LastUpdate => directed(&self.by_update, descending, |k| k.1),
            EpisodeSort::IsPublic => directed(&self.by_public, descending, |k| k.2),
        }
    }

    /// The page `start..start + size` of the ids sorted by `sort`, without walking the rest.
    pub(crate) fn page(
        &self,
        sort: EpisodeSort,
        descending: bool,
        start: usize,
        size: usize,
    ) -> Vec<EpisodeId> {
        let n = self.len();
        let range = start.min(n)..start.saturating_add(size).min(n);
        let at = |i: usize| if descending { n - 1 - i } else { i };
        range
            .map(|i| match sort {
                EpisodeSort::PublishDate => self.by_publish[at(i)].1,
                EpisodeSort::LastUpdate => self.by_update[at(i)].1,
                EpisodeSort::IsPublic => self.by_public[at(i)].2,
            })
            .collect()
    }

    /// The ids of episodes published after `now`, soonest first (the end of the publish order).
    pub(crate) fn after(
        &self,
        now: Timestamp,
    ) -> impl Iterator<Item = (Timestamp, EpisodeId)> + '_ {
        let first = self.by_publish.partition_point(|(at, _)| *at <= now);
        self.by_publish[first..].iter().copied()
    }
}

/// An account's media files in the three orders of the media list, ascending; ties broken by
/// id, as the list does.
#[derive(Debug, Default, Clone)]
pub(crate) struct MediaOrder {
    by_name: BTreeSet<(String, MediaId)>,
    by_size: BTreeSet<(u64, MediaId)>,
    by_created: BTreeSet<(Timestamp, MediaId)>,
}

impl MediaOrder {
    /// `new` replaces `old` (either may be none).
    pub(crate) fn put(&mut self, old: Option<&Media>, new: Option<&Media>) {
        if let Some(old) = old {
            self.by_name.remove(&(old.name.clone(), old.id));
            self.by_size.remove(&(old.size, old.id));
            self.by_created.remove(&(old.created, old.id));
        }
        if let Some(new) = new {
            self.by_name.insert((new.name.clone(), new.id));
            self.by_size.insert((new.size, new.id));
            self.by_created.insert((new.created, new.id));
        }
    }

    /// The ids sorted by `sort`, descending or not, walked lazily (a page takes what it shows).
    pub(crate) fn ids(
        &self,
        sort: MediaSort,
        descending: bool,
    ) -> Box<dyn Iterator<Item = MediaId> + '_> {
        fn directed<'a, K: 'a>(
            set: &'a BTreeSet<(K, MediaId)>,
            descending: bool,
        ) -> Box<dyn Iterator<Item = MediaId> + 'a> {
            if descending {
                Box::new(set.iter().rev().map(|(_, id)| *id))
            } else {
                Box::new(set.iter().map(|(_, id)| *id))
            }
        }
        match sort {
            MediaSort::Name => directed(&self.by_name, descending),
            MediaSort::Size => directed(&self.by_size, descending),
            MediaSort::Created => directed(&self.by_created, descending),
        }
    }

    /// The ids of the files named exactly `name` (a name is unique in the account; a record
    /// read from an older store may share one), by id.
    pub(crate) fn named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = MediaId> + 'a {
        self.by_name
            .range((name.to_string(), MediaId::MIN)..)
            .take_while(move |(n, _)| n == name)
            .map(|(_, id)| *id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ep(id: u64, publish: i64, updated: i64, public: bool) -> Episode {
        let at = |s: i64| Timestamp::from_second(s).unwrap();
        Episode {
            id: EpisodeId::new(id).unwrap(),
            feed: crate::ids::FeedId::new("show").unwrap(),
            guid: id.to_string(),
            title: String::new(),
            subtitle: String::new(),
            description: String::new(),
            author: String::new(),
            email: String::new(),
            copyright: String::new(),
            link: String::new(),
            is_public: public,
            publish_at: at(publish),
            media: None,
            video: None,
            itunes: Default::default(),
            transcript: None,
            podcast: Default::default(),
            mastering: None,
            created: at(0),
            updated: at(updated),
            version: 1,
        }
    }

    /// The list's own sort: what the index must give.
    fn sorted(eps: &[Episode], sort: EpisodeSort, descending: bool) -> Vec<EpisodeId> {
        let mut v: Vec<&Episode> = eps.iter().collect();
        v.sort_by(|a, b| {
            let o = match sort {
                EpisodeSort::PublishDate => a.publish_at.cmp(&b.publish_at),
                EpisodeSort::LastUpdate => a.updated.cmp(&b.updated),
                EpisodeSort::IsPublic => a
                    .is_public
                    .cmp(&b.is_public)
                    .then(a.publish_at.cmp(&b.publish_at)),
            }
            .then(a.id.cmp(&b.id));
            if descending { o.reverse() } else { o }
        });
        v.into_iter().map(|e| e.id).collect()
    }

    proptest! {
        /// After any sequence of puts (new or replacing) and removals, every order and page of
        /// the index is the sort of the episodes left.
        #[test]
        fn the_index_is_the_sort(ops in prop::collection::vec((1u64..30, 0i64..20, 0i64..20, any::<bool>(), any::<bool>()), 0..80)) {
            let mut live: std::collections::BTreeMap<u64, Episode> = Default::default();
            let mut order = EpisodeOrder::default();
            for (id, publish, updated, public, remove) in ops {
                if remove {
                    if let Some(old) = live.remove(&id) {
                        order.remove(&old);
                    }
                } else {
                    let new = ep(id, publish, updated, public);
                    order.put(live.get(&id), &new);
                    live.insert(id, new);
                }
            }
            let eps: Vec<Episode> = live.into_values().collect();
            let rebuilt = EpisodeOrder::of(eps.iter());
            for sort in [EpisodeSort::PublishDate, EpisodeSort::LastUpdate, EpisodeSort::IsPublic] {
                for descending in [false, true] {
                    let want = sorted(&eps, sort, descending);
                    prop_assert_eq!(order.ids(sort, descending).collect::<Vec<_>>(), want.clone());
                    prop_assert_eq!(rebuilt.ids(sort, descending).collect::<Vec<_>>(), want.clone());
                    for (start, size) in [(0, 5), (3, 4), (10, 100), (100, 3)] {
                        let page: Vec<EpisodeId> = want.iter().copied().skip(start).take(size).collect();
                        prop_assert_eq!(order.page(sort, descending, start, size), page);
                    }
                }
            }
        }
    }
}
