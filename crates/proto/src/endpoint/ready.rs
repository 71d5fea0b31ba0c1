//! The schedule's ready set: the associations that may have a packet to
//! send, by creation number ([`super::schedule`]).
//!
//! An endpoint of the simulator holds one association, and every packet
//! puts it in the set and takes it out again: a search tree costs a
//! descent and a node split or merge each time. A few ready associations
//! are kept in a short sorted list instead, the tree taking over once
//! there are more than [`FEW`] (a server with thousands of associations);
//! both answer every question the same.

use std::collections::BTreeMap;

use smallvec::SmallVec;

use super::AssocId;

/// Up to this many ready associations are kept in the sorted list.
const FEW: usize = 8;

/// See the module documentation. Invariant: `few` is empty while `many`
/// holds any (the ready associations are in one of the two, sorted).
#[derive(Debug, Clone, Default)]
pub(super) struct ReadySet {
    few: SmallVec<[(u64, AssocId); FEW]>,
    many: BTreeMap<u64, AssocId>,
}

impl ReadySet {
    /// Adds `id` (creation number `seq`); a second insert changes nothing.
    pub(super) fn insert(&mut self, seq: u64, id: AssocId) {
        if !self.many.is_empty() {
            self.many.insert(seq, id);
            return;
        }
        match self.few.binary_search_by_key(&seq, |(s, _)| *s) {
            Ok(k) => self.few[k].1 = id,
            Err(_) if self.few.len() == FEW => {
                self.many.extend(self.few.drain(..));
                self.many.insert(seq, id);
            }
            Err(k) => self.few.insert(k, (seq, id)),
        }
    }

    pub(super) fn remove(&mut self, seq: u64) {
        if !self.many.is_empty() {
            self.many.remove(&seq);
        } else if let Ok(k) = self.few.binary_search_by_key(&seq, |(s, _)| *s) {
            self.few.remove(k);
        }
    }

    /// The first one at or after `cursor`, or else the first one.
    pub(super) fn first_from(&self, cursor: u64) -> Option<(u64, AssocId)> {
        if !self.many.is_empty() {
            let (first, id) = self.many.first_key_value()?;
            if *first >= cursor || self.many.len() == 1 {
                return Some((*first, *id));
            }
            let next = self.many.range(cursor..).next();
            return Some(next.map_or((*first, *id), |(s, id)| (*s, *id)));
        }
        let k = self.few.partition_point(|(s, _)| *s < cursor);
        self.few.get(k).or_else(|| self.few.first()).copied()
    }

    /// The ids, by creation number.
    pub(super) fn ids(&self) -> impl Iterator<Item = AssocId> + '_ {
        let few = self.few.iter().map(|(_, id)| *id);
        few.chain(self.many.values().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The set against a plain tree, through inserts and removes that go
    /// past `FEW` and back, asked from every cursor.
    #[test]
    fn it_answers_as_a_search_tree_does() {
        let mut set = ReadySet::default();
        let mut tree = BTreeMap::new();
        // A fixed, scrambled sequence of operations on 24 creation numbers.
        let mut x: u64 = 7;
        for step in 0..2000 {
            x = (x * 1_103_515_245 + 12_345) % (1 << 31);
            let seq = x % 24;
            if (x >> 8).is_multiple_of(3) {
                set.remove(seq);
                tree.remove(&seq);
            } else {
                set.insert(seq, AssocId(seq as u32 + 100));
                tree.insert(seq, AssocId(seq as u32 + 100));
            }
            let ids: Vec<AssocId> = tree.values().copied().collect();
            assert_eq!(set.ids().collect::<Vec<_>>(), ids, "step {step}");
            for cursor in 0..26 {
                let want = tree
                    .range(cursor..)
                    .next()
                    .or_else(|| tree.iter().next())
                    .map(|(s, id)| (*s, *id));
                assert_eq!(set.first_from(cursor), want, "step {step} cursor {cursor}");
            }
        }
        // Emptied from the tree, the list serves again.
        for seq in 0..24 {
            set.remove(seq);
        }
        assert_eq!(set.first_from(0), None);
        set.insert(5, AssocId(5));
        set.insert(3, AssocId(3));
        assert_eq!(set.first_from(4), Some((5, AssocId(5))));
        assert_eq!(set.first_from(6), Some((3, AssocId(3))));
    }
}
