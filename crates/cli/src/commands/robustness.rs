//! `msctp reproduce --robustness`: the robustness maps of the selected
//! studies (`msctp_lab::pipeline::robustness`). This file only selects,
//! calls the library and prints.

use std::process::ExitCode;

use anyhow::{Context, bail};
use msctp_lab::pipeline::robustness::{prepare_map, run_maps};
use msctp_lab::{Experiment, LabOptions, runner};

use super::lab::{ReproduceArgs, exec_options, only_asked, reproduce_shard, studies};

/// `msctp reproduce --robustness`: the maps of the studies asked for.
pub fn reproduce(a: ReproduceArgs) -> anyhow::Result<ExitCode> {
    let (all, asked) = studies(&a)?;
    reproduce_maps(&a, only_asked(all, asked))
}

/// Runs (or, with `--shard`, runs a slice of; with `--report-only`,
/// reports from the stored runs) the maps of the selected studies that
/// declare `[robustness]` and make claims (a study of diagnoses alone,
/// such as E7a-causes, has nothing to map), and prints each map.
fn reproduce_maps(a: &ReproduceArgs, selected: Vec<Experiment>) -> anyhow::Result<ExitCode> {
    let (studies, skipped): (Vec<_>, Vec<_>) = selected
        .into_iter()
        .partition(|e| e.spec.robustness.is_some() && !e.spec.checks.is_empty());
    let ids = |pick: &dyn Fn(&Experiment) -> bool| {
        skipped
            .iter()
            .filter(|e| pick(e))
            .map(|e| e.spec.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let undeclared = ids(&|e| e.spec.robustness.is_none());
    if !undeclared.is_empty() {
        println!("not mapped (no [robustness] section): {undeclared}");
    }
    let claimless = ids(&|e| e.spec.robustness.is_some());
    if !claimless.is_empty() {
        println!("not mapped (no claims to map): {claimless}");
    }
    if studies.is_empty() {
        bail!("none of the selected studies declares [robustness] and makes claims");
    }
    let n = a.robustness_points;
    let mut runners = Vec::new();
    for e in &studies {
        runners.push(
            runner::by_name(&e.spec.runner)
                .map_err(|m| anyhow::anyhow!("{}: {m}", e.path.display()))?,
        );
    }
    if let Some(shard) = a.shard {
        let mut maps = Vec::new();
        for (e, r) in studies.iter().zip(&runners) {
            let m = prepare_map(e, n, r.as_ref())
                .with_context(|| format!("robustness map of {}", e.spec.id))?;
            maps.push(m.exp);
        }
        return reproduce_shard(a, maps, shard);
    }
    let mut opts = LabOptions::new(&a.out);
    opts.repetitions = a.reps;
    opts.exec = exec_options(a.jobs, a.fresh)?;
    let t0 = std::time::Instant::now();
    let pairs = studies
        .into_iter()
        .zip(&runners)
        .map(|(e, r)| (e, r.as_ref() as &dyn msctp_lab::Runner))
        .collect();
    let maps = run_maps(pairs, n, !a.report_only, &opts)?;
    let mut bad = false;
    for m in &maps {
        let e = &m.run.exec;
        print!("{}", m.map.text());
        println!(
            "  {} runs ({} run now, {} stored before, {} failed), {:.1} s of runs ({:.1} s CPU); map in {}",
            e.total,
            e.executed,
            e.cached,
            e.failed.len(),
            e.run_time.as_secs_f64(),
            e.run_cpu.as_secs_f64(),
            m.run.dir.display()
        );
        for f in e.failed.iter().take(10) {
            eprintln!("  failed: {}: {}", f.what, f.error);
        }
        bad |= !e.failed.is_empty() || m.map.stored < m.map.planned;
    }
    println!(
        "robustness: {} studies, {n} points each, in {:.1} s on {} workers",
        maps.len(),
        t0.elapsed().as_secs_f64(),
        opts.exec.jobs
    );
    Ok(if bad {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
