//! Every value a study's runs use is either cited (`[provenance]`: the
//! paper, its tool's defaults, our structure), swept by an axis, or
//! declared unsaid (`[robustness]`). Enforced for the studies in
//! [`ENFORCED`]; the others are listed by `remaining_studies_are_listed`.

use std::path::Path;

use msctp_lab::Experiment;
use msctp_lab::experiment::list_experiment_files;

/// The studies whose every value has a source or a declared range.
const ENFORCED: &[&str] = &[
    "E1",
    "E2-up",
    "E2-down",
    "E3-crossover",
    "E3-random",
    "E4-linkup",
    "E4-linkdown",
    "E4-pingpong",
    "E5",
    "E6",
    "E7a",
    "E7b",
    "E8",
    "E9",
    "E9-handover",
    "E7a-causes",
    "E7b-causes",
];

fn studies() -> Vec<Experiment> {
    list_experiment_files(Path::new("../../experiments"))
        .unwrap()
        .iter()
        .map(|f| Experiment::load(f).unwrap())
        .collect()
}

#[test]
fn enforced_studies_cite_or_declare_every_value() {
    let all = studies();
    let mut bad = Vec::new();
    for id in ENFORCED {
        let e = all
            .iter()
            .find(|e| e.spec.id == *id)
            .unwrap_or_else(|| panic!("no study {id}"));
        assert!(e.spec.robustness.is_some(), "{id}: no [robustness]");
        let u = e.unsourced();
        if !u.is_empty() {
            bad.push(format!("{id} ({}): {}", e.path.display(), u.join(", ")));
        }
    }
    assert!(
        bad.is_empty(),
        "values neither cited under [provenance], swept by an axis, nor declared under \
         [robustness]:\n{}",
        bad.join("\n")
    );
}

/// The studies not yet enforced, with how many values lack a source
/// (printed with --nocapture); fails when one of them becomes complete,
/// so that it is added to ENFORCED.
#[test]
fn remaining_studies_are_listed() {
    for e in studies() {
        if ENFORCED.contains(&e.spec.id.as_str()) {
            continue;
        }
        let n = e.unsourced().len();
        println!("{}: {n} values without a source", e.spec.id);
        assert!(
            n > 0 || e.spec.robustness.is_none(),
            "{}: complete; add it to ENFORCED",
            e.spec.id
        );
    }
}

/// The robustness map of every study runs what each of its claims
/// compares, so that REPRODUCTION.md gives every claim its share of the
/// space (issue 34); a claim left out of the map fails here with why.
#[test]
fn every_claim_of_a_mapped_study_is_in_its_map() {
    let mut bad = Vec::new();
    for e in studies() {
        if e.spec.robustness.is_none() || e.spec.checks.is_empty() {
            continue;
        }
        let m = msctp_lab::robustness::derive(&e, 24).unwrap();
        assert_eq!(m.checks.len() + m.unmapped.len(), e.spec.checks.len());
        for (_, claim, why) in m.unmapped {
            bad.push(format!("{}: {claim}: {why}", e.spec.id));
        }
    }
    assert!(
        bad.is_empty(),
        "claims outside their study's robustness map:\n{}",
        bad.join("\n")
    );
}
