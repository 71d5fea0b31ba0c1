//! Capacity by packet-pair dispersion (docs/MODELS.md section 3, AISLE).
//!
//! Two packets sent back to back leave the narrowest link of the path
//! spaced by the time that link takes to transmit the second: capacity =
//! its length / the spacing at the receiver. A train carries one pair of
//! large packets between two pairs of small ones:
//!
//! ```text
//!   seq   0      1      2        3        4      5
//!         small  small  LARGE    LARGE    small  small
//!                       |<- Δ_large ->|
//! ```
//!
//! Two ways to time a train ([`crate::estimate::CapacityMethod`]):
//!
//! - sender-based packet pair (SBPP, the default; Budzisz et al., AISLE):
//!   the six packets are HEARTBEATs, which any RFC 9260 peer answers
//!   (section 8.3); the sender times the returning HEARTBEAT ACKs
//!   ([`CapacityEstimator::on_heartbeat_ack`]). This measures the forward
//!   dispersion as long as the return path has no tighter bottleneck for
//!   the small acknowledgments and no cross traffic respaces them;
//! - receiver-timed probes (msctp's PROBE chunks): the receiver
//!   ([`TrainReceiver`]) timestamps each probe and, when the last one
//!   arrives, echoes the arrival times ([`ProbeEchoChunk`]); only a peer
//!   running msctp answers.
//!
//! Either way the sender ([`CapacityEstimator`]) keeps a sample only when all six arrived,
//! in order, and the large pair is spread wider than each small pair (a
//! large packet takes longer to transmit than a small one on any link: if
//! it does not, the pair was compressed after the bottleneck, by a queue
//! that released it in a burst or a receiver that read it in one batch).
//! Capacity = (length of large packet 3 + per-packet overhead) × 8 / Δ_large.
//!
//! Filter: the median of the last N kept samples. Cross traffic between
//! the two large packets spreads them (the sample underestimates), a queue
//! after the bottleneck compresses them (it overestimates); either error
//! hits a minority of trains, and the median ignores a minority of
//! outliers on both sides while following a real change after N/2 trains.
//! A mode over a histogram (pathrate) needs tens of samples per estimate,
//! which trains sent once per heartbeat interval do not give.

use std::collections::VecDeque;
use std::net::IpAddr;

use crate::Time;
use crate::wire::probe::{PROBE_HEADER_LEN, ProbeArrival, ProbeChunk, ProbeEchoChunk};

/// Packets in a train.
pub const TRAIN_LEN: usize = 6;
/// Which of them are large.
pub const LARGE: [bool; TRAIN_LEN] = [false, false, true, true, false, false];
/// Trains a receiver times at once (one per path being probed, with room
/// for a lost last probe).
pub const MAX_RX_TRAINS: usize = 4;
/// Longest train a receiver accepts.
pub const MAX_TRAIN_LEN: u8 = 16;

/// Why an echoed train gave no sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Discard {
    /// Fewer probes arrived than were sent.
    Lost,
    /// The probes arrived out of order (or twice).
    Reordered,
    /// The echo does not match what was sent (lengths, sequence numbers).
    Mismatch,
    /// The large pair was not spread wider than the small pairs.
    Compressed,
}

/// A train sent on a path and not answered yet.
#[derive(Debug, Clone)]
pub struct TrainInFlight {
    /// Names the train in its answers: the PROBE chunks' train identifier
    /// (receiver-timed), or the nonce in the HEARTBEATs' information (SBPP).
    pub id: u64,
    pub sent_at: Time,
    /// SCTP packet length of each probe.
    pub sizes: [u16; TRAIN_LEN],
}

/// Evaluates an echo against the train it answers: the capacity sample in
/// bits per second, or why there is none. `overhead`: bytes each packet
/// carries below SCTP at the bottleneck, counted in the capacity.
pub fn evaluate(
    train: &TrainInFlight,
    arrivals: &[ProbeArrival],
    overhead: u32,
) -> Result<u64, Discard> {
    if arrivals.len() < TRAIN_LEN {
        return Err(Discard::Lost);
    }
    if arrivals.len() > TRAIN_LEN {
        return Err(Discard::Mismatch);
    }
    for (i, a) in arrivals.iter().enumerate() {
        if usize::from(a.seq) >= TRAIN_LEN {
            return Err(Discard::Mismatch);
        }
        if usize::from(a.seq) != i {
            return Err(Discard::Reordered);
        }
        if a.packet_len != train.sizes[i] {
            return Err(Discard::Mismatch);
        }
        if i > 0 && a.offset_ns < arrivals[i - 1].offset_ns {
            return Err(Discard::Reordered);
        }
    }
    let t = |i: usize| u64::from(arrivals[i].offset_ns);
    let small_a = t(1) - t(0);
    let large = t(3) - t(2);
    let small_b = t(5) - t(4);
    if large == 0 || large <= small_a || large <= small_b {
        return Err(Discard::Compressed);
    }
    let bits = (u64::from(train.sizes[3]) + u64::from(overhead)) * 8;
    Ok((u128::from(bits) * 1_000_000_000 / u128::from(large)).min(u64::MAX as u128) as u64)
}

/// The probes of a train to send: SCTP packet lengths and chunk lengths.
/// `small_packet` and `large_packet` are whole SCTP packet lengths;
/// `fixed` is what every packet carries besides the PROBE chunk (common
/// header, AUTH).
pub fn train_chunks(
    id: u32,
    small_packet: usize,
    large_packet: usize,
    fixed: usize,
) -> [ProbeChunk; TRAIN_LEN] {
    std::array::from_fn(|i| {
        let packet = if LARGE[i] { large_packet } else { small_packet };
        let chunk = packet.saturating_sub(fixed).max(PROBE_HEADER_LEN);
        ProbeChunk::sized(id, i as u8, TRAIN_LEN as u8, chunk)
    })
}

/// Counters of a path's capacity estimator.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProbeCounters {
    pub trains_sent: u64,
    /// Trains whose answers gave a sample.
    pub samples: u64,
    /// Trains whose answers gave none (lost, reordered, compressed probes).
    pub discarded: u64,
    /// Trains never answered at all (replaced by a newer one).
    pub unanswered: u64,
    /// Why the last discarded train gave no sample.
    pub last_discard: Option<Discard>,
}

/// The sender side of one path: the train in flight and the filter.
#[derive(Debug, Clone)]
pub struct CapacityEstimator {
    in_flight: Option<TrainInFlight>,
    /// SBPP: the in-flight train's HEARTBEAT ACKs so far, in arrival
    /// order, timed from the first.
    acks: Vec<ProbeArrival>,
    first_ack: Option<Time>,
    samples: VecDeque<u64>,
    window: usize,
    estimate: Option<u64>,
    updated: Option<Time>,
    pub counters: ProbeCounters,
}

impl CapacityEstimator {
    /// A filter over the last `window` samples (at least 1).
    pub fn new(window: usize) -> Self {
        CapacityEstimator {
            in_flight: None,
            acks: Vec::new(),
            first_ack: None,
            samples: VecDeque::new(),
            window: window.max(1),
            estimate: None,
            updated: None,
            counters: ProbeCounters::default(),
        }
    }

    /// A train left; an unanswered earlier one is given up: discarded as
    /// [`Discard::Lost`] if some of its acknowledgments came back (SBPP),
    /// unanswered if none did.
    pub fn train_sent(&mut self, train: TrainInFlight) {
        if self.in_flight.is_some() {
            if self.acks.is_empty() {
                self.counters.unanswered += 1;
            } else {
                self.counters.discarded += 1;
                self.counters.last_discard = Some(Discard::Lost);
            }
        }
        self.acks.clear();
        self.first_ack = None;
        self.counters.trains_sent += 1;
        self.in_flight = Some(train);
    }

    /// The id of the train waiting for its answers.
    pub fn in_flight(&self) -> Option<u64> {
        self.in_flight.as_ref().map(|t| t.id)
    }

    /// SBPP: the HEARTBEAT ACK of packet `seq` of train `id` arrived at
    /// the sender at `now`. The train is judged once all six came back,
    /// or when the last one sent did (an earlier one still missing was
    /// lost, or comes later, reordered: no sample either way). `None`
    /// while the train is not judged yet, and for an acknowledgment of
    /// no train of ours (late, duplicated or forged); otherwise the
    /// sample or why there is none, as [`Self::on_echo`].
    pub fn on_heartbeat_ack(
        &mut self,
        now: Time,
        id: u64,
        seq: u8,
        overhead: u32,
    ) -> Option<Result<u64, Discard>> {
        let train = self.in_flight.as_ref().filter(|t| t.id == id)?;
        let packet_len = *train.sizes.get(usize::from(seq))?;
        if self.acks.iter().any(|a| a.seq == seq) {
            return None;
        }
        let first = *self.first_ack.get_or_insert(now);
        self.acks.push(ProbeArrival {
            seq,
            packet_len,
            offset_ns: now.saturating_since(first).as_nanos().min(u32::MAX as u128) as u32,
        });
        if self.acks.len() < TRAIN_LEN && usize::from(seq) != TRAIN_LEN - 1 {
            return None;
        }
        let train = self.in_flight.take()?;
        let acks = std::mem::take(&mut self.acks);
        self.first_ack = None;
        Some(self.judge(now, &train, &acks, overhead))
    }

    /// An echo for this path's train. `None` when it answers no train of
    /// ours (late, duplicated or forged); otherwise the sample or why
    /// there is none.
    pub fn on_echo(
        &mut self,
        now: Time,
        echo: &ProbeEchoChunk,
        overhead: u32,
    ) -> Option<Result<u64, Discard>> {
        if self
            .in_flight
            .as_ref()
            .is_none_or(|t| t.id != u64::from(echo.train))
        {
            return None;
        }
        let train = self.in_flight.take()?;
        Some(self.judge(now, &train, &echo.arrivals, overhead))
    }

    /// A train's answers evaluated and counted; a sample goes through the
    /// filter.
    fn judge(
        &mut self,
        now: Time,
        train: &TrainInFlight,
        arrivals: &[ProbeArrival],
        overhead: u32,
    ) -> Result<u64, Discard> {
        let r = evaluate(train, arrivals, overhead);
        match r {
            Ok(bps) => {
                self.counters.samples += 1;
                self.push(now, bps);
            }
            Err(d) => {
                self.counters.discarded += 1;
                self.counters.last_discard = Some(d);
            }
        }
        r
    }

    fn push(&mut self, now: Time, bps: u64) {
        if self.samples.len() == self.window {
            self.samples.pop_front();
        }
        self.samples.push_back(bps);
        let mut sorted: Vec<u64> = self.samples.iter().copied().collect();
        sorted.sort_unstable();
        // The lower median: always one of the samples.
        self.estimate = Some(sorted[(sorted.len() - 1) / 2]);
        self.updated = Some(now);
    }

    /// The filtered capacity in bits per second.
    pub fn estimate(&self) -> Option<u64> {
        self.estimate
    }

    /// When the estimate last changed.
    pub fn updated(&self) -> Option<Time> {
        self.updated
    }
}

/// A train being timed by the receiver.
#[derive(Debug, Clone)]
struct RxTrain {
    id: u32,
    from: IpAddr,
    first: Time,
    count: u8,
    arrivals: Vec<ProbeArrival>,
}

/// The receiver side: probes arriving, echoes leaving.
#[derive(Debug, Clone, Default)]
pub struct TrainReceiver {
    trains: VecDeque<RxTrain>,
}

impl TrainReceiver {
    /// A probe from `from` arrived at `now` in an SCTP packet of
    /// `packet_len` bytes. Returns the echo once the train's last probe
    /// arrived (or as many probes as it has).
    pub fn on_probe(
        &mut self,
        now: Time,
        from: IpAddr,
        probe: &ProbeChunk,
        packet_len: usize,
    ) -> Option<ProbeEchoChunk> {
        if probe.count == 0 || probe.count > MAX_TRAIN_LEN || probe.seq >= probe.count {
            return None;
        }
        let idx = match self
            .trains
            .iter()
            .position(|t| t.id == probe.train && t.from == from)
        {
            Some(i) => i,
            None => {
                if self.trains.len() == MAX_RX_TRAINS {
                    self.trains.pop_front();
                }
                self.trains.push_back(RxTrain {
                    id: probe.train,
                    from,
                    first: now,
                    count: probe.count,
                    arrivals: Vec::with_capacity(usize::from(probe.count)),
                });
                self.trains.len() - 1
            }
        };
        let t = &mut self.trains[idx];
        if t.arrivals.iter().any(|a| a.seq == probe.seq) || t.arrivals.len() >= usize::from(t.count)
        {
            // A duplicate: the first copy's time stands.
            return None;
        }
        let offset = now
            .saturating_since(t.first)
            .as_nanos()
            .min(u32::MAX as u128) as u32;
        t.arrivals.push(ProbeArrival {
            seq: probe.seq,
            packet_len: packet_len.min(usize::from(u16::MAX)) as u16,
            offset_ns: offset,
        });
        let done = probe.seq + 1 == t.count || t.arrivals.len() == usize::from(t.count);
        if !done {
            return None;
        }
        let t = self.trains.remove(idx)?;
        Some(ProbeEchoChunk {
            train: t.id,
            arrivals: t.arrivals,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn train(sizes: [u16; TRAIN_LEN]) -> TrainInFlight {
        TrainInFlight {
            id: 1,
            sent_at: Time::ZERO,
            sizes,
        }
    }

    const SIZES: [u16; TRAIN_LEN] = [28, 28, 1452, 1452, 28, 28];

    /// Arrivals over a bottleneck of `bps` (no overhead), back to back.
    fn arrivals(bps: u64) -> Vec<ProbeArrival> {
        let mut t = 0u64;
        SIZES
            .iter()
            .enumerate()
            .map(|(i, &len)| {
                if i > 0 {
                    t += u64::from(len) * 8 * 1_000_000_000 / bps;
                }
                ProbeArrival {
                    seq: i as u8,
                    packet_len: len,
                    offset_ns: t as u32,
                }
            })
            .collect()
    }

    #[test]
    fn packet_pair_sample_is_the_large_packet_over_its_spacing() {
        let bps = evaluate(&train(SIZES), &arrivals(2_000_000), 0).unwrap();
        assert!(bps.abs_diff(2_000_000) < 2_000, "{bps}");
        // The overhead below SCTP counts in the capacity.
        let with = evaluate(&train(SIZES), &arrivals(2_000_000), 28).unwrap();
        assert!(with > bps);
    }

    #[test]
    fn packet_pair_discards_lost_reordered_and_compressed_trains() {
        let good = arrivals(1_000_000);
        assert_eq!(
            evaluate(&train(SIZES), &good[..5], 0),
            Err(Discard::Lost),
            "a probe lost"
        );
        let mut swapped = good.clone();
        swapped.swap(2, 3);
        assert_eq!(
            evaluate(&train(SIZES), &swapped, 0),
            Err(Discard::Reordered)
        );
        let mut compressed = good.clone();
        // The large pair leaves a queue in one burst.
        compressed[3].offset_ns = compressed[2].offset_ns + 1_000;
        assert_eq!(
            evaluate(&train(SIZES), &compressed, 0),
            Err(Discard::Compressed)
        );
        let mut resized = good;
        resized[2].packet_len = 1000;
        assert_eq!(evaluate(&train(SIZES), &resized, 0), Err(Discard::Mismatch));
    }

    #[test]
    fn packet_pair_filter_is_the_median_of_the_last_samples() {
        let mut c = CapacityEstimator::new(5);
        let echo = |id, bps| ProbeEchoChunk {
            train: id,
            arrivals: arrivals(bps),
        };
        let mut id = 0;
        let mut feed = |c: &mut CapacityEstimator, bps: u64| {
            id += 1;
            c.train_sent(TrainInFlight {
                id: u64::from(id),
                sent_at: Time::ZERO,
                sizes: SIZES,
            });
            c.on_echo(Time::ZERO, &echo(id, bps), 0).unwrap().unwrap();
        };
        for bps in [10_000_000, 10_000_000, 90_000_000, 2_000_000, 10_000_000] {
            feed(&mut c, bps);
        }
        let e = c.estimate().unwrap();
        assert!(e.abs_diff(10_000_000) < 10_000, "outliers ignored: {e}");
        // A real change wins after three of five samples.
        for _ in 0..3 {
            feed(&mut c, 5_000_000);
        }
        let e = c.estimate().unwrap();
        assert!(e.abs_diff(5_000_000) < 5_000, "{e}");
        // An echo for another train is not ours.
        assert!(c.on_echo(Time::ZERO, &echo(999, 1), 0).is_none());
    }

    #[test]
    fn packet_pair_receiver_echoes_arrivals_in_order_once() {
        let mut r = TrainReceiver::default();
        let from: IpAddr = "10.0.0.1".parse().unwrap();
        let chunks = train_chunks(5, 28, 1452, 12);
        let mut echo = None;
        for (i, c) in chunks.iter().enumerate() {
            let at = Time::from_micros(100 * i as u64 + 1000);
            let len = if LARGE[i] { 1452 } else { 28 };
            assert_eq!(c.filler.len() + PROBE_HEADER_LEN + 12, len);
            echo = r.on_probe(at, from, c, len);
            assert_eq!(echo.is_some(), i == TRAIN_LEN - 1);
            // A duplicate changes nothing.
            assert!(r.on_probe(at, from, c, len).is_none() || i == TRAIN_LEN - 1);
        }
        let echo = echo.unwrap();
        assert_eq!(echo.train, 5);
        assert_eq!(echo.arrivals.len(), 6);
        assert_eq!(echo.arrivals[5].offset_ns, 500_000);
        assert_eq!(echo.arrivals[2].packet_len, 1452);
        // The last probe first: the echo leaves with what arrived.
        let e = r.on_probe(Time::ZERO, from, &chunks[5], 28).unwrap();
        assert_eq!(e.arrivals.len(), 1);
        // Bad counts are ignored; at most MAX_RX_TRAINS trains are held.
        let bad = ProbeChunk::sized(1, 3, 2, 12);
        assert!(r.on_probe(Time::ZERO, from, &bad, 28).is_none());
        for id in 0..10 {
            r.on_probe(Time::ZERO, from, &ProbeChunk::sized(id, 0, 6, 12), 28);
        }
        assert_eq!(r.trains.len(), MAX_RX_TRAINS);
    }

    /// SBPP at the sender: the acknowledgments of a train, timed as they
    /// arrive, give the sample the receiver's echo would; a duplicate or
    /// one of another train is not counted; a missing one discards.
    #[test]
    fn sbpp_acks_timed_at_the_sender_give_the_sample() {
        let mut c = CapacityEstimator::new(5);
        let send = |c: &mut CapacityEstimator, id: u64| {
            c.train_sent(TrainInFlight {
                id,
                sent_at: Time::ZERO,
                sizes: SIZES,
            })
        };
        let at = |a: &ProbeArrival| {
            Time::from_micros(50_000) + std::time::Duration::from_nanos(u64::from(a.offset_ns))
        };
        send(&mut c, 7);
        let acks = arrivals(4_000_000);
        for a in &acks[..5] {
            assert_eq!(c.on_heartbeat_ack(at(a), 7, a.seq, 0), None);
            assert_eq!(c.on_heartbeat_ack(at(a), 7, a.seq, 0), None, "duplicate");
            assert_eq!(
                c.on_heartbeat_ack(at(a), 8, a.seq, 0),
                None,
                "another train"
            );
        }
        let bps = c.on_heartbeat_ack(at(&acks[5]), 7, 5, 0).unwrap().unwrap();
        assert!(bps.abs_diff(4_000_000) < 4_000, "{bps}");
        assert_eq!(c.estimate(), Some(bps));
        // The last one back with one missing: lost, no sample.
        send(&mut c, 9);
        for a in acks.iter().filter(|a| a.seq != 3) {
            let r = c.on_heartbeat_ack(at(a), 9, a.seq, 0);
            assert_eq!(r, (a.seq == 5).then_some(Err(Discard::Lost)));
        }
        // Some answers and then none: discarded when the next train leaves.
        send(&mut c, 10);
        assert_eq!(c.on_heartbeat_ack(at(&acks[0]), 10, 0, 0), None);
        send(&mut c, 11);
        assert_eq!(c.counters.samples, 1);
        assert_eq!(c.counters.discarded, 2);
        assert_eq!(c.counters.unanswered, 0);
        assert_eq!(c.on_heartbeat_ack(Time::ZERO, 11, 6, 0), None, "no seq 6");
    }
}
