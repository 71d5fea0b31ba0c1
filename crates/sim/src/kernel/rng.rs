//! Seeded random streams, one per component.
//!
//! Every component that draws random numbers (an error model of one link
//! direction, a traffic source, an agent) owns its own stream, derived from
//! the run seed and a stable component name: `SHA-256("msctp-sim/rng/v1" ||
//! seed (8 bytes, little endian) || name)` is the 32-byte seed of a ChaCha8
//! generator. Adding a component therefore never shifts the numbers another
//! component draws, and the same (seed, name) gives the same stream on every
//! machine.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;
use sha2::{Digest, Sha256};

/// The generator type of every stream in the simulator.
pub type SimRng = ChaCha8Rng;

/// Domain separation tag of the seed derivation (bump on any change so old
/// results are not silently reproduced with different numbers).
const DOMAIN: &[u8] = b"msctp-sim/rng/v1";

/// The stream of component `name` in a run with seed `seed`.
pub fn stream(seed: u64, name: &str) -> SimRng {
    let mut h = Sha256::new();
    h.update(DOMAIN);
    h.update(seed.to_le_bytes());
    h.update(name.as_bytes());
    let digest: [u8; 32] = h.finalize().into();
    ChaCha8Rng::from_seed(digest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn same_name_same_stream_other_name_other_stream() {
        let a: Vec<u64> = (0..4)
            .map(|_| 0)
            .scan(stream(7, "link/a"), |r, _| Some(r.r#gen()))
            .collect();
        let b: Vec<u64> = (0..4)
            .map(|_| 0)
            .scan(stream(7, "link/a"), |r, _| Some(r.r#gen()))
            .collect();
        let c: Vec<u64> = (0..4)
            .map(|_| 0)
            .scan(stream(7, "link/b"), |r, _| Some(r.r#gen()))
            .collect();
        let d: Vec<u64> = (0..4)
            .map(|_| 0)
            .scan(stream(8, "link/a"), |r, _| Some(r.r#gen()))
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }

    #[test]
    fn derivation_is_stable_across_versions() {
        // Pin the first draw so an accidental change of the derivation (which
        // would silently change every published figure) fails here.
        let mut r = stream(1, "x");
        let first: u64 = r.r#gen();
        let mut r2 = stream(1, "x");
        assert_eq!(first, r2.r#gen::<u64>());
        assert_eq!(first, PINNED_FIRST_DRAW);
    }

    const PINNED_FIRST_DRAW: u64 = 9_007_417_629_783_536_699;
}
