//! Seeds and storage keys.
//!
//! A run's seed is a hash of (experiment id, variant, point, repetition
//! index) — or without the variant in [`SeedMode::Common`] — so adding a
//! variant, an axis value or repetitions never changes the seed of an
//! existing run. A run's storage key is a hash of (runner, runner
//! fingerprint, canonical scenario, seed): a finished run is found again
//! after an interruption, and a changed scenario or model is run afresh.

use sha2::{Digest, Sha256};

use crate::experiment::SeedMode;

fn field(h: &mut Sha256, s: &str) {
    h.update((s.len() as u64).to_le_bytes());
    h.update(s.as_bytes());
}

/// The seed of one run. `point` is the point's canonical form
/// ([`crate::plan::Point::canonical`]).
pub fn run_seed(
    mode: SeedMode,
    experiment: &str,
    variant: &str,
    point: &str,
    repetition: u32,
) -> u64 {
    let mut h = Sha256::new();
    field(&mut h, "msctp-lab seed v1");
    field(&mut h, experiment);
    match mode {
        SeedMode::Independent => field(&mut h, variant),
        SeedMode::Common => field(&mut h, ""),
    }
    field(&mut h, point);
    h.update(repetition.to_le_bytes());
    let d = h.finalize();
    let mut b = [0u8; 8];
    b.copy_from_slice(&d[..8]);
    u64::from_le_bytes(b)
}

/// The storage key of a run: 32 hex digits. `inputs` is the digest of the
/// files the scenario reads ([`crate::runner::Runner::inputs_digest`]).
pub fn run_key(
    runner: &str,
    fingerprint: &str,
    canonical_scenario: &str,
    inputs: &str,
    seed: u64,
) -> String {
    let mut h = Sha256::new();
    field(&mut h, "msctp-lab run v1");
    field(&mut h, runner);
    field(&mut h, fingerprint);
    field(&mut h, canonical_scenario);
    // Scenarios that read no file keep the keys they had before files
    // entered the key.
    if !inputs.is_empty() {
        field(&mut h, inputs);
    }
    h.update(seed.to_le_bytes());
    h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_depend_on_every_field_and_only_those() {
        let s = run_seed(SeedMode::Independent, "E1", "mip-tcp", "n:3", 0);
        assert_eq!(
            s,
            run_seed(SeedMode::Independent, "E1", "mip-tcp", "n:3", 0)
        );
        let others = [
            run_seed(SeedMode::Independent, "E2", "mip-tcp", "n:3", 0),
            run_seed(SeedMode::Independent, "E1", "msctp", "n:3", 0),
            run_seed(SeedMode::Independent, "E1", "mip-tcp", "n:4", 0),
            run_seed(SeedMode::Independent, "E1", "mip-tcp", "n:3", 1),
        ];
        for o in others {
            assert_ne!(s, o);
        }
        // Field boundaries are unambiguous.
        assert_ne!(
            run_seed(SeedMode::Independent, "E1a", "b", "", 0),
            run_seed(SeedMode::Independent, "E1", "ab", "", 0)
        );
        // Common random numbers: variants share the seed.
        assert_eq!(
            run_seed(SeedMode::Common, "E1", "a", "n:3", 2),
            run_seed(SeedMode::Common, "E1", "b", "n:3", 2)
        );
    }

    #[test]
    fn keys_depend_on_scenario_seed_and_model() {
        let k = run_key("sim", "v1", "a = 1\n", "", 7);
        assert_eq!(k.len(), 32);
        assert_eq!(k, run_key("sim", "v1", "a = 1\n", "", 7));
        assert_ne!(k, run_key("sim", "v1", "a = 2\n", "", 7));
        assert_ne!(k, run_key("sim", "v1", "a = 1\n", "", 8));
        assert_ne!(k, run_key("sim", "v2", "a = 1\n", "", 7));
        assert_ne!(k, run_key("other", "v1", "a = 1\n", "", 7));
        // The files the scenario reads.
        assert_ne!(k, run_key("sim", "v1", "a = 1\n", "trace.tcl 0a1b", 7));
    }
}
