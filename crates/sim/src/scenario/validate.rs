//! Parsing and range checks of scenario files.

use std::net::IpAddr;

use ipnet::IpNet;

use super::spec::*;

/// Why a scenario cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScenarioError {
    /// TOML syntax, an unknown key or a value of the wrong type (the
    /// message names the key and the line).
    #[error("scenario file: {0}")]
    Parse(String),
    /// A value outside its allowed range.
    #[error("{key} = {value}: {allowed}")]
    Range {
        key: String,
        value: String,
        allowed: String,
    },
    /// A name that refers to nothing, or is used twice.
    #[error("{key}: {why}")]
    Reference { key: String, why: String },
    /// The model refused what the scenario asks (a message from the
    /// simulator or the engine).
    #[error("{key}: {why}")]
    Model { key: String, why: String },
}

impl ScenarioError {
    pub(crate) fn model(key: impl Into<String>, why: impl ToString) -> Self {
        ScenarioError::Model {
            key: key.into(),
            why: why.to_string(),
        }
    }

    pub(crate) fn reference(key: impl Into<String>, why: impl Into<String>) -> Self {
        ScenarioError::Reference {
            key: key.into(),
            why: why.into(),
        }
    }
}

/// Parses and validates a scenario.
pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    let s: Scenario = toml::from_str(text).map_err(|e| ScenarioError::Parse(e.to_string()))?;
    s.validate()?;
    Ok(s)
}

pub(crate) fn range_f(key: &str, v: f64, lo: f64, hi: f64) -> Result<(), ScenarioError> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(ScenarioError::Range {
            key: key.into(),
            value: v.to_string(),
            allowed: format!("must be a number in [{lo}, {hi}]"),
        })
    }
}

pub(crate) fn positive_f(key: &str, v: f64, hi: f64) -> Result<(), ScenarioError> {
    if v.is_finite() && v > 0.0 && v <= hi {
        Ok(())
    } else {
        Err(ScenarioError::Range {
            key: key.into(),
            value: v.to_string(),
            allowed: format!("must be a number in (0, {hi}]"),
        })
    }
}

pub(crate) fn range_u(key: &str, v: u64, lo: u64, hi: u64) -> Result<(), ScenarioError> {
    if v >= lo && v <= hi {
        Ok(())
    } else {
        Err(ScenarioError::Range {
            key: key.into(),
            value: v.to_string(),
            allowed: format!("must be an integer in [{lo}, {hi}]"),
        })
    }
}

/// An address with prefix length, e.g. "10.1.0.254/24".
pub(crate) fn net(key: &str, v: &str) -> Result<IpNet, ScenarioError> {
    v.parse::<IpNet>().map_err(|_| ScenarioError::Range {
        key: key.into(),
        value: format!("{v:?}"),
        allowed: "must be an address with prefix length, e.g. \"10.1.0.254/24\"".into(),
    })
}

pub(crate) const MAX_MS: f64 = 3.6e9;
pub(crate) const MAX_S: f64 = 1e7;
pub(crate) const MAX_RATE: u64 = 1_000_000_000_000;
const MAX_QUEUE: u64 = 10_000_000;

fn unique<'a>(key: &str, names: impl Iterator<Item = &'a str>) -> Result<(), ScenarioError> {
    let mut seen: Vec<&str> = Vec::new();
    for n in names {
        if n.is_empty() {
            return Err(ScenarioError::reference(key, "empty name"));
        }
        if seen.contains(&n) {
            return Err(ScenarioError::reference(
                key,
                format!("name {n:?} used twice"),
            ));
        }
        seen.push(n);
    }
    Ok(())
}

fn error_spec(key: &str, e: &ErrorSpec) -> Result<(), ScenarioError> {
    match *e {
        ErrorSpec::None => Ok(()),
        ErrorSpec::Bernoulli { loss } => range_f(&format!("{key}.loss"), loss, 0.0, 1.0),
        ErrorSpec::Expo { loss, mean_burst } => {
            positive_f(&format!("{key}.loss"), loss, 0.999_999)?;
            positive_f(&format!("{key}.mean_burst"), mean_burst, 1e9)
        }
        ErrorSpec::GilbertElliott {
            p_good_to_bad,
            p_bad_to_good,
            loss_good,
            loss_bad,
        } => {
            range_f(&format!("{key}.p_good_to_bad"), p_good_to_bad, 0.0, 1.0)?;
            range_f(&format!("{key}.p_bad_to_good"), p_bad_to_good, 0.0, 1.0)?;
            range_f(&format!("{key}.loss_good"), loss_good, 0.0, 1.0)?;
            range_f(&format!("{key}.loss_bad"), loss_bad, 0.0, 1.0)
        }
        ErrorSpec::Ramp {
            from,
            to,
            start_s,
            end_s,
        } => {
            range_f(&format!("{key}.from"), from, 0.0, 1.0)?;
            range_f(&format!("{key}.to"), to, 0.0, 1.0)?;
            range_f(&format!("{key}.start_s"), start_s, 0.0, MAX_S)?;
            range_f(&format!("{key}.end_s"), end_s, start_s, MAX_S)
        }
    }
}

fn thresholds(key: &str, det: f64, data: f64, down: f64) -> Result<(), ScenarioError> {
    positive_f(&format!("{key}.beacon_detection_w"), det, 1e3)?;
    range_f(&format!("{key}.data_w"), data, det, 1e3)?;
    range_f(&format!("{key}.going_down_w"), down, data, 1e3)
}

fn acquisition(key: &str, a: &AcquisitionSpec) -> Result<(), ScenarioError> {
    for (k, v) in [
        ("router_discovery_ms", a.router_discovery_ms),
        ("ppp_ms", a.ppp_ms),
        ("dhcp_ms", a.dhcp_ms),
        ("aaa_ms", a.aaa_ms),
        ("location_update_ms", a.location_update_ms),
    ] {
        range_f(&format!("{key}.{k}"), v, 0.0, MAX_MS)?;
    }
    Ok(())
}

fn point(key: &str, (x, y): (f64, f64)) -> Result<(), ScenarioError> {
    range_f(&format!("{key}[0]"), x, -1e7, 1e7)?;
    range_f(&format!("{key}[1]"), y, -1e7, 1e7)
}

/// Times and positions of a movement (speeds and shapes are checked by the
/// mobility model itself, whose errors name the mobility key).
fn mobility(key: &str, m: &MobilitySpec) -> Result<(), ScenarioError> {
    match m {
        MobilitySpec::Stationary { x_m, y_m } => point(key, (*x_m, *y_m)),
        MobilitySpec::Waypoints {
            start,
            start_s,
            legs,
        } => {
            point(&format!("{key}.start"), *start)?;
            range_f(&format!("{key}.start_s"), *start_s, 0.0, MAX_S)?;
            for (i, l) in legs.iter().enumerate() {
                point(&format!("{key}.legs[{i}].to"), l.to)?;
                if let Some(v) = l.speed_mps {
                    positive_f(&format!("{key}.legs[{i}].speed_mps"), v, 1e6)?;
                }
                if let Some(p) = l.pause_s {
                    range_f(&format!("{key}.legs[{i}].pause_s"), p, 0.0, MAX_S)?;
                }
            }
            Ok(())
        }
        MobilitySpec::CrossOver {
            a,
            b,
            speed_mps,
            pause_s,
            start_s,
            legs,
        } => {
            point(&format!("{key}.a"), *a)?;
            point(&format!("{key}.b"), *b)?;
            positive_f(&format!("{key}.speed_mps"), *speed_mps, 1e6)?;
            range_f(&format!("{key}.pause_s"), *pause_s, 0.0, MAX_S)?;
            range_f(&format!("{key}.start_s"), *start_s, 0.0, MAX_S)?;
            range_u(&format!("{key}.legs"), *legs as u64, 0, 1_000_000)
        }
        MobilitySpec::RandomWaypoint {
            min,
            max,
            start,
            start_s,
            speed_min_mps,
            speed_max_mps,
            pause_min_s,
            pause_max_s,
        } => {
            point(&format!("{key}.min"), *min)?;
            point(&format!("{key}.max"), *max)?;
            point(&format!("{key}.start"), *start)?;
            range_f(&format!("{key}.start_s"), *start_s, 0.0, MAX_S)?;
            positive_f(&format!("{key}.speed_min_mps"), *speed_min_mps, 1e6)?;
            range_f(
                &format!("{key}.speed_max_mps"),
                *speed_max_mps,
                *speed_min_mps,
                1e6,
            )?;
            range_f(&format!("{key}.pause_min_s"), *pause_min_s, 0.0, MAX_S)?;
            range_f(
                &format!("{key}.pause_max_s"),
                *pause_max_s,
                *pause_min_s,
                MAX_S,
            )
        }
        MobilitySpec::E1 {
            handoffs,
            window_start_s,
            window_s,
        } => {
            range_u(&format!("{key}.handoffs"), u64::from(*handoffs), 0, 100_000)?;
            range_f(
                &format!("{key}.window_start_s"),
                *window_start_s,
                0.0,
                MAX_S,
            )?;
            range_f(&format!("{key}.window_s"), *window_s, 0.0, MAX_S)
        }
    }
}

impl Scenario {
    /// Checks every value's range and every name reference.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        positive_f("duration_s", self.duration_s, MAX_S)?;
        let l = &self.limits;
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
        let o = &self.output;
        positive_f("output.series_bin_ms", o.series_bin_ms, MAX_MS)?;
        range_f("output.sample_ms", o.sample_ms, 0.0, MAX_MS)?;
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
                return Err(ScenarioError::Range {
                    key: format!("{k}[1]"),
                    value: to.to_string(),
                    allowed: "a window must end after it starts".into(),
                });
            }
        }
        range_u(
            "output.goodput_windows_s",
            o.goodput_windows_s.len() as u64,
            0,
            10_000,
        )?;
        for (i, p) in o.pcap.iter().enumerate() {
            let key = format!("output.pcap[{i}]");
            let Some((n, _)) = p.split_once(':') else {
                return Err(ScenarioError::Range {
                    key,
                    value: format!("{p:?}"),
                    allowed: "must be \"node:interface\"".into(),
                });
            };
            if !self.has_node(n) {
                return Err(ScenarioError::reference(key, format!("no node {n:?}")));
            }
        }
        let r = &self.radio;
        thresholds(
            "radio",
            r.beacon_detection_w,
            r.data_w,
            r.going_down_w.unwrap_or(r.data_w),
        )?;
        positive_f("radio.beacon_interval_ms", r.beacon_interval_ms, 1e6)?;
        range_f("radio.link_up_after_ms", r.link_up_after_ms, 0.0, MAX_MS)?;
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
        positive_f("radio.sample_period_ms", r.sample_period_ms, MAX_MS)?;
        acquisition("radio.acquisition", &r.acquisition)?;

        unique(
            "nodes/mobiles",
            self.nodes
                .iter()
                .map(|n| n.name.as_str())
                .chain(self.mobiles.iter().map(|m| m.name.as_str())),
        )?;
        unique("links", self.links.iter().map(|l| l.name.as_str()))?;
        unique("cells", self.cells.iter().map(|c| c.name.as_str()))?;
        unique("flows", self.flows.iter().map(|f| f.name.as_str()))?;
        for l in &self.links {
            let key = format!("links[{}]", l.name);
            for (end, node, addr) in [("a", &l.a, &l.a_addr), ("b", &l.b, &l.b_addr)] {
                if !self.nodes.iter().any(|n| &n.name == node) {
                    return Err(ScenarioError::reference(
                        format!("{key}.{end}"),
                        format!("no fixed node {node:?}"),
                    ));
                }
                net(&format!("{key}.{end}_addr"), addr)?;
            }
            range_u(&format!("{key}.rate_bps"), l.rate_bps, 1, MAX_RATE)?;
            range_f(&format!("{key}.delay_ms"), l.delay_ms, 0.0, MAX_MS)?;
            range_u(
                &format!("{key}.queue_packets"),
                l.queue_packets as u64,
                1,
                MAX_QUEUE,
            )?;
            error_spec(&format!("{key}.error"), &l.error)?;
        }
        for c in &self.cells {
            self.validate_cell(c)?;
        }
        for m in &self.mobiles {
            let key = format!("mobiles[{}]", m.name);
            if m.ifaces.is_empty() {
                return Err(ScenarioError::reference(
                    format!("{key}.ifaces"),
                    "a mobile needs at least one interface",
                ));
            }
            unique(
                &format!("{key}.ifaces"),
                m.ifaces.iter().map(|i| i.name.as_str()),
            )?;
            mobility(&format!("{key}.mobility"), &m.mobility)?;
            for (k, i) in m.ifaces.iter().enumerate() {
                if i.cells.is_empty() {
                    return Err(ScenarioError::reference(
                        format!("{key}.ifaces[{k}].cells"),
                        "an interface needs at least one cell",
                    ));
                }
                for (j, cell) in i.cells.iter().enumerate() {
                    let ikey = format!("{key}.ifaces[{k}].cells[{j}]");
                    let Some(c) = self.cells.iter().find(|c| &c.name == cell) else {
                        return Err(ScenarioError::reference(ikey, format!("no cell {cell:?}")));
                    };
                    let before = m.ifaces[..k]
                        .iter()
                        .flat_map(|o| o.cells.iter())
                        .chain(i.cells[..j].iter());
                    if before.into_iter().any(|o| o == cell) {
                        return Err(ScenarioError::reference(
                            ikey,
                            format!("cell {cell:?} is listed twice"),
                        ));
                    }
                    let ap = net("ap_addr", &c.ap_addr)?;
                    let host_bits = ap.max_prefix_len() - ap.prefix_len();
                    let max_host = if host_bits >= 32 {
                        u64::from(u32::MAX) - 1
                    } else {
                        (1u64 << host_bits).saturating_sub(2)
                    };
                    range_u(
                        &format!("{key}.host_id"),
                        u64::from(m.host_id),
                        1,
                        max_host.max(1),
                    )?;
                }
            }
        }
        if let Some(x) = self.output.end_after_failover_s {
            range_f("output.end_after_failover_s", x, 0.0, self.duration_s)?;
        }
        for f in &self.flows {
            self.validate_flow(f)?;
        }
        self.validate_deployments()?;
        for (k, e) in self.events.iter().enumerate() {
            let key = format!("events[{k}]");
            range_f(&format!("{key}.at_s"), e.at_s, 0.0, self.duration_s)?;
            if e.action.is_cell() {
                if !self.cells.iter().any(|c| c.name == e.cell) {
                    return Err(ScenarioError::reference(
                        format!("{key}.cell"),
                        format!("no cell {:?}", e.cell),
                    ));
                }
            } else if !self.links.iter().any(|l| l.name == e.link) {
                return Err(ScenarioError::reference(
                    format!("{key}.link"),
                    format!("no link {:?}", e.link),
                ));
            }
        }
        Ok(())
    }

    fn has_node(&self, n: &str) -> bool {
        self.nodes.iter().any(|x| x.name == n) || self.mobiles.iter().any(|x| x.name == n)
    }

    fn validate_cell(&self, c: &CellSpec) -> Result<(), ScenarioError> {
        let key = format!("cells[{}]", c.name);
        if !self.nodes.iter().any(|n| n.name == c.router) {
            return Err(ScenarioError::reference(
                format!("{key}.router"),
                format!("no fixed node {:?}", c.router),
            ));
        }
        let ap = net(&format!("{key}.ap_addr"), &c.ap_addr)?;
        if ap.prefix_len() + 2 > ap.max_prefix_len() {
            return Err(ScenarioError::Range {
                key: format!("{key}.ap_addr"),
                value: c.ap_addr.clone(),
                allowed: "the prefix must leave room for stations (at most /30 or /126)".into(),
            });
        }
        range_f(&format!("{key}.x_m"), c.x_m, -1e7, 1e7)?;
        range_f(&format!("{key}.y_m"), c.y_m, -1e7, 1e7)?;
        positive_f(&format!("{key}.radius_m"), c.radius_m, 1e6)?;
        if let Some(p) = c.tx_power_w {
            positive_f(&format!("{key}.tx_power_w"), p, 1e6)?;
        }
        range_u(&format!("{key}.rate_bps"), c.rate_bps, 1, MAX_RATE)?;
        range_f(&format!("{key}.delay_ms"), c.delay_ms, 0.0, MAX_MS)?;
        range_u(
            &format!("{key}.queue_packets"),
            c.queue_packets as u64,
            1,
            MAX_QUEUE,
        )?;
        error_spec(&format!("{key}.downlink_error"), &c.downlink_error)?;
        error_spec(&format!("{key}.uplink_error"), &c.uplink_error)?;
        let r = &self.radio;
        let interval = c.beacon_interval_ms.unwrap_or(r.beacon_interval_ms);
        positive_f(&format!("{key}.beacon_interval_ms"), interval, 1e6)?;
        range_f(
            &format!("{key}.beacon_offset_ms"),
            c.beacon_offset_ms,
            0.0,
            MAX_MS,
        )?;
        let det = c.beacon_detection_w.unwrap_or(r.beacon_detection_w);
        let data = c.data_w.unwrap_or(r.data_w);
        let down = c.going_down_w.or(r.going_down_w).unwrap_or(data);
        thresholds(&key, det, data, down)?;
        range_f(
            &format!("{key}.link_up_after_ms"),
            c.link_up_after_ms.unwrap_or(r.link_up_after_ms),
            0.0,
            MAX_MS,
        )?;
        if let Some(y) = c.link_down_after_ms.or(r.link_down_after_ms) {
            range_f(&format!("{key}.link_down_after_ms"), y, interval, MAX_MS)?;
        }
        if let Some(y) = c.beacon_lost_after_ms.or(r.beacon_lost_after_ms) {
            range_f(&format!("{key}.beacon_lost_after_ms"), y, interval, MAX_MS)?;
        }
        if let Some(a) = &c.acquisition {
            acquisition(&format!("{key}.acquisition"), a)?;
        }
        if let Some(steps) = &c.signal_steps {
            let mut last = -1.0;
            for (i, (t, p)) in steps.iter().enumerate() {
                let k = format!("{key}.signal_steps[{i}]");
                range_f(&format!("{k}.time_s"), *t, 0.0, MAX_S)?;
                if *t <= last {
                    return Err(ScenarioError::Range {
                        key: k,
                        value: t.to_string(),
                        allowed: "step times must strictly increase".into(),
                    });
                }
                last = *t;
                range_f(&format!("{k}.power_w"), *p, 0.0, 1e3)?;
            }
        }
        Ok(())
    }

    fn validate_flow(&self, f: &FlowSpec) -> Result<(), ScenarioError> {
        let key = format!("flows[{}]", f.name);
        let Some(m) = self.mobiles.iter().find(|m| m.name == f.mobile) else {
            return Err(ScenarioError::reference(
                format!("{key}.mobile"),
                format!("no mobile {:?}", f.mobile),
            ));
        };
        if !self.nodes.iter().any(|n| n.name == f.fixed) {
            return Err(ScenarioError::reference(
                format!("{key}.fixed"),
                format!("no fixed node {:?}", f.fixed),
            ));
        }
        self.validate_transport(f, m)?;
        range_f(&format!("{key}.start_s"), f.start_s, 0.0, self.duration_s)?;
        range_f(
            &format!("{key}.start_jitter_s"),
            f.start_jitter_s,
            0.0,
            self.duration_s,
        )?;
        if let Some(s) = f.stop_s {
            range_f(&format!("{key}.stop_s"), s, f.start_s, MAX_S)?;
        }
        let msg_key = format!("{key}.traffic.message_bytes");
        let max_msg = 1u64 << 24;
        match &f.traffic {
            TrafficSpec::Bulk { message_bytes } => {
                range_u(&msg_key, *message_bytes as u64, 1, max_msg)?;
            }
            TrafficSpec::File {
                bytes,
                message_bytes,
            } => {
                range_u(&msg_key, *message_bytes as u64, 1, max_msg)?;
                range_u(&format!("{key}.traffic.bytes"), *bytes, 1, 1 << 50)?;
            }
            TrafficSpec::Cbr {
                message_bytes,
                rate_bps,
            } => {
                range_u(&msg_key, *message_bytes as u64, 1, max_msg)?;
                range_u(&format!("{key}.traffic.rate_bps"), *rate_bps, 1, MAX_RATE)?;
            }
            TrafficSpec::Pareto {
                message_bytes,
                rate_bps,
                mean_on_ms,
                mean_off_ms,
                shape,
            } => {
                range_u(&msg_key, *message_bytes as u64, 1, max_msg)?;
                range_u(&format!("{key}.traffic.rate_bps"), *rate_bps, 1, MAX_RATE)?;
                positive_f(&format!("{key}.traffic.mean_on_ms"), *mean_on_ms, MAX_MS)?;
                positive_f(&format!("{key}.traffic.mean_off_ms"), *mean_off_ms, MAX_MS)?;
                range_f(&format!("{key}.traffic.shape"), *shape, 1.000_001, 1e3)?;
            }
        }
        match &f.policy {
            PolicySpec::SignalStrength {
                add_threshold_w,
                primary_threshold_w,
                ..
            } => {
                positive_f(
                    &format!("{key}.policy.add_threshold_w"),
                    *add_threshold_w,
                    1e3,
                )?;
                positive_f(
                    &format!("{key}.policy.primary_threshold_w"),
                    *primary_threshold_w,
                    1e3,
                )?;
            }
            PolicySpec::FastestFirst { rates } => {
                for (iface, r) in rates {
                    if !m.ifaces.iter().any(|i| &i.name == iface) {
                        return Err(ScenarioError::reference(
                            format!("{key}.policy.rates"),
                            format!("mobile {:?} has no interface {iface:?}", m.name),
                        ));
                    }
                    range_u(&format!("{key}.policy.rates.{iface}"), *r, 1, MAX_RATE)?;
                }
            }
            _ => {}
        }
        let s = &f.sctp;
        let sk = |n: &str| format!("{key}.sctp.{n}");
        for (n, v) in [
            ("rto_initial_ms", s.rto_initial_ms),
            ("rto_min_ms", s.rto_min_ms),
            ("rto_max_ms", s.rto_max_ms),
        ] {
            if let Some(v) = v {
                range_f(&sk(n), v, 0.001, MAX_MS)?;
            }
        }
        if let Some(v) = s.heartbeat_interval_ms {
            range_f(&sk("heartbeat_interval_ms"), v, 0.0, MAX_MS)?;
        }
        if let Some(v) = s.sack_delay_ms {
            range_f(&sk("sack_delay_ms"), v, 0.0, 500.0)?;
        }
        if let Some(v) = s.sack_frequency {
            range_u(&sk("sack_frequency"), u64::from(v), 1, 1_000_000)?;
        }
        if let Some(v) = s.receive_window {
            range_u(&sk("receive_window"), u64::from(v), 1500, 1 << 31)?;
        }
        if let Some(v) = s.send_buffer {
            range_u(&sk("send_buffer"), v as u64, 1, 1 << 34)?;
        }
        if let Some(v) = s.path_mtu {
            range_u(&sk("path_mtu"), v as u64, 508, 65_535)?;
        }
        if let Some(v) = s.initial_cwnd {
            range_u(&sk("initial_cwnd"), u64::from(v), 1, 1 << 31)?;
        }
        for (n, v) in [
            ("assoc_max_retrans", s.assoc_max_retrans),
            ("path_max_retrans", s.path_max_retrans),
            ("max_init_retrans", s.max_init_retrans),
        ] {
            if let Some(v) = v {
                range_u(&sk(n), u64::from(v), 0, 1000)?;
            }
        }
        if let Some(v) = s.valid_cookie_life_ms {
            range_f(&sk("valid_cookie_life_ms"), v, 1.0, MAX_MS)?;
        }
        if let Some(v) = s.outbound_streams {
            range_u(&sk("outbound_streams"), u64::from(v), 1, 65_535)?;
        }
        if let Some(v) = s.max_inbound_streams {
            range_u(&sk("max_inbound_streams"), u64::from(v), 1, 65_535)?;
        }
        if let Some(v) = s.max_message_size {
            range_u(&sk("max_message_size"), v as u64, 1, 1 << 30)?;
        }
        if let Some(v) = s.max_gap_blocks {
            range_u(&sk("max_gap_blocks"), v as u64, 1, 4096)?;
        }
        if let Some(v) = s.max_dup_tsns {
            range_u(&sk("max_dup_tsns"), v as u64, 0, 4096)?;
        }
        if let Some(v) = s.max_burst {
            range_u(&sk("max_burst"), u64::from(v), 0, 1_000_000)?;
        }
        let cfg = super::build::association_config(s);
        cfg.validate().map_err(|e| ScenarioError::Range {
            key: sk(e.field),
            value: "(see the sctp section)".into(),
            allowed: e.why.to_string(),
        })?;
        Ok(())
    }
}

/// The host address `host_id` in the prefix of `ap`.
pub(crate) fn host_in(ap: IpNet, host_id: u32) -> Option<IpNet> {
    match ap {
        IpNet::V4(n) => {
            let base = u32::from(n.network());
            let a = base.checked_add(host_id)?;
            let addr = std::net::Ipv4Addr::from(a);
            ipnet::Ipv4Net::new(addr, n.prefix_len())
                .ok()
                .filter(|x| n.contains(&x.addr()))
                .map(IpNet::V4)
        }
        IpNet::V6(n) => {
            let base = u128::from(n.network());
            let a = base.checked_add(u128::from(host_id))?;
            let addr = std::net::Ipv6Addr::from(a);
            ipnet::Ipv6Net::new(addr, n.prefix_len())
                .ok()
                .filter(|x| n.contains(&x.addr()))
                .map(IpNet::V6)
        }
    }
}

/// The gateway (AP address) of a cell.
pub(crate) fn gateway_of(ap: IpNet) -> IpAddr {
    ap.addr()
}
