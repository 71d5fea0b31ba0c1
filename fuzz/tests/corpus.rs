//! Replays the checked-in fuzz corpus (`fuzz/corpus/<target>/`) through
//! the targets, without libFuzzer: every seed and every input the fuzzers
//! found (crashes included, once fixed) must pass every target's checks.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

fn corpus_dir(target: &str) -> PathBuf {
    msctp_fuzz::seeds::repo_root()
        .join("fuzz/corpus")
        .join(target)
}

fn files(target: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(corpus_dir(target))
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// Runs every file of `target`'s corpus; returns how many.
fn replay(target: &str, run: fn(&[u8])) -> usize {
    let files = files(target);
    let mut failed = Vec::new();
    for f in &files {
        let data = std::fs::read(f).unwrap();
        if catch_unwind(AssertUnwindSafe(|| run(&data))).is_err() {
            failed.push(f.display().to_string());
        }
    }
    assert!(failed.is_empty(), "{target}: inputs that fail: {failed:#?}");
    files.len()
}

#[test]
fn every_target_has_a_corpus_and_all_of_it_passes() {
    let mut total = 0;
    for (target, run) in msctp_fuzz::TARGETS {
        let n = replay(target, *run);
        assert!(n > 0, "{target}: empty corpus");
        total += n;
    }
    assert!(total >= 100, "only {total} corpus inputs");
}

#[test]
fn real_packets_survive_the_exact_round_trip() {
    let real: Vec<PathBuf> = files("codec")
        .into_iter()
        .filter(|f| {
            f.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("real-")
        })
        .collect();
    assert!(real.len() >= 100, "only {} real packets", real.len());
    for f in real {
        let data = std::fs::read(&f).unwrap();
        if let Err(e) = msctp_fuzz::codec::exact_round_trip(&data) {
            panic!("{}: {e}", f.display());
        }
    }
}

#[test]
fn the_script_target_runs_the_conformance_scripts() {
    // The seeds are the scripts of tests/conformance: nearly all of them
    // pass, so the target drives the interpreter and the engine, not just
    // the parser (the ETSI scripts listed in tests/conformance/README.md
    // fail by design, as in `msctp conformance`). The vendored public
    // I-DATA suite (sctplab/sctp-idata) is counted apart: 64 of its 148
    // scripts need socket calls the interpreter lacks or expect FreeBSD's
    // aborts, each listed in tests/conformance/sctp-idata/ORIGIN.md.
    let seeds: Vec<PathBuf> = files("script")
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "pkt"))
        .collect();
    let passes = |f: &&&PathBuf| {
        let data = std::fs::read(f).unwrap();
        msctp_fuzz::script::outcome(&data).is_some_and(|o| o.passed())
    };
    let (public, ours): (Vec<&PathBuf>, Vec<&PathBuf>) = seeds.iter().partition(|f| {
        f.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("sctp-idata-"))
    });
    let passed = ours.iter().filter(passes).count();
    let public_passed = public.iter().filter(passes).count();
    eprintln!(
        "{passed} of {} scripts pass, and {public_passed} of the {} sctp-idata ones",
        ours.len(),
        public.len()
    );
    assert!(
        passed * 10 >= ours.len() * 9,
        "{passed} of {} pass",
        ours.len()
    );
    assert!(
        public_passed * 2 >= public.len(),
        "{public_passed} of {} sctp-idata scripts pass",
        public.len()
    );
}

#[test]
fn the_scenario_seeds_are_the_simulators_reference_files_and_parse() {
    // The seeds of the scenario target are the reference scenarios of the
    // simulator as they are now (a stored copy in an older format would
    // seed the fuzzer with input refused at its first key).
    let current = msctp_fuzz::seeds::repo_root().join("crates/sim/src/scenario");
    for name in ["reference.toml", "reference-baselines.toml"] {
        let seed = std::fs::read_to_string(corpus_dir("scenario").join(name)).unwrap();
        let now = std::fs::read_to_string(current.join(name)).unwrap();
        assert!(
            seed == now,
            "fuzz/corpus/scenario/{name} is not the simulator's: \
             cargo run -p msctp-fuzz --bin seed-corpus"
        );
        if let Err(e) = msctp_sim::scenario::parse(&seed) {
            panic!("{name}: {e}");
        }
    }
}
