//! The event queue's cost against the one it replaced, in the same run
//! (what `msctp bench sim` prints as "event queue"): the kernel's radix
//! heap ([`Scheduler`]) and a 4-ary heap (`dary_heap`, the kernel's queue
//! before) run the same operations in interleaved pairs whose order
//! alternates, like [`super::estimator_cost`]; the per-pair ratios of CPU
//! time tell the gain on whatever machine runs it.
//!
//! The operations are the "hold" model of event-queue benchmarks: a queue
//! of `pending` events where each pop is followed by one push at the popped
//! time plus a delay. The delays, a declared choice, are the kinds a
//! simulated transfer schedules: none (an action now), 0.1 ms and 1.2 ms
//! (serialising a SACK and a 1500-byte packet on 10 Mbit/s), 10 ms
//! (propagation) and 200 ms (a timer), drawn in turn by a fixed xorshift
//! generator. Both queues must pop the same keys in the same order; a
//! difference is an error, not a figure.

use std::cmp::{Ordering, Reverse};

use dary_heap::QuaternaryHeap;
use serde::Serialize;

use crate::Time;
use crate::kernel::scheduler::Scheduler;

/// Delays of the hold model, nanoseconds (module documentation).
const DELAYS_NS: [u64; 5] = [0, 100_000, 1_200_000, 10_000_000, 200_000_000];

/// A payload of the kernel's event size (16 bytes).
#[derive(Debug, Clone, Copy)]
struct Payload([u32; 4]);

/// An entry of the reference heap: ordered by key only.
struct Keyed(u128, Payload);

impl PartialEq for Keyed {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}
impl Eq for Keyed {}
impl PartialOrd for Keyed {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Keyed {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.cmp(&other.0)
    }
}

/// The queue cost measured in pairs.
#[derive(Debug, Clone, Serialize)]
pub struct QueueCost {
    /// Events queued throughout.
    pub pending: usize,
    /// Pop-and-push operations of each side of a pair.
    pub operations: u64,
    /// CPU nanoseconds per operation of the radix heap, one per pair.
    pub radix_ns_per_op: Vec<f64>,
    /// The same of the 4-ary heap.
    pub dary_ns_per_op: Vec<f64>,
    /// Radix / 4-ary of each pair.
    pub ratios: Vec<f64>,
}

impl QueueCost {
    pub fn median_ratio(&self) -> f64 {
        super::median(&self.ratios)
    }

    /// The smallest and largest per-pair ratio.
    pub fn spread(&self) -> (f64, f64) {
        (
            super::quantile(&self.ratios, 0.0),
            super::quantile(&self.ratios, 1.0),
        )
    }
}

/// Why the queues could not be compared.
#[derive(Debug, thiserror::Error)]
pub enum QueueBenchError {
    #[error("the event queue and the reference heap popped different keys")]
    Differ,
    #[error("no CPU clock of the thread on this platform")]
    NoClock,
    #[error("{what} must lie in [{min}, {max}], got {got}")]
    Range {
        what: &'static str,
        min: u64,
        max: u64,
        got: u64,
    },
}

/// The delay of the `i`-th push: xorshift64 from a fixed seed.
struct Delays(u64);

impl Delays {
    fn new() -> Self {
        Delays(0x9e37_79b9_7f4a_7c15)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        DELAYS_NS[(self.0 % DELAYS_NS.len() as u64) as usize]
    }
}

/// Runs the hold model on the kernel's queue: (CPU seconds, checksum of
/// the popped keys and payloads).
fn run_radix(pending: usize, ops: u64) -> Option<(f64, u128)> {
    let mut d = Delays::new();
    let mut q: Scheduler<Payload> = Scheduler::new();
    for i in 0..pending {
        q.push(Time::from_nanos(d.next()), Payload([i as u32; 4]));
    }
    let mut sum = 0u128;
    let t0 = crate::cpu::thread_cpu_time()?;
    for _ in 0..ops {
        let key = q.peek_key()?;
        let (t, p) = q.pop()?;
        sum = sum.wrapping_mul(31).wrapping_add(key ^ u128::from(p.0[0]));
        q.push(t + std::time::Duration::from_nanos(d.next()), p);
    }
    let t1 = crate::cpu::thread_cpu_time()?;
    Some(((t1.saturating_sub(t0)).as_secs_f64(), sum))
}

/// The same on the 4-ary heap, keys drawn as the kernel draws them.
fn run_dary(pending: usize, ops: u64) -> Option<(f64, u128)> {
    let mut d = Delays::new();
    let mut q: QuaternaryHeap<Reverse<Keyed>> = QuaternaryHeap::new();
    let mut seq = 0u64;
    let mut key = |t: u64| {
        let k = (u128::from(t) << 64) | u128::from(seq);
        seq += 1;
        k
    };
    for i in 0..pending {
        q.push(Reverse(Keyed(key(d.next()), Payload([i as u32; 4]))));
    }
    let mut sum = 0u128;
    let t0 = crate::cpu::thread_cpu_time()?;
    for _ in 0..ops {
        let Reverse(Keyed(k, p)) = q.pop()?;
        sum = sum.wrapping_mul(31).wrapping_add(k ^ u128::from(p.0[0]));
        let t = (k >> 64) as u64 + d.next();
        q.push(Reverse(Keyed(key(t), p)));
    }
    let t1 = crate::cpu::thread_cpu_time()?;
    Some(((t1.saturating_sub(t0)).as_secs_f64(), sum))
}

/// Measures [`QueueCost`] over `pairs` interleaved pairs (after one
/// discarded warm-up of each side).
pub fn queue_cost(pending: usize, ops: u64, pairs: usize) -> Result<QueueCost, QueueBenchError> {
    let range = |what, got: u64, min, max| {
        if (min..=max).contains(&got) {
            Ok(())
        } else {
            Err(QueueBenchError::Range {
                what,
                min,
                max,
                got,
            })
        }
    };
    range("pending events", pending as u64, 1, 1_000_000)?;
    range("operations", ops, 1, 1_000_000_000)?;
    range("pairs", pairs as u64, 1, 1000)?;
    let radix = || run_radix(pending, ops).ok_or(QueueBenchError::NoClock);
    let dary = || run_dary(pending, ops).ok_or(QueueBenchError::NoClock);
    let (_, a) = radix()?;
    let (_, b) = dary()?;
    if a != b {
        return Err(QueueBenchError::Differ);
    }
    let mut c = QueueCost {
        pending,
        operations: ops,
        radix_ns_per_op: Vec::new(),
        dary_ns_per_op: Vec::new(),
        ratios: Vec::new(),
    };
    for k in 0..pairs {
        let ((r, sr), (h, sh)) = if k % 2 == 0 {
            let r = radix()?;
            (r, dary()?)
        } else {
            let h = dary()?;
            (radix()?, h)
        };
        if sr != sh {
            return Err(QueueBenchError::Differ);
        }
        let per = |s: f64| s / ops as f64 * 1e9;
        c.radix_ns_per_op.push(per(r));
        c.dary_ns_per_op.push(per(h));
        c.ratios.push(r / h.max(1e-12));
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_queues_pop_the_same_keys_and_are_timed_in_pairs() {
        let c = queue_cost(32, 20_000, 3).unwrap();
        assert_eq!((c.ratios.len(), c.pending, c.operations), (3, 32, 20_000));
        assert!(c.ratios.iter().all(|r| r.is_finite() && *r > 0.0));
        assert_eq!(run_radix(7, 5000).unwrap().1, run_dary(7, 5000).unwrap().1);
    }

    #[test]
    fn out_of_range_parameters_are_errors() {
        assert!(matches!(
            queue_cost(0, 10, 1),
            Err(QueueBenchError::Range { .. })
        ));
        assert!(matches!(
            queue_cost(1, 10, 0),
            Err(QueueBenchError::Range { .. })
        ));
    }
}
