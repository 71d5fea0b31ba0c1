//! Mobility traces as a scenario key (`mobility = { kind = "trace", trace
//! = FILE, format = "bonnmotion" | "ns2", node = N }`):
//!
//! - the reference scenario's walk, written as an ns-2 movement file and
//!   as a BonnMotion `.movements` line (no Debian or PyPI package makes
//!   BonnMotion files: `reference-walk.movements` is written by hand in
//!   its documented format), gives the very run the `waypoints` key gives;
//! - a file made by Debian's ns2 `setdest` (`tests/mobility/setdest-3n-
//!   120s.tcl`, and a fresh one when `setdest` is installed): every move
//!   that is not cut short ends at its target at the time its speed says.

use std::path::{Path, PathBuf};

use msctp_proto::Time;
use msctp_sim::models::mobility::import;
use msctp_sim::scenario::{self, MobilitySpec, REFERENCE, Scenario, TraceFormatSpec};

fn file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mobility")
        .join(name)
}

fn with_trace(path: &Path, format: TraceFormatSpec) -> Scenario {
    let mut s = scenario::parse(REFERENCE).unwrap();
    s.mobiles[0].mobility = MobilitySpec::Trace {
        trace: path.display().to_string(),
        format,
        node: 0,
        dimensions: 2,
        max_bytes: 1 << 20,
        max_waypoints: 1000,
    };
    s
}

#[test]
fn a_trace_of_the_reference_walk_gives_the_reference_run() {
    let reference = scenario::run_scenario(&scenario::parse(REFERENCE).unwrap(), 1).unwrap();
    for (name, format) in [
        ("reference-walk.tcl", TraceFormatSpec::Ns2),
        ("reference-walk.movements", TraceFormatSpec::Bonnmotion),
    ] {
        let r = scenario::run_scenario(&with_trace(&file(name), format), 1).unwrap();
        assert_eq!(r.summary_json(), reference.summary_json(), "{name}");
        assert_eq!(r.events_csv(), reference.events_csv(), "{name}");
        let h = &r.summary.flows[0].handovers;
        assert_eq!(h.len(), 1, "{name}: one handover, as the waypoints give");
    }
}

#[test]
fn bad_trace_files_are_scenario_errors_naming_the_file_and_line() {
    let dir = std::env::temp_dir().join(format!("msctp-mobility-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.tcl");
    std::fs::write(&bad, "$node_(0) set X_ 1\n$node_(0) set Y_ oops\n").unwrap();
    let e = scenario::run_scenario(&with_trace(&bad, TraceFormatSpec::Ns2), 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("bad.tcl") && e.contains("line 2"), "{e}");
    let missing = dir.join("missing.movements");
    let e = scenario::run_scenario(&with_trace(&missing, TraceFormatSpec::Bonnmotion), 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing.movements"), "{e}");
    let mut big = with_trace(&file("setdest-3n-120s.tcl"), TraceFormatSpec::Ns2);
    if let MobilitySpec::Trace { max_bytes, .. } = &mut big.mobiles[0].mobility {
        *max_bytes = 100;
    }
    let e = scenario::run_scenario(&big, 1).unwrap_err().to_string();
    assert!(e.contains("max_bytes"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Each `setdest` of each node whose move is not cut short by the node's
/// next command: the trajectory is at the target when the speed says.
fn check_setdest_file(text: &str, nodes: usize, end: Time) -> usize {
    let mut checked = 0;
    for node in 0..nodes {
        let t = import::ns2(text, node, end, 100_000).unwrap();
        let me = format!("$node_({node})");
        let cmds: Vec<(f64, f64, f64, f64)> = text
            .lines()
            .filter(|l| l.starts_with("$ns_ at") && l.contains(&format!("\"{me} setdest")))
            .map(|l| {
                let w: Vec<f64> = l
                    .split(|c: char| c.is_whitespace() || c == '"')
                    .filter_map(|x| x.parse().ok())
                    .collect();
                (w[0], w[1], w[2], w[3])
            })
            .collect();
        for (i, &(at, x, y, v)) in cmds.iter().enumerate() {
            // Where the node is when the command runs: on its way, or
            // where the previous move ended.
            let here = t.position(Time::from_secs_f64(at));
            let d = ((x - here.x).powi(2) + (y - here.y).powi(2)).sqrt();
            if v <= 0.0 || d == 0.0 {
                continue;
            }
            let arrive = at + d / v;
            let next = cmds.get(i + 1).map_or(f64::INFINITY, |c| c.0);
            if arrive <= next + 1e-6 && arrive <= end.as_secs_f64() {
                let p = t.position(Time::from_secs_f64(arrive));
                assert!(
                    (p.x - x).abs() < 1e-3 && (p.y - y).abs() < 1e-3,
                    "node {node}: at {arrive} s at ({}, {}), not at the target ({x}, {y})",
                    p.x,
                    p.y
                );
                checked += 1;
            }
        }
    }
    checked
}

#[test]
fn setdest_files_are_followed_move_by_move() {
    let text = std::fs::read_to_string(file("setdest-3n-120s.tcl")).unwrap();
    let n = check_setdest_file(&text, 3, Time::from_secs(120));
    println!("stored setdest file: {n} moves reached their targets");
    assert!(n >= 6);
    // The stored file drives a run: the mobile follows node 1.
    let mut s = with_trace(&file("setdest-3n-120s.tcl"), TraceFormatSpec::Ns2);
    if let MobilitySpec::Trace { node, .. } = &mut s.mobiles[0].mobility {
        *node = 1;
    }
    let r = scenario::run_scenario(&s, 1).unwrap();
    let wp = &r.map.mobiles[0].waypoints;
    let t = import::ns2(&text, 1, Time::from_secs_f64(s.duration_s), 100_000).unwrap();
    assert_eq!(
        wp.len(),
        t.waypoints().len(),
        "map.json has the trace's waypoints"
    );

    // A fresh file from the real tool, when it is installed.
    let Some(setdest) = msctp_testkit::find_on_path("setdest") else {
        // scripts/install-deps.sh installs ns2: required under CI=true.
        let why = msctp_testkit::require("`setdest` (Debian's ns2) is not installed".into());
        msctp_testkit::skip(&format!("the fresh file: {why}"));
        return;
    };
    // setdest keeps its random state in `.rand_state` in the working
    // directory: a directory of the test's own, not the source tree. Its
    // draws differ from run to run (a slow node may reach few targets in
    // 300 s), so fresh files are checked, each wholly, until at least ten
    // moves have been followed to their targets (at most five files).
    let work = std::env::temp_dir().join(format!("msctp-setdest-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let mut reached = 0;
    for _ in 0..5 {
        let out = std::process::Command::new(&setdest)
            .current_dir(&work)
            .args(["-v", "1", "-n", "5", "-p", "1.0", "-M", "20.0", "-t", "300"])
            .args(["-x", "1000", "-y", "800"])
            .output()
            .unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        let n = check_setdest_file(&text, 5, Time::from_secs(300));
        println!("fresh setdest file: {n} moves reached their targets");
        reached += n;
        if reached >= 10 {
            break;
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    assert!(
        reached >= 10,
        "{reached} moves followed in five fresh files"
    );
}

/// Each `<vehicle id="ID" x=".." y=".."/>` of a SUMO FCD file, with its
/// step's time, read line by line (not with the importer's XML parser).
fn fcd_samples(text: &str, id: &str) -> Vec<(f64, f64, f64)> {
    let val = |l: &str, k: &str| -> f64 {
        let v = l.split(&format!(" {k}=\"")).nth(1).unwrap();
        v[..v.find('"').unwrap()].parse().unwrap()
    };
    let mut t = 0.0;
    let mut out = Vec::new();
    for l in text.lines().map(str::trim) {
        if l.starts_with("<timestep ") {
            t = val(l, "time");
        } else if l.starts_with(&format!("<vehicle id=\"{id}\" ")) {
            out.push((t, val(l, "x"), val(l, "y")));
        }
    }
    out
}

/// The trajectory of vehicle `id` (node `node`) passes through every one
/// of its FCD samples.
fn check_fcd_file(text: &str, node: usize, id: &str) -> usize {
    let t = import::sumo_fcd(text, node, 100_000).unwrap();
    let samples = fcd_samples(text, id);
    for &(at, x, y) in &samples {
        let p = t.position(Time::from_secs_f64(at));
        assert!(
            (p.x - x).abs() < 1e-6 && (p.y - y).abs() < 1e-6,
            "{id} at {at} s: ({}, {}), the file says ({x}, {y})",
            p.x,
            p.y
        );
    }
    samples.len()
}

/// SUMO (Debian's `sumo` 1.15): `tests/mobility/sumo-grid-fcd.xml` was
/// written by `netgenerate --grid --grid.number 3 --grid.length 200 -o
/// sumo-grid.net.xml` and `sumo -n sumo-grid.net.xml -r sumo-grid.rou.xml
/// --fcd-output sumo-grid-fcd.xml --end 80 --step-length 1 --no-step-log`;
/// made again
/// when the tools are installed.
#[test]
fn sumo_fcd_files_are_followed_step_by_step() {
    let text = std::fs::read_to_string(file("sumo-grid-fcd.xml")).unwrap();
    let (bus, car) = (
        check_fcd_file(&text, 0, "bus"),
        check_fcd_file(&text, 1, "car1"),
    );
    println!("stored FCD file: bus {bus} and car1 {car} samples on the trajectory");
    assert!(bus >= 40 && car >= 20, "{bus} {car}");
    // The stored file drives a run: the mobile follows the bus.
    let s = with_trace(&file("sumo-grid-fcd.xml"), TraceFormatSpec::Sumo);
    let r = scenario::run_scenario(&s, 1).unwrap();
    let t = import::sumo_fcd(&text, 0, 100_000).unwrap();
    assert_eq!(r.map.mobiles[0].waypoints.len(), t.waypoints().len());

    let tools = ["netgenerate", "sumo"].map(msctp_testkit::find_on_path);
    let [Some(netgenerate), Some(sumo)] = tools else {
        // scripts/install-deps.sh installs sumo: required under CI=true.
        let why = msctp_testkit::require("Debian's `sumo` is not installed".into());
        msctp_testkit::skip(&format!("the fresh file: {why}"));
        return;
    };
    let work = std::env::temp_dir().join(format!("msctp-sumo-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let run = |cmd: &Path, args: &[&str]| {
        let o = std::process::Command::new(cmd)
            .current_dir(&work)
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{cmd:?}: {o:?}");
    };
    std::fs::copy(file("sumo-grid.rou.xml"), work.join("r.rou.xml")).unwrap();
    run(
        &netgenerate,
        &[
            "--grid",
            "--grid.number",
            "3",
            "--grid.length",
            "200",
            "-o",
            "n.net.xml",
        ],
    );
    run(
        &sumo,
        &[
            "-n",
            "n.net.xml",
            "-r",
            "r.rou.xml",
            "--fcd-output",
            "f.xml",
        ],
    );
    let fresh = std::fs::read_to_string(work.join("f.xml")).unwrap();
    let _ = std::fs::remove_dir_all(&work);
    let n = check_fcd_file(&fresh, 0, "bus") + check_fcd_file(&fresh, 1, "car1");
    println!("fresh FCD file: {n} samples on the trajectories");
    assert!(n >= 60);
}
