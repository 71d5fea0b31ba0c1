//! The transports a flow may use besides mSCTP (the baselines of
//! docs/MODELS.md section 2), and the per-transport tables of a flow:
//! `[flows.tcp]`, `[flows.mip4]`, `[flows.mip6]`, `[flows.fmip6]`,
//! `[flows.handoff]`, `[flows.cmhn]`, `[flows.quic]`. Each table is its model's settings
//! themselves (a serde struct of the model: its fields are the keys, its
//! `validate` the check) with the few keys only the scenario resolves
//! (cell and interface names, a scripted move; [`super::table`]).
//! `reference-baselines.toml` next to this file lists every key with its
//! default and meaning ([`super::REFERENCE_BASELINES`]).
//!
//! A table that does not belong to the flow's transport is refused, as is
//! a traffic kind the transport cannot carry (see
//! [`TransportSpec::allows`]).

use std::collections::BTreeMap;

use msctp_tcp::TcpConfig;
use serde::{Deserialize, Serialize};

use super::table::{ModelTable, ScenarioKeys};
use super::{FlowSpec, d_policy};
use crate::models::cmhn::CmhnSettings;
use crate::models::fmip::FmipSettings;
use crate::models::handoff::{HandoffSettings, NetworkSettings};
use crate::models::mip::v4::Mip4Settings;
use crate::models::mip::v6::Mip6Settings;
use crate::scenario::error::{MAX_MS, ScenarioError, range_f};

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
    /// QUIC (RFC 9000, quinn-proto) with connection migration on the
    /// mobile's link decisions (beyond the papers).
    #[serde(rename = "quic")]
    Quic,
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
    pub const ALL: [TransportSpec; 12] = [
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
        TransportSpec::Quic,
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
            TransportSpec::Quic => "quic",
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
            TransportSpec::Msctp
            | TransportSpec::Tcp
            | TransportSpec::Udp
            | TransportSpec::Quic => Mobility::EndToEnd,
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
    /// `mip4`, `mip6`, `fmip6`, `handoff`, `cmhn`, `quic`, `policy`,
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
            "quic" => self == TransportSpec::Quic,
            "reliability" => self == TransportSpec::Msctp,
            "mobile_iface" => matches!(
                self,
                TransportSpec::Tcp | TransportSpec::Udp | TransportSpec::Quic
            ),
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

/// Which transports allow a table, for messages.
fn allowed_by(table: &str) -> String {
    let names: Vec<&str> = TransportSpec::ALL
        .iter()
        .filter(|t| t.allows(table))
        .map(|t| t.name())
        .collect();
    names.join(", ")
}

impl FlowSpec {
    /// The per-transport tables this flow gives, by name.
    fn tables_present(&self) -> [(&'static str, bool); 11] {
        [
            ("tcp", self.tcp.is_some()),
            ("sctp", !self.sctp.given.is_empty()),
            ("policy", self.policy != d_policy()),
            ("mip4", self.mip4.is_some()),
            ("mip6", self.mip6.is_some()),
            ("fmip6", self.fmip6.is_some()),
            ("handoff", self.handoff.is_some()),
            ("cmhn", self.cmhn.is_some()),
            ("quic", self.quic.is_some()),
            ("reliability", self.reliability.is_some()),
            ("mobile_iface", self.mobile_iface.is_some()),
        ]
    }

    /// The flow's tables against its transport: none of another
    /// transport, every one it needs, and traffic it can carry; `key`
    /// names the flow (`flows[<name>]`).
    pub(crate) fn check_tables(&self, key: &str) -> Result<(), ScenarioError> {
        let t = self.transport;
        let present = self.tables_present();
        if let Some((table, _)) = present.iter().find(|(n, here)| *here && !t.allows(n)) {
            return Err(ScenarioError::combination(
                format!("{key}.{table}"),
                format!(
                    "only for transport {} (this flow's transport is {})",
                    allowed_by(table),
                    t.name()
                ),
            ));
        }
        if let Some(table) = t
            .requires()
            .iter()
            .find(|r| !present.iter().any(|(n, h)| n == *r && *h))
        {
            return Err(ScenarioError::combination(
                format!("{key}.{table}"),
                format!("transport {} needs a [flows.{table}] table", t.name()),
            ));
        }
        if t.carries() == Carries::Datagrams {
            self.traffic.check_datagrams(key, t.name())?;
        }
        Ok(())
    }

    /// SCTP over Mobile IPv4 is single-homed on the home address: no
    /// ADD-IP (`sctp.asconf`).
    pub(crate) fn check_sctp_over_mip4(&self, key: &str) -> Result<(), ScenarioError> {
        if self.transport == TransportSpec::Mip4Sctp
            && self.sctp.given.contains("asconf")
            && self.sctp.association.asconf
        {
            return Err(ScenarioError::combination(
                format!("{key}.sctp.asconf"),
                "SCTP over Mobile IPv4 runs without ADD-IP (single-homed on the home \
                 address): use transport msctp for ADD-IP",
            ));
        }
        Ok(())
    }
}

/// Mobile IPv4 (RFC 5944) under `mip4-tcp` and `mip4-sctp`: a home agent
/// on the home cell's router, a foreign agent on each foreign cell's
/// router (care-of address: the cell's access point address), the
/// mobile's home address (home cell prefix + `host_id`) on the interface
/// in use. The table is the model's settings
/// ([`crate::models::mip::v4::Mip4Settings`]) and the cells
/// ([`Mip4Cells`]). A scenario has one Mobile IPv4 deployment: every
/// flow's `mip4` table must be the same.
pub type Mip4Spec = ModelTable<Mip4Cells, Mip4Settings>;

/// The cells of a Mobile IPv4 deployment (names the scenario resolves).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mip4Cells {
    /// Required: the cell of the home network (an IPv4 cell).
    pub home_cell: String,
    /// Cells with a foreign agent; absent: every other cell a Mobile IPv4
    /// mobile of the scenario uses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foreign_cells: Option<Vec<String>>,
}

impl ScenarioKeys for Mip4Cells {
    const KEYS: &'static [&'static str] = &["home_cell", "foreign_cells"];
}

/// Mobile IPv6 (RFC 6275) under `mip6-*` and `fmip6-*`: router
/// advertisements on every IPv6 cell (the home cell's with the H flag), a
/// home agent on the home cell's router, a correspondent binding cache on
/// each flow's fixed node (route optimisation), the mobile node client.
/// The table is the model's settings
/// ([`crate::models::mip::v6::Mip6Settings`]) and [`Mip6Cells`]. One
/// deployment per scenario: every flow's `mip6` table must be the same.
pub type Mip6Spec = ModelTable<Mip6Cells, Mip6Settings>;

/// The home cell of a Mobile IPv6 deployment, and a scripted switch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mip6Cells {
    /// Required: the cell of the home network (an IPv6 cell).
    pub home_cell: String,
    /// A single radio switched break-before-make (Tsang, Wang and Lau's
    /// Mobile IP mobile, E2): absent, the mobile follows the radio model
    /// with one radio per network.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forced_switch: Option<ForcedSwitchSpec>,
}

impl ScenarioKeys for Mip6Cells {
    const KEYS: &'static [&'static str] = &["home_cell", "forced_switch"];
}

fn d_switch_ms() -> f64 {
    20.0
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

impl ForcedSwitchSpec {
    /// The switch's times: `at_s` within the scenario's `duration_s`.
    pub(crate) fn check_times(&self, key: &str, duration_s: f64) -> Result<(), ScenarioError> {
        range_f(&format!("{key}.at_s"), self.at_s, 0.0, duration_s)?;
        range_f(&format!("{key}.switch_ms"), self.switch_ms, 0.0, MAX_MS)
    }
}

/// When the mobile attaches to the new access router (the FMIPv6 model's
/// [`crate::models::fmip::Attach`]).
pub type AttachSpec = crate::models::fmip::Attach;

/// FMIPv6 (RFC 5568) under `fmip6-*`, on top of the `mip6` table: an
/// FMIPv6 agent on every IPv6 cell's router, and the flow's scripted
/// handover. The table is the model's settings
/// ([`crate::models::fmip::FmipSettings`]: attach timing, routers'
/// processing and buffers) and the script ([`Fmip6Script`]). One
/// deployment per scenario: every flow's `fmip6` table must be the same.
pub type Fmip6Spec = ModelTable<Fmip6Script, FmipSettings>;

/// The scripted move of an FMIPv6 mobile. The mobile does not follow the
/// radio model: it is attached to `from_cell` at the start and moved to
/// `to_cell` by the fast handover (the trigger at `trigger_s` is the new
/// access point's first beacon), so its mobility must be `stationary`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fmip6Script {
    /// Required: the cell at the start and the cell moved to.
    pub from_cell: String,
    pub to_cell: String,
    /// Required: when the mobile hears the new access point (s).
    pub trigger_s: f64,
}

impl ScenarioKeys for Fmip6Script {
    const KEYS: &'static [&'static str] = &["from_cell", "to_cell", "trigger_s"];
}

impl Fmip6Spec {
    /// The script's trigger within the scenario's `duration_s`, and the
    /// model's settings.
    pub(crate) fn check_values(&self, key: &str, duration_s: f64) -> Result<(), ScenarioError> {
        range_f(
            &format!("{key}.trigger_s"),
            self.scenario.trigger_s,
            0.0,
            duration_s,
        )?;
        self.validate().map_err(|e| ScenarioError::setting(key, e))
    }
}

/// One network of the single-connection handoff (the model's
/// [`crate::models::handoff::NetworkSettings`]).
pub type NetworkSpec = NetworkSettings;

/// The single-connection handoff (`single-handoff`, docs/MODELS.md 2.3).
/// Each interface of the mobile serves one cell (a network); link-layer
/// decisions (the radio's link up after x, link down after y) drive it.
/// The table is the model's settings
/// ([`crate::models::handoff::HandoffSettings`]) and the interfaces
/// ([`HandoffIfaces`]).
pub type HandoffSpec = ModelTable<HandoffIfaces, HandoffSettings>;

/// The interfaces of a single-connection handoff, by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct HandoffIfaces {
    /// The interface used at the start; absent: the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial: Option<String>,
    /// Per interface name; interfaces not listed take the defaults.
    #[serde(default)]
    pub networks: BTreeMap<String, NetworkSettings>,
}

impl ScenarioKeys for HandoffIfaces {
    const KEYS: &'static [&'static str] = &["initial", "networks"];
}

/// How the multi-connection sender uses several usable links (the
/// model's [`crate::models::cmhn::Scheduling`]).
pub type SchedulingSpec = crate::models::cmhn::Scheduling;

/// The multi-connection transport (`cmhn`, docs/MODELS.md 2.4): one TCP
/// connection per mobile interface (each interface serves one cell),
/// driven by link-layer decisions. The table is the model's settings
/// ([`crate::models::cmhn::CmhnSettings`]) and [`CmhnIfaces`].
pub type CmhnSpec = ModelTable<CmhnIfaces, CmhnSettings>;

/// The interface a multi-connection transport starts on, by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct CmhnIfaces {
    /// The interface usable at the start; absent: the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial: Option<String>,
}

impl ScenarioKeys for CmhnIfaces {
    const KEYS: &'static [&'static str] = &["initial"];
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
