//! The baselines' signalling on the page, as Mobile IP's binding updates
//! are: the reference scenario of the baselines (one flow of every
//! transport; `crates/sim/src/scenario/reference-baselines.toml`) run
//! once, its page's marks read per model:
//!
//! - FMIPv6 (RFC 5568): the mobile's RtSolPr, PrRtAdv, FBU, FBack and UNA
//!   and the access routers' HI and HAck, in the protocol's order;
//! - the single-connection TCP handoff: each processing period, from the
//!   decision (connection stopped) to the resumption on the new network;
//! - the multi-connection transport (CMHN): each switch of the sender's
//!   connection, after the measurement of the new connection's
//!   bandwidth-delay product that preceded it.

use std::sync::OnceLock;

use msctp_sim::scenario::{self, REFERENCE_BASELINES};
use msctp_view::{Mark, ViewData};

fn page() -> &'static ViewData {
    static PAGE: OnceLock<ViewData> = OnceLock::new();
    PAGE.get_or_init(|| {
        let s = scenario::parse(REFERENCE_BASELINES).expect("reference is valid");
        let dir = tempfile::tempdir().unwrap();
        scenario::run_scenario(&s, 1)
            .unwrap()
            .write_to_dir(dir.path())
            .unwrap();
        ViewData::load(dir.path()).unwrap()
    })
}

/// Marks whose source starts with `source` and whose kind or detail
/// contains `what`.
fn marks<'a>(source: &str, what: &str) -> Vec<&'a Mark> {
    page()
        .marks
        .iter()
        .filter(|m| m.source.starts_with(source))
        .filter(|m| m.kind.contains(what) || m.detail.contains(what))
        .collect()
}

fn first(source: &str, kind: &str, message: &str) -> f64 {
    let m = marks(source, message)
        .into_iter()
        .find(|m| m.kind == kind)
        .unwrap_or_else(|| panic!("no {kind} {message} from {source}"));
    assert_eq!(m.cat, "baseline", "{m:?}");
    m.t
}

#[test]
fn fmipv6_messages_are_marks_in_protocol_order() {
    let mn = "fmip6-udp/mf";
    let rtsolpr = first(mn, "FmipSent", "RtSolPr");
    let prrtadv = first(mn, "FmipReceived", "PrRtAdv");
    let fbu = first(mn, "FmipSent", "FBU");
    let hi = first("fmip/", "FmipSent", "HI");
    let hack = first("fmip/", "FmipReceived", "HAck");
    let una = first(mn, "FmipSent", "UNA");
    assert!(
        rtsolpr < prrtadv && prrtadv <= fbu && fbu < hi && hi < hack,
        "RtSolPr {rtsolpr} PrRtAdv {prrtadv} FBU {fbu} HI {hi} HAck {hack}"
    );
    assert!(fbu < una, "the UNA from the new link comes after the FBU");
    // The router heard the mobile's messages too.
    first("fmip/", "FmipReceived", "RtSolPr");
    first("fmip/", "FmipReceived", "FBU");
    first("fmip/", "FmipSent", "PrRtAdv");
}

#[test]
fn single_connection_handoff_processing_periods_are_marks() {
    let start = marks("single-handoff/", "handoff-processing");
    let end = marks("single-handoff/", "handoff-resumed");
    assert!(!start.is_empty(), "a processing period");
    assert!(!end.is_empty(), "its end");
    assert!(start[0].t < end[0].t, "{start:?} {end:?}");
    assert!(start[0].detail.contains(" ms)"), "{:?}", start[0]);
    assert!(start.iter().chain(&end).all(|m| m.cat == "baseline"));
}

#[test]
fn multi_connection_switches_are_marks() {
    let of = |kind: &str| -> Vec<&Mark> {
        marks("cmhn/", kind)
            .into_iter()
            .filter(|m| m.kind == kind)
            .collect()
    };
    let (probe, switch) = (of("bdp-probe"), of("switch"));
    assert!(!switch.is_empty(), "a switch of the sender's connection");
    assert!(
        !probe.is_empty(),
        "the new connection's measurement before it"
    );
    assert!(probe[0].t < switch[0].t, "{probe:?} {switch:?}");
    assert!(
        switch[0].detail.contains("ms of probing"),
        "{:?}",
        switch[0]
    );
    assert!(probe.iter().chain(&switch).all(|m| m.cat == "baseline"));
}

/// The access routers serve every FMIPv6 flow of the scenario (the
/// reference has two): their messages are marked once, not once per flow.
#[test]
fn the_access_routers_messages_are_marked_once() {
    let routers: Vec<&Mark> = marks("fmip/", "Fmip");
    assert!(!routers.is_empty());
    let mut seen = std::collections::BTreeSet::new();
    for m in &routers {
        let key = (
            m.t.to_bits(),
            m.source.as_str(),
            m.kind.as_str(),
            m.detail.as_str(),
        );
        assert!(seen.insert(key), "marked twice: {m:?}");
    }
}
