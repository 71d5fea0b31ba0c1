//! A map from association ids to what the endpoint keeps per association
//! (the association itself, its [`super::Meta`]), looked up several times
//! for every packet.
//!
//! An endpoint mostly holds one or a few associations: up to [`FEW`]
//! entries are kept in a list and found by comparing ids, cheaper than
//! hashing and probing a table; one more moves them all into a hash map
//! (a server with many clients), and they stay there until it is empty.
//! Nothing reads the entries in an order that matters: the only walk
//! ([`IdMap::iter`]) rebuilds a heap of distinct keys.

use rustc_hash::FxHashMap;

use super::AssocId;

/// Entries kept in the list; one more, and the hash map holds them.
const FEW: usize = 8;

/// A map from [`AssocId`] to `V`.
#[derive(Debug, Clone)]
pub(super) struct IdMap<V> {
    /// The entries while there are at most [`FEW`] (then `many` is
    /// empty).
    few: Vec<(AssocId, V)>,
    /// The entries once there were more (then `few` is empty).
    many: FxHashMap<AssocId, V>,
}

impl<V> Default for IdMap<V> {
    fn default() -> Self {
        IdMap {
            few: Vec::new(),
            many: FxHashMap::default(),
        }
    }
}

impl<V> IdMap<V> {
    pub(super) fn len(&self) -> usize {
        self.few.len() + self.many.len()
    }

    #[inline]
    pub(super) fn get(&self, id: &AssocId) -> Option<&V> {
        if self.many.is_empty() {
            self.few.iter().find(|(k, _)| k == id).map(|(_, v)| v)
        } else {
            self.many.get(id)
        }
    }

    #[inline]
    pub(super) fn get_mut(&mut self, id: &AssocId) -> Option<&mut V> {
        if self.many.is_empty() {
            self.few.iter_mut().find(|(k, _)| k == id).map(|(_, v)| v)
        } else {
            self.many.get_mut(id)
        }
    }

    #[inline]
    pub(super) fn contains_key(&self, id: &AssocId) -> bool {
        self.get(id).is_some()
    }

    /// Inserts `v` under `id`, returning the value it replaces.
    pub(super) fn insert(&mut self, id: AssocId, v: V) -> Option<V> {
        if let Some(old) = self.get_mut(&id) {
            return Some(std::mem::replace(old, v));
        }
        if self.many.is_empty() && self.few.len() < FEW {
            self.few.push((id, v));
            return None;
        }
        self.many.extend(self.few.drain(..));
        self.many.insert(id, v)
    }

    pub(super) fn remove(&mut self, id: &AssocId) -> Option<V> {
        if self.many.is_empty() {
            let k = self.few.iter().position(|(k, _)| k == id)?;
            Some(self.few.remove(k).1)
        } else {
            self.many.remove(id)
        }
    }

    /// Every entry, in no particular order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&AssocId, &V)> {
        let few = self.few.iter().map(|(k, v)| (k, v));
        few.chain(self.many.iter())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use proptest::prelude::*;

    use super::*;

    #[derive(Debug, Clone)]
    enum Op {
        Insert(u32, u64),
        Remove(u32),
        Get(u32),
        Bump(u32),
    }

    fn op() -> impl Strategy<Value = Op> {
        // Ids from a small range, so that inserts, removals and lookups
        // meet, and the list overflows into the map and empties again.
        let id = 0u32..20;
        prop_oneof![
            (id.clone(), any::<u64>()).prop_map(|(k, v)| Op::Insert(k, v)),
            id.clone().prop_map(Op::Remove),
            id.clone().prop_map(Op::Get),
            id.prop_map(Op::Bump),
        ]
    }

    proptest! {
        /// Every answer is the standard hash map's.
        #[test]
        fn answers_as_a_hash_map(ops in proptest::collection::vec(op(), 0..300)) {
            let mut m: IdMap<u64> = IdMap::default();
            let mut r: HashMap<AssocId, u64> = HashMap::new();
            for o in ops {
                match o {
                    Op::Insert(k, v) => {
                        prop_assert_eq!(m.insert(AssocId(k), v), r.insert(AssocId(k), v));
                    }
                    Op::Remove(k) => {
                        prop_assert_eq!(m.remove(&AssocId(k)), r.remove(&AssocId(k)));
                    }
                    Op::Get(k) => {
                        prop_assert_eq!(m.get(&AssocId(k)), r.get(&AssocId(k)));
                        prop_assert_eq!(m.contains_key(&AssocId(k)), r.contains_key(&AssocId(k)));
                    }
                    Op::Bump(k) => {
                        if let Some(v) = m.get_mut(&AssocId(k)) {
                            *v = v.wrapping_add(1);
                        }
                        if let Some(v) = r.get_mut(&AssocId(k)) {
                            *v = v.wrapping_add(1);
                        }
                    }
                }
                prop_assert_eq!(m.len(), r.len());
                let mut all: Vec<(AssocId, u64)> = m.iter().map(|(k, v)| (*k, *v)).collect();
                all.sort();
                let mut want: Vec<(AssocId, u64)> = r.iter().map(|(k, v)| (*k, *v)).collect();
                want.sort();
                prop_assert_eq!(all, want);
            }
        }
    }
}
