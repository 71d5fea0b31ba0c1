//! The transports a flow may use besides mSCTP (the baselines of
//! docs/MODELS.md section 2), and the per-transport tables of a flow:
//! `[flows.tcp]`, `[flows.mip4]`, `[flows.mip6]`, `[flows.fmip6]`,
//! `[flows.handoff]`, `[flows.cmhn]`. `reference-baselines.toml` next to
//! this file lists every key with its default and meaning
//! ([`super::REFERENCE_BASELINES`]).
//!
//! A table that does not belong to the flow's transport is refused, as is
//! a traffic kind the transport cannot carry (see
//! [`TransportSpec::allows`]).

use std::collections::BTreeMap;

use msctp_tcp::TcpConfig;
use serde::{Deserialize, Serialize};

/// The transport of a flow (`transport = "..."`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum TransportSpec {
    /// SCTP with ADD-IP driven by a handover policy (docs/MODELS.md 1).
    #[default]
    #[serde(rename = "msctp")]
    Msctp,
    /// Plain TCP NewReno, no mobility support: the connection is bound to
    /// one address of the mobile and stalls (then dies) when it goes.
    #[serde(rename = "tcp")]
    Tcp,
    /// TCP over Mobile IPv4 (E1 "MIP+TCP").
    #[serde(rename = "mip4-tcp")]
    Mip4Tcp,
    /// SCTP without ADD-IP, single-homed on the home address, over Mobile
    /// IPv4 (E1 "MIP+SCTP").
    #[serde(rename = "mip4-sctp")]
    Mip4Sctp,
    /// TCP over Mobile IPv6 with route optimisation (E2 "Mobile IP").
    #[serde(rename = "mip6-tcp")]
    Mip6Tcp,
    /// UDP (CBR, Pareto) over Mobile IPv6 with route optimisation.
    #[serde(rename = "mip6-udp")]
    Mip6Udp,
    /// TCP over FMIPv6 (E2 "Fast Handoff").
    #[serde(rename = "fmip6-tcp")]
    Fmip6Tcp,
    /// UDP over FMIPv6.
    #[serde(rename = "fmip6-udp")]
    Fmip6Udp,
    /// Single-connection bandwidth-aware vertical handoff of TCP (E4).
    #[serde(rename = "single-handoff")]
    SingleHandoff,
    /// The multi-connection transport CMHN (E4).
    #[serde(rename = "cmhn")]
    Cmhn,
    /// Plain UDP between a mobile's address and a fixed node (background
    /// traffic).
    #[serde(rename = "udp")]
    Udp,
}

/// Which application traffic a transport carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carries {
    /// A reliable stream: bulk, file, CBR and Pareto messages.
    Reliable,
    /// Datagrams: CBR and Pareto only.
    Datagrams,
}

/// The mobility support under a transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mobility {
    /// The end hosts (mSCTP), or none at all (TCP, UDP).
    EndToEnd,
    MobileIpv4,
    MobileIpv6,
    FastMobileIpv6,
    /// The TCP handoff schemes of E4 (their own signalling).
    TcpScheme,
}

impl TransportSpec {
    /// Every transport, in documentation order.
    pub const ALL: [TransportSpec; 11] = [
        TransportSpec::Msctp,
        TransportSpec::Tcp,
        TransportSpec::Mip4Tcp,
        TransportSpec::Mip4Sctp,
        TransportSpec::Mip6Tcp,
        TransportSpec::Mip6Udp,
        TransportSpec::Fmip6Tcp,
        TransportSpec::Fmip6Udp,
        TransportSpec::SingleHandoff,
        TransportSpec::Cmhn,
        TransportSpec::Udp,
    ];

    /// The name used in scenario files and summaries.
    pub fn name(self) -> &'static str {
        match self {
            TransportSpec::Msctp => "msctp",
            TransportSpec::Tcp => "tcp",
            TransportSpec::Mip4Tcp => "mip4-tcp",
            TransportSpec::Mip4Sctp => "mip4-sctp",
            TransportSpec::Mip6Tcp => "mip6-tcp",
            TransportSpec::Mip6Udp => "mip6-udp",
            TransportSpec::Fmip6Tcp => "fmip6-tcp",
            TransportSpec::Fmip6Udp => "fmip6-udp",
            TransportSpec::SingleHandoff => "single-handoff",
            TransportSpec::Cmhn => "cmhn",
            TransportSpec::Udp => "udp",
        }
    }

    pub fn carries(self) -> Carries {
        match self {
            TransportSpec::Mip6Udp | TransportSpec::Fmip6Udp | TransportSpec::Udp => {
                Carries::Datagrams
            }
            _ => Carries::Reliable,
        }
    }

    pub fn mobility(self) -> Mobility {
        match self {
            TransportSpec::Msctp | TransportSpec::Tcp | TransportSpec::Udp => Mobility::EndToEnd,
            TransportSpec::Mip4Tcp | TransportSpec::Mip4Sctp => Mobility::MobileIpv4,
            TransportSpec::Mip6Tcp | TransportSpec::Mip6Udp => Mobility::MobileIpv6,
            TransportSpec::Fmip6Tcp | TransportSpec::Fmip6Udp => Mobility::FastMobileIpv6,
            TransportSpec::SingleHandoff | TransportSpec::Cmhn => Mobility::TcpScheme,
        }
    }

    /// Runs over TCP (takes a `[flows.tcp]` table).
    pub fn uses_tcp(self) -> bool {
        matches!(
            self,
            TransportSpec::Tcp
                | TransportSpec::Mip4Tcp
                | TransportSpec::Mip6Tcp
                | TransportSpec::Fmip6Tcp
                | TransportSpec::SingleHandoff
                | TransportSpec::Cmhn
        )
    }

    /// Runs over SCTP (takes a `[flows.sctp]` table).
    pub fn uses_sctp(self) -> bool {
        matches!(self, TransportSpec::Msctp | TransportSpec::Mip4Sctp)
    }

    /// The transport's table named `table` is allowed (`tcp`, `sctp`,
    /// `mip4`, `mip6`, `fmip6`, `handoff`, `cmhn`, `policy`,
    /// `mobile_iface`).
    pub fn allows(self, table: &str) -> bool {
        match table {
            "tcp" => self.uses_tcp(),
            "sctp" => self.uses_sctp(),
            "policy" => self == TransportSpec::Msctp,
            "mip4" => self.mobility() == Mobility::MobileIpv4,
            "mip6" => matches!(
                self.mobility(),
                Mobility::MobileIpv6 | Mobility::FastMobileIpv6
            ),
            "fmip6" => self.mobility() == Mobility::FastMobileIpv6,
            "handoff" => self == TransportSpec::SingleHandoff,
            "cmhn" => self == TransportSpec::Cmhn,
            "mobile_iface" => matches!(self, TransportSpec::Tcp | TransportSpec::Udp),
            _ => false,
        }
    }

    /// The table a transport cannot run without.
    pub fn requires(self) -> &'static [&'static str] {
        match self.mobility() {
            Mobility::MobileIpv4 => &["mip4"],
            Mobility::MobileIpv6 => &["mip6"],
            Mobility::FastMobileIpv6 => &["mip6", "fmip6"],
            _ => &[],
        }
    }
}

/// The starting point of a `[flows.tcp]` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum TcpPresetSpec {
    /// The RFCs' defaults (RFC 9293, 5681, 6298: RTO 1 s initial and
    /// minimum, delayed ACK, no SACK, 128 KiB buffers, MSS 1460).
    #[default]
    Rfc,
    /// ns-3 3.37's TCP as the ns-3 comparison runs it
    /// (`TcpConfig::ns3_compatible`: MSS 1448, initial window 10).
    Ns3,
}

/// `[flows.tcp]` of the TCP-based transports: a preset and the TCP
/// model's configuration itself (`msctp_tcp::TcpConfig`: its field names
/// are the keys, durations in ms with an `_ms` suffix, its `validate` the
/// check); absent keys keep the preset's values. A new field of
/// `TcpConfig` is a key here without any change to the simulator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(try_from = "TcpTable")]
pub struct TcpSpec {
    pub preset: TcpPresetSpec,
    #[serde(flatten)]
    pub config: TcpConfig,
}

impl TcpPresetSpec {
    /// The configuration the preset starts from.
    pub fn config(self) -> TcpConfig {
        match self {
            TcpPresetSpec::Rfc => TcpConfig::default(),
            TcpPresetSpec::Ns3 => TcpConfig::ns3_compatible(),
        }
    }
}

/// A `[flows.tcp]` table as read: the preset, and the keys that replace
/// its values.
#[derive(Deserialize)]
struct TcpTable {
    #[serde(default)]
    preset: TcpPresetSpec,
    #[serde(flatten)]
    keys: toml::Table,
}

impl TryFrom<TcpTable> for TcpSpec {
    type Error = toml::de::Error;

    /// The preset's configuration as a table (its durations are whole
    /// milliseconds, exact through the table: a unit test checks it) with
    /// the file's keys put over it.
    fn try_from(t: TcpTable) -> Result<Self, Self::Error> {
        use serde::de::Error;
        let mut table = match toml::Value::try_from(t.preset.config()) {
            Ok(toml::Value::Table(table)) => table,
            other => return Err(Error::custom(format!("the preset as a table: {other:?}"))),
        };
        table.extend(t.keys);
        Ok(TcpSpec {
            preset: t.preset,
            config: TcpConfig::deserialize(toml::Value::Table(table))?,
        })
    }
}

fn d_advert_ms() -> f64 {
    1000.0
}
fn d_advert_lifetime() -> u16 {
    3
}
fn d_true() -> bool {
    true
}
fn d_one_ms() -> f64 {
    1.0
}
fn d_reg_lifetime() -> u16 {
    300
}
fn d_max_lifetime() -> u16 {
    600
}
fn d_retry_ms() -> f64 {
    1000.0
}
fn d_retries() -> u32 {
    5
}

/// Mobile IPv4 (RFC 5944) under `mip4-tcp` and `mip4-sctp`: a home agent
/// on the home cell's router, a foreign agent on each foreign cell's
/// router (care-of address: the cell's access point address), the
/// mobile's home address (home cell prefix + `host_id`) on the interface
/// in use. A scenario has one Mobile IPv4 deployment: every flow's `mip4`
/// table must be the same.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mip4Spec {
    /// Required: the cell of the home network (an IPv4 cell).
    pub home_cell: String,
    /// Cells with a foreign agent; absent: every other cell a Mobile IPv4
    /// mobile of the scenario uses.
    #[serde(default)]
    pub foreign_cells: Option<Vec<String>>,
    /// Agent advertisements: period, first one's offset (absent: each
    /// agent's phase drawn uniformly in [0, period) from the run's seed, so
    /// agent discovery after a move varies over repetitions as on a real
    /// network), lifetime (s).
    #[serde(default = "d_advert_ms")]
    pub advert_interval_ms: f64,
    #[serde(default)]
    pub advert_offset_ms: Option<f64>,
    #[serde(default = "d_advert_lifetime")]
    pub advert_lifetime_s: u16,
    /// Agents answer solicitations at once.
    #[serde(default = "d_true")]
    pub answer_solicitations: bool,
    /// The mobile solicits when an interface comes up (false: it waits for
    /// the next advertisement).
    #[serde(default)]
    pub solicit_on_link_up: bool,
    /// Link up/down drive movement detection (else only advertisements
    /// and their lifetimes).
    #[serde(default = "d_true")]
    pub link_layer_triggers: bool,
    /// Registration lifetime asked (s) and the longest the agents grant.
    #[serde(default = "d_reg_lifetime")]
    pub registration_lifetime_s: u16,
    #[serde(default = "d_max_lifetime")]
    pub max_lifetime_s: u16,
    /// Mobile node: authenticator computation (ms).
    #[serde(default = "d_one_ms")]
    pub mn_auth_ms: f64,
    /// Foreign agent: processing of each relayed message (ms).
    #[serde(default = "d_one_ms")]
    pub fa_processing_ms: f64,
    /// Home agent: request processing and authentication (ms).
    #[serde(default = "d_one_ms")]
    pub ha_processing_ms: f64,
    #[serde(default = "d_one_ms")]
    pub ha_auth_ms: f64,
    /// First retransmission timeout of a request (doubled per retry) and
    /// the retries.
    #[serde(default = "d_retry_ms")]
    pub registration_timeout_ms: f64,
    #[serde(default = "d_retries")]
    pub max_retries: u32,
}

fn d_binding_lifetime() -> u32 {
    600
}

/// Mobile IPv6 (RFC 6275) under `mip6-*` and `fmip6-*`: router
/// advertisements on every IPv6 cell (the home cell's with the H flag), a
/// home agent on the home cell's router, a correspondent binding cache on
/// each flow's fixed node (route optimisation), the mobile node client.
/// One deployment per scenario: every flow's `mip6` table must be the
/// same.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mip6Spec {
    /// Required: the cell of the home network (an IPv6 cell).
    pub home_cell: String,
    /// Router advertisements: period, first one's offset (absent: each
    /// router's phase drawn uniformly in [0, period) from the run's seed),
    /// router lifetime (s).
    #[serde(default = "d_advert_ms")]
    pub ra_interval_ms: f64,
    #[serde(default)]
    pub ra_offset_ms: Option<f64>,
    #[serde(default = "d_advert_lifetime")]
    pub ra_lifetime_s: u16,
    #[serde(default = "d_true")]
    pub answer_solicitations: bool,
    /// The mobile solicits when an interface comes up.
    #[serde(default = "d_true")]
    pub solicit_on_link_up: bool,
    #[serde(default = "d_true")]
    pub link_layer_triggers: bool,
    /// Binding updates to the correspondents (route optimisation).
    #[serde(default = "d_true")]
    pub route_optimisation: bool,
    /// Care-of address configuration (duplicate address detection), ms.
    #[serde(default = "d_one_ms")]
    pub address_config_ms: f64,
    /// Binding lifetime asked, s (a multiple of 4 is exact).
    #[serde(default = "d_binding_lifetime")]
    pub binding_lifetime_s: u32,
    /// First Binding Acknowledgement timeout (doubled per retry), retries.
    #[serde(default = "d_retry_ms")]
    pub binding_timeout_ms: f64,
    #[serde(default = "d_retries")]
    pub max_retries: u32,
    /// Binding Update processing at the home agent and correspondents, ms.
    #[serde(default = "d_one_ms")]
    pub ha_processing_ms: f64,
    #[serde(default = "d_one_ms")]
    pub cn_processing_ms: f64,
    /// A single radio switched break-before-make (Tsang, Wang and Lau's
    /// Mobile IP mobile, E2): absent, the mobile follows the radio model
    /// with one radio per network.
    #[serde(default)]
    pub forced_switch: Option<ForcedSwitchSpec>,
}

/// A Mobile IPv6 mobile with one radio that leaves `from_cell` at `at_s`
/// and is attached to `to_cell` `switch_ms` later, whatever the coverage
/// (a radio that changed cell only on losing the old one would never
/// switch while both cells cover it). The mobile does not follow the radio
/// model, so its mobility must be "stationary"; it is attached to
/// `from_cell` at the start. What is sent to it over the old cell after
/// `at_s` is lost until its binding update takes effect.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForcedSwitchSpec {
    pub from_cell: String,
    pub to_cell: String,
    pub at_s: f64,
    #[serde(default = "d_switch_ms")]
    pub switch_ms: f64,
}

/// When the mobile attaches to the new access router (docs/MODELS.md 2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum AttachSpec {
    /// `early_after_ms` after the trigger, before the previous router
    /// forwards.
    Early,
    /// When the Fast Binding Acknowledgement arrives.
    #[default]
    Ideal,
    /// `late_after_ms` after the Fast Binding Acknowledgement.
    Late,
}

fn d_early_ms() -> f64 {
    10.0
}
fn d_late_ms() -> f64 {
    300.0
}
fn d_switch_ms() -> f64 {
    20.0
}
fn d_poll_ms() -> f64 {
    0.1
}
fn d_give_up_ms() -> f64 {
    2000.0
}
fn d_buffer_packets() -> usize {
    100
}
fn d_buffer_time_ms() -> f64 {
    3000.0
}
fn d_forward_time_ms() -> f64 {
    10_000.0
}

/// FMIPv6 (RFC 5568) under `fmip6-*`, on top of the `mip6` table: an
/// FMIPv6 agent on every IPv6 cell's router, and the flow's scripted
/// handover. The mobile does not follow the radio model: it is attached to
/// `from_cell` at the start and moved to `to_cell` by the fast handover
/// (the trigger at `trigger_s` is the new access point's first beacon), so
/// its mobility must be `stationary`. One deployment per scenario: every
/// flow's `fmip6` table must be the same.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fmip6Spec {
    #[serde(default)]
    pub attach: AttachSpec,
    /// Required: the cell at the start and the cell moved to.
    pub from_cell: String,
    pub to_cell: String,
    /// Required: when the mobile hears the new access point (s).
    pub trigger_s: f64,
    /// Early: attach this long after the trigger (ms).
    #[serde(default = "d_early_ms")]
    pub early_after_ms: f64,
    /// Late: attach this long after the Fast Binding Acknowledgement.
    #[serde(default = "d_late_ms")]
    pub late_after_ms: f64,
    /// Link-layer switch between leaving the old cell and joining the new.
    #[serde(default = "d_switch_ms")]
    pub switch_ms: f64,
    /// Ideal/late: how often the acknowledgement is looked for, and when
    /// to move anyway without one (after the trigger).
    #[serde(default = "d_poll_ms")]
    pub poll_ms: f64,
    #[serde(default = "d_give_up_ms")]
    pub give_up_ms: f64,
    /// Access routers: processing of each FMIPv6 message, the new router's
    /// buffer (packets, and how long they wait), how long the previous
    /// router forwards.
    #[serde(default = "d_one_ms")]
    pub processing_ms: f64,
    #[serde(default = "d_buffer_packets")]
    pub buffer_packets: usize,
    #[serde(default = "d_buffer_time_ms")]
    pub buffer_time_ms: f64,
    #[serde(default = "d_forward_time_ms")]
    pub forward_time_ms: f64,
}

fn d_dhcp_ms() -> f64 {
    300.0
}
fn d_location_ms() -> f64 {
    50.0
}
fn d_aaa_ms() -> f64 {
    350.0
}
fn d_update_retry_ms() -> f64 {
    200.0
}

/// One network (mobile interface) of the single-connection handoff: the
/// processing latency into it is the sum of its parts (docs/MODELS.md 2.3:
/// DHCP ~300 ms, location update ~50 ms, AAA ~350 ms, and on UMTS a PPP
/// set-up ~600 ms: 700 ms into WLAN, 1300 ms into UMTS).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSpec {
    #[serde(default = "d_dhcp_ms")]
    pub dhcp_ms: f64,
    #[serde(default = "d_location_ms")]
    pub location_update_ms: f64,
    #[serde(default = "d_aaa_ms")]
    pub aaa_ms: f64,
    #[serde(default)]
    pub ppp_ms: f64,
    /// Bandwidth the scheme assumes (its BDP restart); absent: the cell's
    /// rate.
    #[serde(default)]
    pub bandwidth_bps: Option<u64>,
    /// Round-trip time the scheme assumes; absent: twice the one-way
    /// propagation delay from the mobile to the fixed node through the
    /// cell.
    #[serde(default)]
    pub rtt_ms: Option<f64>,
    /// Higher is preferred when usable; absent: the faster network is
    /// preferred (rank by bandwidth).
    #[serde(default)]
    pub preference: Option<u32>,
}

impl Default for NetworkSpec {
    fn default() -> Self {
        NetworkSpec {
            dhcp_ms: d_dhcp_ms(),
            location_update_ms: d_location_ms(),
            aaa_ms: d_aaa_ms(),
            ppp_ms: 0.0,
            bandwidth_bps: None,
            rtt_ms: None,
            preference: None,
        }
    }
}

impl NetworkSpec {
    /// The handoff processing latency into this network (ms).
    pub fn processing_ms(&self) -> f64 {
        self.dhcp_ms + self.location_update_ms + self.aaa_ms + self.ppp_ms
    }
}

/// The single-connection handoff (`single-handoff`, docs/MODELS.md 2.3). Each
/// interface of the mobile serves one cell (a network); link-layer
/// decisions (the radio's link up after x, link down after y) drive it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandoffSpec {
    /// The interface used at the start; absent: the first.
    #[serde(default)]
    pub initial: Option<String>,
    /// Window from the new network's BDP after a handoff (else slow start).
    #[serde(default = "d_true")]
    pub bdp_start: bool,
    /// What the connection does during handoff processing: "freeze" (it
    /// stops: nothing sent, no timer; at the end what was in flight is
    /// sent again) or "drop" (Tsukamoto, Hori and Oie, section 5.1:
    /// "transmitted packets are dropped while the TCB ... is being
    /// updated"; its timers run, and it recovers by them).
    #[serde(default)]
    pub during_processing: ProcessingSpec,
    /// Retransmission interval of an unacknowledged location update (ms).
    #[serde(default = "d_update_retry_ms")]
    pub update_retry_ms: f64,
    /// Per interface name; interfaces not listed take the defaults.
    #[serde(default)]
    pub networks: BTreeMap<String, NetworkSpec>,
}

impl Default for HandoffSpec {
    fn default() -> Self {
        HandoffSpec {
            initial: None,
            bdp_start: true,
            during_processing: ProcessingSpec::default(),
            update_retry_ms: d_update_retry_ms(),
            networks: BTreeMap::new(),
        }
    }
}

/// The single-connection scheme's connection during handoff processing
/// (`models::handoff::ProcessingMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ProcessingSpec {
    #[default]
    Freeze,
    Drop,
}

/// How the multi-connection sender uses several usable links.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SchedulingSpec {
    /// One link at a time; switch when a new link's BDP beats the current.
    #[default]
    Switch,
    /// Every usable link carries data.
    Stripe,
}

fn d_keepalive_s() -> f64 {
    30.0
}
fn d_probe_ms() -> f64 {
    2000.0
}
fn d_estimate_ms() -> f64 {
    50.0
}
fn d_max_record() -> u32 {
    65_536
}
fn d_max_reorder() -> usize {
    100_000
}

/// The multi-connection transport (`cmhn`, docs/MODELS.md 2.4): one TCP
/// connection per mobile interface (each interface serves one cell),
/// driven by link-layer decisions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CmhnSpec {
    #[serde(default)]
    pub scheduling: SchedulingSpec,
    /// How long an inactive interface's connection is kept (s).
    #[serde(default = "d_keepalive_s")]
    pub keepalive_s: f64,
    /// Longest start-up measurement of a new link (ms).
    #[serde(default = "d_probe_ms")]
    pub probe_ms: f64,
    /// Period of the BDP comparison (ms).
    #[serde(default = "d_estimate_ms")]
    pub estimate_ms: f64,
    /// The interface usable at the start; absent: the first.
    #[serde(default)]
    pub initial: Option<String>,
    /// Largest data record accepted, bytes; out-of-order records held.
    #[serde(default = "d_max_record")]
    pub max_record: u32,
    #[serde(default = "d_max_reorder")]
    pub max_reorder: usize,
}

impl Default for CmhnSpec {
    fn default() -> Self {
        CmhnSpec {
            scheduling: SchedulingSpec::Switch,
            keepalive_s: d_keepalive_s(),
            probe_ms: d_probe_ms(),
            estimate_ms: d_estimate_ms(),
            initial: None,
            max_record: d_max_record(),
            max_reorder: d_max_reorder(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_tcp_preset_goes_through_a_table_unchanged() {
        for preset in [TcpPresetSpec::Rfc, TcpPresetSpec::Ns3] {
            let t = TcpTable {
                preset,
                keys: toml::Table::new(),
            };
            assert_eq!(TcpSpec::try_from(t).unwrap().config, preset.config());
        }
        let ns3: TcpSpec = toml::from_str("preset = \"ns3\"\nmin_rto_ms = 200.0").unwrap();
        assert_eq!(ns3.config.mss, 1448);
        assert_eq!(ns3.config.min_rto, std::time::Duration::from_millis(200));
        assert!(toml::from_str::<TcpSpec>("min_rto = 200.0").is_err());
    }
}
