//! From stored runs to statistics per (variant, point): for each declared
//! metric the samples (runner metric times scale) and their summary
//! (mean, sample standard deviation, 95% Student-t CI, from
//! [`crate::aggregate::stats`]); for each time series the mean over
//! repetitions.

pub mod stats;

use std::collections::BTreeMap;
use std::path::PathBuf;

use toml::Table;

use crate::experiment::value;
use crate::experiment::{Experiment, Relation};
use crate::plan::{Plan, Point};
use crate::store::{RunFile, Store, StoreError, io};
use stats::{Summary, summarize};

/// One metric at one cell.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricStats {
    pub samples: Vec<f64>,
    /// `None` when no run reported the metric.
    pub summary: Option<Summary>,
}

/// One time series at one cell.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesStats {
    /// Mean over repetitions at each time (when every repetition has the
    /// same sampling times), else the first repetition's points.
    pub points: Vec<(f64, f64)>,
    pub repetitions: usize,
    /// Whether `points` is a mean over all repetitions.
    pub averaged: bool,
}

/// Everything measured at one (variant, point).
#[derive(Debug, Clone, PartialEq)]
pub struct CellResult {
    pub variant: String,
    pub point: Point,
    /// Runs planned and runs stored.
    pub planned: usize,
    pub done: usize,
    pub metrics: BTreeMap<String, MetricStats>,
    pub series: BTreeMap<String, SeriesStats>,
}

impl CellResult {
    /// The mean of a metric, if measured.
    pub fn mean(&self, metric: &str) -> Option<f64> {
        self.metrics
            .get(metric)
            .and_then(|m| m.summary.as_ref())
            .map(|s| s.mean)
    }
    pub fn summary(&self, metric: &str) -> Option<&Summary> {
        self.metrics.get(metric).and_then(|m| m.summary.as_ref())
    }
}

/// All cells of an experiment, in plan order.
#[derive(Debug, Clone, PartialEq)]
pub struct Results {
    pub experiment: String,
    pub cells: Vec<CellResult>,
}

impl Results {
    pub fn cell(&self, variant: &str, point: &Point) -> Option<&CellResult> {
        self.cells
            .iter()
            .find(|c| c.variant == variant && c.point == *point)
    }

    /// The cells of the given variants (all when empty) whose point
    /// matches `at`.
    pub fn select(&self, variants: &[String], at: &Table) -> Vec<&CellResult> {
        self.cells
            .iter()
            .filter(|c| variants.is_empty() || variants.contains(&c.variant))
            .filter(|c| c.point.matches(at))
            .collect()
    }

    /// Runs stored / planned over the whole experiment.
    pub fn completeness(&self) -> (usize, usize) {
        self.cells
            .iter()
            .fold((0, 0), |(d, p), c| (d + c.done, p + c.planned))
    }
}

/// Aggregates the stored runs (`runs[i]` belongs to `plan.runs[i]`).
pub fn aggregate(exp: &Experiment, plan: &Plan, runs: &[Option<RunFile>]) -> Results {
    let mut per_cell: Vec<Vec<&RunFile>> = vec![Vec::new(); plan.cells.len()];
    let mut planned = vec![0usize; plan.cells.len()];
    for (pr, rf) in plan.runs.iter().zip(runs) {
        planned[pr.cell] += 1;
        if let Some(rf) = rf {
            per_cell[pr.cell].push(rf);
        }
    }
    let cells = plan
        .cells
        .iter()
        .enumerate()
        .map(|(i, pc)| {
            let files = &per_cell[i];
            let mut metrics = BTreeMap::new();
            for m in &exp.spec.metrics {
                let value = |f: &RunFile| f.record.metrics.get(m.source()).map(|v| v * m.scale);
                let samples: Vec<f64> = match &m.relative_to {
                    None => files.iter().filter_map(|f| value(f)).collect(),
                    Some(base) => {
                        let reference: BTreeMap<u32, f64> = plan
                            .cell_index(base, &pc.point)
                            .map(|bi| {
                                per_cell[bi]
                                    .iter()
                                    .filter_map(|f| Some((f.repetition, value(f)?)))
                                    .collect()
                            })
                            .unwrap_or_default();
                        files
                            .iter()
                            .filter_map(|f| {
                                let x = value(f)?;
                                let r = *reference.get(&f.repetition)?;
                                match m.relation {
                                    Relation::Ratio if r != 0.0 => Some(x / r),
                                    Relation::Ratio => None,
                                    Relation::Difference => Some(x - r),
                                }
                            })
                            .collect()
                    }
                };
                let summary = summarize(&samples).ok();
                metrics.insert(m.name.clone(), MetricStats { samples, summary });
            }
            let mut series = BTreeMap::new();
            let names: std::collections::BTreeSet<&String> =
                files.iter().flat_map(|f| f.record.series.keys()).collect();
            for name in names {
                let all: Vec<&Vec<(f64, f64)>> = files
                    .iter()
                    .filter_map(|f| f.record.series.get(name))
                    .collect();
                series.insert(name.clone(), mean_series(&all));
            }
            CellResult {
                variant: pc.variant.clone(),
                point: pc.point.clone(),
                planned: planned[i],
                done: files.len(),
                metrics,
                series,
            }
        })
        .collect();
    Results {
        experiment: plan.experiment.clone(),
        cells,
    }
}

fn mean_series(all: &[&Vec<(f64, f64)>]) -> SeriesStats {
    let Some(first) = all.first() else {
        return SeriesStats {
            points: Vec::new(),
            repetitions: 0,
            averaged: false,
        };
    };
    let aligned = all
        .iter()
        .all(|s| s.len() == first.len() && s.iter().zip(first.iter()).all(|(a, b)| a.0 == b.0));
    if !aligned {
        return SeriesStats {
            points: first.to_vec(),
            repetitions: all.len(),
            averaged: false,
        };
    }
    let n = all.len() as f64;
    let points = (0..first.len())
        .map(|i| (first[i].0, all.iter().map(|s| s[i].1).sum::<f64>() / n))
        .collect();
    SeriesStats {
        points,
        repetitions: all.len(),
        averaged: true,
    }
}

impl Results {
    /// Writes the store's `summary.csv`: variant, axes, metric (display metrics),
    /// n (runs that reported it), planned, mean, std_dev, ci95, min, max.
    pub fn write_summary_csv(&self, store: &Store) -> Result<PathBuf, StoreError> {
        let results = self;
        let path = store.dir.join("summary.csv");
        let err = |e: csv::Error| StoreError::Csv {
            path: path.clone(),
            message: e.to_string(),
        };
        let mut w = csv::Writer::from_path(&path).map_err(err)?;
        let axes: Vec<String> = results
            .cells
            .first()
            .map(|c| c.point.coords.iter().map(|(n, _)| n.clone()).collect())
            .unwrap_or_default();
        let mut header = vec!["variant".to_string()];
        header.extend(axes);
        for h in [
            "metric", "n", "planned", "mean", "std_dev", "ci95", "min", "max",
        ] {
            header.push(h.to_string());
        }
        w.write_record(&header).map_err(err)?;
        let opt = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
        for c in &results.cells {
            for (m, st) in &c.metrics {
                let mut row = vec![c.variant.clone()];
                row.extend(c.point.coords.iter().map(|(_, v)| value::label(v)));
                row.push(m.clone());
                row.push(st.samples.len().to_string());
                row.push(c.planned.to_string());
                let s = st.summary.as_ref();
                row.push(opt(s.map(|s| s.mean)));
                row.push(opt(s.and_then(|s| s.std_dev)));
                row.push(opt(s.and_then(|s| s.ci95_half_width)));
                row.push(opt(s.map(|s| s.min)));
                row.push(opt(s.map(|s| s.max)));
                w.write_record(&row).map_err(err)?;
            }
        }
        w.flush().map_err(io(&path))?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_are_averaged_when_aligned() {
        let a = vec![(0.0, 1.0), (1.0, 3.0)];
        let b = vec![(0.0, 3.0), (1.0, 5.0)];
        let s = mean_series(&[&a, &b]);
        assert!(s.averaged);
        assert_eq!(s.points, vec![(0.0, 2.0), (1.0, 4.0)]);
        let c = vec![(0.5, 3.0)];
        let s = mean_series(&[&a, &c]);
        assert!(!s.averaged);
        assert_eq!(s.points, a);
        assert_eq!(mean_series(&[]).repetitions, 0);
    }
}
