//! Slices of a plan, so a batch system (a Slurm job array, any cluster
//! without Python) can split a study: `msctp reproduce ID --shard I/N`
//! runs only the I-th of N slices, and `--report-only` merges the stored
//! runs of all slices into the report.
//!
//! Slice I (counted from 1, like `SLURM_ARRAY_TASK_ID` with
//! `--array=1-N`) holds the runs whose index in the plan is I-1 modulo N:
//! round robin, so each slice gets a share of every variant and point
//! (their costs differ a lot) instead of a contiguous, possibly all-slow
//! block. The slices depend on the plan only, not on what is stored, so
//! repeating a slice after an interruption runs only its missing runs.

use std::fmt;
use std::str::FromStr;

use crate::plan::Plan;

/// One of `count` slices, `index` in 1..=count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    index: usize,
    count: usize,
}

impl Shard {
    /// Slice `index` of `count` (1 <= index <= count).
    pub fn new(index: usize, count: usize) -> Result<Shard, String> {
        if count == 0 {
            return Err("shard count must be at least 1".into());
        }
        if index == 0 || index > count {
            return Err(format!(
                "shard {index}/{count}: I counts from 1 to N, e.g. 1/{count} to {count}/{count}"
            ));
        }
        Ok(Shard { index, count })
    }

    pub fn index(self) -> usize {
        self.index
    }

    pub fn count(self) -> usize {
        self.count
    }

    /// Whether run `run` (its index in [`Plan::runs`]) is in this slice.
    pub fn contains(self, run: usize) -> bool {
        run % self.count == self.index - 1
    }

    /// The indices of the plan's runs in this slice, in plan order.
    pub fn runs(self, plan: &Plan) -> Vec<usize> {
        (0..plan.runs.len()).filter(|&i| self.contains(i)).collect()
    }

    /// The slice that holds run `run`.
    pub fn of(run: usize, count: usize) -> Shard {
        Shard {
            index: run % count.max(1) + 1,
            count: count.max(1),
        }
    }
}

impl FromStr for Shard {
    type Err = String;

    /// `I/N`, e.g. `3/16`.
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("shard `{s}`: expected I/N with 1 <= I <= N, e.g. 3/16");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let i: usize = i.trim().parse().map_err(|_| bad())?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        Shard::new(i, n)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_refuses() {
        let s: Shard = "3/16".parse().unwrap();
        assert_eq!((s.index(), s.count()), (3, 16));
        assert_eq!(s.to_string(), "3/16");
        assert_eq!(
            " 1 / 1 ".parse::<Shard>().unwrap(),
            Shard::new(1, 1).unwrap()
        );
        for bad in ["3", "a/4", "1/b", "-1/4", "1/4/2", ""] {
            let e = bad.parse::<Shard>().unwrap_err();
            assert!(e.contains("expected I/N"), "{bad}: {e}");
        }
        for bad in ["0/4", "5/4"] {
            let e = bad.parse::<Shard>().unwrap_err();
            assert!(e.contains("I counts from 1 to N"), "{bad}: {e}");
        }
        let e = "1/0".parse::<Shard>().unwrap_err();
        assert!(e.contains("at least 1"), "{e}");
    }

    #[test]
    fn slices_partition_the_runs_round_robin() {
        for count in 1..=7 {
            let mut seen = vec![0u32; 23];
            for index in 1..=count {
                let s = Shard::new(index, count).unwrap();
                for (run, n) in seen.iter_mut().enumerate() {
                    if s.contains(run) {
                        *n += 1;
                        assert_eq!(Shard::of(run, count), s);
                    }
                }
            }
            assert!(seen.iter().all(|&n| n == 1), "count {count}: {seen:?}");
        }
        let s = Shard::new(2, 3).unwrap();
        assert!((0..9).filter(|&r| s.contains(r)).eq([1, 4, 7]));
    }
}
