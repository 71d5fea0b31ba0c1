//! `msctp bench engine` and the quinn and sctp-proto contenders of
//! `msctp bench net`, on short transfers: what they print and what they
//! refuse. No timing is asserted (a timed test on a shared machine could
//! not fail for the right reason).

use std::process::{Command, Output};

fn msctp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_msctp"))
        .args(args)
        .output()
        .unwrap()
}

fn out(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn bench_engine_prints_both_engines_and_their_ratio() {
    let o = msctp(&[
        "bench",
        "engine",
        "--megabytes",
        "1",
        "--runs",
        "1",
        "--json",
    ]);
    assert!(o.status.success(), "{}", out(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["message"], 1424);
    assert_eq!(rows[1]["message"], 65536);
    for r in rows {
        let (a, b) = (
            r["ours"]["bytes_per_cpu_s"].as_f64().unwrap(),
            r["theirs"]["bytes_per_cpu_s"].as_f64().unwrap(),
        );
        assert!(a > 0.0 && b > 0.0);
        assert!((r["ratio"].as_f64().unwrap() - a / b).abs() < 1e-6 * (a / b));
    }
    let o = msctp(&["bench", "engine", "--megabytes", "1", "--runs", "1"]);
    let t = out(&o);
    assert!(
        t.contains("msctp MB/CPU-s") && t.contains("sctp-proto MB/CPU-s"),
        "{t}"
    );
}

#[test]
fn bench_engine_refuses_a_bad_size() {
    let o = msctp(&["bench", "engine", "--megabytes", "0"]);
    assert!(!o.status.success());
    assert!(
        out(&o).contains("--megabytes must lie in [1, 10000]"),
        "{}",
        out(&o)
    );
    for bad in ["0", "21"] {
        let o = msctp(&["bench", "net", "--rounds", bad]);
        assert!(!o.status.success());
        assert!(
            out(&o).contains("--rounds must lie in [1, 20]"),
            "{}",
            out(&o)
        );
    }
}

#[test]
fn bench_net_runs_quinn_and_sctp_proto_beside_msctp_at_1452_byte_packets() {
    let o = msctp(&[
        "bench",
        "net",
        "--megabytes",
        "2",
        "--message",
        "1424",
        "--only",
        "msctp-eth",
        "--only",
        "quinn",
        "--only",
        "sctp-proto",
        "--estimator-pairs",
        "0",
        "--rounds",
        "2",
        "--json",
    ]);
    assert!(o.status.success(), "{}", out(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["rounds"].as_array().map(Vec::len), Some(2), "{v}");
    let medians = v["medians"].as_array().unwrap();
    for k in ["msctp, AUTH off, 1452-byte", "quinn", "sctp-proto"] {
        let m = (medians.iter())
            .find(|m| m["system"].as_str().unwrap().starts_with(k))
            .unwrap();
        assert!(m["mb_per_s"].as_f64().is_some_and(|x| x > 0.0), "{k}: {m}");
        assert!(
            m["cpu_s_per_gb"].as_f64().is_some_and(|x| x > 0.0),
            "{k}: {m}"
        );
    }
    // msctp / quinn and msctp / sctp-proto, both measured in both
    // rounds: the median of the two rounds' own ratios.
    let ratios = v["ratios"].as_array().unwrap();
    assert_eq!(ratios.len(), 2, "{ratios:?}");
    assert!(ratios[0]["to"].as_str().unwrap().starts_with("quinn"));
    assert!(ratios[1]["to"].as_str().unwrap().starts_with("sctp-proto"));
    assert!(ratios.iter().all(|r| r["rounds"] == 2), "{ratios:?}");
}
