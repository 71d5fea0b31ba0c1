//! The scenario file format (TOML). Every key has a default unless marked
//! required; `reference.toml` next to this file shows every key with its
//! default and meaning. Unknown keys are refused by the parser; values out
//! of range by [`Scenario::validate`](super::Scenario::validate).

use msctp_proto::policy::PolicyKind;
use serde::{Deserialize, Serialize};

use crate::models::radio::AddressAcquisition;

pub mod sctp;
pub mod stations;
pub mod table;
pub mod transport;

pub use sctp::*;
pub use stations::*;
pub use table::{ModelTable, ScenarioKeys};
pub use transport::*;

fn d_seed() -> u64 {
    1
}
fn d_duration() -> f64 {
    60.0
}
fn d_queue() -> usize {
    50
}
fn d_rate() -> u64 {
    100_000_000
}
fn d_cell_rate() -> u64 {
    2_000_000
}
fn d_delay_ms() -> f64 {
    1.0
}
fn d_radius() -> f64 {
    250.0
}
fn d_beacon_ms() -> f64 {
    100.0
}
fn d_host_id() -> u32 {
    10
}
fn d_message() -> usize {
    1400
}
fn d_sample_ms() -> f64 {
    100.0
}
fn d_bin_ms() -> f64 {
    100.0
}
fn d_beacon_w() -> f64 {
    1.5e-11
}
fn d_data_w() -> f64 {
    3.6e-10
}
fn d_snaplen() -> u32 {
    65_535
}
fn d_pcap_max() -> u64 {
    1 << 30
}

/// A whole scenario. See `reference.toml` for the documented keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Free text naming the scenario.
    #[serde(default)]
    pub name: String,
    /// Default run seed (a run may be given another).
    #[serde(default = "d_seed")]
    pub seed: u64,
    /// Simulated seconds; the run stops there.
    #[serde(default = "d_duration")]
    pub duration_s: f64,
    #[serde(default)]
    pub limits: LimitsSpec,
    #[serde(default)]
    pub output: OutputSpec,
    #[serde(default)]
    pub radio: RadioSpec,
    #[serde(default)]
    pub nodes: Vec<NodeSpec>,
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    #[serde(default)]
    pub cells: Vec<CellSpec>,
    #[serde(default)]
    pub mobiles: Vec<MobileSpec>,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    #[serde(default)]
    pub events: Vec<EventSpec>,
    /// Populations of identical stations (expanded into mobiles and
    /// flows, after those of the file).
    #[serde(default)]
    pub stations: Vec<StationsSpec>,
}

/// Bounds of the run's memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LimitsSpec {
    /// Drops kept with the packet's identity (all are counted).
    pub drop_log: usize,
    /// Packets agents may send within one instant.
    pub max_backlog: usize,
    /// Records per record kind of one flow's log.
    pub flow_records: usize,
    /// Agent events kept per agent.
    pub agent_events: usize,
    /// Radio driver log lines kept per mobile.
    pub radio_log: usize,
    /// Radio events generated per mobile.
    pub radio_events: usize,
    /// Uids of DATA packets kept per SCTP agent (to count lost data).
    pub data_uids: usize,
}

impl Default for LimitsSpec {
    fn default() -> Self {
        LimitsSpec {
            drop_log: 1_000_000,
            max_backlog: 100_000,
            flow_records: 4_000_000,
            agent_events: 100_000,
            radio_log: 100_000,
            radio_events: 2_000_000,
            data_uids: 4_000_000,
        }
    }
}

/// What a run writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Bin width of the goodput series (ms).
    #[serde(default = "d_bin_ms")]
    pub series_bin_ms: f64,
    /// Period of path samples (cwnd, RTO, flight, primary) in ms; 0: off.
    #[serde(default = "d_sample_ms")]
    pub sample_ms: f64,
    /// Event-driven traces (`path_trace.csv`, `delays.csv`,
    /// `queues.csv`): every change of each SCTP path's cwnd, ssthresh
    /// (RFC 9260 section 7.2), flight size and RTO (section 6.3.1), the
    /// one-way delay and RFC 3550 jitter of every delivered message, and
    /// each transmit queue's length after every change. Bounded by
    /// `limits.flow_records` rows per flow and kind.
    #[serde(default)]
    pub trace: bool,
    /// Interfaces to capture, as "node:interface".
    #[serde(default)]
    pub pcap: Vec<String>,
    /// Bytes kept of each captured packet.
    #[serde(default = "d_snaplen")]
    pub pcap_snaplen: u32,
    /// Bytes at most per capture file.
    #[serde(default = "d_pcap_max")]
    pub pcap_max_bytes: u64,
    /// Handover windows: seconds before and after each handover instant
    /// over which handoff delay and latency are measured.
    #[serde(default = "d_window_before")]
    pub handover_window_before_s: f64,
    #[serde(default = "d_window_after")]
    pub handover_window_after_s: f64,
    /// End the run this many seconds after every flow's sender failed over
    /// following the last link break (the failover measures are then
    /// taken; what follows costs time and tells nothing). Absent: run the
    /// whole `duration_s`.
    #[serde(default)]
    pub end_after_failover_s: Option<f64>,
    /// Goodput of every flow over these windows `[from_s, to_s)` (e.g.
    /// E4's 20-25 s), reported as `goodput_windows` in the summary.
    #[serde(default)]
    pub goodput_windows_s: Vec<(f64, f64)>,
    /// Bytes of the first transfer on the alternate path after a failover
    /// whose time is measured (`failovers.<i>.transfer_time_s`, E8);
    /// absent: not measured.
    #[serde(default)]
    pub failover_transfer_bytes: Option<u64>,
    /// The summary's `stations.<cell>`: the time-average number of
    /// stations whose data goes through each cell over `[from_s, to_s)`.
    #[serde(default)]
    pub stations_window_s: Option<(f64, f64)>,
}

fn d_window_before() -> f64 {
    2.0
}
fn d_window_after() -> f64 {
    5.0
}

impl Default for OutputSpec {
    fn default() -> Self {
        OutputSpec {
            series_bin_ms: d_bin_ms(),
            sample_ms: d_sample_ms(),
            trace: false,
            pcap: Vec::new(),
            pcap_snaplen: d_snaplen(),
            pcap_max_bytes: d_pcap_max(),
            handover_window_before_s: d_window_before(),
            handover_window_after_s: d_window_after(),
            end_after_failover_s: None,
            goodput_windows_s: Vec::new(),
            failover_transfer_bytes: None,
            stations_window_s: None,
        }
    }
}

/// Radio defaults for every cell (a cell may override each).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RadioSpec {
    /// Beacon detection threshold (W).
    #[serde(default = "d_beacon_w")]
    pub beacon_detection_w: f64,
    /// Data threshold (W): coverage, link up/down.
    #[serde(default = "d_data_w")]
    pub data_w: f64,
    /// "Link going down" threshold (W); absent: equal to the data
    /// threshold (no warning).
    #[serde(default)]
    pub going_down_w: Option<f64>,
    /// Time between beacons (ms).
    #[serde(default = "d_beacon_ms")]
    pub beacon_interval_ms: f64,
    /// Decision latency x (ms): usable beacons needed before link up.
    #[serde(default)]
    pub link_up_after_ms: f64,
    /// Decision latency y (ms): link down after the last usable beacon;
    /// absent: one beacon interval.
    #[serde(default)]
    pub link_down_after_ms: Option<f64>,
    /// Beacon lost after the last heard beacon (ms); absent: one interval.
    #[serde(default)]
    pub beacon_lost_after_ms: Option<f64>,
    /// Signal samples: "every_beacon", "off" or "periodic".
    #[serde(default)]
    pub samples: SampleName,
    /// Period of "periodic" samples (ms).
    #[serde(default = "d_beacon_ms")]
    pub sample_period_ms: f64,
    #[serde(default)]
    pub acquisition: AcquisitionSpec,
}

impl Default for RadioSpec {
    fn default() -> Self {
        RadioSpec {
            beacon_detection_w: d_beacon_w(),
            data_w: d_data_w(),
            going_down_w: None,
            beacon_interval_ms: d_beacon_ms(),
            link_up_after_ms: 0.0,
            link_down_after_ms: None,
            beacon_lost_after_ms: None,
            samples: SampleName::default(),
            sample_period_ms: d_beacon_ms(),
            acquisition: AddressAcquisition::NONE,
        }
    }
}

/// When signal samples are produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SampleName {
    /// At every heard beacon.
    #[default]
    EveryBeacon,
    /// Never.
    Off,
    /// Every `sample_period_ms`.
    Periodic,
}

/// Address acquisition latency after link up, by part (the radio model's
/// [`AddressAcquisition`] itself).
pub type AcquisitionSpec = AddressAcquisition;

/// A fixed node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// Required, unique among nodes and mobiles.
    pub name: String,
    /// "host" or "router".
    #[serde(default)]
    pub kind: NodeKindSpec,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum NodeKindSpec {
    #[default]
    Host,
    Router,
}

/// An error model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ErrorSpec {
    #[default]
    None,
    /// Each packet lost with probability `loss`.
    Bernoulli { loss: f64 },
    /// ns-2 ErrorModel/Expo with average loss `loss` and error bursts of
    /// `mean_burst` packets.
    Expo { loss: f64, mean_burst: f64 },
    /// Gilbert-Elliott: transition and loss probabilities per packet.
    GilbertElliott {
        p_good_to_bad: f64,
        p_bad_to_good: f64,
        loss_good: f64,
        loss_bad: f64,
    },
    /// Loss probability rising linearly from `from` to `to` between
    /// `start_s` and `end_s`.
    Ramp {
        from: f64,
        to: f64,
        start_s: f64,
        end_s: f64,
    },
}

/// A point-to-point link between two fixed nodes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Required, unique.
    pub name: String,
    /// Required: node names and their addresses with prefix length.
    pub a: String,
    pub a_addr: String,
    pub b: String,
    pub b_addr: String,
    #[serde(default = "d_rate")]
    pub rate_bps: u64,
    #[serde(default = "d_delay_ms")]
    pub delay_ms: f64,
    #[serde(default = "d_queue")]
    pub queue_packets: usize,
    #[serde(default)]
    pub error: ErrorSpec,
}

/// A wireless cell on a router.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CellSpec {
    /// Required, unique.
    pub name: String,
    /// Required: the node holding the access point.
    pub router: String,
    /// Required: the AP interface's address with prefix length; mobiles
    /// get `prefix + host_id` in the cell and route through this address.
    pub ap_addr: String,
    #[serde(default)]
    pub x_m: f64,
    #[serde(default)]
    pub y_m: f64,
    /// Radius (m) at the data threshold; sets the transmit power of the
    /// two-ray ground model unless `tx_power_w` is given.
    #[serde(default = "d_radius")]
    pub radius_m: f64,
    #[serde(default)]
    pub tx_power_w: Option<f64>,
    #[serde(default = "d_cell_rate")]
    pub rate_bps: u64,
    #[serde(default = "d_delay_ms")]
    pub delay_ms: f64,
    #[serde(default = "d_queue")]
    pub queue_packets: usize,
    /// "shared" (one medium), "dedicated" (a channel per station) or
    /// "common" (UMTS common transport channels shared per TTI, RLC
    /// acknowledged mode; `kernel::wireless`).
    #[serde(default)]
    pub sharing: SharingSpec,
    /// The medium access of a shared cell: "rate" (a packet holds the
    /// medium for its bytes at `rate_bps`) or "dcf" (an 802.11 DCF frame
    /// exchange, `rate_bps` being the data rate; `kernel::dcf`).
    #[serde(default)]
    pub mac: MacSpec,
    /// Shared cells: the AP's downlink queue (packets); absent:
    /// `queue_packets` (which is then each station's uplink queue).
    #[serde(default)]
    pub ap_queue_packets: Option<usize>,
    /// Shared cells: airtime per frame besides its bits (µs): 802.11b
    /// about 892, 802.11a about 171 (docs/MODELS.md 6.1); 0: none.
    #[serde(default)]
    pub frame_overhead_us: f64,
    /// Common cells: RLC PDU payload bytes (Budzisz et al. 4.2.2: 40).
    #[serde(default = "d_rlc_pdu")]
    pub rlc_pdu_bytes: usize,
    /// Common cells: end of a TTI that lost a PDU to its retransmission
    /// (ms; the RLC STATUS report's way back, 3GPP TS 25.322 9.7); absent:
    /// twice `delay_ms`.
    #[serde(default)]
    pub rlc_status_delay_ms: Option<f64>,
    /// Dedicated and common cells: transmission time interval (ms; UMTS
    /// 10); absent: none (common cells: 10).
    #[serde(default)]
    pub tti_ms: Option<f64>,
    #[serde(default)]
    pub downlink_error: ErrorSpec,
    #[serde(default)]
    pub uplink_error: ErrorSpec,
    /// Beacon offset (ms) within the interval.
    #[serde(default)]
    pub beacon_offset_ms: f64,
    /// Overrides of the `[radio]` defaults for this cell.
    #[serde(default)]
    pub beacon_interval_ms: Option<f64>,
    #[serde(default)]
    pub beacon_detection_w: Option<f64>,
    #[serde(default)]
    pub data_w: Option<f64>,
    #[serde(default)]
    pub going_down_w: Option<f64>,
    #[serde(default)]
    pub link_up_after_ms: Option<f64>,
    #[serde(default)]
    pub link_down_after_ms: Option<f64>,
    #[serde(default)]
    pub beacon_lost_after_ms: Option<f64>,
    #[serde(default)]
    pub acquisition: Option<AcquisitionSpec>,
    /// A scripted signal instead of geometry: `[[time_s, power_w], ...]`,
    /// a power of 0 meaning no signal.
    #[serde(default)]
    pub signal_steps: Option<Vec<(f64, f64)>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SharingSpec {
    #[default]
    Shared,
    Dedicated,
    Common,
}

fn d_rlc_pdu() -> usize {
    40
}

fn d_basic_rate() -> u64 {
    1_000_000
}

/// A cell's medium access (`kernel::dcf`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum MacSpec {
    /// The packet's bytes at the cell's rate.
    #[default]
    Rate,
    /// IEEE 802.11 DCF (clause 9.2): control frames at `basic_rate_bps`
    /// (ns-2's basicRate_ 1 Mbit/s), RTS/CTS before unicast frames longer
    /// than `rts_threshold_bytes` (dot11RTSThreshold; ns-2's RTSThreshold_
    /// 0: every frame), `phy` "dsss" (802.11b) or "ofdm" (802.11a);
    /// `contention = true`: random backoff, collisions and retries up to
    /// `short_retry_limit` / `long_retry_limit` (7 / 4, the standard's and
    /// ns-2's), else the mean exchange shared round robin.
    Dcf {
        #[serde(default = "d_basic_rate")]
        basic_rate_bps: u64,
        #[serde(default)]
        rts_threshold_bytes: u32,
        #[serde(default)]
        phy: PhySpec,
        #[serde(default)]
        contention: bool,
        #[serde(default = "d_short_retry")]
        short_retry_limit: u32,
        #[serde(default = "d_long_retry")]
        long_retry_limit: u32,
    },
}

/// An 802.11 PHY's timing (`kernel::dcf::Phy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum PhySpec {
    #[default]
    Dsss,
    Ofdm,
}

fn d_short_retry() -> u32 {
    7
}

fn d_long_retry() -> u32 {
    4
}

/// A mobile node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MobileSpec {
    /// Required, unique among nodes and mobiles.
    pub name: String,
    /// Host part of the mobile's address in every cell.
    #[serde(default = "d_host_id")]
    pub host_id: u32,
    /// Required: the radio interfaces.
    pub ifaces: Vec<MobileIfaceSpec>,
    #[serde(default)]
    pub mobility: MobilitySpec,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MobileIfaceSpec {
    /// Required, unique on the mobile.
    pub name: String,
    /// Required: the cells this radio uses. One cell: a dedicated radio
    /// (multi-homed mobile); several: one radio attached to one of them at
    /// a time (single-homed mobile, or access points of one subnet).
    pub cells: Vec<String>,
}

/// How a mobile moves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum MobilitySpec {
    /// Standing at (x, y).
    Stationary {
        #[serde(default)]
        x_m: f64,
        #[serde(default)]
        y_m: f64,
    },
    /// From `start` at `start_s`, straight legs to each point at its speed.
    Waypoints {
        start: (f64, f64),
        #[serde(default)]
        start_s: f64,
        legs: Vec<LegSpec>,
    },
    /// Back and forth between `a` and `b` (E3 cross-over).
    CrossOver {
        a: (f64, f64),
        b: (f64, f64),
        speed_mps: f64,
        #[serde(default)]
        pause_s: f64,
        #[serde(default)]
        start_s: f64,
        legs: usize,
    },
    /// Seeded random waypoints in a rectangle (E3 random).
    RandomWaypoint {
        min: (f64, f64),
        max: (f64, f64),
        start: (f64, f64),
        #[serde(default)]
        start_s: f64,
        speed_min_mps: f64,
        speed_max_mps: f64,
        #[serde(default)]
        pause_min_s: f64,
        #[serde(default)]
        pause_max_s: f64,
    },
    /// A trace made by another tool (`models::mobility::import`):
    /// `trace` is the file (a path relative to the working directory;
    /// BonnMotion's `.movements` gunzipped, an ns-2 movement file such
    /// as `setdest` writes, or SUMO's FCD output), `node` the trace's node
    /// this mobile follows.
    Trace {
        trace: String,
        format: TraceFormatSpec,
        #[serde(default)]
        node: usize,
        /// BonnMotion: coordinates per waypoint (2, or 3 for x y z).
        #[serde(default = "d_trace_dims")]
        dimensions: usize,
        /// Largest file read (bytes); a larger one is an error, not
        /// truncated.
        #[serde(default = "d_trace_bytes")]
        max_bytes: u64,
        /// Most waypoints taken from the file.
        #[serde(default = "d_trace_waypoints")]
        max_waypoints: usize,
    },
    /// The E1 schedule: `handoffs` WLAN boundary crossings in the window.
    E1 {
        handoffs: u32,
        window_start_s: f64,
        window_s: f64,
        /// "continuous" (Song and Wang: turn back at once, 14.14 s per
        /// visit to the WLAN) or "dwell" (wait at the turning point until
        /// the next handoff is due).
        #[serde(default)]
        turn: TurnSpec,
    },
}

/// The format of a mobility trace file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceFormatSpec {
    /// BonnMotion's native `.movements` (one node per line).
    Bonnmotion,
    /// ns-2 movement commands (`setdest`).
    Ns2,
    /// SUMO's floating car data (`sumo --fcd-output`, XML); `node` is the
    /// vehicle's rank in the order of first appearance.
    Sumo,
}

fn d_trace_dims() -> usize {
    2
}
fn d_trace_bytes() -> u64 {
    64 << 20
}
fn d_trace_waypoints() -> usize {
    crate::models::mobility::DEFAULT_MAX_WAYPOINTS
}

/// What an E1 mobile does at its turning point
/// (`models::mobility::TurnPolicy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum TurnSpec {
    #[default]
    Continuous,
    Dwell,
}

impl Default for MobilitySpec {
    fn default() -> Self {
        MobilitySpec::Stationary { x_m: 0.0, y_m: 0.0 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LegSpec {
    pub to: (f64, f64),
    /// Either a speed ...
    #[serde(default)]
    pub speed_mps: Option<f64>,
    /// ... or a pause (s) at the current point (then `to` is ignored).
    #[serde(default)]
    pub pause_s: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum DirectionSpec {
    /// The fixed node sends to the mobile.
    #[default]
    Downlink,
    /// The mobile sends to the fixed node.
    Uplink,
}

/// The application's traffic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TrafficSpec {
    Bulk {
        #[serde(default = "d_message")]
        message_bytes: usize,
    },
    File {
        bytes: u64,
        #[serde(default = "d_message")]
        message_bytes: usize,
    },
    Cbr {
        #[serde(default = "d_message")]
        message_bytes: usize,
        rate_bps: u64,
    },
    Pareto {
        #[serde(default = "d_message")]
        message_bytes: usize,
        rate_bps: u64,
        mean_on_ms: f64,
        mean_off_ms: f64,
        #[serde(default = "d_shape")]
        shape: f64,
    },
}

fn d_shape() -> f64 {
    1.5
}

impl TrafficSpec {
    /// The size of the file a `file` source sends; `None` for the others.
    pub fn file_bytes(&self) -> Option<u64> {
        match *self {
            TrafficSpec::File { bytes, .. } => Some(bytes),
            _ => None,
        }
    }
}

impl Default for TrafficSpec {
    fn default() -> Self {
        TrafficSpec::Bulk {
            message_bytes: d_message(),
        }
    }
}

/// The handover policy of the mobile's end of an mSCTP flow
/// (`msctp_proto::policy::PolicyKind`, interfaces by name; a
/// fastest-first interface without a rate takes its first cell's):
/// `newest_address` unless the file says otherwise.
pub type PolicySpec = PolicyKind<String>;

pub(crate) fn d_policy() -> PolicySpec {
    PolicyKind::NewestAddress
}

/// One transport flow between a mobile and a fixed node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Required, unique.
    pub name: String,
    #[serde(default)]
    pub transport: TransportSpec,
    #[serde(default)]
    pub direction: DirectionSpec,
    /// Required: the mobile and the fixed node (a host) of the flow.
    pub mobile: String,
    pub fixed: String,
    /// SCTP ports; 0: 5000 + 2 * flow index (fixed) and + 1 (mobile).
    #[serde(default)]
    pub fixed_port: u16,
    #[serde(default)]
    pub mobile_port: u16,
    /// When the mobile starts the association (s).
    #[serde(default)]
    pub start_s: f64,
    /// The start is drawn uniformly from `[start_s, start_s +
    /// start_jitter_s)` with the run's seed (0: exactly `start_s`).
    #[serde(default)]
    pub start_jitter_s: f64,
    /// When the application stops producing (s); absent: never.
    #[serde(default)]
    pub stop_s: Option<f64>,
    #[serde(default)]
    pub traffic: TrafficSpec,
    #[serde(default = "d_policy")]
    pub policy: PolicySpec,
    #[serde(default)]
    pub sctp: SctpSpec,
    /// `tcp` and `udp` flows: the mobile interface whose address the flow
    /// uses; absent: the first interface (its first cell's address).
    #[serde(default)]
    pub mobile_iface: Option<String>,
    /// TCP parameters of the TCP-based transports.
    #[serde(default)]
    pub tcp: Option<TcpSpec>,
    /// Mobile IPv4 (`mip4-*`).
    #[serde(default)]
    pub mip4: Option<Mip4Spec>,
    /// Mobile IPv6 (`mip6-*`, `fmip6-*`).
    #[serde(default)]
    pub mip6: Option<Mip6Spec>,
    /// FMIPv6 (`fmip6-*`).
    #[serde(default)]
    pub fmip6: Option<Fmip6Spec>,
    /// The single-connection handoff (`single-handoff`).
    #[serde(default)]
    pub handoff: Option<HandoffSpec>,
    /// The multi-connection transport (`cmhn`).
    #[serde(default)]
    pub cmhn: Option<CmhnSpec>,
    /// A station of a `[[stations]]` population: its start is a Poisson
    /// arrival (not in files: set by the expansion).
    #[serde(skip)]
    pub arrival: Option<PoissonArrival>,
    /// The data sender starts on a path picked at random (not in files:
    /// set by the expansion of `random_initial_path`).
    #[serde(skip)]
    pub random_initial_path: bool,
}

/// A scheduled change of the network.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventSpec {
    /// Required: when (s).
    pub at_s: f64,
    /// Required: "cut_link", "restore_link", "break_cell",
    /// "degrade_cell" or "restore_cell".
    pub action: EventAction,
    /// The link's name (link actions).
    #[serde(default)]
    pub link: String,
    /// The cell's name (cell actions).
    #[serde(default)]
    pub cell: String,
    /// `degrade_cell`: how long (s) before `at_s` the degradation starts;
    /// the frame error rate of every station of the cell (both
    /// directions) rises linearly from 0 then to `max_error` at `at_s`,
    /// where the cell breaks as with `break_cell`.
    #[serde(default)]
    pub duration_s: f64,
    /// `degrade_cell`: the frame error rate reached at `at_s` (0.1).
    #[serde(default = "d_max_error")]
    pub max_error: f64,
    /// `degrade_cell`: when the link layer of each station raises its
    /// "link going down" hint, as a fraction of the degradation (0: at
    /// its start, 1: when the cell dies); absent: no hint.
    #[serde(default)]
    pub going_down_at: Option<f64>,
    /// `break_cell` / `degrade_cell`: the stations' link layer sees the
    /// break (false: it stays silent, a failure only the transport
    /// detects). At `at_s` each station's interface in the cell reports
    /// the link lost and loses its address and the default route through
    /// it, as when a station leaves a cell; a mobile's handover manager
    /// then deletes the address from its associations (ASCONF Delete IP,
    /// RFC 5061 section 4.2.2).
    #[serde(default)]
    pub link_down: bool,
}

fn d_max_error() -> f64 {
    0.1
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventAction {
    /// Take a link down: what it queues or carries is lost.
    CutLink,
    RestoreLink,
    /// A silent radio break: every frame of the cell's stations is lost,
    /// both directions, including what is queued at the access point; the
    /// stations stay attached and their link layer signals nothing (a
    /// path failure only the transport can detect).
    BreakCell,
    /// A degradation ending in a silent break at `at_s` (Budzisz et al.,
    /// section 4.2.1): the frame error rate of the cell's stations rises
    /// linearly from 0 at `at_s - duration_s` to `max_error` at `at_s`,
    /// then every frame is lost as with `break_cell`; the stations' link
    /// layer may raise "link going down" at `going_down_at`.
    DegradeCell,
    /// The cell's stations get back the cell's configured error models.
    RestoreCell,
}

impl EventAction {
    pub fn is_cell(self) -> bool {
        matches!(
            self,
            EventAction::BreakCell | EventAction::DegradeCell | EventAction::RestoreCell
        )
    }

    /// Actions after which data stops on a path (failover is measured).
    pub fn is_break(self) -> bool {
        matches!(
            self,
            EventAction::CutLink | EventAction::BreakCell | EventAction::DegradeCell
        )
    }
}
