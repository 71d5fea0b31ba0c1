//! The path estimators inside the association (module
//! [`crate::estimate`]): capacity trains sent in place of heartbeats, on new
//! paths and on request, timed at the sender from their HEARTBEAT ACKs
//! (SBPP) or by the peer (PROBE and its echo); Westwood+ fed by SACKs; and
//! the bandwidth-aware start from the capacity estimate.

use std::collections::VecDeque;
use std::net::IpAddr;

use super::{Association, State, Transmit};
use crate::Time;
use crate::association::AddressError;
use crate::estimate::CapacityMethod;
use crate::estimate::packet_pair::{LARGE, TRAIN_LEN, TrainInFlight, train_chunks};
use crate::path::PathState;
use crate::wire::chunk::chunk_type;
use crate::wire::{Chunk, ProbeChunk, ProbeEchoChunk};

/// Bytes of the SCTP common header.
const COMMON_HEADER: usize = 12;
/// Trains a new path gets before it is probed only in place of
/// heartbeats: enough for the median to outvote two spoilt samples (the
/// start of an association is busy at both ends, and a real host delays a
/// packet now and then by a scheduler tick).
const INITIAL_TRAINS: u8 = 5;
/// The least time between them, so that one stall of a host does not
/// spoil several.
const INITIAL_SPACING: std::time::Duration = std::time::Duration::from_millis(100);

/// Why a capacity probe was not sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    #[error("the path estimators are off")]
    Disabled,
    #[error("the peer did not announce capacity probes")]
    Unsupported,
    #[error("no such peer address")]
    Unknown,
    #[error("the association or the path cannot carry probes now")]
    NotReady,
}

/// Capacity probe trains (docs/MODELS.md section 3): whether the peer takes part,
/// ours going out and the peer's being timed.
#[derive(Debug, Clone, Default)]
pub(super) struct Probes {
    /// The peer announced capacity probes (Supported Extensions).
    pub(super) peer_supports: bool,
    /// Probe packets of a train going out, back to back.
    pub(super) out: VecDeque<Transmit>,
    /// Probe trains from the peer being timed.
    pub(super) train_rx: crate::estimate::TrainReceiver,
}

impl Association {
    /// Trains may be sent to this peer at all: SBPP trains to any peer
    /// (every RFC 9260 peer answers HEARTBEATs), PROBE trains to one that
    /// announced them.
    pub(super) fn probes_allowed(&self) -> bool {
        let e = &self.cfg.estimators;
        e.enabled
            && match e.capacity_method {
                CapacityMethod::Sbpp => true,
                CapacityMethod::ProbeEcho => self.probes.peer_supports || e.probe_unannounced,
            }
    }

    /// The peer announced that it answers capacity probes.
    pub fn peer_supports_probes(&self) -> bool {
        self.probes.peer_supports
    }

    /// Path `i` can take a train now: not while its packets would leave
    /// from a local address whose Add IP the peer has not acknowledged
    /// (RFC 5061 section 5.3, rule F1: such an address carries only the
    /// packet with its ASCONF). A train from it would reach the peer
    /// before the ASCONF, as out of the blue, and draw an ABORT (seen by
    /// the soak test on a single-radio move during the first trains).
    fn train_ready(&self, i: usize) -> bool {
        let p = &self.paths[i];
        self.state == State::Established
            && p.confirmed
            && p.state == PathState::Active
            && self.probes.out.is_empty()
            && !self.source_awaits_asconf(i)
    }

    /// Sends a capacity train on the path to `addr` now (docs/MODELS.md 3:
    /// "on request"). The estimate in [`Association::path_stats`] changes
    /// when the train's answers (HEARTBEAT ACKs or the echo) give a usable
    /// sample.
    pub fn probe_capacity(&mut self, now: Time, addr: IpAddr) -> Result<(), ProbeError> {
        if !self.cfg.estimators.enabled {
            return Err(ProbeError::Disabled);
        }
        if !self.probes_allowed() {
            return Err(ProbeError::Unsupported);
        }
        let i = self.path_index(addr).ok_or(ProbeError::Unknown)?;
        if !self.train_ready(i) {
            return Err(ProbeError::NotReady);
        }
        self.queue_train(i, now);
        Ok(())
    }

    /// A heartbeat is due on path `i`: sends a train carrying it instead
    /// when the path is idle and may be probed. Returns false if the
    /// caller must send a plain heartbeat.
    pub(super) fn heartbeat_as_train(&mut self, i: usize, now: Time) -> bool {
        if !self.probes_allowed() || self.paths[i].flight_size > 0 || !self.train_ready(i) {
            return false;
        }
        match self.cfg.estimators.capacity_method {
            CapacityMethod::Sbpp => self.queue_heartbeat_train(i, now),
            CapacityMethod::ProbeEcho => {
                let hb = self.heartbeat_chunk(i, now);
                self.queue_probe_train(i, now, Some(hb));
            }
        }
        true
    }

    /// The first trains of new paths: the first one RTO after the path
    /// can carry one, the others one RTO (at least 100 ms) apart, each
    /// spacing varied by +-50% as heartbeats are (so that the two ends of
    /// an association, which start together, do not probe in step).
    ///
    /// A spacing is drawn from the association's random stream once, when
    /// its deadline is set (the first poll that finds the path ready, and
    /// each train sent), never by a poll that only finds the deadline not
    /// yet due: such a poll changes nothing
    /// ([`crate::Endpoint::idle_poll_is_pure`]).
    pub(super) fn queue_due_trains(&mut self, now: Time) {
        if !self.probes_allowed() {
            return;
        }
        for i in 0..self.paths.len() {
            if self.paths[i].initial_trains == 0 || !self.train_ready(i) {
                continue;
            }
            let at = match self.paths[i].probe_at {
                Some(at) => at,
                None => {
                    let at = now + self.train_spacing(i);
                    self.paths[i].probe_at = Some(at);
                    at
                }
            };
            if at > now {
                continue;
            }
            self.paths[i].initial_trains -= 1;
            let next = (self.paths[i].initial_trains > 0).then(|| now + self.train_spacing(i));
            self.paths[i].probe_at = next;
            self.queue_train(i, now);
        }
    }

    /// The spacing before path `i`'s next first train: its RTO, at least
    /// 100 ms, jittered.
    fn train_spacing(&mut self, i: usize) -> std::time::Duration {
        let spacing = self.paths[i].rto.rto().max(INITIAL_SPACING);
        self.jittered(spacing)
    }

    /// Whether a poll for output may draw from the association's random
    /// stream even when it sends nothing: only while a path that is ready
    /// for one of its first trains has no deadline for it yet (the first
    /// poll after the path became ready draws it). A poll that found
    /// nothing to send leaves every ready path with its deadline set, so
    /// the next poll at the same instant, with nothing changed, is pure.
    pub(crate) fn polls_draw_randomness(&self) -> bool {
        self.probes_allowed()
            && (0..self.paths.len()).any(|i| {
                let p = &self.paths[i];
                p.initial_trains > 0 && p.probe_at.is_none() && self.train_ready(i)
            })
    }

    /// The earliest first-train deadline (a timer of the association), of
    /// the paths that can take a train now. A path that cannot (inactive,
    /// unconfirmed, a train still leaving, the association not
    /// established) keeps its deadline but has no timer: a deadline gone
    /// by would fire at once, [`Association::queue_due_trains`] would skip
    /// the path, and the timer would fire again at the same instant, for
    /// ever (E8's dead primary, whose first trains were still due). What
    /// makes a path ready again (an acknowledgement, the COOKIE ACK, the
    /// ASCONF-ACK, a train sent) comes with a poll for output, where the
    /// train due goes out.
    pub(super) fn probe_timeout(&self) -> Option<Time> {
        if !self.probes_allowed() {
            return None;
        }
        (0..self.paths.len())
            .filter(|&i| self.paths[i].initial_trains > 0 && self.train_ready(i))
            .filter_map(|i| self.paths[i].probe_at)
            .min()
    }

    /// Sets up path `i`'s estimators; its first trains if the
    /// configuration asks.
    pub(super) fn init_path_estimators(&mut self, i: usize) {
        let e = &self.cfg.estimators;
        let p = &mut self.paths[i];
        p.capacity = crate::estimate::CapacityEstimator::new(e.capacity_samples);
        p.initial_trains = if e.enabled && e.probe_new_paths {
            INITIAL_TRAINS
        } else {
            0
        };
        p.probe_at = None;
    }

    /// A train on path `i` now, by the configured method.
    fn queue_train(&mut self, i: usize, now: Time) {
        match self.cfg.estimators.capacity_method {
            CapacityMethod::Sbpp => self.queue_heartbeat_train(i, now),
            CapacityMethod::ProbeEcho => self.queue_probe_train(i, now, None),
        }
    }

    /// Builds an SBPP train for path `i` (Budzisz et al., AISLE): six
    /// HEARTBEATs back to back in `probes.out`, each with the train's
    /// nonce and its sequence in the Heartbeat Information, the small ones
    /// as small as a HEARTBEAT gets, the large ones filled to the path MTU
    /// by a PAD chunk (RFC 4820) in front. PAD and not filler inside the
    /// information: the peer echoes the information (RFC 9260 section
    /// 8.3) and drops the PAD, so every HEARTBEAT ACK stays small and the
    /// return path, which the sender's timing also crosses, does not add
    /// the large packets' transmission time of its own bottleneck (an
    /// uplink slower than the downlink would be measured instead), nor
    /// carry twice the probe's bytes. With AUTH the HEARTBEAT is
    /// authenticated only if our CHUNKS list names it (RFC 4895), as a
    /// plain one; the PAD goes before the AUTH chunk, outside the HMAC.
    ///
    /// The train is the path's heartbeat (RFC 9260 section 8.3 rules
    /// kept: the first acknowledgment confirms the path, gives the RTT
    /// sample and clears the error count; none within an RTO counts one
    /// error, not six), unless a heartbeat is already in flight within
    /// its RTO (a first train or one on request): then it only measures.
    fn queue_heartbeat_train(&mut self, i: usize, now: Time) {
        let nonce = if self.paths[i].heartbeat.is_none_or(|h| h.timed_out) {
            self.arm_heartbeat(i, now)
        } else {
            self.random_u64()
        };
        let auth = self.must_authenticate(chunk_type::HEARTBEAT);
        let fixed = COMMON_HEADER + if auth { self.auth_overhead() } else { 0 };
        let dest = self.paths[i].remote;
        let source = self.source_for(i);
        let tag = self.peer_tag;
        let mut sizes = [0u16; TRAIN_LEN];
        // Large packets of the path's PLPMTU with PLPMTUD on (RFC 8899),
        // not of the configured MTU, which a smaller path drops.
        let large = self.mtu_to(dest);
        for (k, size) in sizes.iter_mut().enumerate() {
            let info = super::input::encode_heartbeat_info(dest, nonce, Some(k as u8));
            let hb = Chunk::Heartbeat { info };
            let small = fixed + hb.padded_len();
            // A PAD chunk's length is a multiple of 4 and at least 4.
            let fill = large.saturating_sub(small).min(usize::from(u16::MAX)) & !3;
            let pad = if LARGE[k] && fill >= 4 { fill } else { 0 };
            let t = self.emit_raw_padded(dest, source, tag, pad, std::slice::from_ref(&hb), auth);
            *size = t.packet().len().min(usize::from(u16::MAX)) as u16;
            let p = &mut self.paths[i];
            p.stats.packets_sent += 1;
            p.stats.bytes_sent += t.packet().len() as u64;
            self.probes.out.push_back(t);
        }
        self.paths[i].capacity.train_sent(TrainInFlight {
            id: nonce,
            sent_at: now,
            sizes,
        });
    }

    /// The HEARTBEAT ACK of packet `seq` of path `i`'s SBPP train `nonce`
    /// arrived: timed; a sample once the train is judged.
    pub(super) fn on_train_heartbeat_ack(&mut self, now: Time, i: usize, nonce: u64, seq: u8) {
        let overhead = self.cfg.estimators.packet_overhead;
        let judged = self.paths[i]
            .capacity
            .on_heartbeat_ack(now, nonce, seq, overhead);
        if judged.is_some() {
            self.limit_windows();
        }
    }

    /// Builds the six probe packets for path `i`, back to back in
    /// `probe_out` (poll_transmit sends them before anything else). A
    /// heartbeat, if given, rides behind the probe in the first packet.
    fn queue_probe_train(&mut self, i: usize, now: Time, heartbeat: Option<Chunk>) {
        let id = self.rng_u32();
        let auth = self.must_authenticate(chunk_type::PROBE)
            || heartbeat
                .as_ref()
                .is_some_and(|h| self.must_authenticate(h.chunk_type()));
        let fixed = COMMON_HEADER + if auth { self.auth_overhead() } else { 0 };
        let small = fixed + crate::wire::probe::PROBE_HEADER_LEN;
        let dest = self.paths[i].remote;
        // The path's PLPMTU with PLPMTUD on (RFC 8899): a train of the
        // configured MTU was dropped whole on a smaller path, with the
        // heartbeat riding in its first packet (a path error).
        let large = self.mtu_to(dest);
        let source = self.source_for(i);
        let tag = self.peer_tag;
        let mut sizes = [0u16; TRAIN_LEN];
        let mut hb = heartbeat;
        for (k, probe) in train_chunks(id, small, large, fixed)
            .into_iter()
            .enumerate()
        {
            let (probe, pad) = if auth {
                filler_before_auth(probe)
            } else {
                (probe, 0)
            };
            // The probe and, in the first packet, the heartbeat: no heap
            // list for one or two chunks.
            let mut chunks: smallvec::SmallVec<[Chunk; 2]> =
                smallvec::smallvec![Chunk::Probe(probe)];
            if let Some(h) = hb.take() {
                chunks.push(h);
            }
            let t = self.emit_raw_padded(dest, source, tag, pad, &chunks, auth);
            sizes[k] = t.packet().len().min(usize::from(u16::MAX)) as u16;
            let p = &mut self.paths[i];
            p.stats.packets_sent += 1;
            p.stats.bytes_sent += t.packet().len() as u64;
            self.probes.out.push_back(t);
        }
        self.paths[i].capacity.train_sent(TrainInFlight {
            id: u64::from(id),
            sent_at: now,
            sizes,
        });
    }

    /// The next probe packet to send, if a train is going out.
    pub(super) fn poll_probe(&mut self) -> Option<Transmit> {
        self.probes.out.pop_front()
    }

    /// A PROBE arrived from `src` at `dst` in a packet of `packet_len`
    /// bytes: timed, and echoed when the train is complete.
    pub(super) fn on_probe(
        &mut self,
        now: Time,
        src: IpAddr,
        dst: IpAddr,
        probe: &ProbeChunk,
        packet_len: usize,
    ) {
        // Only peer addresses of this association get an answer.
        if self.path_index(src).is_none() || !self.state.is_established() {
            return;
        }
        if let Some(echo) = self.probes.train_rx.on_probe(now, src, probe, packet_len) {
            self.reply(src, dst, Chunk::ProbeEcho(echo));
        }
    }

    /// A PROBE-ECHO: a capacity sample for the path whose train it answers.
    pub(super) fn on_probe_echo(&mut self, now: Time, echo: &ProbeEchoChunk) {
        let overhead = self.cfg.estimators.packet_overhead;
        if let Some(p) = self
            .paths
            .iter_mut()
            .find(|p| p.capacity.in_flight() == Some(u64::from(echo.train)))
        {
            let _ = p.capacity.on_echo(now, echo, overhead);
        }
        self.limit_windows();
    }

    /// Westwood+ after a SACK: `acked[p]` bytes newly acknowledged on
    /// path `p`. Only the path new data goes to is measured (docs/MODELS.md
    /// 3: AISLE's available bandwidth of the primary): what another path
    /// carries is retransmissions sent there after a timeout, a few
    /// chunks whose acknowledged rate says nothing of that path's
    /// available bandwidth, and AISLE would take it for a fresh B2.
    pub(super) fn feed_westwood(&mut self, now: Time, acked: &[u32]) {
        let app_limited = !self.sender.has_queued();
        let data = self.data_path();
        for (p, path) in self.paths.iter_mut().enumerate() {
            let bytes = acked.get(p).copied().unwrap_or(0);
            if bytes > 0 && data == Some(p) {
                let srtt = path.rto.srtt();
                path.westwood
                    .on_ack(now, u64::from(bytes), srtt, app_limited);
            }
            if path.flight_size == 0 && app_limited {
                path.westwood.on_idle();
            }
        }
    }

    /// Gives the path to `addr` a known capacity (bits per second) that
    /// [`Association::path_stats`] reports instead of the packet-pair
    /// estimate, or `None` to go back to the estimate: an oracle that
    /// isolates the estimator's part in a policy's decisions (AISLE).
    pub fn set_path_capacity(
        &mut self,
        addr: IpAddr,
        bps: Option<u64>,
    ) -> Result<(), AddressError> {
        let i = self.path_index(addr).ok_or(AddressError::Unknown)?;
        self.paths[i].capacity_given = bps;
        Ok(())
    }

    /// Sets the window of the path to `addr` to its capacity estimate
    /// times its smoothed RTT (the bandwidth-aware start of docs/MODELS.md 3,
    /// fed by the packet-pair estimate). Returns the new window, or `None`
    /// when the path has no capacity estimate or no RTT yet.
    pub fn start_from_capacity_estimate(
        &mut self,
        addr: IpAddr,
    ) -> Result<Option<u32>, AddressError> {
        let i = self.path_index(addr).ok_or(AddressError::Unknown)?;
        Ok(self.start_path_from_estimate(i))
    }

    fn start_path_from_estimate(&mut self, i: usize) -> Option<u32> {
        let icwnd = self.cfg.initial_cwnd_for(self.cfg.path_mtu);
        let p = &mut self.paths[i];
        let (bps, srtt) = (p.capacity.estimate()?, p.rto.srtt()?);
        let bdp = (u128::from(bps) * srtt.as_nanos() / 8_000_000_000).min(u128::from(u64::MAX));
        p.cc.set_from_bdp(bdp as u64, icwnd);
        // A window set from a fresh estimate does not decay for the idle
        // time before it (section 7.2.1 would otherwise cut it to 4 MTU
        // at the first send on a path that has been idle).
        p.last_data_sent = None;
        Some(p.cc.cwnd)
    }

    /// The path new data goes to became `i`: bandwidth-aware start if
    /// configured; with a window limit, the path starts at its limit.
    pub(super) fn data_path_changed(&mut self, i: usize) {
        // RFC 8899 section 4.3 / issue: a handover probes the new data
        // path's MTU again.
        self.paths[i].pmtu.restart();
        if self.cfg.estimators.enabled && self.cfg.estimators.bandwidth_aware_start {
            match self.window_limit(i) {
                Some(w) => {
                    let p = &mut self.paths[i];
                    p.cc.start_at(w);
                    p.last_data_sent = None;
                }
                None => {
                    let _ = self.start_path_from_estimate(i);
                }
            }
        }
    }

    /// The window limit of path `i` (`EstimatorConfig::window_limit`):
    /// capacity estimate x (smallest RTT + allowance), at least 4 MTU;
    /// `None` without the option, a capacity estimate or an RTT.
    pub(super) fn window_limit(&self, i: usize) -> Option<u32> {
        let est = &self.cfg.estimators;
        let allowance = est.window_limit.filter(|_| est.enabled)?;
        let p = &self.paths[i];
        // The bottleneck's rate by packet pair; where trains give none (a
        // token bucket whose burst holds the pair passes it unspaced) the
        // rate data was acknowledged at (Westwood+). An underestimate only
        // shortens the standing queue: the limit still exceeds the
        // bandwidth-delay product while C x allowance does.
        let bps = p.capacity.estimate().or(p.westwood.estimate())?;
        let base = p.rto.min_rtt()?;
        let bytes = u128::from(bps) * (base + allowance).as_nanos() / 8_000_000_000;
        let floor = 4 * p.cc.mtu();
        Some(bytes.min(u128::from(u32::MAX)).max(u128::from(floor)) as u32)
    }

    /// Holds every path's window to its limit (after a SACK or a new
    /// estimate); nothing without the option. A path without a rate
    /// estimate yet (a new path that has carried no data) leaves slow
    /// start once an RTT exceeds its smallest by the allowance (the queue
    /// the limit allows has built up; HyStart's delay rule with that
    /// threshold), until Westwood+ gives it a rate.
    pub(super) fn limit_windows(&mut self) {
        let Some(allowance) = self.cfg.estimators.window_limit else {
            return;
        };
        for i in 0..self.paths.len() {
            match self.window_limit(i) {
                Some(w) => self.paths[i].cc.limit(w),
                None => {
                    let p = &mut self.paths[i];
                    if let (Some(min), Some(last)) = (p.rto.min_rtt(), p.rto.latest_rtt())
                        && last > min + allowance
                        && p.cc.phase() == crate::congestion::Phase::SlowStart
                    {
                        p.cc.end_slow_start();
                    }
                }
            }
        }
    }

    /// `d` varied uniformly by +-50%.
    fn jittered(&mut self, d: std::time::Duration) -> std::time::Duration {
        let ns = d.as_nanos().min(u64::MAX as u128) as u64;
        let r = rand_core::RngCore::next_u64(&mut self.rng) % ns.max(1);
        std::time::Duration::from_nanos(ns / 2 + r)
    }

    fn rng_u32(&mut self) -> u32 {
        rand_core::RngCore::next_u32(&mut self.rng)
    }
}

/// An authenticated probe's filler moves out of the PROBE chunk into a PAD
/// chunk (RFC 4820) in front of the AUTH chunk: the packet keeps its
/// length, which is all the filler is for, and the HMAC of RFC 4895
/// section 6.2, which covers only the chunks after AUTH, no longer runs
/// over 1.4 kB of zeros on each side (it was most of the estimators' cost
/// with many associations). Nothing is lost to an attacker: the filler
/// carries no meaning, and one who can rewrite a packet's length on the
/// path can as well delay it. Returns the probe and the PAD chunk's
/// length (0: none, when the filler is shorter than a PAD chunk).
fn filler_before_auth(probe: ProbeChunk) -> (ProbeChunk, usize) {
    if probe.filler.is_empty() {
        return (probe, 0);
    }
    // The probe's chunk length is 12 + filler; the filler's padding to 4
    // bytes goes with it, so the packet's length stays the same.
    let pad = probe.filler.len().next_multiple_of(4);
    let bare = ProbeChunk {
        filler: bytes::Bytes::new(),
        ..probe
    };
    (bare, pad)
}
