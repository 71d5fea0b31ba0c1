//! Wireless access cells: an access point / base station interface with a
//! position and radius, and stations (interfaces of mobile nodes) attached
//! to or detached from it at run time through
//! [`World::attach`](crate::World::attach) /
//! [`World::detach`](crate::World::detach); the radio model decides when.
//! The MAC layer is abstracted as rate, delay, queue and error model.
//!
//! Capacity sharing:
//! - [`Sharing::Shared`] (802.11-like): one half-duplex medium of the cell's
//!   rate. The contending transmitters are the AP's downlink queue and each
//!   attached station's uplink queue; when the medium falls idle, the next
//!   non-empty queue in round-robin order (AP, then stations in slot order)
//!   sends one packet. N saturated transmitters each get 1/N of the rate.
//!   With an 802.11 DCF MAC in its contention form
//!   ([`DcfTiming::contention`]) the next transmitter is the one whose
//!   random backoff ends first instead, with collisions and retries
//!   ([`crate::kernel::dcf::Contention`]).
//! - [`Sharing::Dedicated`] (UMTS-like dedicated channels): each station
//!   has its own full-duplex channel of the cell's rate, with its own
//!   downlink queue at the AP and uplink queue at the station.
//! - [`Sharing::Common`] (UMTS common transport channels, as EURANE's
//!   FACH/RACH: "every channel is shared among all users within a cell",
//!   Budzisz et al. section 4.2.2): one downlink and one uplink channel of
//!   the cell's rate, each carrying `rate x TTI / (8 x rlc_pdu_bytes)` RLC
//!   PDUs per TTI (384 kbit/s, 10 ms, 40 bytes: 12), given round robin, one
//!   PDU at a time, to the stations with data (per-station queues at the
//!   AP and at each station). RLC acknowledged mode (3GPP TS 25.322)
//!   segments each packet into PDUs of `rlc_pdu_bytes` of payload (the
//!   last one padded); a packet is delivered, in sequence per station, at
//!   the end of the TTI that completes it plus the cell's delay. A PDU the
//!   error model loses is resent `rlc_status_delay` after its TTI (the
//!   STATUS report's way back; 3GPP TS 25.322 section 9.7). Simplified:
//!   the RLC and MAC headers, the PDU window, polling timers and the
//!   transport format selection are not modelled (the PDUs per TTI are
//!   fixed), nor are power control and the UTRAN's own delays (the cell's
//!   `delay` stands for them).
//!
//! The AP delivers a packet to the attached station whose interface holds
//! the next-hop address (the destination itself for on-link routes, such as
//! a foreign agent's host route for a visitor's home address); IPv4
//! broadcast or multicast destinations go to every attached station (one
//! transmission on a shared medium, one copy per channel when dedicated).
//! A station always sends to the AP.
//!
//! Each station has one error-model instance per direction (from the
//! cell's downlink/uplink spec, replaceable per station), each with its own
//! random stream. A packet for a station that is not attached, or sent by a
//! station interface that is not attached, is dropped with reason
//! `Detached`; on detach every packet queued for or by that station, being
//! sent to or by it, or in flight to or from it is dropped with that reason
//! (the medium stays busy until the interrupted transmission's end).

use std::time::Duration;

use crate::Time;
use smallvec::SmallVec;

use crate::kernel::dcf::{Contention, DATA_MAC_BYTES, DcfTiming};
use crate::kernel::error_model::ErrorModelSpec;
use crate::kernel::ids::{IfaceId, NodeId};
use crate::kernel::ip::IpPacket;
use crate::kernel::link::{Channel, LinkConfigError, serialization_time};
use crate::kernel::pipe::Pipe;
use crate::kernel::queue::DropTailQueue;

/// How the cell's capacity is shared by its transmitters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sharing {
    Shared,
    Dedicated,
    Common,
}

/// Parameters of a cell.
#[derive(Debug, Clone, PartialEq)]
pub struct CellConfig {
    /// Position of the AP in metres (for the radio model; the simulator
    /// itself does not use it).
    pub position: (f64, f64),
    /// Coverage radius in metres (for the radio model).
    pub radius_m: f64,
    pub rate_bps: u64,
    pub delay: Duration,
    /// Packets that may wait in each transmitter's queue (the AP downlink
    /// queue, each station's uplink queue; per station at the AP when
    /// dedicated).
    pub queue_limit: usize,
    pub sharing: Sharing,
    /// A shared medium's contention MAC: each packet also pays an 802.11
    /// DCF exchange ([`DcfTiming`]); `None`: the packet's bytes at the rate.
    pub mac: Option<DcfTiming>,
    pub downlink_error: ErrorModelSpec,
    pub uplink_error: ErrorModelSpec,
    /// Shared cells: packets the AP's downlink queue holds (E7: 400, the
    /// stations' queues 50); `None`: `queue_limit`.
    pub ap_queue_limit: Option<usize>,
    /// Shared cells: airtime every frame costs besides its bits at
    /// `rate_bps` (802.11 DCF: DIFS, the mean backoff, the PHY preamble,
    /// SIFS and the MAC acknowledgement; docs/MODELS.md 6.1).
    pub frame_overhead: Duration,
    /// Common cells: payload bytes of an RLC PDU (E7b: 40, Budzisz et
    /// al. section 4.2.2).
    pub rlc_pdu_bytes: usize,
    /// Common cells: time from the end of the TTI that lost a PDU to its
    /// retransmission (the receiver's RLC STATUS report coming back).
    pub rlc_status_delay: Duration,
    /// Dedicated and common cells: transmission time interval (UMTS:
    /// 10 ms); common cells without one use 10 ms. On a dedicated cell a
    /// channel that was idle starts sending at the next TTI boundary, and
    /// a packet reaches the other end with the TTI in which its last bit
    /// was sent; back-to-back packets are not spaced (the radio link
    /// layer concatenates them). `None`: no TTI.
    pub tti: Option<Duration>,
}

impl CellConfig {
    pub fn new(rate_bps: u64, delay: Duration, sharing: Sharing) -> Self {
        CellConfig {
            position: (0.0, 0.0),
            radius_m: 0.0,
            rate_bps,
            delay,
            queue_limit: 50,
            sharing,
            mac: None,
            downlink_error: ErrorModelSpec::None,
            uplink_error: ErrorModelSpec::None,
            ap_queue_limit: None,
            frame_overhead: Duration::ZERO,
            tti: None,
            rlc_pdu_bytes: 40,
            rlc_status_delay: Duration::ZERO,
        }
    }

    /// Common cells: RLC PDUs each channel carries per TTI (at least 1).
    pub fn pdus_per_tti(&self) -> u64 {
        let tti = self.tti.unwrap_or(Duration::from_millis(10));
        let bits = u128::from(self.rate_bps) * tti.as_nanos() / 1_000_000_000;
        ((bits / (8 * self.rlc_pdu_bytes.max(1) as u128)) as u64).max(1)
    }

    pub fn at(mut self, x: f64, y: f64, radius_m: f64) -> Self {
        self.position = (x, y);
        self.radius_m = radius_m;
        self
    }

    pub fn queue_limit(mut self, packets: usize) -> Self {
        self.queue_limit = packets;
        self
    }

    /// A contention MAC on a shared medium.
    pub fn mac(mut self, mac: Option<DcfTiming>) -> Self {
        self.mac = mac;
        self
    }

    /// Time one packet of `len` bytes holds the medium.
    pub fn frame_time(&self, len: usize) -> Duration {
        match self.mac {
            None => serialization_time(len, self.rate_bps),
            Some(dcf) => {
                dcf.overhead_for(len) + serialization_time(len + DATA_MAC_BYTES, self.rate_bps)
            }
        }
    }

    pub fn error(mut self, downlink: ErrorModelSpec, uplink: ErrorModelSpec) -> Self {
        self.downlink_error = downlink;
        self.uplink_error = uplink;
        self
    }

    pub fn validate(&self) -> Result<(), LinkConfigError> {
        if self.rate_bps == 0 {
            return Err(LinkConfigError::ZeroRate);
        }
        if self.tti.is_some_and(|t| t.is_zero()) {
            return Err(LinkConfigError::ZeroTti);
        }
        if self.mac.is_some() && self.sharing != Sharing::Shared {
            return Err(LinkConfigError::ContentionOnDedicated);
        }
        self.downlink_error.validate()?;
        self.uplink_error.validate()?;
        Ok(())
    }
}

/// Downlink (AP to station) index in a station's channel pair.
pub(crate) const DOWN: usize = 0;
/// Uplink (station to AP) index.
pub(crate) const UP: usize = 1;
/// Slot number standing for "every attached station".
pub(crate) const BROADCAST_SLOT: u32 = u32::MAX;

/// A station interface known to the cell (its slot is kept across
/// detach/attach so statistics accumulate).
#[derive(Debug)]
pub(crate) struct StationSlot {
    pub node: NodeId,
    pub iface: IfaceId,
    pub attached: bool,
    /// [DOWN, UP]. Dedicated cells use the whole channels; shared cells use
    /// only the uplink queue, the error models and the statistics (the
    /// medium does the rest).
    pub ch: [Channel; 2],
}

/// A transmission on the shared medium.
#[derive(Debug)]
pub(crate) struct SharedTx {
    pub dir: usize,
    pub slot: u32,
    pub pkt: Option<IpPacket>,
    pub start: Time,
}

/// The one medium of a shared cell.
#[derive(Debug)]
pub(crate) struct SharedMedium {
    pub ap_queue: DropTailQueue<(u32, IpPacket)>,
    pub in_service: Option<SharedTx>,
    /// Transmitter served last: 0 = AP, s + 1 = station slot s.
    pub cursor: usize,
    /// Transmitters that may have a packet queued (a superset: entries
    /// whose queue emptied are removed when met), so that the round robin
    /// finds the next one without a walk of every station.
    pub backlogged: crate::kernel::txset::TxSet,
    pub pipe: Pipe<(usize, u32, IpPacket)>,
    pub busy: Duration,
    /// The DCF's contention form, when the cell's MAC has it.
    pub dcf: Option<DcfMedium>,
}

/// One common transport channel (one direction of a common cell).
#[derive(Debug, Default)]
pub(crate) struct CommonChannel {
    /// Per station slot, the SDUs (packets) RLC is segmenting or waiting
    /// to complete, in order.
    pub rlc: Vec<std::collections::VecDeque<RlcSdu>>,
    /// Station slot served last.
    pub cursor: usize,
    /// A TTI event is scheduled.
    pub armed: bool,
    pub last_tti: Option<Time>,
}

/// A packet in RLC acknowledged mode.
#[derive(Debug)]
pub(crate) struct RlcSdu {
    pub pkt: IpPacket,
    /// PDUs not yet sent once.
    pub unsent: u32,
    /// Lost PDUs, with the time each may be resent.
    pub retx: SmallVec<[Time; 2]>,
}

/// A shared medium's 802.11 contention state.
#[derive(Debug)]
pub(crate) struct DcfMedium {
    pub contention: Contention,
    /// Each transmitter's frame in contention (taken from the head of its
    /// queue when it first contends, kept there across retries), by
    /// transmitter (0 = AP, s + 1 = station slot s): (direction, station
    /// slot, packet).
    pub held: crate::kernel::txset::TxMap<(usize, u32, IpPacket)>,
    /// The scheduled contention event's generation and time.
    pub generation: u32,
    pub scheduled: Option<Time>,
    /// The transmitters of the attempt on the medium (several: a
    /// collision) and whether the single one used RTS/CTS.
    pub attempt: SmallVec<[usize; 2]>,
    pub rts: bool,
}

#[derive(Debug)]
pub(crate) struct Cell {
    pub name: String,
    pub cfg: CellConfig,
    pub ap: (NodeId, IfaceId),
    pub slots: Vec<StationSlot>,
    pub shared: Option<SharedMedium>,
    /// Common cells: [downlink, uplink] channels.
    pub common: Option<[CommonChannel; 2]>,
    /// Station slot last found holding an address (checked again at each
    /// use), so that the AP finds a station among many in O(1). The
    /// scenario's addresses are no adversary's choice: a fast unkeyed hash
    /// (never iterated).
    pub addr_cache: rustc_hash::FxHashMap<std::net::IpAddr, u32>,
}

/// Counters of one station's two directions in a cell.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StationStats {
    pub downlink: crate::kernel::link::ChannelStats,
    pub uplink: crate::kernel::link::ChannelStats,
}
