//! The scenario file format (TOML). Every key has a default unless marked
//! required; `reference.toml` next to this file shows every key with its
//! default and meaning. Unknown keys are refused by the parser; values out
//! of range by [`Scenario::validate`](super::Scenario::validate).

use msctp_proto::policy::PolicyKind;
use serde::{Deserialize, Serialize};

use crate::models::radio::{AddressAcquisition, SampleMode};
use crate::scenario::error::{
    MAX_MS, MAX_S, ScenarioError, duration_ms, positive_f, range_f, range_u,
};

pub mod cell;
pub mod link;
pub mod movement;
pub mod sctp;
pub mod stations;
pub mod table;
pub mod traffic;
pub mod transport;

pub use cell::*;
pub use link::*;
pub use movement::*;
pub use sctp::*;
pub use stations::*;
pub use table::{ModelTable, ScenarioKeys};
pub use traffic::*;
pub use transport::*;

/// Milliseconds of a scenario file as a duration (negative: zero).
pub(crate) fn ms(v: f64) -> std::time::Duration {
    std::time::Duration::from_secs_f64((v / 1000.0).max(0.0))
}

/// Seconds of a scenario file as a time (negative: zero).
pub(crate) fn secs(v: f64) -> msctp_proto::Time {
    msctp_proto::Time::from_secs_f64(v.max(0.0))
}

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

impl LimitsSpec {
    /// Every bound between 1 and 10^9.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        let l = self;
        for (k, v) in [
            ("limits.drop_log", l.drop_log),
            ("limits.max_backlog", l.max_backlog),
            ("limits.flow_records", l.flow_records),
            ("limits.agent_events", l.agent_events),
            ("limits.radio_log", l.radio_log),
            ("limits.radio_events", l.radio_events),
            ("limits.data_uids", l.data_uids),
        ] {
            range_u(k, v as u64, 1, 1_000_000_000)?;
        }
        Ok(())
    }
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

impl OutputSpec {
    /// The ranges of its values (the nodes of `pcap` are looked up with
    /// the whole scenario).
    pub fn validate(&self) -> Result<(), ScenarioError> {
        let o = self;
        positive_f("output.series_bin_ms", o.series_bin_ms, MAX_MS)?;
        duration_ms("output.sample_ms", o.sample_ms)?;
        range_u(
            "output.pcap_snaplen",
            u64::from(o.pcap_snaplen),
            20,
            262_144,
        )?;
        range_u("output.pcap_max_bytes", o.pcap_max_bytes, 24, 1 << 40)?;
        range_f(
            "output.handover_window_before_s",
            o.handover_window_before_s,
            0.0,
            MAX_S,
        )?;
        range_f(
            "output.handover_window_after_s",
            o.handover_window_after_s,
            0.0,
            MAX_S,
        )?;
        for (i, (from, to)) in o.goodput_windows_s.iter().enumerate() {
            let k = format!("output.goodput_windows_s[{i}]");
            range_f(&format!("{k}[0]"), *from, 0.0, MAX_S)?;
            range_f(&format!("{k}[1]"), *to, *from, MAX_S)?;
            if to <= from {
                return Err(ScenarioError::range(
                    format!("{k}[1]"),
                    to,
                    "a window must end after it starts",
                ));
            }
        }
        range_u(
            "output.goodput_windows_s",
            o.goodput_windows_s.len() as u64,
            0,
            10_000,
        )?;
        Ok(())
    }
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

impl RadioSpec {
    /// The `[radio]` defaults (each cell's own values are checked by the
    /// radio model when its configuration is built).
    pub fn validate(&self) -> Result<(), ScenarioError> {
        let r = self;
        let down = r.going_down_w.unwrap_or(r.data_w);
        positive_f("radio.beacon_detection_w", r.beacon_detection_w, 1e3)?;
        range_f("radio.data_w", r.data_w, r.beacon_detection_w, 1e3)?;
        range_f("radio.going_down_w", down, r.data_w, 1e3)?;
        positive_f("radio.beacon_interval_ms", r.beacon_interval_ms, 1e6)?;
        duration_ms("radio.link_up_after_ms", r.link_up_after_ms)?;
        if let Some(y) = r.link_down_after_ms {
            range_f("radio.link_down_after_ms", y, r.beacon_interval_ms, MAX_MS)?;
        }
        if let Some(y) = r.beacon_lost_after_ms {
            range_f(
                "radio.beacon_lost_after_ms",
                y,
                r.beacon_interval_ms,
                MAX_MS,
            )?;
        }
        positive_f("radio.sample_period_ms", r.sample_period_ms, MAX_MS)
    }

    /// When the radio produces signal samples.
    pub(crate) fn sample_mode(&self) -> SampleMode {
        match self.samples {
            SampleName::EveryBeacon => SampleMode::EveryBeacon,
            SampleName::Off => SampleMode::Off,
            SampleName::Periodic => SampleMode::Interval(ms(self.sample_period_ms)),
        }
    }
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum DirectionSpec {
    /// The fixed node sends to the mobile.
    #[default]
    Downlink,
    /// The mobile sends to the fixed node.
    Uplink,
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
    /// QUIC's transport settings (`quic`): quinn-proto's defaults where
    /// absent.
    #[serde(default)]
    pub quic: Option<crate::models::quic::QuicSettings>,
    /// SCTP flows: a partial reliability policy for every message (RFC
    /// 3758, RFC 7496); absent: fully reliable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reliability: Option<traffic::ReliabilitySpec>,
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
