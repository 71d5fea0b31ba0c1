//! Stream schedulers (RFC 8260 section 3): which stream's message gives
//! the next chunk. Without I-DATA a message, once started, is finished
//! before another is begun (its fragments must have consecutive TSNs,
//! RFC 9260 section 6.9), so a scheduler chooses only between messages;
//! with I-DATA (RFC 8260 section 2.1) it chooses for every chunk, and the
//! messages of different streams interleave.
//!
//! Within one stream the messages leave in the order they were queued.
//! The choice is made among the first queued message of each stream.

use std::collections::HashMap;

pub use crate::config::StreamScheduler;

/// The default priority value and weight of a stream.
pub const DEFAULT_STREAM_VALUE: u16 = 1;

/// Bytes sent, scaled so that dividing by a 16-bit weight keeps precision.
const SCALE: u64 = 1 << 16;

/// The scheduler's state.
#[derive(Debug, Clone, Default)]
pub(crate) struct Schedule {
    pub kind: StreamScheduler,
    /// The stream served last (round robin's position).
    last: Option<u16>,
    /// Round robin per packet: the stream of the packet being filled.
    packet_stream: Option<u16>,
    /// A new packet is being filled: round robin per packet picks anew.
    packet_start: bool,
    /// Priority value or weight per stream (absent: [`DEFAULT_STREAM_VALUE`]).
    values: HashMap<u16, u16>,
    /// Fair capacity and weighted fair queueing: the scaled bytes each
    /// stream sent (divided by its weight) since it last had data waiting.
    served: HashMap<u16, u64>,
}

impl Schedule {
    #[cfg(test)]
    pub fn new(kind: StreamScheduler) -> Self {
        Schedule {
            kind,
            ..Schedule::default()
        }
    }

    /// Sets a stream's priority value (priority scheduler) or weight
    /// (weighted fair queueing); a weight of 0 counts as 1.
    pub fn set_value(&mut self, stream: u16, value: u16) {
        self.values.insert(stream, value);
    }

    pub fn value(&self, stream: u16) -> u16 {
        self.values
            .get(&stream)
            .copied()
            .unwrap_or(DEFAULT_STREAM_VALUE)
    }

    /// The next chunk goes into a new packet.
    pub fn packet_started(&mut self) {
        self.packet_start = true;
    }

    /// A stream that had nothing waiting has a message queued: under the
    /// fair schedulers it starts level with the least served of the
    /// streams already waiting (declared choice: a stream idle for a while
    /// neither starves the others to catch up nor waits behind them).
    /// `waiting` are the streams with data queued before this message.
    pub fn activated(&mut self, stream: u16, waiting: impl Iterator<Item = u16>) {
        if !matches!(
            self.kind,
            StreamScheduler::FairCapacity | StreamScheduler::WeightedFair
        ) {
            return;
        }
        let level = waiting
            .filter_map(|s| self.served.get(&s).copied())
            .min()
            .unwrap_or(0);
        self.served.insert(stream, level);
    }

    /// `bytes` of `stream` were cut into a chunk.
    pub fn served(&mut self, stream: u16, bytes: usize) {
        self.last = Some(stream);
        self.packet_stream = Some(stream);
        self.packet_start = false;
        if matches!(
            self.kind,
            StreamScheduler::FairCapacity | StreamScheduler::WeightedFair
        ) {
            let weight = match self.kind {
                StreamScheduler::WeightedFair => u64::from(self.value(stream).max(1)),
                _ => 1,
            };
            let add = (bytes as u64).saturating_mul(SCALE) / weight;
            let s = self.served.entry(stream).or_insert(0);
            *s = s.saturating_add(add);
        }
    }

    /// Picks among `heads`: (queue index, stream) of the first queued
    /// message of each stream with data, in queue order (the first is the
    /// queue's head). Returns a queue index.
    pub fn pick(&self, heads: &[(usize, u16)]) -> Option<usize> {
        let first = heads.first()?;
        let chosen = match self.kind {
            StreamScheduler::Fcfs => first.1,
            StreamScheduler::RoundRobin => self.next_after(heads.iter().map(|h| h.1))?,
            StreamScheduler::RoundRobinPerPacket => match self.packet_stream {
                Some(s) if !self.packet_start && heads.iter().any(|h| h.1 == s) => s,
                _ => self.next_after(heads.iter().map(|h| h.1))?,
            },
            StreamScheduler::Priority => {
                let best = heads.iter().map(|h| self.value(h.1)).min()?;
                self.next_after(heads.iter().map(|h| h.1).filter(|&s| self.value(s) == best))?
            }
            StreamScheduler::FairCapacity | StreamScheduler::WeightedFair => {
                heads
                    .iter()
                    .min_by_key(|h| (self.served.get(&h.1).copied().unwrap_or(0), h.1))?
                    .1
            }
        };
        heads.iter().find(|h| h.1 == chosen).map(|h| h.0)
    }

    /// Round robin: the smallest stream number after the last served one,
    /// or the smallest of all when none is after it.
    fn next_after(&self, streams: impl Iterator<Item = u16> + Clone) -> Option<u16> {
        let after = self.last.map_or(0, |l| u32::from(l) + 1);
        streams
            .clone()
            .filter(|&s| u32::from(s) >= after)
            .min()
            .or_else(|| streams.min())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_robin_takes_turns_in_stream_order() {
        let mut s = Schedule::new(StreamScheduler::RoundRobin);
        let heads = [(0, 3), (1, 1), (2, 2)];
        let mut order = Vec::new();
        for _ in 0..4 {
            let i = s.pick(&heads).unwrap();
            let stream = heads[i].1;
            order.push(stream);
            s.served(stream, 100);
        }
        assert_eq!(order, [1, 2, 3, 1]);
    }

    #[test]
    fn weighted_fair_gives_capacity_in_proportion_to_weight() {
        let mut s = Schedule::new(StreamScheduler::WeightedFair);
        s.set_value(1, 3);
        let heads = [(0, 1), (1, 2)];
        let mut bytes = [0u64; 3];
        for _ in 0..400 {
            let i = s.pick(&heads).unwrap();
            bytes[heads[i].1 as usize] += 100;
            s.served(heads[i].1, 100);
        }
        assert_eq!(bytes[1], 3 * bytes[2]);
    }

    #[test]
    fn priority_serves_the_lowest_value_first() {
        let mut s = Schedule::new(StreamScheduler::Priority);
        s.set_value(4, 0);
        assert_eq!(s.pick(&[(0, 1), (1, 4), (2, 2)]), Some(1));
    }
}
