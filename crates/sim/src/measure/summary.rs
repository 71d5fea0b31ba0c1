//! The JSON summary of a run: per flow, the measures of docs/MODELS.md
//! section 5 as [`crate::measure`] defines them.
//!
//! # Metric names
//!
//! The experiment layer flattens this summary into dotted names (arrays
//! of named objects by name, others by index, plus `<array>.count`;
//! strings and absent values are left out). These names are stable:
//!
//! - every flow, every transport: `flows.<flow>.goodput_bps`,
//!   `.goodput_windows.<i>.{from_s, to_s, goodput_bps}`, `.bytes_offered`, `.bytes_delivered`, `.file_delivery_time_s`,
//!   `.data_packets_sent`, `.lost_data_packets`,
//!   `.lost_data_by_reason.<Reason>`, `.lost_data_mobility` (all but
//!   QueueOverflow and LinkError), `.arrivals`, `.duplicate_arrivals`,
//!   `.reordered_packets` (SACKs with gap blocks for SCTP, duplicate ACKs
//!   for TCP and CMHN, none for UDP), `.out_of_order_arrivals`,
//!   `.retransmissions`, `.fast_retransmissions`,
//!   `.spurious_retransmissions`, `.spurious_fast_retransmissions`,
//!   `.handovers.count`, `.handovers.<i>.{time_s, old_path, new_path,
//!   handoff_delay_s, handoff_latency_s}`, `.total_handoff_delay_s`,
//!   `.handovers_unmeasured`, `.datagrams_refused`, `.records_dropped`;
//!   paths are the mobile's cells numbered as its addresses (mSCTP: the
//!   addresses themselves);
//! - mSCTP: `.failovers.<i>.*`, `.asconfs_sent`, `.asconf_retransmissions`,
//!   `.abandoned_messages` (with a `reliability` policy, when not 0),
//!   `.policy_decisions`, `.policy_counters.<name>` (AISLE), and [`AsconfSummary`] as `.asconf.{asconf_chunks,
//!   asconf_bits, asconf_ack_chunks, asconf_ack_bits, auth_bits,
//!   signalling_bits, bits_per_handover, bits_per_handover_with_auth}`;
//! - Mobile IP (`mip4-*`, `mip6-*`, `fmip6-*`): [`MobileIpSummary`] as
//!   `.mobile_ip.{version, total_t_ad_s, total_t_reg_s, total_t_mip_s,
//!   incomplete_handovers, registrations_sent,
//!   registration_retransmissions, advertisements_heard,
//!   tunnelled_packets, tunnelled_bytes, tunnel_overhead_bytes,
//!   reverse_tunnelled_packets, route_optimised_packets}` and
//!   `.mobile_ip.handovers.<i>.{time_s, trigger_s, to_home, fast, t_ad_s,
//!   t_reg_s, t_mip_s}`;
//! - FMIPv6: [`FmipSummary`] as `.fmip.{trigger_s, prrtadv_after_s,
//!   fbu_after_s, fback_after_s, attached_after_s, una_after_s, reactive,
//!   forwarded, buffered, delivered_from_buffer, buffer_drops}`;
//! - TCP-based transports: [`TcpSummary`] as `.tcp.{connections,
//!   timeouts, fast_retransmits, segments_retransmitted, dup_acks_sent,
//!   connected_s, closed_s, timed_out}`;
//! - `single-handoff`: [`SingleHandoffSummary`] as `.handoff.{completed,
//!   superseded, total_stopped_s, location_updates}` and
//!   `.handoff.handoffs.<i>.{decided_s, from, to, resumed_s, first_data_s,
//!   stopped_s}`;
//! - `cmhn`: [`CmhnSummary`] as `.cmhn.{handshakes, reuses, expired,
//!   switches, records_resent, link_messages, duplicates_received}`;
//! - UDP transports: [`UdpSummary`] as `.udp.{datagrams_sent,
//!   datagrams_received, datagrams_missing, reordered, send_errors}`;
//! - the run (E7): `stations.<cell>` and, with AISLE,
//!   `congestion_events_per_station_s`.

use std::collections::BTreeMap;

use serde::Serialize;

/// The whole run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    pub scenario: String,
    pub seed: u64,
    pub duration_s: f64,
    /// Simulator events dispatched.
    pub events: u64,
    /// IP packets sent by agents.
    pub packets_created: u64,
    /// Every drop in the network, by reason.
    pub drops: BTreeMap<String, u64>,
    /// Drops counted but not logged with their identity (the drop log
    /// bound); lost data packets are then a lower bound.
    pub drops_unlogged: u64,
    pub flows: Vec<FlowSummary>,
    /// The time-average number of stations whose data goes through each
    /// cell over `output.stations_window_s` (E7), by cell name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub stations: BTreeMap<String, f64>,
    /// AISLE's congestion events (Budzisz et al., section 4.2.2.3: a loss
    /// or B below 10% of C on the primary) per station per second: the
    /// events of every flow's policy over the seconds from each flow's
    /// first data path to the end (E7); absent without AISLE.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub congestion_events_per_station_s: Option<f64>,
    /// Anything that makes a figure doubtful (bounds reached, errors).
    pub warnings: Vec<String>,
}

/// One handover, detected from the receiver's arrivals (see
/// [`super::detect_handovers`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HandoverSummary {
    pub time_s: f64,
    pub old_path: u32,
    pub new_path: u32,
    /// Handoff delay ([`super::handoff_delay`]) over the handover window;
    /// `None` when not measurable.
    pub handoff_delay_s: Option<f64>,
    /// Handoff latency ([`super::handoff_latency`]) over the window.
    pub handoff_latency_s: f64,
}

/// What followed a `cut_link` event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailoverSummary {
    pub link: String,
    pub break_s: f64,
    /// The path new data arrived on after the break, other than the one
    /// before it.
    pub alternate_path: Option<u32>,
    /// [`super::failover_time`]: break to the first new data on the
    /// alternate path.
    pub failover_time_s: Option<f64>,
    /// Break to the data sender's failover (its primary moved because the
    /// old one became inactive: PMR + 1 timeouts).
    pub sender_failover_s: Option<f64>,
    /// Break to the first arrival on the alternate path of data that was
    /// first sent there (never retransmitted): new data moved over, as
    /// opposed to retransmissions of what the break lost, which RFC 9260
    /// sends to an alternate address after the first timeout already.
    pub new_data_failover_s: Option<f64>,
    /// The sender's RTO of the path that carried data before the break, in
    /// its last path sample before the break (sample with a short
    /// `output.sample_ms` for precision): the RTO of RTO * (2^(PMR+1) - 1).
    pub rto_at_break_s: Option<f64>,
    /// Break to the sender's first change of primary after the
    /// degradation started (after the break without one), whatever its
    /// reason: failover, or a move at a link-layer hint (negative when
    /// before the break).
    pub sender_moved_s: Option<f64>,
    /// From that move until `output.failover_transfer_bytes` bytes of
    /// data (new to the receiver) arrived on the path moved to: the
    /// transfer time of the first bytes on the new path (E8, slow start
    /// against a bandwidth-aware start). Absent without that key, a move
    /// or enough data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transfer_time_s: Option<f64>,
}

/// One flow.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlowSummary {
    pub name: String,
    pub transport: String,
    pub direction: String,
    pub policy: String,
    pub start_s: f64,
    pub bytes_offered: u64,
    pub bytes_delivered: u64,
    /// Goodput (bit/s) from the flow's start to the end of the run.
    pub goodput_bps: f64,
    /// File flows: start to delivery of the last byte.
    pub file_delivery_time_s: Option<f64>,
    /// Goodput over each of `output.goodput_windows_s`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub goodput_windows: Vec<GoodputWindow>,
    pub data_packets_sent: u64,
    /// Packets carrying this flow's DATA dropped anywhere, and why.
    pub lost_data_packets: u64,
    pub lost_data_by_reason: BTreeMap<String, u64>,
    /// Of those, the packets mobility lost: every reason but congestion
    /// (queue overflow) and the medium (link errors) — sent to a cell the
    /// mobile left, a link that is down, a stale tunnel end, no route...
    /// The "lost packets" of the handoff studies.
    pub lost_data_mobility: u64,
    pub arrivals: u64,
    pub duplicate_arrivals: u64,
    /// SACKs with gap-ack blocks sent by the receiver.
    pub reordered_packets: u64,
    /// New data arriving below the highest number already received.
    pub out_of_order_arrivals: u64,
    pub retransmissions: u64,
    pub fast_retransmissions: u64,
    pub spurious_retransmissions: u64,
    pub spurious_fast_retransmissions: u64,
    /// [`super::longest_delivery_gap`] over the run: the longest wait of
    /// the receiving application between two deliveries.
    pub longest_delivery_gap_s: f64,
    /// SCTP: time the receiver's window kept the data sender waiting
    /// (data queued, a congestion window open, the advertised window
    /// full), from `Association::rwnd_blocked`; 0 for other transports.
    pub rwnd_blocked_s: f64,
    pub handovers: Vec<HandoverSummary>,
    pub total_handoff_delay_s: f64,
    pub handovers_unmeasured: usize,
    pub failovers: Vec<FailoverSummary>,
    /// ASCONF chunks the mobile sent (first transmissions) and retransmitted.
    pub asconfs_sent: u64,
    pub asconf_retransmissions: u64,
    /// Messages the sender abandoned under the flow's partial reliability
    /// policy (`reliability`, RFC 7496); absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub abandoned_messages: u64,
    pub policy_decisions: u64,
    /// The handover policy's own counters, from whichever end runs it
    /// (AISLE: `congestion_events`, `held_down`, `no_estimate`, `swaps`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub policy_counters: BTreeMap<String, u64>,
    /// Datagrams the hosts refused to send: from an address the node no
    /// longer holds, or with no source address at all.
    pub datagrams_refused: u64,
    /// Records beyond the flow log's bound (measures are then partial).
    pub records_dropped: u64,
    /// mSCTP: the ADD-IP signalling sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asconf: Option<AsconfSummary>,
    /// Mobile IPv4 / IPv6 (and FMIPv6): the handovers as the mobility
    /// protocol saw them, and its tunnelling.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mobile_ip: Option<MobileIpSummary>,
    /// FMIPv6: the fast handover's timeline and the routers' buffers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fmip: Option<FmipSummary>,
    /// TCP-based transports: the sender's connection statistics.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpSummary>,
    /// The single-connection handoff scheme.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handoff: Option<SingleHandoffSummary>,
    /// The multi-connection transport.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cmhn: Option<CmhnSummary>,
    /// UDP flows: datagrams sent and received.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub udp: Option<UdpSummary>,
}

/// Goodput ([`super::goodput_bps`]) over one window of the run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GoodputWindow {
    pub from_s: f64,
    pub to_s: f64,
    pub goodput_bps: f64,
    /// [`super::longest_delivery_gap`] over the window.
    pub longest_gap_s: f64,
}

/// ADD-IP signalling of an mSCTP flow (RFC 5061): ASCONF chunks the
/// mobile sent and ASCONF-ACK chunks the fixed node sent (first
/// transmissions and retransmissions, chunk lengths without padding), and
/// the AUTH chunks (RFC 4895) bundled with them. E1's analytic overhead is
/// 3 x (192 + 64) = 768 bits per handover (three ASCONF of 24 bytes and
/// three ASCONF-ACK of 8 bytes, no AUTH).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AsconfSummary {
    pub asconf_chunks: u64,
    pub asconf_bits: u64,
    pub asconf_ack_chunks: u64,
    pub asconf_ack_bits: u64,
    /// AUTH chunks in packets carrying an ASCONF or ASCONF-ACK.
    pub auth_bits: u64,
    /// ASCONF + ASCONF-ACK bits (AUTH not included).
    pub signalling_bits: u64,
    /// `signalling_bits` over the handovers detected at the receiver
    /// (`handovers`); absent without a handover.
    pub bits_per_handover: Option<f64>,
    /// The same with the AUTH bits.
    pub bits_per_handover_with_auth: Option<f64>,
}

/// One handover of Mobile IP, from its own timeline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MipHandoverSummary {
    /// When the mobile node decided to move (movement detection).
    pub time_s: f64,
    /// The link-layer change that started it: the latest attachment or
    /// detachment of one of the mobile's interfaces at or before
    /// `time_s`.
    pub trigger_s: Option<f64>,
    pub to_home: bool,
    /// Made by an FMIPv6 fast handover.
    pub fast: bool,
    /// Agent discovery time T_ad: trigger to movement detection (the
    /// advertisement that revealed the new agent or router, or the link
    /// down that made the node leave).
    pub t_ad_s: Option<f64>,
    /// Registration time T_reg: movement detection to the binding that
    /// redirects the correspondent's packets: MIPv4 the accepted
    /// registration reply; MIPv6 the correspondent's Binding
    /// Acknowledgement with route optimisation (else the home agent's),
    /// including the care-of address configuration. Absent if it never
    /// completed (superseded by another handover, or the run ended).
    pub t_reg_s: Option<f64>,
    /// T_ad + T_reg.
    pub t_mip_s: Option<f64>,
}

/// Mobile IP's view of a flow's mobile (shared by the mobile's flows).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MobileIpSummary {
    /// 4 or 6.
    pub version: u8,
    pub handovers: Vec<MipHandoverSummary>,
    /// Sums over the handovers whose value exists.
    pub total_t_ad_s: f64,
    pub total_t_reg_s: f64,
    pub total_t_mip_s: f64,
    /// Handovers whose registration never completed.
    pub incomplete_handovers: usize,
    /// Registration requests (MIPv4) or Binding Updates (MIPv6) sent,
    /// retransmissions included, and the retransmissions.
    pub registrations_sent: u64,
    pub registration_retransmissions: u64,
    /// Agent or router advertisements the mobile heard.
    pub advertisements_heard: u64,
    /// Packets the home agent tunnelled (to every mobile it serves), their
    /// bytes with the outer header, and the outer headers' bytes: 20 per
    /// packet IPv4-in-IPv4 (RFC 2003), 40 IPv6-in-IPv6 (RFC 2473).
    pub tunnelled_packets: u64,
    pub tunnelled_bytes: u64,
    pub tunnel_overhead_bytes: u64,
    /// MIPv6: packets the mobile reverse-tunnelled to its home agent and
    /// packets it sent route-optimised.
    pub reverse_tunnelled_packets: u64,
    pub route_optimised_packets: u64,
}

/// The FMIPv6 fast handover of a flow's mobile (the latest preparation).
/// Times are seconds after the trigger (the new access point's beacon).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FmipSummary {
    /// "early", "ideal" or "late" (text: not a metric).
    pub attach: String,
    pub trigger_s: f64,
    pub prrtadv_after_s: Option<f64>,
    pub fbu_after_s: Option<f64>,
    pub fback_after_s: Option<f64>,
    pub attached_after_s: Option<f64>,
    pub una_after_s: Option<f64>,
    /// The Fast Binding Update was sent from the new link.
    pub reactive: bool,
    /// Summed over the access routers: packets tunnelled by the previous
    /// router, buffered by the new one, delivered from the buffer, lost
    /// to a full or expired buffer.
    pub forwarded: u64,
    pub buffered: u64,
    pub delivered_from_buffer: u64,
    pub buffer_drops: u64,
}

/// The TCP connection(s) of a flow, at the data sender.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TcpSummary {
    /// Connections the sender had (CMHN: one per interface).
    pub connections: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub segments_retransmitted: u64,
    /// Duplicate ACKs the receiver sent.
    pub dup_acks_sent: u64,
    /// The (first) connection established, and closed (with the reason:
    /// "Normal", "Reset", "TimedOut", "Aborted").
    pub connected_s: Option<f64>,
    pub closed_s: Option<f64>,
    pub closed_reason: Option<String>,
    /// The connection was given up after too many retransmissions.
    pub timed_out: bool,
}

/// One handoff of the single-connection scheme.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SingleHandoffRecord {
    pub decided_s: f64,
    /// Interface indices of the mobile (its networks).
    pub from: usize,
    pub to: usize,
    /// When the connection resumed (absent: superseded by a later
    /// decision during processing).
    pub resumed_s: Option<f64>,
    pub first_data_s: Option<f64>,
    /// Decision to resumption: the handoff processing latency.
    pub stopped_s: Option<f64>,
}

/// The single-connection handoff scheme of a flow.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SingleHandoffSummary {
    pub handoffs: Vec<SingleHandoffRecord>,
    pub completed: usize,
    pub superseded: usize,
    /// Sum of `stopped_s` over the completed handoffs.
    pub total_stopped_s: f64,
    /// Location updates that moved the correspondent's connection.
    pub location_updates: u64,
}

/// The multi-connection transport of a flow (both ends' counters summed).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CmhnSummary {
    pub handshakes: u64,
    pub reuses: u64,
    pub expired: u64,
    pub switches: u64,
    pub records_resent: u64,
    pub link_messages: u64,
    pub duplicates_received: u64,
}

/// A UDP flow.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UdpSummary {
    pub datagrams_sent: u64,
    pub datagrams_received: u64,
    /// Sent and never received (lost, or still in flight at the end).
    pub datagrams_missing: u64,
    /// Datagrams with a sequence number below one already received.
    pub reordered: u64,
    /// Sends the node refused (backlog bound).
    pub send_errors: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
