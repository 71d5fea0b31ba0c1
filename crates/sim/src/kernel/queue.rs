//! Drop-tail FIFO queue bounded in packets (ns-2 `Queue/DropTail`).
//!
//! The limit counts packets waiting; the packet being serialised has left
//! the queue (as in ns-2, where the link holds it).

use std::collections::VecDeque;

#[derive(Debug, Clone)]
pub struct DropTailQueue<T> {
    items: VecDeque<T>,
    limit: usize,
}

impl<T> DropTailQueue<T> {
    pub fn new(limit: usize) -> Self {
        DropTailQueue {
            items: VecDeque::new(),
            limit,
        }
    }

    /// Appends `item`, or gives it back when the queue is full.
    pub fn push(&mut self, item: T) -> Result<(), T> {
        if self.items.len() >= self.limit {
            Err(item)
        } else {
            self.items.push_back(item);
            Ok(())
        }
    }

    pub fn pop(&mut self) -> Option<T> {
        self.items.pop_front()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Changes the limit; packets beyond a lowered limit stay queued (none
    /// are dropped) but no new packet enters until the queue drains below it.
    pub fn set_limit(&mut self, limit: usize) {
        self.limit = limit;
    }

    /// Removes every packet, in order.
    pub fn drain(&mut self) -> impl Iterator<Item = T> + '_ {
        self.items.drain(..)
    }

    /// Removes the packets matching `remove` and returns them, in order.
    pub fn extract_if(&mut self, mut remove: impl FnMut(&T) -> bool) -> Vec<T> {
        let mut out = Vec::new();
        let mut keep = VecDeque::with_capacity(self.items.len());
        for it in self.items.drain(..) {
            if remove(&it) {
                out.push(it)
            } else {
                keep.push_back(it)
            }
        }
        self.items = keep;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_tail_at_limit() {
        let mut q = DropTailQueue::new(2);
        assert!(q.push(1).is_ok());
        assert!(q.push(2).is_ok());
        assert_eq!(q.push(3), Err(3));
        assert_eq!(q.pop(), Some(1));
        assert!(q.push(4).is_ok());
        assert_eq!(q.drain().collect::<Vec<_>>(), [2, 4]);
        let mut z = DropTailQueue::new(0);
        assert_eq!(z.push(1), Err(1));
    }

    #[test]
    fn extract_keeps_order() {
        let mut q = DropTailQueue::new(10);
        for i in 0..6 {
            q.push(i).unwrap();
        }
        assert_eq!(q.extract_if(|x| x % 2 == 0), [0, 2, 4]);
        assert_eq!(q.drain().collect::<Vec<_>>(), [1, 3, 5]);
    }
}
