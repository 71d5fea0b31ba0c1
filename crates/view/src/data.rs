//! What the page shows, read from a run's output directory (`msctp run
//! --out DIR`, `crates/sim/src/measure`): columns of numbers per series,
//! serialised once into the page as JSON.
//!
//! Path series come from `path_trace.csv` (every change, `output.trace =
//! true`) when the run has it, else from the samples of `paths.csv`;
//! marks from `events.csv` and the path trace's fast retransmits and
//! timeouts.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::ViewError;

/// One named series: times (s) and one or more value columns.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Series {
    pub name: String,
    pub t: Vec<f64>,
    /// Column name -> values (same length as `t`; `None`: no value).
    pub cols: BTreeMap<String, Vec<Option<f64>>>,
}

impl Series {
    fn new(name: &str) -> Self {
        Series {
            name: name.to_string(),
            ..Default::default()
        }
    }

    fn push(&mut self, t: f64, values: &[(&str, Option<f64>)]) {
        self.t.push(t);
        for (k, v) in values {
            self.cols.entry((*k).to_string()).or_default().push(*v);
        }
    }
}

/// A mark on the time axis: an event, with the category that colours it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mark {
    pub t: f64,
    /// "handover", "asconf", "path", "timeout", "fast_rtx", "link",
    /// "baseline" or "other".
    pub cat: &'static str,
    pub source: String,
    pub kind: String,
    pub detail: String,
}

/// Everything the page draws.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ViewData {
    pub title: String,
    /// The run's map (`map.json`), as written by the simulator; `null` for
    /// a live transfer.
    pub map: serde_json::Value,
    pub duration_s: f64,
    /// Per path: cwnd, ssthresh, flight (bytes), srtt_ms, rto_ms.
    pub paths: Vec<Series>,
    /// Whether `paths` is the event-driven trace (else samples).
    pub paths_traced: bool,
    /// Per flow: goodput_bps.
    pub goodput: Vec<Series>,
    /// Per flow: delay_ms, jitter_ms.
    pub delays: Vec<Series>,
    /// Per queue: packets.
    pub queues: Vec<Series>,
    pub marks: Vec<Mark>,
    /// The series' rows before [`ViewData::decimate`] thinned them, if
    /// it did (the page says so).
    pub decimated_from: Option<usize>,
}

/// The category of an event line of `events.csv` (source, kind).
pub fn category(source: &str, kind: &str) -> &'static str {
    let k = kind.to_ascii_lowercase();
    if k == "decision" || k.contains("primary") || k.contains("handover") {
        "handover"
    } else if k.contains("asconf") || k.contains("local-address") || k.contains("peer-address") {
        "asconf"
    } else if k.starts_with("path-") || k.contains("unreachable") || k.contains("confirmed") {
        "path"
    } else if source.starts_with("radio/") || k.starts_with("link") {
        "link"
    } else if source.starts_with("sctp/") {
        "other"
    } else if source == "network" {
        "link"
    } else {
        "baseline"
    }
}

fn read_csv(path: &Path) -> Result<Option<(csv::StringRecord, Vec<csv::StringRecord>)>, ViewError> {
    if !path.exists() {
        return Ok(None);
    }
    let err = |e: csv::Error| ViewError::Input(format!("{}: {e}", path.display()));
    let mut r = csv::Reader::from_path(path).map_err(err)?;
    let head = r.headers().map_err(err)?.clone();
    let rows = r.records().collect::<Result<Vec<_>, _>>().map_err(err)?;
    Ok(Some((head, rows)))
}

/// Column accessor by header name.
struct Cols(csv::StringRecord);

impl Cols {
    fn idx(&self, name: &str, file: &str) -> Result<usize, ViewError> {
        self.0
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| ViewError::Input(format!("{file}: no column {name}")))
    }
}

fn num(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Series keyed by `key`, in first-seen order.
fn group<'a>(out: &'a mut Vec<Series>, key: &str) -> &'a mut Series {
    match out.iter().position(|s| s.name == key) {
        Some(i) => &mut out[i],
        None => {
            out.push(Series::new(key));
            out.last_mut().expect("just pushed")
        }
    }
}

impl ViewData {
    /// Reads a run's output directory.
    pub fn load(dir: &Path) -> Result<ViewData, ViewError> {
        if !dir.join("summary.json").exists() {
            return Err(ViewError::Input(format!(
                "{}: not a run's output directory (no summary.json; `msctp run --out DIR`)",
                dir.display()
            )));
        }
        let summary: serde_json::Value = read_json(&dir.join("summary.json"))?;
        let map = if dir.join("map.json").exists() {
            read_json(&dir.join("map.json"))?
        } else {
            serde_json::Value::Null
        };
        let mut v = ViewData {
            title: format!(
                "{} (seed {})",
                summary["scenario"].as_str().unwrap_or("run"),
                summary["seed"]
            ),
            duration_s: summary["duration_s"].as_f64().unwrap_or(0.0),
            map,
            ..Default::default()
        };
        v.load_paths(dir)?;
        v.load_simple(
            dir,
            "goodput.csv",
            "flow",
            &[("goodput_bps", "goodput_bps")],
        )?;
        v.load_simple(
            dir,
            "delays.csv",
            "flow",
            &[("delay_ms", "delay_ms"), ("jitter_ms", "jitter_ms")],
        )?;
        v.load_simple(dir, "queues.csv", "queue", &[("packets", "packets")])?;
        v.load_events(dir)?;
        v.marks
            .sort_by(|a, b| a.t.partial_cmp(&b.t).unwrap_or(std::cmp::Ordering::Equal));
        Ok(v)
    }

    fn load_paths(&mut self, dir: &Path) -> Result<(), ViewError> {
        let traced = read_csv(&dir.join("path_trace.csv"))?;
        self.paths_traced = traced.is_some();
        let (file, data) = match traced {
            Some(d) => ("path_trace.csv", d),
            None => match read_csv(&dir.join("paths.csv"))? {
                Some(d) => ("paths.csv", d),
                None => return Ok(()),
            },
        };
        let c = Cols(data.0);
        let [
            flow,
            side,
            time,
            remote,
            path,
            cwnd,
            ssthresh,
            flight,
            srtt,
            rto,
        ] = [
            "flow", "side", "time_s", "remote", "path", "cwnd", "ssthresh", "flight", "srtt_ms",
            "rto_ms",
        ]
        .map(|n| c.idx(n, file));
        let (flow, side, time, remote, path) = (flow?, side?, time?, remote?, path?);
        let (cwnd, ssthresh, flight, srtt, rto) = (cwnd?, ssthresh?, flight?, srtt?, rto?);
        let cause = c.idx("cause", file).ok();
        for r in &data.1 {
            let t = num(&r[time]).unwrap_or(0.0);
            let p = &r[path];
            let key = if p == "-1" {
                format!("{} {} → {}", &r[flow], &r[side], &r[remote])
            } else {
                format!("{} {} → {} (path {p})", &r[flow], &r[side], &r[remote])
            };
            group(&mut self.paths, &key).push(
                t,
                &[
                    ("cwnd", num(&r[cwnd])),
                    ("ssthresh", num(&r[ssthresh])),
                    ("flight", num(&r[flight])),
                    ("srtt_ms", num(&r[srtt])),
                    ("rto_ms", num(&r[rto])),
                ],
            );
            if let Some(ci) = cause {
                let cat = match &r[ci] {
                    "timeout" => "timeout",
                    "fast_retransmit" => "fast_rtx",
                    _ => continue,
                };
                self.marks.push(Mark {
                    t,
                    cat,
                    source: format!("sctp/{}/{}", &r[flow], &r[side]),
                    kind: r[ci].to_string(),
                    detail: format!("{key}: cwnd {} ssthresh {}", &r[cwnd], &r[ssthresh]),
                });
            }
        }
        Ok(())
    }

    fn load_simple(
        &mut self,
        dir: &Path,
        file: &str,
        key_col: &str,
        cols: &[(&str, &str)],
    ) -> Result<(), ViewError> {
        let Some(data) = read_csv(&dir.join(file))? else {
            return Ok(());
        };
        let c = Cols(data.0);
        let key = c.idx(key_col, file)?;
        let time = c.idx("time_s", file)?;
        let idx = cols
            .iter()
            .map(|(from, to)| c.idx(from, file).map(|i| (i, *to)))
            .collect::<Result<Vec<_>, _>>()?;
        let out = match file {
            "goodput.csv" => &mut self.goodput,
            "delays.csv" => &mut self.delays,
            _ => &mut self.queues,
        };
        for r in &data.1 {
            let vals: Vec<(&str, Option<f64>)> =
                idx.iter().map(|(i, to)| (*to, num(&r[*i]))).collect();
            group(out, &r[key]).push(num(&r[time]).unwrap_or(0.0), &vals);
        }
        Ok(())
    }

    fn load_events(&mut self, dir: &Path) -> Result<(), ViewError> {
        let Some(data) = read_csv(&dir.join("events.csv"))? else {
            return Ok(());
        };
        let c = Cols(data.0);
        let file = "events.csv";
        let (time, source, kind, detail) = (
            c.idx("time_s", file)?,
            c.idx("source", file)?,
            c.idx("kind", file)?,
            c.idx("detail", file)?,
        );
        for r in &data.1 {
            // Receive notifications carry no news for the eye.
            if matches!(&r[kind], "readable" | "writable") {
                continue;
            }
            self.marks.push(Mark {
                t: num(&r[time]).unwrap_or(0.0),
                cat: category(&r[source], &r[kind]),
                source: r[source].to_string(),
                kind: r[kind].to_string(),
                detail: r[detail].to_string(),
            });
        }
        Ok(())
    }
}

fn read_json(path: &Path) -> Result<serde_json::Value, ViewError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ViewError::Input(format!("{}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| ViewError::Input(format!("{}: {e}", path.display())))
}
