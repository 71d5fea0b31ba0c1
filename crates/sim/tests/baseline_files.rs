//! Scenario files of the baseline transports: the baselines' reference
//! file parses and runs; unknown keys, values out of range and
//! combinations that make no sense are refused with a message naming the
//! key.

use msctp_sim::scenario::{self, REFERENCE_BASELINES, ScenarioError};

const MIP4: &str = include_str!("scenarios/mip4_tcp.toml");
const FMIP6: &str = include_str!("scenarios/fmip6.toml");
const E4: &str = include_str!("scenarios/single_handoff.toml");
const UDP: &str = include_str!("scenarios/udp.toml");

fn with(base: &str, old: &str, new: &str) -> String {
    assert!(base.contains(old), "scenario lacks {old:?}");
    base.replacen(old, new, 1)
}

fn err(text: &str) -> String {
    match scenario::parse(text) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn reference_baselines_parses_and_runs_every_transport() {
    let mut s = scenario::parse(REFERENCE_BASELINES).unwrap();
    let mut seen: Vec<&str> = s.flows.iter().map(|f| f.transport.name()).collect();
    seen.sort_unstable();
    seen.dedup();
    let mut all: Vec<&str> = scenario::TransportSpec::ALL
        .iter()
        .map(|t| t.name())
        .filter(|n| *n != "msctp")
        .collect();
    all.sort_unstable();
    assert_eq!(seen, all, "one flow of every baseline transport");
    s.duration_s = 12.0;
    let r = scenario::run_scenario(&s, 1).unwrap();
    assert!(r.summary.warnings.is_empty(), "{:?}", r.summary.warnings);
    for f in &r.summary.flows {
        assert!(f.bytes_delivered > 0, "flow {} delivered nothing", f.name);
    }
}

#[test]
fn unknown_keys_in_transport_tables_are_named() {
    let e = err(&with(
        MIP4,
        "ha_auth_ms = 6.0",
        "ha_auth_ms = 6.0\nha_authentication = 1",
    ));
    assert!(e.contains("ha_authentication"), "{e}");
    let e = err(&with(
        MIP4,
        "min_rto_ms = 200.0",
        "min_rto_ms = 200.0\nrto_min_ms = 1",
    ));
    assert!(e.contains("rto_min_ms"), "{e}");
    let e = err(&with(
        MIP4,
        "transport = \"mip4-tcp\"",
        "transport = \"mip-tcp\"",
    ));
    assert!(e.contains("mip-tcp"), "{e}");
    let e = err(&with(
        FMIP6,
        "attach = \"ideal\"",
        "attach = \"eventually\"",
    ));
    assert!(e.contains("eventually"), "{e}");
}

#[test]
fn values_out_of_range_name_the_key() {
    let e = scenario::parse(&with(
        MIP4,
        "advert_interval_ms = 1000.0",
        "advert_interval_ms = 0.0",
    ))
    .unwrap_err();
    match &e {
        ScenarioError::Range { key, allowed, .. } => {
            assert_eq!(key, "flows[down].mip4.advert_interval_ms");
            assert!(allowed.contains("(0,"), "{allowed}");
        }
        other => panic!("{other}"),
    }
    let e = err(&with(MIP4, "min_rto_ms = 200.0", "min_rto_ms = -1.0"));
    // Refused as the file is read: the message shows the table's line and
    // names the key.
    assert!(e.contains("[flows.tcp]") && e.contains("min_rto_ms"), "{e}");
    // ns-2's tcpTick_ of 10 ms as RFC 6298's clock granularity (E4).
    scenario::parse(&with(
        MIP4,
        "min_rto_ms = 200.0",
        "min_rto_ms = 200.0\nclock_granularity_ms = 10.0",
    ))
    .unwrap();
    let e = err(&with(
        MIP4,
        "min_rto_ms = 200.0",
        "min_rto_ms = 200.0\nclock_granularity_ms = -10.0",
    ));
    assert!(
        e.contains("[flows.tcp]") && e.contains("clock_granularity_ms"),
        "{e}"
    );
    // The TCP model's own cross-checks (RTO.Min above RTO.Max).
    let e = err(&with(
        MIP4,
        "min_rto_ms = 200.0",
        "min_rto_ms = 200.0\nmax_rto_ms = 100.0",
    ));
    assert!(e.contains("flows[down].tcp"), "{e}");
    let e = err(&with(FMIP6, "trigger_s = 5.0", "trigger_s = 50.0"));
    assert!(e.contains("flows[cbr].fmip6.trigger_s"), "{e}");
    let e = err(&with(
        E4,
        "umts = { ppp_ms = 600.0 }",
        "umts = { ppp_ms = -600.0 }",
    ));
    // Refused as the file is read (a duration's unit adapter): the
    // message shows the table's line and the key's path in it.
    assert!(
        e.contains("[flows.handoff") && e.contains("networks.umts.ppp_ms"),
        "{e}"
    );
    let e = err(&with(
        UDP,
        "message_bytes = 200, rate_bps = 24000 }",
        "message_bytes = 20, rate_bps = 24000 }",
    ));
    assert!(e.contains("flows[cbr].traffic.message_bytes"), "{e}");
}

#[test]
fn combinations_that_make_no_sense_are_refused() {
    // A table of another transport.
    let e = err(&with(MIP4, "[flows.mip4]", "[flows.cmhn]\n\n[flows.mip4]"));
    assert!(e.contains("flows[down].cmhn") && e.contains("cmhn"), "{e}");
    // The table a transport needs.
    let e = err(&with(
        MIP4,
        "[flows.mip4]\nhome_cell = \"home\"",
        "[flows.x]\nhome_cell = \"home\"",
    ));
    assert!(e.contains("x"), "{e}");
    let no_mip = MIP4.split("[flows.mip4]").next().unwrap().to_string();
    let e = err(&no_mip);
    assert!(e.contains("flows[down].mip4") && e.contains("needs"), "{e}");
    // A handover policy or SCTP parameters on a TCP flow.
    let e = err(&with(
        MIP4,
        "start_s = 1.0\ntraffic",
        "start_s = 1.0\npolicy = { kind = \"failover_only\" }\ntraffic",
    ));
    assert!(
        e.contains("flows[down].policy") && e.contains("msctp"),
        "{e}"
    );
    let e = err(&with(
        MIP4,
        "[flows.tcp]",
        "[flows.sctp]\nrto_min_ms = 100.0\n\n[flows.tcp]",
    ));
    assert!(e.contains("flows[down].sctp"), "{e}");
    // SCTP over Mobile IP has no ADD-IP.
    let e = err(&with(
        &with(
            MIP4,
            "transport = \"mip4-tcp\"",
            "transport = \"mip4-sctp\"",
        ),
        "[flows.tcp]\npreset = \"ns3\"\nmin_rto_ms = 200.0",
        "[flows.sctp]\nasconf = true",
    ));
    assert!(e.contains("flows[down].sctp.asconf"), "{e}");
    // Bulk traffic over UDP.
    let e = err(&with(
        UDP,
        "traffic = { kind = \"cbr\", message_bytes = 200, rate_bps = 24000 }",
        "traffic = { kind = \"bulk\" }",
    ));
    assert!(
        e.contains("flows[cbr].traffic.kind") && e.contains("bulk"),
        "{e}"
    );
    // Mobile IPv4 with an IPv6 home, Mobile IPv6 with an IPv4 one.
    let e = err(&with(
        MIP4,
        "ap_addr = \"10.1.0.254/24\"",
        "ap_addr = \"2001:db8:1::1/64\"",
    ));
    assert!(
        e.contains("flows[down].mip4.home_cell") && e.contains("IPv6"),
        "{e}"
    );
    let e = err(&with(
        FMIP6,
        "ap_addr = \"2001:db8:1::1/64\"",
        "ap_addr = \"10.1.0.254/24\"",
    ));
    assert!(e.contains("home_cell"), "{e}");
    // An FMIPv6 mobile that moves by itself.
    let e = err(&with(
        FMIP6,
        "ifaces = [{ name = \"radio\", cells = [\"cell1\", \"cell2\"] }]",
        "ifaces = [{ name = \"radio\", cells = [\"cell1\", \"cell2\"] }]\n\
         mobility = { kind = \"waypoints\", start = [0.0, 0.0], legs = [{ to = [9.0, 0.0], speed_mps = 1.0 }] }",
    ));
    assert!(
        e.contains("mobiles[mn].mobility") && e.contains("stationary"),
        "{e}"
    );
    let e = err(&with(FMIP6, "to_cell = \"cell2\"", "to_cell = \"cell1\""));
    assert!(e.contains("flows[cbr].fmip6.to_cell"), "{e}");
    let e = err(&with(FMIP6, "to_cell = \"cell2\"", "to_cell = \"home\""));
    assert!(
        e.contains("flows[cbr].fmip6.to_cell") && e.contains("home"),
        "{e}"
    );
    // The E4 schemes need a radio per network.
    let e = err(&with(
        E4,
        "ifaces = [{ name = \"umts\", cells = [\"umts\"] }, { name = \"wlan\", cells = [\"wlan\"] }]",
        "ifaces = [{ name = \"umts\", cells = [\"umts\", \"wlan\"] }]",
    ));
    assert!(
        e.contains("mobiles[mn].ifaces[0].cells") && e.contains("one cell"),
        "{e}"
    );
    let e = err(&with(E4, "umts = { ppp_ms", "gsm = { ppp_ms"));
    assert!(e.contains("flows[up].handoff.networks.gsm"), "{e}");
    // mobile_iface only where a flow uses one address of the mobile.
    let e = err(&with(
        MIP4,
        "start_s = 1.0\ntraffic",
        "start_s = 1.0\nmobile_iface = \"radio\"\ntraffic",
    ));
    assert!(e.contains("flows[down].mobile_iface"), "{e}");
    let e = err(&with(
        UDP,
        "start_s = 1.0\nstop_s",
        "start_s = 1.0\nmobile_iface = \"lte\"\nstop_s",
    ));
    assert!(
        e.contains("flows[cbr].mobile_iface") && e.contains("lte"),
        "{e}"
    );
}

#[test]
fn one_mobile_ip_deployment_and_one_mobility_per_mobile() {
    // Two flows of the mobile: one over Mobile IP, one plain TCP.
    let two = format!(
        "{MIP4}\n[[flows]]\nname = \"plain\"\ntransport = \"tcp\"\nmobile = \"mn\"\nfixed = \"cn\"\n"
    );
    let e = err(&two);
    assert!(
        e.contains("flows[down].transport") && e.contains("same Mobile IP"),
        "{e}"
    );
    // Two flows on one port of a node.
    let clash = format!(
        "{UDP}\n[[flows]]\nname = \"third\"\ntransport = \"udp\"\nmobile = \"bg\"\n\
         fixed = \"cn\"\nfixed_port = 5000\ntraffic = {{ kind = \"cbr\", message_bytes = 200, \
         rate_bps = 8000 }}\n"
    );
    let e = err(&clash);
    assert!(
        e.contains("flows[third].fixed_port") && e.contains("same port"),
        "{e}"
    );
    // Two Mobile IPv4 flows with different deployments.
    let other = format!(
        "{MIP4}\n[[flows]]\nname = \"second\"\ntransport = \"mip4-tcp\"\nmobile = \"mn\"\n\
         fixed = \"cn\"\n[flows.mip4]\nhome_cell = \"visit\"\n"
    );
    let e = err(&other);
    assert!(
        e.contains("flows[second].mip4") && e.contains("differs"),
        "{e}"
    );
}

/// Every number of the baselines' reference file replaced by extreme
/// values: parsing and validation never panic, and a short run of every
/// value that passes validation never panics either.
#[test]
fn extreme_values_never_panic() {
    let lines: Vec<&str> = REFERENCE_BASELINES.lines().collect();
    let mut tried = 0;
    let mut refused = 0;
    let mut ran = 0;
    for (i, line) in lines.iter().enumerate() {
        let Some((key, rest)) = line.split_once(" = ") else {
            continue;
        };
        if key.trim_start().starts_with('#') {
            continue;
        }
        let value = rest.split('#').next().unwrap_or("").trim();
        if value.parse::<f64>().is_err() {
            continue;
        }
        for bad in ["0", "-1", "1e300", "nan", "inf", "0.5", "4294967296"] {
            let mut l = lines.clone();
            let replaced = format!("{key} = {bad}");
            l[i] = &replaced;
            let text = l.join("\n");
            tried += 1;
            match scenario::parse(&text) {
                Err(_) => refused += 1,
                Ok(mut s) => {
                    s.duration_s = s.duration_s.min(1.5);
                    let _ = scenario::run_scenario(&s, 1);
                    ran += 1;
                }
            }
        }
    }
    assert!(tried > 300, "{tried}");
    assert!(refused > tried / 3, "{refused} of {tried}");
    assert!(ran > 50, "{ran} runs");
    println!("{tried} values, {refused} refused, {ran} runs");
}

/// The FMIPv6 test network run as plain Mobile IPv6 with one radio
/// switched break-before-make at `at_s` (Tsang, Wang and Lau's mobile).
fn forced_switch(extra: &str) -> String {
    let s = with(
        FMIP6,
        "transport = \"fmip6-udp\"",
        "transport = \"mip6-udp\"",
    );
    let cut = s.find("[flows.fmip6]").expect("fmip6 table");
    let s = s[..cut].to_string();
    with(
        &s,
        "address_config_ms = 50.0",
        &format!(
            "address_config_ms = 50.0\nforced_switch = {{ from_cell = \"cell1\", to_cell = \"cell2\", at_s = 5.0{extra} }}"
        ),
    )
}

#[test]
fn a_forced_switch_is_break_before_make_and_loses_what_the_old_cell_carried() {
    let s = scenario::parse(&forced_switch("")).unwrap();
    let r = scenario::run_scenario(&s, 1).unwrap();
    let f = &r.summary.flows[0];
    let mip = f.mobile_ip.as_ref().expect("mobile ip summary");
    assert_eq!(mip.handovers.len(), 1, "{mip:?}");
    // Sent to the old care-of address between the switch at 5 s and the
    // correspondent's binding: lost (a 400 kbit/s stream of 500-byte
    // packets is one packet every 10 ms).
    assert!(f.lost_data_mobility >= 3, "{f:?}");
    assert!(f.bytes_delivered > 0);
    let e = err(&with(
        &forced_switch(""),
        "to_cell = \"cell2\", at_s",
        "to_cell = \"cell1\", at_s",
    ));
    assert!(e.contains("flows[cbr].mip6.forced_switch.to_cell"), "{e}");
    let e = err(&forced_switch(", switch_ms = -1.0"));
    assert!(e.contains("forced_switch.switch_ms"), "{e}");
}
