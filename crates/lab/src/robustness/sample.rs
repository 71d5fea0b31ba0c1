//! Latin hypercube sampling of a study's declared space: `n` points in
//! `d` dimensions, each dimension cut into `n` equal strata of the unit
//! interval with exactly one point in each (McKay, Beckman and Conover
//! 1979), the strata paired across dimensions by independent random
//! permutations and each point placed uniformly inside its stratum. Every
//! parameter's range is then covered evenly whatever `n` (a range's lower
//! and upper halves hold n/2 points each for even n, which the
//! sensitivity index relies on), where plain random points may leave
//! parts of a range empty. A fixed seed makes the design reproducible.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `n` points of `d` coordinates in [0, 1): point i's coordinate j lies in
/// stratum [k/n, (k+1)/n) for a k that no other point has in dimension j.
pub fn latin_hypercube(n: usize, d: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut points = vec![vec![0.0; d]; n];
    for j in 0..d {
        let mut strata: Vec<usize> = (0..n).collect();
        strata.shuffle(&mut rng);
        for (i, p) in points.iter_mut().enumerate() {
            let jitter: f64 = rng.r#gen();
            p[j] = (strata[i] as f64 + jitter) / n as f64;
        }
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stratum_of_every_dimension_holds_one_point() {
        for (n, d) in [(1, 1), (7, 3), (24, 5)] {
            let pts = latin_hypercube(n, d, 42);
            assert_eq!(pts.len(), n);
            for j in 0..d {
                let mut strata: Vec<usize> = pts
                    .iter()
                    .map(|p| {
                        assert!((0.0..1.0).contains(&p[j]));
                        (p[j] * n as f64) as usize
                    })
                    .collect();
                strata.sort();
                assert_eq!(strata, (0..n).collect::<Vec<_>>(), "n={n} dim {j}");
            }
        }
    }

    #[test]
    fn a_seed_fixes_the_design_and_another_seed_changes_it() {
        assert_eq!(latin_hypercube(16, 4, 7), latin_hypercube(16, 4, 7));
        assert_ne!(latin_hypercube(16, 4, 7), latin_hypercube(16, 4, 8));
    }
}
