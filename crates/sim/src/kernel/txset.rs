//! Small sets and maps keyed by a shared medium's transmitter number (0 =
//! the access point, s + 1 = station slot s), in ascending order of the
//! number, as the ordered `BTreeSet` / `BTreeMap` they replace: a medium
//! is consulted after every frame, and with tens of stations a tree walk
//! per transmitter cost more than the rest of the contention.
//!
//! Both grow to the highest number used (bounded by the cell's stations).

use smallvec::SmallVec;

/// A set of transmitter numbers: one bit each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TxSet {
    words: SmallVec<[u64; 2]>,
}

impl TxSet {
    pub fn insert(&mut self, t: usize) {
        let (w, b) = (t / 64, t % 64);
        if self.words.len() <= w {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= 1 << b;
    }

    pub fn remove(&mut self, t: usize) {
        if let Some(w) = self.words.get_mut(t / 64) {
            *w &= !(1 << (t % 64));
        }
    }

    /// (The simulator asks only `first_from` and `snapshot`; the test
    /// compares this with the tree's.)
    #[cfg(test)]
    pub fn contains(&self, t: usize) -> bool {
        self.words
            .get(t / 64)
            .is_some_and(|w| w & (1 << (t % 64)) != 0)
    }

    /// The smallest member not below `from`.
    pub fn first_from(&self, from: usize) -> Option<usize> {
        let mut w = from / 64;
        let mut bits = self.words.get(w)? & (!0u64 << (from % 64));
        loop {
            if bits != 0 {
                return Some(w * 64 + bits.trailing_zeros() as usize);
            }
            w += 1;
            bits = *self.words.get(w)?;
        }
    }

    /// The members in ascending order, as they are now (the set may be
    /// changed while the snapshot is walked).
    pub fn snapshot(&self) -> impl Iterator<Item = usize> + use<> {
        let words = self.words.clone();
        words.into_iter().enumerate().flat_map(|(w, mut bits)| {
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let b = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    w * 64 + b
                })
            })
        })
    }
}

/// A map from transmitter numbers to values, in ascending order.
#[derive(Debug, Clone)]
pub struct TxMap<V> {
    slots: Vec<Option<V>>,
}

impl<V> Default for TxMap<V> {
    fn default() -> Self {
        TxMap { slots: Vec::new() }
    }
}

impl<V> TxMap<V> {
    pub fn contains_key(&self, t: usize) -> bool {
        self.get(t).is_some()
    }

    pub fn get(&self, t: usize) -> Option<&V> {
        self.slots.get(t)?.as_ref()
    }

    /// Sets the value of `t`; returns the one it replaces.
    pub fn insert(&mut self, t: usize, v: V) -> Option<V> {
        if self.slots.len() <= t {
            self.slots.resize_with(t + 1, || None);
        }
        self.slots[t].replace(v)
    }

    pub fn remove(&mut self, t: usize) -> Option<V> {
        self.slots.get_mut(t)?.take()
    }

    /// (number, value) in ascending order of the number.
    pub fn iter(&self) -> impl Iterator<Item = (usize, &V)> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(t, v)| v.as_ref().map(|v| (t, v)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};

    /// Any sequence of inserts and removes leaves the set and the map
    /// answering as the ordered tree types do.
    #[test]
    fn the_set_and_the_map_answer_as_the_ordered_trees() {
        use proptest::prelude::*;
        proptest!(|(ops in proptest::collection::vec((any::<bool>(), 0usize..200), 0..300))| {
            let (mut s, mut ts) = (TxSet::default(), BTreeSet::new());
            let (mut m, mut tm) = (TxMap::default(), BTreeMap::new());
            for (i, (add, t)) in ops.into_iter().enumerate() {
                if add {
                    s.insert(t);
                    ts.insert(t);
                    prop_assert_eq!(m.insert(t, i), tm.insert(t, i));
                } else {
                    s.remove(t);
                    ts.remove(&t);
                    prop_assert_eq!(m.remove(t), tm.remove(&t));
                }
                prop_assert_eq!(s.contains(t), ts.contains(&t));
                prop_assert_eq!(m.contains_key(t), tm.contains_key(&t));
                for from in [0, t, t + 1, 63, 64, 65, 250] {
                    prop_assert_eq!(s.first_from(from), ts.range(from..).next().copied());
                }
                prop_assert_eq!(s.snapshot().collect::<Vec<_>>(), ts.iter().copied().collect::<Vec<_>>());
                let mine: Vec<_> = m.iter().map(|(k, v)| (k, *v)).collect();
                let theirs: Vec<_> = tm.iter().map(|(k, v)| (*k, *v)).collect();
                prop_assert_eq!(mine, theirs);
            }
        });
    }
}
