//! Result storage: one directory per experiment holding `runs/<key>.json`
//! (one file per finished run, written atomically, so an interrupted
//! sweep loses only the runs in progress), and the tidy tables rebuilt
//! from them: `runs.csv` (one row per run, one column per runner metric)
//! and `summary.csv` (one row per variant, point and metric: n, mean,
//! standard deviation, 95% CI half-width).

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::experiment::value;
use crate::plan::Plan;
use crate::runner::record::RunRecord;

/// The version of the run file format.
pub const FORMAT: u32 = 1;

/// Age past which a temporary run file is an interrupted writer's
/// leftover (writing one takes milliseconds).
pub const STALE_TMP: std::time::Duration = std::time::Duration::from_secs(600);

/// A storage failure.
#[derive(Debug, Error)]
pub enum StoreError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Csv { path: PathBuf, message: String },
}

pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// One finished run as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunFile {
    pub format: u32,
    pub key: String,
    pub experiment: String,
    pub variant: String,
    pub point: Vec<(String, toml::Value)>,
    pub repetition: u32,
    pub seed: u64,
    pub runner: String,
    pub fingerprint: String,
    /// Wall-clock seconds the run took.
    pub wall_time_s: f64,
    pub record: RunRecord,
}

/// The result directory of one experiment.
#[derive(Debug, Clone)]
pub struct Store {
    pub dir: PathBuf,
}

impl Store {
    /// Opens (creating) `dir` and its `runs/` directory, and removes
    /// temporary files an interrupted writer left: those older than
    /// [`STALE_TMP`], so the files other processes are writing into the
    /// same store at this moment (the shards of a job array) are kept.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        let runs = dir.join("runs");
        std::fs::create_dir_all(&runs).map_err(io(&runs))?;
        for e in std::fs::read_dir(&runs).map_err(io(&runs))? {
            let e = e.map_err(io(&runs))?;
            let p = e.path();
            let stale = e
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_none_or(|age| age > STALE_TMP);
            if p.extension().is_some_and(|x| x == "tmp") && stale {
                // Another cleaner may have been first.
                match std::fs::remove_file(&p) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(io(&p)(e));
                    }
                    _ => {}
                }
            }
        }
        Ok(Store {
            dir: dir.to_path_buf(),
        })
    }

    pub fn run_path(&self, key: &str) -> PathBuf {
        self.dir.join("runs").join(format!("{key}.json"))
    }

    /// The stored run with this key, if there is a readable one. A file
    /// that does not parse or whose key differs is treated as missing (the
    /// run is repeated and the file replaced).
    pub fn load(&self, key: &str) -> Option<RunFile> {
        let text = std::fs::read_to_string(self.run_path(key)).ok()?;
        let f: RunFile = serde_json::from_str(&text).ok()?;
        (f.format == FORMAT && f.key == key && f.record.check(usize::MAX).is_ok()).then_some(f)
    }

    /// Writes a run file atomically (a temporary file of this process,
    /// then rename).
    pub fn save(&self, run: &RunFile) -> Result<(), StoreError> {
        let path = self.run_path(&run.key);
        let tmp = path.with_extension(format!("json.{}.tmp", std::process::id()));
        let text = serde_json::to_string_pretty(run).map_err(|e| StoreError::Io {
            path: path.clone(),
            source: std::io::Error::other(e),
        })?;
        {
            let mut f = std::fs::File::create(&tmp).map_err(io(&tmp))?;
            f.write_all(text.as_bytes()).map_err(io(&tmp))?;
            f.sync_all().map_err(io(&tmp))?;
        }
        std::fs::rename(&tmp, &path).map_err(io(&path))
    }

    /// The stored runs of a plan, in plan order (`None`: not run yet).
    pub fn load_plan(&self, plan: &Plan) -> Vec<Option<RunFile>> {
        plan.runs.iter().map(|r| self.load(&r.key)).collect()
    }

    /// Rebuilds `runs.csv` from the plan's stored runs: experiment,
    /// variant, one column per axis, repetition, seed, run_key,
    /// wall_time_s, then one column per runner metric (sorted; empty when
    /// a run did not report it).
    pub fn write_runs_csv(
        &self,
        plan: &Plan,
        runs: &[Option<RunFile>],
    ) -> Result<PathBuf, StoreError> {
        let path = self.dir.join("runs.csv");
        let err = |e: csv::Error| StoreError::Csv {
            path: path.clone(),
            message: e.to_string(),
        };
        let metrics: BTreeSet<&str> = runs
            .iter()
            .flatten()
            .flat_map(|r| r.record.metrics.keys().map(String::as_str))
            .collect();
        let axes: Vec<&str> = plan
            .points
            .first()
            .map(|p| p.coords.iter().map(|(n, _)| n.as_str()).collect())
            .unwrap_or_default();
        let mut w = csv::Writer::from_path(&path).map_err(err)?;
        let mut header = vec!["experiment", "variant"];
        header.extend(axes.iter().copied());
        header.extend(["repetition", "seed", "run_key", "wall_time_s"]);
        header.extend(metrics.iter().copied());
        w.write_record(&header).map_err(err)?;
        for (pr, rf) in plan.runs.iter().zip(runs) {
            let Some(rf) = rf else { continue };
            let cell = &plan.cells[pr.cell];
            let mut row = vec![plan.experiment.clone(), cell.variant.clone()];
            row.extend(cell.point.coords.iter().map(|(_, v)| value::label(v)));
            row.push(pr.repetition.to_string());
            row.push(pr.seed.to_string());
            row.push(pr.key.clone());
            row.push(format!("{:.3}", rf.wall_time_s));
            for m in &metrics {
                row.push(
                    rf.record
                        .metrics
                        .get(*m)
                        .map(|v| v.to_string())
                        .unwrap_or_default(),
                );
            }
            w.write_record(&row).map_err(err)?;
        }
        w.flush().map_err(io(&path))?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    #[test]
    fn open_removes_only_stale_temporary_files() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let fresh = dir.path().join("runs/a.json.7.tmp");
        let stale = dir.path().join("runs/b.json.8.tmp");
        std::fs::write(&fresh, "{").unwrap();
        std::fs::write(&stale, "{").unwrap();
        let old = SystemTime::now() - STALE_TMP - Duration::from_secs(1);
        std::fs::File::options()
            .write(true)
            .open(&stale)
            .unwrap()
            .set_modified(old)
            .unwrap();
        Store::open(&store.dir).unwrap();
        assert!(fresh.exists(), "a writer's file in progress was removed");
        assert!(!stale.exists());
    }
}
