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
    /// Fastest path first (docs/MODELS.md section 3): the next packet, of P
    /// bytes, goes to the path i that minimises
    /// (outstanding_i + P) / capacity_i, where outstanding_i is the bytes
    /// in flight there and capacity_i the path's packet-pair estimate when
    /// it has one, else cwnd_i / SRTT_i. When that path's window is full
    /// the packet waits for it rather than take a path on which it would
    /// arrive later (Casetti and Gaiotto's bandwidth-aware scheduling,
    /// W-SCTP).
    FastestPathFirst,
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
}

impl Default for CmtConfig {
    fn default() -> Self {
        CmtConfig {
            enabled: false,
            scheduler: CmtScheduler::default(),
            rtx_policy: CmtRtxPolicy::default(),
            split_fast_retransmit: true,
            cwnd_update: true,
            delayed_ack: true,
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
