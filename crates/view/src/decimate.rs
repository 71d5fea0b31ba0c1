//! Keeping a long run's page small: past a point budget, every time
//! series is thinned to the extremes of its values per time bucket (each
//! column's smallest and largest value in the bucket, so a cwnd collapse
//! or a delay spike stays visible at any zoom), while every mark is kept.

use crate::data::{Series, ViewData};

/// Points (rows of a series, summed over all series) a page carries by
/// default (`msctp view --max-points`): rows of the E1 traces take about
/// 23 bytes each, so about 3.5 MB of page; a 60 s E1 run (about 65 000
/// rows) is not thinned.
pub const DEFAULT_MAX_POINTS: usize = 150_000;

/// The rows of `s` to keep, at most `budget` (and at least the first and
/// last): per bucket of rows, for each column the row of its smallest and
/// of its largest value.
fn keep_rows(s: &Series, budget: usize) -> Vec<usize> {
    let n = s.t.len();
    if n <= budget.max(2) {
        return (0..n).collect();
    }
    let per_bucket = 2 * s.cols.len().max(1);
    let buckets = (budget.saturating_sub(2) / per_bucket).max(1);
    let mut keep = vec![0, n - 1];
    for b in 0..buckets {
        let (lo, hi) = (1 + b * (n - 2) / buckets, 1 + (b + 1) * (n - 2) / buckets);
        if lo >= hi {
            continue;
        }
        for col in s.cols.values() {
            let vals = (lo..hi).filter_map(|i| col[i].map(|v| (i, v)));
            let min = vals.clone().min_by(|a, b| a.1.total_cmp(&b.1));
            let max = vals.max_by(|a, b| a.1.total_cmp(&b.1));
            keep.extend(min.map(|m| m.0));
            keep.extend(max.map(|m| m.0));
        }
        if s.cols.is_empty() {
            keep.push(lo);
        }
    }
    keep.sort_unstable();
    keep.dedup();
    keep
}

fn thin(s: &mut Series, budget: usize) {
    let keep = keep_rows(s, budget);
    if keep.len() == s.t.len() {
        return;
    }
    s.t = keep.iter().map(|&i| s.t[i]).collect();
    for col in s.cols.values_mut() {
        *col = keep.iter().map(|&i| col[i]).collect();
    }
}

impl ViewData {
    /// Rows of all series together.
    pub fn points(&self) -> usize {
        self.series().map(|s| s.t.len()).sum()
    }

    fn series(&self) -> impl Iterator<Item = &Series> {
        self.paths
            .iter()
            .chain(&self.goodput)
            .chain(&self.delays)
            .chain(&self.queues)
    }

    /// Thins the series to at most `max_points` rows in all (each series
    /// gets a share of the budget in proportion to its length, at least
    /// two rows); marks are all kept. Returns whether anything was
    /// dropped.
    pub fn decimate(&mut self, max_points: usize) -> bool {
        let total = self.points();
        if total <= max_points {
            return false;
        }
        for s in self
            .paths
            .iter_mut()
            .chain(&mut self.goodput)
            .chain(&mut self.delays)
            .chain(&mut self.queues)
        {
            let share = (s.t.len() as f64 * max_points as f64 / total as f64) as usize;
            thin(s, share.max(2));
        }
        self.decimated_from = Some(total);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Mark;

    fn sawtooth(n: usize) -> Series {
        let mut s = Series {
            name: "p".into(),
            ..Default::default()
        };
        for i in 0..n {
            s.t.push(i as f64 * 1e-3);
            // cwnd grows, collapses every 1000 rows; one spike at 4321.
            let cwnd = if i == 4321 { 1e9 } else { (i % 1000) as f64 };
            s.cols.entry("cwnd".into()).or_default().push(Some(cwnd));
            s.cols
                .entry("srtt_ms".into())
                .or_default()
                .push((i % 7 != 0).then_some(50.0));
        }
        s
    }

    #[test]
    fn a_long_series_is_thinned_to_the_budget_keeping_extremes_and_marks() {
        let mut v = ViewData {
            paths: vec![sawtooth(200_000)],
            goodput: vec![sawtooth(1_000)],
            marks: (0..5000)
                .map(|i| Mark {
                    t: i as f64 * 0.04,
                    cat: "fast_rtx",
                    source: "s".into(),
                    kind: "k".into(),
                    detail: String::new(),
                })
                .collect(),
            ..Default::default()
        };
        let before = v.clone();
        assert!(v.decimate(10_000));
        assert!(v.points() <= 10_000, "{}", v.points());
        assert_eq!(v.marks, before.marks, "every mark kept");
        assert_eq!(v.decimated_from, Some(201_000));
        let p = &v.paths[0];
        assert!(p.t.windows(2).all(|w| w[0] < w[1]), "times stay in order");
        assert_eq!((p.t[0], *p.t.last().unwrap()), (0.0, 199.999));
        let cwnd = &p.cols["cwnd"];
        assert!(cwnd.contains(&Some(1e9)), "the spike survives");
        assert!(cwnd.iter().filter(|c| **c == Some(0.0)).count() >= 150);
        assert!(cwnd.iter().filter(|c| **c == Some(999.0)).count() >= 150);
        assert_eq!(p.cols["srtt_ms"].len(), p.t.len());
        // Under the budget: untouched.
        let mut w = before.clone();
        assert!(!w.decimate(1_000_000));
        assert_eq!(w, before);
    }
}
