//! Scenario files: the reference parses; unknown keys and bad values are
//! refused with a message naming the key (and the allowed range).

use msctp_sim::scenario::{self, REFERENCE, ScenarioError};

fn with(old: &str, new: &str) -> String {
    assert!(REFERENCE.contains(old), "reference lacks {old:?}");
    REFERENCE.replacen(old, new, 1)
}

fn err(text: &str) -> String {
    scenario::parse(text).unwrap_err().to_string()
}

#[test]
fn reference_parses_and_defaults_fill_an_empty_file() {
    let s = scenario::parse(REFERENCE).unwrap();
    assert_eq!(s.cells.len(), 2);
    assert_eq!(
        s.flows[0].sctp.association.rto_min,
        std::time::Duration::from_millis(200)
    );
    let empty = scenario::parse("").unwrap();
    assert_eq!(empty.duration_s, 60.0);
    assert_eq!(empty.seed, 1);
    assert_eq!(empty.output.series_bin_ms, 100.0);
    assert!(empty.flows.is_empty());
}

#[test]
fn unknown_keys_are_named() {
    let e = err(&with("seed = 1", "seed = 1\nsede = 2"));
    assert!(e.contains("sede"), "{e}");
    let e = err(&with(
        "rto_min_ms = 200.0",
        "rto_min_ms = 200.0\nrto_minimum = 3",
    ));
    assert!(e.contains("rto_minimum"), "{e}");
    let e = err(&with("kind = \"bulk\"", "kind = \"bulky\""));
    assert!(e.contains("bulky"), "{e}");
    let e = err(&with("radius_m = 190.0", "radius = 190.0"));
    assert!(e.contains("radius"), "{e}");
}

#[test]
fn bad_values_name_the_key_and_the_range() {
    let e = scenario::parse(&with("duration_s = 30.0", "duration_s = -3.0")).unwrap_err();
    match &e {
        ScenarioError::Range { key, allowed, .. } => {
            assert_eq!(key, "duration_s");
            assert!(allowed.contains("(0,"), "{allowed}");
        }
        other => panic!("{other}"),
    }
    let e = err(&with("sack_delay_ms = 200.0", "sack_delay_ms = 900.0"));
    assert!(
        e.contains("flows[bulk].sctp.sack_delay_ms") && e.contains("500"),
        "{e}"
    );
    let e = err(&with("radius_m = 190.0", "radius_m = 0.0"));
    assert!(e.contains("cells[ap1].radius_m"), "{e}");
    let e = err(&with("data_w = 3.6e-10", "data_w = 1e-12"));
    assert!(e.contains("radio.data_w"), "{e}");
    let e = err(&with("rto_min_ms = 200.0", "rto_min_ms = 2000.0"));
    assert!(e.contains("rto_initial"), "RTO.Initial below RTO.Min: {e}");
    let e = err(&with("host_id = 10", "host_id = 300"));
    assert!(
        e.contains("mobiles[mn].host_id") && e.contains("254"),
        "{e}"
    );
    let e = err(&with(
        "ap_addr = \"10.1.0.254/24\"",
        "ap_addr = \"10.1.0.254\"",
    ));
    assert!(e.contains("cells[ap1].ap_addr"), "{e}");
    let e = err(&with("speed_mps = 10.0 }", "speed_mps = -1.0 }"));
    assert!(e.contains("mobiles[mn].mobility.legs[0].speed_mps"), "{e}");
    let e = err(&with("start_s = 2.0", "start_s = inf"));
    assert!(e.contains("mobiles[mn].mobility.start_s"), "{e}");
    let e = err(&with(
        "queue_packets = 50               # drop-tail",
        "queue_packets = 0 #",
    ));
    assert!(e.contains("links[cn-core].queue_packets"), "{e}");
}

#[test]
fn bad_references_are_named() {
    let e = err(&with("fixed = \"cn\"", "fixed = \"nobody\""));
    assert!(
        e.contains("flows[bulk].fixed") && e.contains("nobody"),
        "{e}"
    );
    let e = err(&with("cells = [\"ap2\"]", "cells = [\"ap9\"]"));
    assert!(
        e.contains("mobiles[mn].ifaces[1].cells[0]") && e.contains("ap9"),
        "{e}"
    );
    let e = err(&with("cells = [\"ap2\"]", "cells = [\"ap1\"]"));
    assert!(e.contains("listed twice"), "{e}");
    let e = err(&with("pcap = [\"mn:wlan1\"", "pcap = [\"mx:wlan1\""));
    assert!(e.contains("output.pcap[0]"), "{e}");
    let e = err(&with("name = \"ar2\"", "name = \"ar1\""));
    assert!(e.contains("used twice"), "{e}");
    // A pcap interface that does not exist is found when building.
    let s = scenario::parse(&with("pcap = [\"mn:wlan1\"", "pcap = [\"mn:wlan7\"")).unwrap();
    let e = scenario::run_scenario(&s, 1).unwrap_err().to_string();
    assert!(e.contains("wlan7"), "{e}");
}

/// Every number of the reference replaced by extreme values: parsing,
/// validation and a short run never panic (an error or a run).
#[test]
fn extreme_values_never_panic() {
    let lines: Vec<&str> = REFERENCE.lines().collect();
    let mut tried = 0;
    let mut refused = 0;
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
                    s.duration_s = s.duration_s.min(2.5);
                    let _ = scenario::run_scenario(&s, 1);
                }
            }
        }
    }
    assert!(tried > 300, "{tried}");
    assert!(refused > tried / 3, "{refused} of {tried}");
}

/// A population of stations behind one cell, and extra text appended
/// (more stations or flows), for the checks that compare every mobile
/// or flow with the earlier ones.
fn population(count: usize, extra: &str) -> String {
    format!(
        r#"
duration_s = 2.0
[[nodes]]
name = "cn"
[[nodes]]
name = "ap_r"
kind = "router"
[[links]]
name = "cn-ap"
a = "cn"
a_addr = "10.0.0.1/24"
b = "ap_r"
b_addr = "10.0.0.2/24"
[[cells]]
name = "wlan"
router = "ap_r"
ap_addr = "10.1.0.254/16"
radius_m = 1000.0
[[stations]]
name = "sta"
count = {count}
first_host_id = 10
ifaces = [{{ name = "w", cells = ["wlan"] }}]
fixed = "cn"
{extra}"#
    )
}

/// Address and port clashes name the first earlier mobile or flow that
/// clashes, also deep in a population (the checks look earlier mobiles
/// and flows up by index instead of scanning them).
#[test]
fn clashes_name_the_first_earlier_mobile_or_flow() {
    assert!(scenario::parse(&population(50, "")).is_ok());
    // Host ids 10..=59 in the cell; a second population from 47 clashes
    // with sta37 first.
    let e = err(&population(
        50,
        "[[stations]]\nname = \"late\"\ncount = 3\nfirst_host_id = 47\n\
         ifaces = [{ name = \"w\", cells = [\"wlan\"] }]\nfixed = \"cn\"\n",
    ));
    assert!(
        e.contains("mobiles[late0].host_id") && e.contains("\"sta37\"") && e.contains("\"wlan\""),
        "{e}"
    );
    // The file's flows come before the stations': station k's flow is
    // flow k + 2, on fixed port 5000 + 2 (k + 2), so "b" on 5020 clashes
    // with sta8's, and "a" with none.
    let e = err(&population(
        50,
        "[[mobiles]]\nname = \"extra\"\nhost_id = 200\n\
         ifaces = [{ name = \"w\", cells = [\"wlan\"] }]\n\
         [[flows]]\nname = \"a\"\nmobile = \"extra\"\nfixed = \"cn\"\nfixed_port = 6000\n\
         mobile_port = 6001\n\
         [[flows]]\nname = \"b\"\nmobile = \"extra\"\nfixed = \"cn\"\nfixed_port = 5020\n",
    ));
    assert!(
        e.contains("flows[sta8].fixed_port") && e.contains("\"b\" and \"sta8\""),
        "{e}"
    );
}

/// A population its cells' prefix cannot hold is refused before any
/// station is built, naming its count (issue 31 finding 11: 65 526
/// stations from host id 10 in a /16, whose host ids end at 65 534, failed
/// only after building every station, at `mobiles[...].host_id`).
#[test]
fn a_population_larger_than_its_cell_prefix_is_refused_up_front() {
    let start = std::time::Instant::now();
    let e = err(&population(65_526, ""));
    let took = start.elapsed();
    assert!(
        e.starts_with("stations[0].count = 65526")
            && e.contains("\"wlan\" (10.1.0.254/16)")
            && e.contains("at most 65525 stations from first_host_id 10"),
        "{e}"
    );
    assert!(took < std::time::Duration::from_millis(500), "{took:?}");
    // At the edge: a /29 cell holds host ids 1 to 6 (its access point
    // at 6), so 5 stations from host id 1 fit and 7 do not.
    let small = population(5, "").replace("10.1.0.254/16", "10.1.0.6/29");
    let small = small.replace("first_host_id = 10", "first_host_id = 1");
    assert!(scenario::parse(&small).is_ok());
    let e = err(&small.replace("count = 5", "count = 7"));
    assert!(e.starts_with("stations[0].count = 7"), "{e}");
}
