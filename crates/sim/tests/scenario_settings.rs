//! One setting, one declaration: a scenario's `[flows.sctp]` table is the
//! engine's `AssociationConfig` itself, `[flows.tcp]` the TCP model's
//! `TcpConfig`, and `[flows.mip4]`, `[flows.mip6]`, `[flows.fmip6]`,
//! `[flows.handoff]` (and each of its `networks`), `[flows.cmhn]` and
//! `[flows.quic]` the models' settings (`Mip4Settings`, `Mip6Settings`,
//! `FmipSettings`, `HandoffSettings`, `NetworkSettings`, `CmhnSettings`,
//! `QuicSettings`) beside the few
//! keys the scenario resolves (cell and interface names, a scripted move),
//! so every field they have (today's and any added later) is a scenario
//! key by its serde name, with no change to the simulator, and the
//! reference scenarios document every one of them.
//!
//! The field names come from the configuration's own `Deserialize` (a
//! deserializer that records the names a struct asks for), not from a
//! list kept here.

use msctp_proto::{AssociationConfig, CmtConfig, EstimatorConfig, Limits, PmtudConfig};
use msctp_sim::models::cmhn::CmhnSettings;
use msctp_sim::models::fmip::FmipSettings;
use msctp_sim::models::handoff::{HandoffSettings, NetworkSettings};
use msctp_sim::models::mip::v4::Mip4Settings;
use msctp_sim::models::mip::v6::Mip6Settings;
use msctp_sim::models::quic::QuicSettings;
use msctp_sim::models::settings;
use msctp_sim::scenario::{self, REFERENCE, REFERENCE_BASELINES, Scenario};
use msctp_tcp::TcpConfig;
use serde::Serialize;
use serde::de::DeserializeOwned;
use toml::{Table, Value};

/// The keys of settings `T` (none would mean the probe is broken).
fn field_names<T: DeserializeOwned>() -> Vec<&'static str> {
    let names = settings::field_names::<T>();
    assert!(!names.is_empty());
    names
}

/// A configuration that is a table of a flow: its name in the file, the
/// reference scenario that documents it, its keys and defaults.
struct Subject {
    table: &'static str,
    reference: &'static str,
    /// Every key, as dotted paths (`rto_min_ms`, `limits.max_gap_blocks`).
    keys: Vec<String>,
    defaults: Table,
    /// The configuration a parsed scenario's flow `k` holds, as a table.
    of: fn(&Scenario, usize) -> Option<Table>,
    /// Keys whose reference value is a choice of the reference scenario,
    /// not the default (each says both in its comment).
    chosen: &'static [&'static str],
    /// A key whose other value needs another key set too (a check across
    /// keys): key, the other key, its value.
    requires: &'static [(&'static str, &'static str, bool)],
    /// The scenario's own keys of the table (names, a script), kept from
    /// the reference when a key of the configuration is tried.
    keep: &'static [&'static str],
}

fn sctp() -> Subject {
    let nested = [
        ("cmt", field_names::<CmtConfig>()),
        ("estimators", field_names::<EstimatorConfig>()),
        ("limits", field_names::<Limits>()),
        ("pmtud", field_names::<PmtudConfig>()),
    ];
    // The simulator's defaults: the engine's, but for the capacity
    // method (the studies time trains at the receiver).
    let mut defaults = as_table(&scenario::SctpSpec::default().association);
    // Left out of the canonical text at its default (so that the stored
    // runs' keys did not change when it came): its own defaults.
    defaults
        .entry("pmtud")
        .or_insert_with(|| Value::Table(as_table(&PmtudConfig::default())));
    let mut keys = Vec::new();
    for name in field_names::<AssociationConfig>() {
        match nested.iter().find(|(n, _)| *n == name) {
            Some((_, inner)) => keys.extend(inner.iter().map(|k| format!("{name}.{k}"))),
            None => {
                assert!(
                    !matches!(defaults.get(name), Some(Value::Table(_))),
                    "{name} is a nested table: add its type to `nested`"
                );
                keys.push(name.to_string());
            }
        }
    }
    Subject {
        table: "sctp",
        reference: REFERENCE,
        keys,
        defaults,
        of: |s, k| Some(as_table(&s.flows[k].sctp.association)),
        // pr_sctp: off when a scenario leaves it out (the studies' stacks
        // had no PR-SCTP), on in the engine's own default.
        chosen: &["rto_min_ms", "receive_window", "pr_sctp"],
        // ADD-IP requires AUTH (RFC 5061 section 4.1.1).
        requires: &[("auth", "asconf", false)],
        keep: &[],
    }
}

fn tcp() -> Subject {
    Subject {
        table: "tcp",
        reference: REFERENCE_BASELINES,
        keys: field_names::<TcpConfig>()
            .into_iter()
            .map(String::from)
            .collect(),
        defaults: as_table(&TcpConfig::default()),
        of: |s, k| s.flows[k].tcp.as_ref().map(|t| as_table(&t.config)),
        chosen: &[],
        requires: &[],
        keep: &[],
    }
}

/// A model's settings as a table of a flow of the baselines' reference.
fn model<T: DeserializeOwned + Serialize + Default>(
    table: &'static str,
    of: fn(&Scenario, usize) -> Option<Table>,
    keep: &'static [&'static str],
) -> Subject {
    Subject {
        table,
        reference: REFERENCE_BASELINES,
        keys: field_names::<T>().into_iter().map(String::from).collect(),
        defaults: as_table(&T::default()),
        of,
        chosen: &[],
        requires: &[],
        keep,
    }
}

/// Every model's settings besides the engines'.
fn models() -> Vec<Subject> {
    let mut networks = model::<NetworkSettings>(
        "handoff",
        |s, k| {
            let h = s.flows[k].handoff.as_ref()?;
            let mut t = Table::new();
            set(
                &mut t,
                "networks.umts",
                as_table(&h.scenario.networks["umts"]).into(),
            );
            Some(t)
        },
        &[],
    );
    networks.keys = networks
        .keys
        .iter()
        .map(|k| format!("networks.umts.{k}"))
        .collect();
    let mut defaults = Table::new();
    set(
        &mut defaults,
        "networks.umts",
        networks.defaults.clone().into(),
    );
    networks.defaults = defaults;
    // E4's UMTS: a PPP set-up of 600 ms.
    networks.chosen = &["networks.umts.ppp_ms"];
    vec![
        model::<Mip4Settings>(
            "mip4",
            |s, k| Some(as_table(&s.flows[k].mip4.as_ref()?.model)),
            &["home_cell"],
        ),
        model::<Mip6Settings>(
            "mip6",
            |s, k| Some(as_table(&s.flows[k].mip6.as_ref()?.model)),
            &["home_cell"],
        ),
        model::<FmipSettings>(
            "fmip6",
            |s, k| Some(as_table(&s.flows[k].fmip6.as_ref()?.model)),
            &["from_cell", "to_cell", "trigger_s"],
        ),
        model::<HandoffSettings>(
            "handoff",
            |s, k| Some(as_table(&s.flows[k].handoff.as_ref()?.model)),
            &[],
        ),
        networks,
        model::<CmhnSettings>(
            "cmhn",
            |s, k| Some(as_table(&s.flows[k].cmhn.as_ref()?.model)),
            &[],
        ),
        model::<QuicSettings>(
            "quic",
            |s, k| Some(as_table(s.flows[k].quic.as_ref()?)),
            &[],
        ),
    ]
}

fn as_table(c: &impl Serialize) -> Table {
    match Value::try_from(c).unwrap() {
        Value::Table(t) => t,
        other => panic!("{other:?}"),
    }
}

fn get<'t>(t: &'t Table, path: &str) -> Option<&'t Value> {
    match path.split_once('.') {
        Some((head, rest)) => get(t.get(head)?.as_table()?, rest),
        None => t.get(path),
    }
}

fn set(t: &mut Table, path: &str, v: Value) {
    match path.split_once('.') {
        Some((head, rest)) => {
            let inner = t
                .entry(head)
                .or_insert_with(|| Value::Table(Table::new()))
                .as_table_mut()
                .unwrap();
            set(inner, rest, v)
        }
        None => {
            t.insert(path.to_string(), v);
        }
    }
}

impl Subject {
    /// The reference scenario and the index of its first flow with this
    /// table.
    fn reference(&self) -> (Table, usize) {
        let s: Table = toml::from_str(self.reference).unwrap();
        let k = s["flows"]
            .as_array()
            .unwrap()
            .iter()
            .position(|f| f.get(self.table).is_some())
            .expect("a flow with the table");
        (s, k)
    }

    /// The configuration a scenario whose table sets `path` to `v` gives
    /// (as a table), or the complaint.
    fn parse_with(&self, path: &str, v: Value) -> Result<Table, String> {
        let (mut s, k) = self.reference();
        // Every flow with the table gets the same one (a deployment is
        // one per scenario).
        for flow in s["flows"].as_array_mut().unwrap() {
            let flow = flow.as_table_mut().unwrap();
            let Some(Value::Table(old)) = flow.get(self.table) else {
                continue;
            };
            let mut table: Table = old
                .iter()
                .filter(|(key, _)| self.keep.contains(&key.as_str()))
                .map(|(key, v)| (key.clone(), v.clone()))
                .collect();
            set(&mut table, path, v.clone());
            for (_, other, w) in self.requires.iter().filter(|r| r.0 == path) {
                set(&mut table, other, Value::Boolean(*w));
            }
            flow.insert(self.table.into(), Value::Table(table));
        }
        let parsed = scenario::parse(&toml::to_string(&s).unwrap()).map_err(|e| e.to_string())?;
        Ok((self.of)(&parsed, k).expect("the flow's configuration"))
    }

    /// Values other than `v` of the same kind, to try in turn.
    fn others(&self, path: &str, v: Option<&Value>) -> Vec<Value> {
        match v {
            Some(Value::Boolean(b)) => vec![Value::Boolean(!b)],
            Some(Value::Integer(i)) => vec![Value::Integer(i + 1), Value::Integer(i - 1)],
            Some(Value::Float(f)) => vec![Value::Float(f + 1.0), Value::Float(f - 1.0)],
            Some(Value::Array(a)) if a.len() > 1 => {
                vec![Value::Array(a.iter().rev().cloned().collect())]
            }
            Some(Value::Array(_)) => vec![Value::Array(vec![Value::Integer(1)])],
            // An enumeration: the names serde says it expects instead of
            // a name it does not know.
            Some(Value::String(s)) => {
                let e = self
                    .parse_with(path, Value::String("no-such-variant".into()))
                    .unwrap_err();
                assert!(e.contains("unknown variant"), "{path}: {e}");
                let expected = &e[e.find("expected").expect(&e)..];
                expected
                    .split('`')
                    .skip(1)
                    .step_by(2)
                    .filter(|n| n != s)
                    .map(|n| Value::String(n.to_string()))
                    .collect()
            }
            // Absent by default (an optional value): a count or a duration.
            None => vec![Value::Integer(1), Value::Float(1.0)],
            Some(other) => panic!("{path}: unexpected value {other:?}"),
        }
    }

    /// Each key, set to another value than its default, is accepted and
    /// lands in the configuration the flow's agents get.
    fn every_key_reaches_the_model(&self) {
        for path in &self.keys {
            let mut tried = Vec::new();
            let candidates = self.others(path, get(&self.defaults, path));
            let taken =
                candidates
                    .into_iter()
                    .find_map(|v| match self.parse_with(path, v.clone()) {
                        Ok(c) => Some((v, c)),
                        Err(e) => {
                            // Refused for its value, never as an unknown key.
                            assert!(!e.contains("unknown field"), "{path}: {e}");
                            tried.push(e);
                            None
                        }
                    });
            let Some((v, c)) = taken else {
                panic!("{}.{path}: no other value accepted: {tried:?}", self.table);
            };
            assert_ne!(
                c, self.defaults,
                "{path} = {v} did not reach the configuration"
            );
            let got = get(&c, path);
            let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
            match (got, &v) {
                (Some(Value::Float(a)), Value::Float(b)) => assert!(close(*a, *b), "{path}"),
                (Some(Value::Float(a)), Value::Integer(b)) => {
                    assert!(close(*a, *b as f64), "{path}")
                }
                (Some(Value::Integer(a)), Value::Float(b)) => {
                    assert!(close(*a as f64, *b), "{path}")
                }
                _ => assert_eq!(got, Some(&v), "{path}"),
            }
        }
    }

    /// The reference scenario lists each key, at its default unless it is
    /// one of the reference's choices.
    fn the_reference_lists_every_key(&self) {
        let (s, k) = self.reference();
        let table = s["flows"].as_array().unwrap()[k][self.table]
            .as_table()
            .unwrap();
        for path in &self.keys {
            let leaf = path.rsplit('.').next().unwrap();
            match get(table, path) {
                Some(v) if !self.chosen.contains(&path.as_str()) => assert_eq!(
                    Some(v),
                    get(&self.defaults, path),
                    "{}.{path} is not the default",
                    self.table
                ),
                Some(_) => {}
                None => assert!(
                    self.reference.contains(&format!("# {leaf} =")),
                    "the reference does not list {}.{path}",
                    self.table
                ),
            }
        }
    }
}

#[test]
fn every_engine_setting_is_a_scenario_key_that_reaches_the_engine() {
    let s = sctp();
    assert!(s.keys.len() >= 40, "{:?}", s.keys);
    s.every_key_reaches_the_model();
}

#[test]
fn every_tcp_setting_is_a_scenario_key_that_reaches_the_model() {
    let t = tcp();
    assert!(t.keys.len() >= 25, "{:?}", t.keys);
    t.every_key_reaches_the_model();
}

#[test]
fn every_model_setting_is_a_scenario_key_that_reaches_the_model() {
    let models = models();
    for m in &models {
        assert!(!m.keys.is_empty(), "{}", m.table);
        m.every_key_reaches_the_model();
    }
    let keys: usize = models.iter().map(|m| m.keys.len()).sum();
    assert!(keys >= 50, "{keys} keys");
}

#[test]
fn the_reference_scenarios_list_every_key_at_its_default() {
    sctp().the_reference_lists_every_key();
    tcp().the_reference_lists_every_key();
    for m in models() {
        m.the_reference_lists_every_key();
    }
}

#[test]
fn an_unknown_key_is_refused_with_its_name_and_line() {
    let e = sctp()
        .parse_with("rto_minimum_ms", Value::Float(20.0))
        .unwrap_err();
    assert!(e.contains("rto_minimum_ms") && e.contains("line"), "{e}");
    let e = sctp()
        .parse_with("limits.max_gap_block", Value::Integer(20))
        .unwrap_err();
    assert!(e.contains("max_gap_block"), "{e}");
    let e = tcp().parse_with("min_rto", Value::Float(20.0)).unwrap_err();
    assert!(e.contains("min_rto") && e.contains("line"), "{e}");
}

#[test]
fn a_value_the_model_refuses_names_its_key_path() {
    let s = sctp();
    let e = s
        .parse_with("limits.max_gap_blocks", Value::Integer(0))
        .unwrap_err();
    assert!(e.contains("flows[bulk].sctp.limits.max_gap_blocks"), "{e}");
    let e = s.parse_with("rto_min_ms", Value::Float(-1.0)).unwrap_err();
    assert!(e.contains("rto_min_ms") && e.contains("finite"), "{e}");
    let e = s
        .parse_with("estimators.capacity_samples", Value::Integer(65))
        .unwrap_err();
    assert!(e.contains("sctp.estimators.capacity_samples"), "{e}");
    let e = tcp()
        .parse_with("delayed_ack_ms", Value::Float(600.0))
        .unwrap_err();
    assert!(e.contains(".tcp.delayed_ack_ms"), "{e}");
    let m = models();
    let model = |t: &str| m.iter().find(|m| m.table == t).unwrap();
    let e = model("mip4")
        .parse_with("max_retries", Value::Integer(17))
        .unwrap_err();
    assert!(e.contains("flows[mip4-tcp].mip4.max_retries = 17"), "{e}");
    let e = model("mip6")
        .parse_with("binding_lifetime_s", Value::Integer(3))
        .unwrap_err();
    assert!(e.contains("flows[mip6-tcp].mip6.binding_lifetime_s"), "{e}");
    let e = model("cmhn")
        .parse_with("probe_ms", Value::Float(0.0))
        .unwrap_err();
    assert!(e.contains("flows[cmhn].cmhn.probe_ms = 0"), "{e}");
    let e = model("fmip6")
        .parse_with("poll_ms", Value::Float(-1.0))
        .unwrap_err();
    assert!(e.contains("poll_ms") && e.contains("finite"), "{e}");
}

#[test]
fn an_unknown_model_key_is_refused_with_its_name() {
    for m in models() {
        let e = m
            .parse_with("no_such_key_ms", Value::Float(1.0))
            .unwrap_err();
        assert!(
            e.contains("no_such_key_ms") && e.contains("line"),
            "{}: {e}",
            m.table
        );
    }
}
