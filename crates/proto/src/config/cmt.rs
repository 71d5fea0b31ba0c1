//! Concurrent multipath transfer (Iyengar, Amer and Stewart, "Concurrent
//! Multipath Transfer Using SCTP Multihoming", IEEE/ACM ToN 2006): which
//! path new data and retransmissions take when CMT is on.

/// Which path the next packet of new data goes to under CMT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum CmtScheduler {
    /// Each usable path in turn, skipping those whose congestion window is
    /// full (Iyengar, Amer and Stewart's CMT: every destination is filled
    /// as far as its window allows).
    #[default]
    RoundRobin,
    /// Fastest path first (Budzisz et al., section 4.3.2.2; docs/MODELS.md
    /// section 3): the next packet, of P bytes, goes to the path i with
    /// the smallest reception time R_i = (O_i + P) / C_i, where O_i is
    /// the bytes in flight there and C_i the path's capacity estimate;
    /// what stands in for C_i where a path has none yet is
    /// [`CmtConfig::fpf_input`]. When that path's window is full the
    /// packet waits for it rather than take a path on which it would
    /// arrive later (Casetti and Gaiotto's bandwidth-aware scheduling,
    /// W-SCTP).
    FastestPathFirst,
}

/// What fastest path first does where a path has no packet-pair
/// capacity estimate. Where every candidate has one, both use
/// R_i = (O_i + P) / C_i.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum FpfInput {
    /// The packet-pair capacity estimates only (the paper's input): until
    /// every candidate path has one (the path estimators are off, or
    /// have not measured a path yet), new data goes round-robin. Without
    /// capacities, nothing tells two paths apart but what the scheduler
    /// itself did to their windows; round-robin fills each in turn.
    #[default]
    Capacity,
    /// cwnd_i / SRTT_i as C_i where a path has no estimate (cwnd / RTO
    /// before any RTT sample): the rate the path's window allows, not the
    /// path's capacity. A path the scheduler leaves partly unused keeps
    /// its window (RFC 9260 section 7.2.1 grows only a fully used one),
    /// so looks slow, so is left unused: over two equal paths whose
    /// windows start apart, the larger one builds a queue and the other
    /// path's packets overtake it (study E9, `fpf-cwnd-*`).
    CwndSrtt,
}

/// Where a retransmission goes under CMT (Iyengar, Amer and Stewart,
/// "Retransmission policies for CMT"): among the usable paths, the one
/// with the largest cwnd (RTX-CWND) or the largest ssthresh
/// (RTX-SSTHRESH); a tie keeps a path other than the one the chunk was
/// lost on, then the lower index.
///
/// RTX-CWND is the default, as in FreeBSD's and usrsctp's CMT
/// (`sctp_find_alternate_net`, mode 1). RTX-SSTHRESH trusts a path's
/// ssthresh, which keeps its initial, arbitrarily high value (the peer's
/// window) until the path first loses a packet: a slow path that was
/// never congested, such as one fastest path first hardly uses, attracts
/// every retransmission, and the receiver waits for it (study E9 shows
/// it over WLAN and GERAN).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum CmtRtxPolicy {
    /// RTX-CWND.
    #[default]
    Cwnd,
    /// RTX-SSTHRESH.
    Ssthresh,
}

/// Concurrent multipath transfer (docs/MODELS.md section 3; Iyengar, Amer and
/// Stewart, IEEE/ACM ToN 14(5), 2006): new data on every usable path at
/// once, with the algorithms that keep a single association's
/// per-destination congestion control and loss detection working when
/// data arrives out of order across paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct CmtConfig {
    /// Send new data on every usable path (as a sender), and delay SACKs
    /// as `delayed_ack` says (as a receiver).
    pub enabled: bool,
    pub scheduler: CmtScheduler,
    /// Fastest path first without a capacity estimate ([`FpfInput`]).
    pub fpf_input: FpfInput,
    pub rtx_policy: CmtRtxPolicy,
    /// Split fast retransmit (SFR): a missing report counts only when a
    /// chunk sent later on the same path is newly acknowledged. Off only
    /// to show what reordering across paths does without it.
    pub split_fast_retransmit: bool,
    /// Cwnd update for CMT (CUC): a path's window grows when the SACK
    /// newly acknowledges the earliest chunk outstanding on that path (its
    /// virtual cumulative ack point), not only when the association's
    /// cumulative ack point moves.
    pub cwnd_update: bool,
    /// Delayed ack for CMT (DAC). As a receiver: reordering does not force
    /// a SACK for every packet (one SACK per `sack_frequency` packets
    /// still), and each SACK says how many DATA packets it acknowledges
    /// (Chunk Flags 0x40: one, 0x80: two, as usrsctp's CMT does). As a
    /// sender: a SACK for two packets that newly acknowledges data sent to
    /// one path only counts twice as a missing report for the chunks below
    /// the lowest TSN it newly acknowledges.
    pub delayed_ack: bool,
    /// As a receiver: send each SACK from the local address the last
    /// DATA packet arrived at, so over the link it came on (Budzisz et
    /// al., section 4.3.2.1: SACKs "transmitted over the link from which
    /// the last packet was received"), not from the address the route to
    /// the peer picks. Off by default.
    pub sack_on_arrival_link: bool,
    /// As a sender: bytes of each path's own send buffer (Budzisz et al.,
    /// section 4.3.2.1, the "multibuffer"): the scheduler assigns each
    /// chunk to a path's buffer when it is cut from the queue, and it
    /// leaves when that path's window allows. 0 (the default): one shared
    /// queue, each chunk given its path as it leaves.
    pub path_send_buffer: u32,
}

impl Default for CmtConfig {
    fn default() -> Self {
        CmtConfig {
            enabled: false,
            scheduler: CmtScheduler::default(),
            fpf_input: FpfInput::default(),
            rtx_policy: CmtRtxPolicy::default(),
            split_fast_retransmit: true,
            cwnd_update: true,
            delayed_ack: true,
            sack_on_arrival_link: false,
            path_send_buffer: 0,
        }
    }
}

impl CmtConfig {
    /// CMT on with `scheduler`, every algorithm on, RTX-CWND.
    pub fn on(scheduler: CmtScheduler) -> Self {
        CmtConfig {
            enabled: true,
            scheduler,
            ..Default::default()
        }
    }
}
