//! The statistics of a robustness map: the share of the space where a
//! claim holds with its 95% Wilson score interval, and a sensitivity index
//! per parameter.
//!
//! The sensitivity index is the difference in holding share between the
//! parts of a parameter's range: the upper half minus the lower half for a
//! range (signed: positive when the claim holds more often at large
//! values), the largest minus the smallest share over the choices for a
//! list. Why this index and not a rank correlation or Sobol indices: the
//! outcome is binary (holds or not), so a rank correlation is mostly ties;
//! the index is in the same unit as the share itself ("the claim holds in
//! 90% of the upper half and 40% of the lower half"), reads without
//! statistics; and the Latin hypercube puts the same number of points in
//! each half of each range, so the two shares are estimated equally well.
//! Interactions between parameters are not separated (a first-order,
//! one-at-a-time reading).

/// The z value of a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The Wilson score interval (Wilson 1927) for `k` successes in `n`
/// trials at normal quantile `z`: (low, high) in [0, 1]. Unlike the
/// normal approximation it stays inside [0, 1] and is not empty at k = 0
/// or k = n, which is where robust claims sit. `None` for n = 0.
pub fn wilson(k: usize, n: usize, z: f64) -> Option<(f64, f64)> {
    if n == 0 || k > n {
        return None;
    }
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Some(((centre - half).max(0.0), (centre + half).min(1.0)))
}

/// The holding share of each group: `groups[i]` is point i's group (of
/// `n_groups`), `holds[i]` its outcome (`None`: not evaluated, left out).
/// `None` for a group without an evaluated point.
pub fn group_shares(groups: &[usize], n_groups: usize, holds: &[Option<bool>]) -> Vec<Option<f64>> {
    let mut yes = vec![0usize; n_groups];
    let mut all = vec![0usize; n_groups];
    for (&g, h) in groups.iter().zip(holds) {
        if let Some(h) = h {
            all[g] += 1;
            yes[g] += usize::from(*h);
        }
    }
    yes.iter()
        .zip(&all)
        .map(|(&y, &a)| (a > 0).then(|| y as f64 / a as f64))
        .collect()
}

/// The sensitivity index from the group shares: for a range (two groups,
/// lower and upper half) upper minus lower; for choices the largest minus
/// the smallest share. `None` when fewer than two groups were evaluated.
pub fn sensitivity(shares: &[Option<f64>], is_range: bool) -> Option<f64> {
    let known: Vec<f64> = shares.iter().flatten().copied().collect();
    if known.len() < 2 {
        return None;
    }
    if is_range {
        Some(shares[1]? - shares[0]?)
    } else {
        let max = known.iter().copied().fold(f64::MIN, f64::max);
        let min = known.iter().copied().fold(f64::MAX, f64::min);
        Some(max - min)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values from Newcombe (1998), Table I (Wilson's method without
    /// continuity correction).
    #[test]
    fn wilson_matches_newcombes_table() {
        let close =
            |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).abs() < 5e-5 && (a.1 - b.1).abs() < 5e-5;
        assert!(close(wilson(81, 263, Z95).unwrap(), (0.2553, 0.3662)));
        assert!(close(wilson(15, 148, Z95).unwrap(), (0.0624, 0.1605)));
        assert!(close(wilson(0, 20, Z95).unwrap(), (0.0, 0.1611)));
        assert!(close(wilson(1, 29, Z95).unwrap(), (0.0061, 0.1718)));
        let (lo, hi) = wilson(20, 20, Z95).unwrap();
        assert!(hi == 1.0 && (lo - 0.8389).abs() < 5e-5, "{lo}");
        assert_eq!(wilson(0, 0, Z95), None);
    }

    #[test]
    fn the_index_is_the_difference_of_the_halves() {
        // Holds in 3 of 4 upper-half points and 1 of 4 lower-half points;
        // the not-evaluated point is left out.
        let groups = [0, 0, 0, 0, 1, 1, 1, 1, 1];
        let holds = [
            Some(true),
            Some(false),
            Some(false),
            Some(false),
            Some(true),
            Some(true),
            Some(true),
            Some(false),
            None,
        ];
        let s = group_shares(&groups, 2, &holds);
        assert_eq!(s, vec![Some(0.25), Some(0.75)]);
        assert_eq!(sensitivity(&s, true), Some(0.5));
        let s3 = vec![Some(0.2), None, Some(0.9)];
        assert!((sensitivity(&s3, false).unwrap() - 0.7).abs() < 1e-12);
        assert_eq!(sensitivity(&[Some(1.0), None], true), None);
    }
}
