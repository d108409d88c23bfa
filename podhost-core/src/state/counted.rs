//! A map of an account's records whose reads are counted as the records the current request
//! touches ([`RequestContext::touched`](crate::request::RequestContext::touched)): each record
//! a lookup finds, each record a walk passes, each record a copy clones. The collections that
//! grow with an account (its podcasts, each podcast's episodes, its media files) are kept in
//! one, so that a request whose work grows with the account shows it in a count, which tests
//! compare between a small account and a large one (no clock involved).

use std::{
    borrow::Borrow,
    collections::{BTreeMap, btree_map},
};

use serde::{Deserialize, Serialize};

use crate::request::touch;

/// A `BTreeMap` whose reads count as touched records (its writes do not: a change touches the
/// one record it changes).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct Counted<K: Ord, V>(BTreeMap<K, V>);

impl<K: Ord, V> Default for Counted<K, V> {
    fn default() -> Self {
        Counted(BTreeMap::new())
    }
}

impl<K: Ord + Clone, V: Clone> Clone for Counted<K, V> {
    /// A copy touches every record (a writer that copies a state others still read pays it).
    fn clone(&self) -> Self {
        touch(self.0.len());
        Counted(self.0.clone())
    }
}

impl<K: Ord, V> Counted<K, V> {
    /// The record of `key`.
    pub(crate) fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        let found = self.0.get(key);
        touch(usize::from(found.is_some()));
        found
    }

    /// The record of `key`, to change in place.
    pub(crate) fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        let found = self.0.get_mut(key);
        touch(usize::from(found.is_some()));
        found
    }

    /// Whether there is a record of `key`.
    pub(crate) fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        touch(1);
        self.0.contains_key(key)
    }

    /// Puts a record; the one it replaces, if any.
    pub(crate) fn insert(&mut self, key: K, value: V) -> Option<V> {
        self.0.insert(key, value)
    }

    /// Takes a record out.
    pub(crate) fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        self.0.remove(key)
    }

    /// How many records (touches none).
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The records' values in key order, each touched as the walk passes it.
    pub(crate) fn values(&self) -> impl DoubleEndedIterator<Item = &V> {
        self.0.values().inspect(|_| touch(1))
    }

    /// The records' values to change in place, each touched as the walk passes it.
    pub(crate) fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.0.values_mut().inspect(|_| touch(1))
    }

    /// The records in key order to change in place, each touched as the walk passes it.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (&K, &mut V)> {
        self.0.iter_mut().inspect(|_| touch(1))
    }

    /// The keys in order, each touched as the walk passes it.
    pub(crate) fn keys(&self) -> impl DoubleEndedIterator<Item = &K> {
        self.0.keys().inspect(|_| touch(1))
    }
}

impl<K: Ord + Borrow<Q>, Q: Ord + ?Sized, V> std::ops::Index<&Q> for Counted<K, V> {
    type Output = V;

    /// The record of `key`; panics when there is none, as a `BTreeMap` does.
    fn index(&self, key: &Q) -> &V {
        touch(1);
        &self.0[key]
    }
}

impl<K: Ord, V> IntoIterator for Counted<K, V> {
    type Item = (K, V);
    type IntoIter = btree_map::IntoIter<K, V>;

    /// Takes the records out (to split a state into snapshot parts), uncounted: the caller
    /// owns them from then on.
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for Counted<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        Counted(iter.into_iter().collect())
    }
}

impl<K: Ord, V> Extend<(K, V)> for Counted<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        self.0.extend(iter);
    }
}

impl<K: Ord, V> From<BTreeMap<K, V>> for Counted<K, V> {
    fn from(map: BTreeMap<K, V>) -> Self {
        Counted(map)
    }
}
