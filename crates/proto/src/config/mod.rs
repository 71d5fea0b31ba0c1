//! Configuration of endpoints and associations: every protocol parameter of
//! RFC 9260 section 16 and every limit the engine enforces, with defaults.

use std::time::Duration;

use crate::auth::HmacAlgorithm;

#[cfg(feature = "serde")]
pub use msctp_time::units;

mod scheduler;
pub use scheduler::StreamScheduler;
mod cmt;
mod endpoint;
mod pmtud;

pub use cmt::{CmtConfig, CmtRtxPolicy, CmtScheduler, FpfInput};
pub use endpoint::{EndpointConfig, MAX_PREFIX_CAPS, PrefixCap};
pub use pmtud::PmtudConfig;

/// Parameters of one association (RFC 9260 section 16 "Suggested SCTP
/// Protocol Parameter Values", plus the extensions and the resource limits).
///
/// With the `serde` feature this is also the `[flows.sctp]` table of a
/// scenario file: keys are the field names, durations in milliseconds
/// with an `_ms` suffix, 0 turning off `max_burst`, `heartbeat_interval_ms`
/// and `sack_delay_ms`; absent keys keep the defaults, unknown keys are
/// refused ([`units`]).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct AssociationConfig {
    /// RTO.Initial (RFC 9260 section 16: 1 s).
    #[cfg_attr(
        feature = "serde",
        serde(rename = "rto_initial_ms", with = "units::ms")
    )]
    pub rto_initial: Duration,
    /// RTO.Min (RFC 9260: 1 s; mobility studies use e.g. 20 ms).
    #[cfg_attr(feature = "serde", serde(rename = "rto_min_ms", with = "units::ms"))]
    pub rto_min: Duration,
    /// RTO.Max (RFC 9260: 60 s).
    #[cfg_attr(feature = "serde", serde(rename = "rto_max_ms", with = "units::ms"))]
    pub rto_max: Duration,
    /// Max.Burst: packets sent at once in response to one event (RFC 9260
    /// section 6.1 rule D; 4). `None` disables the limit.
    #[cfg_attr(feature = "serde", serde(with = "units::zero_off"))]
    pub max_burst: Option<u32>,
    /// Max.Burst grown with the path's rate: at the start of each burst
    /// the limit becomes the larger of `max_burst` packets and what the
    /// data path delivers in this time at its current rate (cwnd / SRTT),
    /// at most [`MAX_AUTOSIZED_BURST`] bytes, as Linux sizes TCP's
    /// segmentation-offload bursts (`tcp_tso_autosize`, about 1 ms of
    /// data). On a slow path it is `max_burst`; on a fast one small
    /// packets leave in trains a UDP GSO send (and the peer's GRO) can
    /// carry whole, not four at a time. `None` (the default): RFC 9260's
    /// fixed Max.Burst. No effect without `max_burst`.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "burst_autosize_ms", with = "units::ms_zero_off")
    )]
    pub burst_autosize: Option<Duration>,
    /// Association.Max.Retrans (10).
    pub assoc_max_retrans: u32,
    /// Path.Max.Retrans, PMR (5). A path becomes inactive after PMR+1
    /// consecutive unanswered retransmissions or heartbeats.
    pub path_max_retrans: u32,
    /// Max.Init.Retransmits (8).
    pub max_init_retrans: u32,
    /// HB.interval (30 s); `None` disables heartbeats on confirmed paths
    /// (unconfirmed addresses are still probed).
    #[cfg_attr(
        feature = "serde",
        serde(rename = "heartbeat_interval_ms", with = "units::ms_zero_off")
    )]
    pub heartbeat_interval: Option<Duration>,
    /// HB.Max.Burst (1): heartbeats sent to unconfirmed addresses within
    /// one RTO, all such addresses together (RFC 9260 section 5.4 and its
    /// table of parameters in section 16): a peer that lists many
    /// addresses gets them verified one after the other, not a burst
    /// towards addresses nobody has proven to be its own.
    pub hb_max_burst: u32,
    /// Valid.Cookie.Life (60 s).
    #[cfg_attr(
        feature = "serde",
        serde(rename = "valid_cookie_life_ms", with = "units::ms")
    )]
    pub valid_cookie_life: Duration,
    /// Delayed SACK timeout (200 ms, at most 500 ms). `None`: SACK every
    /// packet that carries DATA at once.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "sack_delay_ms", with = "units::ms_zero_off")
    )]
    pub sack_delay: Option<Duration>,
    /// Send a SACK at least every this many packets with DATA (2).
    pub sack_frequency: u32,
    /// Advertised receiver window: bytes of received data the association
    /// buffers before the application reads them (a_rwnd).
    pub receive_window: u32,
    /// Bytes of user messages the association accepts from the application
    /// before `send` reports a full buffer (queued plus in flight).
    pub send_buffer: usize,
    /// Outbound streams requested (OS in INIT).
    pub outbound_streams: u16,
    /// Maximum inbound streams accepted (MIS in INIT).
    pub max_inbound_streams: u16,
    /// Largest user message accepted for sending and for reassembly.
    pub max_message_size: usize,
    /// Path MTU assumed for every path (bytes of the SCTP packet, i.e. the
    /// IP MTU minus IP and, over UDP, UDP headers).
    pub path_mtu: usize,
    /// Initial cwnd in bytes; `None` uses RFC 9260 section 7.2.1:
    /// min(4*MTU, max(2*MTU, 4380)).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub initial_cwnd: Option<u32>,
    /// Announce and accept ADD-IP (RFC 5061). Requires `auth` for the peer
    /// to accept ASCONF (RFC 5061 section 4.1.1).
    pub asconf: bool,
    /// Announce and use AUTH (RFC 4895).
    pub auth: bool,
    /// Announce and use partial reliability (RFC 3758): the
    /// Forward-TSN-Supported parameter in INIT and INIT ACK (section
    /// 3.3.1) and FORWARD TSN in Supported Extensions. When the peer
    /// announces it too, messages sent with a policy
    /// ([`crate::association::PrPolicy`], RFC 7496) may be abandoned and
    /// skipped with FORWARD TSN; without it every message stays reliable.
    /// On by default, as in usrsctp and FreeBSD; off when a scenario file
    /// leaves the key out (the studies reproduce stacks without it, and
    /// the extra INIT parameter alone would move their timings).
    #[cfg_attr(feature = "serde", serde(default))]
    pub pr_sctp: bool,
    /// Set the I bit of DATA (SACK-IMMEDIATELY, RFC 7053 section 4.1) on
    /// the last chunk before the send queue runs empty and on every packet
    /// of DATA sent while a move of the data to another path is pending
    /// ([`crate::Association::set_move_pending`]): the peer acknowledges
    /// at once instead of after its delayed-SACK timer. Off by default (a
    /// received I bit is honoured either way).
    pub sack_immediately: bool,
    /// Announce and use I-DATA (RFC 8260 section 2.2: I-DATA, and
    /// I-FORWARD-TSN with `pr_sctp`, in Supported Extensions). When the
    /// peer announces it too, every DATA chunk is an I-DATA chunk and the
    /// stream scheduler may interleave the fragments of messages of
    /// different streams. Off by default, as in usrsctp and Linux.
    pub interleaving: bool,
    /// Announce and use stream reconfiguration (RFC 6525: RE-CONFIG in
    /// Supported Extensions, and in the AUTH chunk list when `auth` is
    /// on, section 3.1). When the peer announces it too, the application
    /// may reset and add streams ([`crate::Association::reset_streams`])
    /// and the peer's requests are answered. Off by default, as Linux's
    /// `net.sctp.reconf_enable` (usrsctp turns it on): the studies
    /// reproduced predate it and the longer INIT would move their timings.
    pub stream_reconfig: bool,
    /// The most outgoing streams Add Outgoing Streams Requests (RFC 6525
    /// section 5.1.5, ours or asked for by the peer, section 5.2.6) may
    /// bring the association to; incoming ones are bounded by
    /// `max_inbound_streams`.
    pub max_outbound_streams: u16,
    /// Which stream's message is sent next (RFC 8260 section 3); first
    /// come, first served by default (what this stack always did).
    pub stream_scheduler: StreamScheduler,
    /// HMAC algorithms offered, in order of preference (SHA-1 is always
    /// added last if missing, as RFC 4895 section 6.1 requires).
    pub hmac_algorithms: Vec<HmacAlgorithm>,
    /// Chunk types we require the peer to authenticate (beyond ASCONF and
    /// ASCONF-ACK, which are always required when ADD-IP is on).
    pub auth_chunks: Vec<u8>,
    /// Endpoint-pair shared key (RFC 4895 section 6.1); empty by default.
    pub shared_key: Vec<u8>,
    /// Adaptation Layer Indication to announce (RFC 5061 section 4.2.6).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub adaptation_indication: Option<u32>,
    /// Return to the primary path when it becomes active again after a
    /// failover (RFC 9260 section 8.2 leaves the choice to the
    /// implementation).
    pub return_to_primary: bool,
    /// Quick failover, SCTP-PF (RFC 7829): PotentiallyFailed.Max.Retrans
    /// (PFMR). A confirmed destination whose error counter exceeds PFMR
    /// (but not yet PMR) is potentially failed: new data goes to an
    /// active destination, the PF one is probed by a HEARTBEAT once per
    /// RTO and comes back at the first answer. `Some(0)` is RFC 7829's
    /// recommended value (move data after the first timeout); `None`
    /// (the default) is RFC 9260's failover only, after PMR + 1 errors.
    /// A value of PMR or more never fires. See docs/DESIGN.md "Quick
    /// failover".
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub pf_max_retrans: Option<u32>,
    /// Primary Path Switchover (RFC 7829 section 5):
    /// Primary.Switchover.Max.Retrans (PSMR). When the primary's error
    /// counter exceeds PSMR, the destination data goes to instead
    /// becomes the primary for good: data does not return when the old
    /// primary recovers. `None` (the default, as in RFC 7829) switches
    /// back. Must not be below PFMR.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub primary_switchover_max_retrans: Option<u32>,
    /// A fast retransmission goes to the active destination with the
    /// shortest smoothed round trip (the one it was lost on included)
    /// instead of always the data path: behind a full queue on the data
    /// path (a retransmission waits for everything queued there) an idle
    /// second path delivers it a queue's length sooner, which is what the
    /// receiver's in-order delivery waits for. RFC 9260 section 6.4 asks
    /// the same for retransmissions after a timeout; Iyengar et al.
    /// (retransmission policies for CMT) measured the benefit for fast
    /// retransmissions.
    pub fast_retransmit_on_fastest: bool,
    /// Missing reports that mark a chunk for fast retransmission (RFC
    /// 9260 section 7.2.4: the third, so 3). ns-2's SCTP module waited for
    /// the fourth until its release 3.8 of 2009, which "reduced to three"
    /// the reports that trigger fast retransmits (`sctp/sctp.CHANGES`,
    /// release 3.8); its `fastRtxTrigger_` became a Tcl setting in release
    /// 3.5. From 1 to 1000.
    pub fast_retransmit_threshold: u32,
    /// Where retransmissions go: RFC 9260's rule (the default) or ns-2's
    /// `rtxToAlt_ 1`, every retransmission to an alternate (see
    /// [`RetransmitDestination`]).
    pub retransmit_destination: RetransmitDestination,
    /// Which acknowledgements clear a destination's error counter: RFC
    /// 9260's rule (the default) or ns-2's (see [`ErrorCounterReset`]).
    pub error_counter_reset: ErrorCounterReset,
    /// RFC 2960 path handling: every transport address listed in the
    /// peer's INIT or INIT ACK counts as confirmed from the start and may
    /// carry DATA at once, as before RFC 4960 (RFC 2960 has no path
    /// verification; ns-2's SCTP module, the tool of several mobility
    /// studies, follows it). Off by default: RFC 9260 section 5.4, such
    /// an address is UNCONFIRMED, gets no DATA and is probed with
    /// HEARTBEATs until one is answered.
    pub confirm_listed_addresses: bool,
    /// Path estimators: packet-pair capacity and Westwood+ available
    /// bandwidth (docs/MODELS.md section 3).
    pub estimators: EstimatorConfig,
    /// Concurrent multipath transfer (off by default).
    pub cmt: CmtConfig,
    /// Path MTU discovery per path (RFC 8899; off by default: every path
    /// takes `path_mtu`).
    #[cfg_attr(
        feature = "serde",
        serde(skip_serializing_if = "PmtudConfig::is_off_default")
    )]
    pub pmtud: PmtudConfig,
    /// Limits.
    pub limits: Limits,
}

/// Where a DATA chunk marked for retransmission is sent.
///
/// ns-2's SCTP module (the tool of several mobility studies) chooses with
/// its `rtxToAlt_` option, 1 by default (ns-2.35 `tcl/lib/ns-default.tcl`
/// 860; `sctp/sctp.cc` 2890-2935, `SctpAgent::RtxMarkedChunks`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum RetransmitDestination {
    /// RFC 9260: a retransmission after a T3-rtx timeout goes to an active
    /// alternate destination if there is one (section 6.4.1); a fast
    /// retransmission (section 7.2.4) goes where new data goes (the data
    /// path), as does everything when no alternate is active.
    #[default]
    Rfc9260,
    /// ns-2 `rtxToAlt_ 1` (`RTX_TO_ALT_ON`, `sctp.cc` 2918-2920): every
    /// retransmission, fast ones included, goes to the next active
    /// destination after the one the chunk was last sent to (in the order
    /// the addresses were learnt, wrapping: ns-2's `GetNextDest`,
    /// `sctp.cc` 5555-5587), which is that destination itself when no
    /// other is active. Takes precedence over
    /// [`AssociationConfig::fast_retransmit_on_fastest`]. Chunks the
    /// engine moves off a path for a handover go to the data path either
    /// way (ns-2 has no such marks).
    AlwaysAlternate,
}

/// Which acknowledgements of DATA clear the error counter of the
/// destination the DATA was last sent to (RFC 9260 section 8.3).
///
/// Either way an acknowledgement counts once, when it first arrives: a
/// chunk gap-acked before and now covered by the cumulative TSN ack
/// clears nothing again (ns-2's "has not been gap acked before",
/// `sctp.cc` 2425-2436). The association's error counter is cleared by
/// any new acknowledgement in both (section 8.1; ns-2 `sctp.cc` 2347,
/// 4238).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum ErrorCounterReset {
    /// RFC 9260 section 8.3: any new acknowledgement of data sent to the
    /// address clears its counter.
    #[default]
    Rfc9260,
    /// ns-2: acknowledgements of chunks marked for timeout retransmission
    /// and not yet retransmitted do not clear it, "or else failover would
    /// take longer" (`SctpAgent::SendBufferDequeueUpTo`, `sctp.cc`
    /// 2414-2441; `SctpAgent::ProcessGapAckBlocks`, 4242-4264): after a
    /// T3-rtx expiry, SACKs for data that got through before a failure
    /// (their SACKs lost) leave the failure count standing. ns-2 takes no
    /// RTT sample from such chunks either (2404-2411); nor does the engine
    /// in both modes, as the T3-rtx expiry drops the path's RTT probe.
    Ns2,
}

/// The path estimators (module [`crate::estimate`]; docs/DESIGN.md "Path
/// estimators").
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct EstimatorConfig {
    /// Run them: Westwood+ on every path that carries data, and capacity
    /// trains (`capacity_method`); msctp's PROBE chunks are announced in
    /// Supported Extensions (and, with AUTH, listed in CHUNKS) and a
    /// peer's are answered. Off (the default, as RFC 9260 has no such
    /// thing): none of it, and probes from a peer are skipped as the
    /// unknown chunks they then are.
    pub enabled: bool,
    /// How capacity trains are timed: `sbpp` (the default: HEARTBEATs
    /// timed at the sender from their HEARTBEAT ACKs, which any RFC 9260
    /// peer sends, section 8.3) or `probe_echo` (msctp's PROBE chunks,
    /// timed by a peer that announced them).
    pub capacity_method: crate::estimate::CapacityMethod,
    /// Capacity samples the median filter keeps per path (1 to 64).
    pub capacity_samples: usize,
    /// Bytes each packet carries below the SCTP packet at the bottleneck
    /// (e.g. 28 for IPv4 and UDP encapsulation), counted in the capacity.
    pub packet_overhead: u32,
    /// Probe a path as soon as it can carry data (the primary when the
    /// association is established, others when confirmed) with five
    /// trains one RTO (at least 100 ms) apart, instead of waiting for its
    /// first heartbeat interval.
    pub probe_new_paths: bool,
    /// `probe_echo` only: send trains also to peers that did not announce
    /// support. Such a peer skips the probes and never echoes: no
    /// capacity is learnt. For interoperability tests.
    pub probe_unannounced: bool,
    /// Bandwidth-aware start (docs/MODELS.md section 3): when the path new
    /// data goes to changes (the application's or the peer's choice, or a
    /// failover), its window is set to capacity estimate x smoothed RTT
    /// (if both are known) instead of continuing from where it was.
    pub bandwidth_aware_start: bool,
    /// Window limit from the estimate (docs/DESIGN.md "Window limit from
    /// the capacity estimate"): the window of a path with a capacity
    /// estimate C never exceeds C x (its smallest RTT + this allowance),
    /// at least 4 MTU, so that the queue the sender keeps at the path's
    /// bottleneck stays near the allowance instead of filling the
    /// bottleneck's buffer until a loss. With `bandwidth_aware_start`,
    /// the path new data moves to starts at that limit. Off (`None`) by
    /// default: RFC 9260's loss-based windows.
    #[cfg_attr(
        feature = "serde",
        serde(
            rename = "window_limit_ms",
            with = "units::opt_ms",
            skip_serializing_if = "Option::is_none"
        )
    )]
    pub window_limit: Option<std::time::Duration>,
}

impl Default for EstimatorConfig {
    fn default() -> Self {
        EstimatorConfig {
            enabled: false,
            capacity_method: crate::estimate::CapacityMethod::Sbpp,
            capacity_samples: 5,
            packet_overhead: 0,
            probe_new_paths: true,
            probe_unannounced: false,
            bandwidth_aware_start: false,
            window_limit: None,
        }
    }
}

impl EstimatorConfig {
    /// Everything on, defaults otherwise.
    pub fn on() -> Self {
        EstimatorConfig {
            enabled: true,
            ..Default::default()
        }
    }
}

/// Bounds on what a peer can make the association hold.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct Limits {
    /// Peer transport addresses kept per association.
    pub max_peer_addresses: usize,
    /// Address parameters an INIT or INIT ACK may list. One with more is
    /// refused before any other work, with an ABORT carrying "Out of
    /// Resource" (RFC 9260 section 3.3.10.4): the endpoint will not hold
    /// that many. Up to this bound the list is read in linear time and
    /// its first `max_peer_addresses` acceptable addresses kept.
    pub max_init_addresses: usize,
    /// Local addresses per association.
    pub max_local_addresses: usize,
    /// Gap Ack Blocks reported in one SACK.
    pub max_gap_blocks: usize,
    /// Duplicate TSNs reported in one SACK.
    pub max_dup_tsns: usize,
    /// Queued ASCONF parameters waiting for the outstanding request.
    pub max_pending_asconf_params: usize,
    /// Application events queued before the oldest are dropped (counted).
    pub max_pending_events: usize,
    /// Bytes of unrecognized parameters reflected in one reply: the
    /// Unrecognized Parameter parameters of an INIT ACK (RFC 9260 sections
    /// 3.2.1 and 5.1) and the reports in an ASCONF-ACK (RFC 5061 section
    /// 5.2). Reports beyond it are left out, so that a small INIT or
    /// ASCONF full of unknown parameters cannot draw a reply several times
    /// its size (to a source it may have spoofed).
    pub max_reflected_unrecognized: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_peer_addresses: 16,
            max_init_addresses: 128,
            max_local_addresses: 16,
            max_gap_blocks: 64,
            max_dup_tsns: 32,
            max_pending_asconf_params: 32,
            max_pending_events: 4096,
            max_reflected_unrecognized: 256,
        }
    }
}

impl Default for AssociationConfig {
    fn default() -> Self {
        AssociationConfig {
            rto_initial: Duration::from_secs(1),
            rto_min: Duration::from_secs(1),
            rto_max: Duration::from_secs(60),
            max_burst: Some(4),
            burst_autosize: None,
            assoc_max_retrans: 10,
            path_max_retrans: 5,
            max_init_retrans: 8,
            heartbeat_interval: Some(Duration::from_secs(30)),
            hb_max_burst: 1,
            valid_cookie_life: Duration::from_secs(60),
            sack_delay: Some(Duration::from_millis(200)),
            sack_frequency: 2,
            receive_window: 1 << 20,
            send_buffer: 1 << 20,
            outbound_streams: 10,
            max_inbound_streams: 65535,
            max_message_size: 1 << 20,
            path_mtu: 1452,
            initial_cwnd: None,
            asconf: true,
            auth: true,
            pr_sctp: true,
            sack_immediately: false,
            interleaving: false,
            stream_reconfig: false,
            max_outbound_streams: u16::MAX,
            stream_scheduler: StreamScheduler::Fcfs,
            hmac_algorithms: vec![HmacAlgorithm::Sha256, HmacAlgorithm::Sha1],
            auth_chunks: Vec::new(),
            shared_key: Vec::new(),
            adaptation_indication: None,
            return_to_primary: true,
            pf_max_retrans: None,
            primary_switchover_max_retrans: None,
            fast_retransmit_on_fastest: false,
            fast_retransmit_threshold: 3,
            retransmit_destination: RetransmitDestination::Rfc9260,
            error_counter_reset: ErrorCounterReset::Rfc9260,
            confirm_listed_addresses: false,
            estimators: EstimatorConfig::default(),
            cmt: CmtConfig::default(),
            pmtud: PmtudConfig::default(),
            limits: Limits::default(),
        }
    }
}

impl AssociationConfig {
    /// Checks the values against each other and against the bounds that
    /// keep every resource finite; the message names the field by its key
    /// in a configuration file (`rto_min_ms`, `limits.max_gap_blocks`).
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |field: &'static str, why: &'static str| Err(ConfigError { field, why });
        if self.rto_min.is_zero() {
            return bad("rto_min_ms", "must be positive");
        }
        if self.rto_min > self.rto_max {
            return bad("rto_min_ms", "must not exceed rto_max_ms");
        }
        if self.rto_initial < self.rto_min || self.rto_initial > self.rto_max {
            return bad(
                "rto_initial_ms",
                "must lie between rto_min_ms and rto_max_ms",
            );
        }
        if let Some(d) = self.sack_delay
            && d > Duration::from_millis(500)
        {
            return bad(
                "sack_delay_ms",
                "must not exceed 500 ms (RFC 9260 section 6.2)",
            );
        }
        if self.valid_cookie_life < Duration::from_millis(1) {
            return bad("valid_cookie_life_ms", "must be at least 1 ms");
        }
        self.validate_counts()?;
        self.validate_sizes()?;
        if let Err(why) = self.pmtud.validate() {
            return bad("pmtud", why);
        }
        if self.asconf && !self.auth {
            return bad("asconf", "ADD-IP requires AUTH (RFC 5061 section 4.1.1)");
        }
        if let (Some(pf), Some(ps)) = (self.pf_max_retrans, self.primary_switchover_max_retrans)
            && ps < pf
        {
            return bad(
                "primary_switchover_max_retrans",
                "must not be below pf_max_retrans (RFC 7829 section 5)",
            );
        }
        if !(1..=64).contains(&self.estimators.capacity_samples) {
            return bad("estimators.capacity_samples", "must lie between 1 and 64");
        }
        if self
            .estimators
            .window_limit
            .is_some_and(|q| q.is_zero() || q > std::time::Duration::from_secs(10))
        {
            return bad(
                "estimators.window_limit_ms",
                "must lie above 0 and at most 10 s",
            );
        }
        if self.auth_chunks.len() > 256 {
            return bad(
                "auth_chunks",
                "at most 256 chunk types (RFC 4895 section 3.2)",
            );
        }
        Ok(())
    }

    /// The counters and counts of RFC 9260 section 16: at least what the
    /// protocol needs, at most what keeps an association's life finite.
    fn validate_counts(&self) -> Result<(), ConfigError> {
        let within = |field: &'static str, v: Option<u32>, lo: u32, hi: u32, why| match v {
            Some(v) if v < lo || v > hi => Err(ConfigError { field, why }),
            _ => Ok(()),
        };
        const RETRANS: &str = "must lie between 0 and 1000";
        within(
            "assoc_max_retrans",
            Some(self.assoc_max_retrans),
            0,
            1000,
            RETRANS,
        )?;
        within(
            "path_max_retrans",
            Some(self.path_max_retrans),
            0,
            1000,
            RETRANS,
        )?;
        within(
            "max_init_retrans",
            Some(self.max_init_retrans),
            0,
            1000,
            RETRANS,
        )?;
        within("pf_max_retrans", self.pf_max_retrans, 0, 1000, RETRANS)?;
        within(
            "primary_switchover_max_retrans",
            self.primary_switchover_max_retrans,
            0,
            1000,
            RETRANS,
        )?;
        within(
            "fast_retransmit_threshold",
            Some(self.fast_retransmit_threshold),
            1,
            1000,
            "must lie between 1 and 1000 (RFC 9260 section 7.2.4: 3)",
        )?;
        within(
            "sack_frequency",
            Some(self.sack_frequency),
            1,
            1_000_000,
            "must lie between 1 and 1000000",
        )?;
        within(
            "max_burst",
            self.max_burst,
            1,
            1_000_000,
            "must lie between 0 (no limit) and 1000000",
        )?;
        within(
            "hb_max_burst",
            Some(self.hb_max_burst),
            1,
            1_000_000,
            "must be at least 1 (RFC 9260 section 16)",
        )?;
        within(
            "initial_cwnd",
            self.initial_cwnd,
            1,
            1 << 31,
            "must lie between 1 and 2^31 bytes",
        )
    }

    /// Buffers, messages, packets and the [`Limits`]: positive and bounded.
    // Long because: one bound per size field, a line or two each.
    fn validate_sizes(&self) -> Result<(), ConfigError> {
        let within = |field: &'static str, v: usize, lo: usize, hi: usize, why| {
            if v < lo || v > hi {
                return Err(ConfigError { field, why });
            }
            Ok(())
        };
        within(
            "path_mtu",
            self.path_mtu,
            508,
            65_535,
            "must lie between 508 and 65535",
        )?;
        if self.outbound_streams == 0 || self.max_inbound_streams == 0 {
            return Err(ConfigError {
                field: "outbound_streams",
                why: "stream counts must be at least 1",
            });
        }
        within(
            "receive_window",
            self.receive_window as usize,
            1500,
            1 << 31,
            "must lie between 1500 bytes (RFC 9260 section 3.3.2) and 2^31",
        )?;
        within(
            "send_buffer",
            self.send_buffer,
            1,
            1 << 34,
            "must lie between 1 and 2^34 bytes",
        )?;
        within(
            "max_message_size",
            self.max_message_size,
            1,
            1 << 30,
            "must lie between 1 and 2^30 bytes",
        )?;
        let l = &self.limits;
        const ADDRESSES: &str = "must lie between 1 and 65536";
        within(
            "limits.max_peer_addresses",
            l.max_peer_addresses,
            1,
            1 << 16,
            ADDRESSES,
        )?;
        within(
            "limits.max_init_addresses",
            l.max_init_addresses,
            1,
            1 << 16,
            ADDRESSES,
        )?;
        within(
            "limits.max_local_addresses",
            l.max_local_addresses,
            1,
            1 << 16,
            ADDRESSES,
        )?;
        within(
            "limits.max_gap_blocks",
            l.max_gap_blocks,
            1,
            4096,
            "must lie between 1 and 4096",
        )?;
        within(
            "limits.max_dup_tsns",
            l.max_dup_tsns,
            0,
            4096,
            "must lie between 0 and 4096",
        )?;
        const QUEUE: &str = "must lie between 1 and 2^20";
        within(
            "limits.max_pending_asconf_params",
            l.max_pending_asconf_params,
            1,
            1 << 20,
            QUEUE,
        )?;
        within(
            "limits.max_pending_events",
            l.max_pending_events,
            1,
            1 << 20,
            QUEUE,
        )?;
        within(
            "limits.max_reflected_unrecognized",
            l.max_reflected_unrecognized,
            0,
            1 << 16,
            "must lie between 0 and 65536",
        )
    }

    /// RFC 9260 section 7.2.1 initial cwnd for a given MTU.
    pub fn initial_cwnd_for(&self, mtu: usize) -> u32 {
        self.initial_cwnd
            .unwrap_or_else(|| (4 * mtu).min((2 * mtu).max(4380)) as u32)
    }
}

/// The largest burst [`AssociationConfig::burst_autosize`] allows, in
/// bytes: four UDP GSO sends of 64 KB (the size Linux caps a TCP offload
/// segment at), RFC 9260's Max.Burst of 4 counted in the offload's
/// super-packets; the same bytes as four loopback-size packets, which so
/// keep Max.Burst 4. One GSO send per burst made a bulk transfer a
/// ping-pong: the receiver acknowledges what one pass read with one SACK,
/// a SACK covering two trains released one, and the flight shrank to one
/// train, sent while the receiver waited and read while the sender waited.
pub const MAX_AUTOSIZED_BURST: u64 = 4 * (64 << 10);

/// A configuration value that cannot work, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid configuration: {field} {why}")]
pub struct ConfigError {
    pub field: &'static str,
    pub why: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_follow_rfc_9260() {
        let c = AssociationConfig::default();
        c.validate().unwrap();
        assert_eq!(c.rto_initial, Duration::from_secs(1));
        assert_eq!(c.rto_max, Duration::from_secs(60));
        assert_eq!(c.path_max_retrans, 5);
        assert_eq!(c.assoc_max_retrans, 10);
        assert_eq!(c.initial_cwnd_for(1452), 4380);
        assert_eq!(c.initial_cwnd_for(500), 2000);
        assert_eq!(c.initial_cwnd_for(9000), 18000);
    }

    #[test]
    fn inconsistent_values_name_the_field() {
        let mut c = AssociationConfig {
            rto_min: Duration::from_secs(2),
            rto_max: Duration::from_secs(1),
            ..Default::default()
        };
        assert_eq!(c.validate().unwrap_err().field, "rto_min_ms");
        c.rto_min = Duration::from_millis(20);
        c.rto_max = Duration::from_secs(60);
        c.sack_delay = Some(Duration::from_secs(1));
        assert_eq!(c.validate().unwrap_err().field, "sack_delay_ms");
        c.sack_delay = None;
        c.auth = false;
        assert_eq!(c.validate().unwrap_err().field, "asconf");
    }
}
