//! Markdown: the study's tables, and `docs/REPRODUCTION.md`: per
//! experiment its figures, tables, the published values beside ours with
//! a plain verdict, the analytic models beside the measurements, each
//! claim's verdict, and our notes explaining every difference.

pub mod plot;
pub mod robustness_figure;

use std::fmt::Write;

use crate::aggregate::CellResult;
use crate::analysis::verdicts::{Verdict, fmt};
use crate::analysis::{Analysis, PublishedVerdict};
use crate::execute::FailedRun;
use crate::experiment::checks::Expect;
use crate::experiment::value;
use crate::experiment::{Experiment, ExperimentSpec, TableSpec};
use crate::plan::Plan;
use crate::robustness::RobustnessMap;

/// One experiment's material for the report.
#[derive(Debug, Clone)]
pub struct ExperimentReport<'a> {
    pub exp: &'a Experiment,
    pub plan: &'a Plan,
    pub analysis: &'a Analysis,
    /// (figure id, title, PNG path relative to the report).
    pub figures: Vec<(String, String, String)>,
    pub failed: Vec<FailedRun>,
    /// The study's stored robustness map, if any, and its figure's PNG
    /// path relative to the report.
    pub robustness: Option<(&'a RobustnessMap, Option<String>)>,
}

/// Escapes text for a Markdown table cell.
pub fn cell_text(s: &str) -> String {
    s.replace('|', "\\|").replace(['\n', '\r'], " ")
}

fn mean_ci(c: &CellResult, metric: &str, decimals: usize) -> String {
    match c.summary(metric) {
        None => "—".into(),
        Some(s) => {
            let mut t = match s.ci95_half_width {
                Some(h) => format!("{:.decimals$} ± {:.decimals$}", s.mean, h),
                None => format!("{:.decimals$}", s.mean),
            };
            if s.n < c.planned {
                let _ = write!(t, " (n={})", s.n);
            }
            t
        }
    }
}

/// The explanation cell: the note, or a visible gap where a difference
/// has no explanation yet.
fn why(note: Option<&str>, differs: bool) -> String {
    match note {
        Some(n) if !n.trim().is_empty() => cell_text(n),
        _ if differs => "*not explained yet*".into(),
        _ => String::new(),
    }
}

/// One table of the study as Markdown.
pub fn table_markdown(exp: &Experiment, plan: &Plan, analysis: &Analysis, t: &TableSpec) -> String {
    let view = TableView {
        spec: &exp.spec,
        plan,
        analysis,
        t,
    };
    let variants = t
        .variants
        .clone()
        .unwrap_or_else(|| view.spec.variant_names());
    let mut cells: Vec<&CellResult> = analysis.results.select(&variants, &t.at);
    cells.sort_by_key(|c| {
        t.rows
            .iter()
            .map(|r| view.position(c, r))
            .collect::<Vec<_>>()
    });
    let with_paper: Vec<bool> = t
        .columns
        .iter()
        .map(|m| cells.iter().any(|c| view.published(c, m).is_some()))
        .collect();
    let header = view.header(&with_paper);
    let mut out = String::new();
    let _ = writeln!(out, "{}", markdown_row(&header));
    let _ = writeln!(out, "|{}", "---|".repeat(header.len()));
    for c in cells {
        let _ = writeln!(out, "{}", markdown_row(&view.row(c, &with_paper)));
    }
    out
}

/// `| a | b |`, each cell's text escaped.
fn markdown_row(cells: &[String]) -> String {
    format!(
        "| {} |",
        cells
            .iter()
            .map(|h| cell_text(h))
            .collect::<Vec<_>>()
            .join(" | ")
    )
}

/// A table of the report: its spec and what it shows.
struct TableView<'a> {
    spec: &'a ExperimentSpec,
    plan: &'a Plan,
    analysis: &'a Analysis,
    t: &'a TableSpec,
}

impl TableView<'_> {
    /// Where cell `c` sorts along row dimension `dim` (a variant in plan
    /// order, an axis value in the axis's order).
    fn position(&self, c: &CellResult, dim: &str) -> usize {
        if dim == "variant" {
            return self
                .plan
                .variants
                .iter()
                .position(|v| *v == c.variant)
                .unwrap_or(usize::MAX);
        }
        let vals = self
            .spec
            .axis(dim)
            .map(|a| a.values.as_slice())
            .unwrap_or_default();
        c.point
            .get(dim)
            .and_then(|v| vals.iter().position(|w| value::same(v, w)))
            .unwrap_or(usize::MAX)
    }

    /// The paper's value of `metric` at cell `c`, if it publishes one.
    fn published(&self, c: &CellResult, metric: &str) -> Option<f64> {
        self.spec
            .published
            .iter()
            .filter(|p| p.metric == metric)
            .filter(|p| p.variant.as_deref().unwrap_or(&self.plan.variants[0]) == c.variant)
            .find(|p| c.point.matches(&p.at))
            .map(|p| p.value)
    }

    /// The row dimensions, each metric (and the paper's value where
    /// `with_paper`), each formula.
    fn header(&self, with_paper: &[bool]) -> Vec<String> {
        let (spec, t) = (self.spec, self.t);
        let mut header: Vec<String> = t
            .rows
            .iter()
            .map(|r| {
                if r == "variant" {
                    "Variant".to_string()
                } else {
                    spec.axis(r)
                        .and_then(|a| a.label.clone())
                        .unwrap_or_else(|| r.clone())
                }
            })
            .collect();
        for (m, has) in t.columns.iter().zip(with_paper) {
            let label = spec
                .metric(m)
                .map(|x| x.axis_label())
                .unwrap_or_else(|| m.clone());
            header.push(label.clone());
            if *has {
                header.push(format!("paper: {label}"));
            }
        }
        for fid in &t.formulas {
            let f = spec.formulas.iter().find(|f| f.id == *fid);
            let mut l = f.map(|f| f.label()).unwrap_or_else(|| fid.clone());
            if let Some(f) = f
                && !f.unit.is_empty()
            {
                let _ = write!(l, " ({})", f.unit);
            }
            header.push(format!("analytic: {l}"));
        }
        header
    }

    /// Cell `c`'s row, in the header's order.
    fn row(&self, c: &CellResult, with_paper: &[bool]) -> Vec<String> {
        let (spec, t, d) = (self.spec, self.t, self.t.decimals);
        let mut row: Vec<String> = t
            .rows
            .iter()
            .map(|r| {
                if r == "variant" {
                    spec.variant_label(&c.variant)
                } else {
                    c.point.get(r).map(value::label).unwrap_or_default()
                }
            })
            .collect();
        for (m, has) in t.columns.iter().zip(with_paper) {
            row.push(mean_ci(c, m, d));
            if *has {
                row.push(
                    self.published(c, m)
                        .map(|v| format!("{v:.d$}"))
                        .unwrap_or_else(|| "—".into()),
                );
            }
        }
        for fid in &t.formulas {
            let v = self
                .analysis
                .formulas
                .get(&(fid.clone(), c.variant.clone(), c.point.label()));
            row.push(match v {
                Some(Ok(x)) => format!("{x:.d$}"),
                Some(Err(e)) => format!("n/a ({e})"),
                None => "—".into(),
            });
        }
        row
    }
}

/// The section of one experiment.
pub fn experiment_section(r: &ExperimentReport) -> String {
    let mut s = String::new();
    runs_section(&mut s, r);
    figures_section(&mut s, r);
    tables_section(&mut s, r);
    published_section(&mut s, r);
    formulas_section(&mut s, r);
    claims_section(&mut s, r);
    if let Some((m, fig)) = &r.robustness {
        robustness_section(&mut s, m, fig.as_deref());
    }
    notes_section(&mut s, r);
    failed_section(&mut s, r);
    s
}

/// The experiment's title, paper, description and what of its runs is stored.
fn runs_section(s: &mut String, r: &ExperimentReport) {
    let spec = &r.exp.spec;
    let _ = writeln!(s, "## {}: {}\n", spec.id, spec.title);
    if !spec.paper.is_empty() {
        let _ = writeln!(s, "*Paper:* {}\n", spec.paper);
    }
    if !spec.description.trim().is_empty() {
        let _ = writeln!(s, "{}\n", spec.description.trim());
    }
    let (done, planned) = r.analysis.results.completeness();
    let axes: Vec<String> = spec
        .axes
        .iter()
        .map(|a| {
            let vals = spec.axis_values(a, r.plan.quick);
            format!("{} ({} values)", a.name, vals.len())
        })
        .collect();
    let _ = writeln!(
        s,
        "*Runs:* {done} of {planned} stored — {} variant(s){}{} × {} repetition(s){}; seeds {}.\n",
        r.plan.variants.len(),
        if axes.is_empty() { "" } else { " × " },
        axes.join(" × "),
        r.plan.repetitions,
        if r.plan.quick {
            " — **quick mode: fewer repetitions and points than the study; figures are indicative only**"
        } else {
            ""
        },
        match spec.seeds {
            crate::experiment::SeedMode::Independent => "independent per run",
            crate::experiment::SeedMode::Common =>
                "common to the variants of a point and repetition",
        }
    );
    if done < planned {
        let _ = writeln!(
            s,
            "**Incomplete:** {} run(s) missing; the numbers below use the runs stored.\n",
            planned - done
        );
    }
}

/// The figures, each with a link to its SVG.
fn figures_section(s: &mut String, r: &ExperimentReport) {
    if !r.figures.is_empty() {
        let _ = writeln!(s, "### Figures\n");
        for (id, title, path) in &r.figures {
            let _ = writeln!(s, "![{}]({path})\n", cell_text(title));
            let _ = writeln!(
                s,
                "*{id}: {title}* ([SVG]({}))\n",
                path.replace(".png", ".svg")
            );
        }
    }
}

/// The experiment's tables ([`table_markdown`]).
fn tables_section(s: &mut String, r: &ExperimentReport) {
    let spec = &r.exp.spec;
    for t in &spec.tables {
        let src = if t.source.is_empty() {
            String::new()
        } else {
            format!(" (cf. {})", t.source)
        };
        let _ = writeln!(s, "### {}{src}\n", t.title);
        let _ = writeln!(s, "{}", table_markdown(r.exp, r.plan, r.analysis, t));
    }
}

/// The paper's published values beside ours, with their verdicts.
fn published_section(s: &mut String, r: &ExperimentReport) {
    let spec = &r.exp.spec;
    if !r.analysis.published.is_empty() {
        let _ = writeln!(s, "### Published values beside ours\n");
        let _ = writeln!(
            s,
            "| Variant | Point | Metric | Paper | Ours (mean ± 95% CI) | Difference | Verdict | Source | Why |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
        for p in &r.analysis.published {
            let metric = spec
                .metric(&p.spec.metric)
                .map(|m| m.axis_label())
                .unwrap_or_else(|| p.spec.metric.clone());
            let ours = match (p.ours_mean, p.ours_ci) {
                (Some(m), Some(h)) => format!("{} ± {} (n={})", fmt(m), fmt(h), p.n),
                (Some(m), None) => format!("{} (n={})", fmt(m), p.n),
                _ => "—".into(),
            };
            let diff = p
                .relative_difference
                .map(|d| format!("{:+.1}%", d * 100.0))
                .unwrap_or_else(|| "—".into());
            let verdict = match p.verdict {
                PublishedVerdict::Agrees => format!("agrees (±{:.0}% or CI)", p.tolerance * 100.0),
                v => format!("**{}**", v.word()),
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                cell_text(&spec.variant_label(&p.variant)),
                cell_text(&p.point),
                cell_text(&metric),
                fmt(p.spec.value),
                ours,
                diff,
                verdict,
                cell_text(&p.spec.source),
                why(
                    p.spec.note.as_deref(),
                    p.verdict != PublishedVerdict::Agrees
                )
            );
        }
        let _ = writeln!(s);
    }
}

/// The analytic models and their values beside the measured ones.
fn formulas_section(s: &mut String, r: &ExperimentReport) {
    let spec = &r.exp.spec;
    if !spec.formulas.is_empty() {
        let _ = writeln!(s, "### Analytic models beside the simulation\n");
        for f in &spec.formulas {
            let _ = writeln!(
                s,
                "- **{}** (`{}`): {}{}",
                cell_text(&f.label()),
                f.kind.name(),
                f.kind.text(),
                if f.unit.is_empty() {
                    String::new()
                } else {
                    format!(", in {}", f.unit)
                }
            );
        }
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "| Formula | Variant | Point | Analytic | Measured | Measured / analytic |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|");
        for f in &spec.formulas {
            for c in &r.analysis.results.cells {
                let Some(v) =
                    r.analysis
                        .formulas
                        .get(&(f.id.clone(), c.variant.clone(), c.point.label()))
                else {
                    continue;
                };
                let analytic = match v {
                    Ok(x) => fmt(*x),
                    Err(e) => format!("n/a ({e})"),
                };
                let (measured, ratio) = match (&f.compare, v) {
                    (Some(m), Ok(a)) => match c.summary(m) {
                        Some(sm) => (
                            match sm.ci95_half_width {
                                Some(h) => format!("{} ± {} ({m})", fmt(sm.mean), fmt(h)),
                                None => format!("{} ({m})", fmt(sm.mean)),
                            },
                            if *a != 0.0 {
                                fmt(sm.mean / a)
                            } else {
                                "—".into()
                            },
                        ),
                        None => (format!("— ({m} not measured)"), "—".into()),
                    },
                    _ => ("—".into(), "—".into()),
                };
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} | {} |",
                    cell_text(&f.label()),
                    cell_text(&spec.variant_label(&c.variant)),
                    cell_text(&c.point.label()),
                    cell_text(&analytic),
                    cell_text(&measured),
                    ratio
                );
            }
        }
        let _ = writeln!(s);
    }
}

/// The paper's claims and their verdicts on our results.
fn claims_section(s: &mut String, r: &ExperimentReport) {
    if !r.analysis.checks.is_empty() {
        let _ = writeln!(s, "### The paper's claims, checked on our results\n");
        let _ = writeln!(
            s,
            "| Claim | Source | Our result | Numbers | Why | Over the unsaid values |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|");
        for c in &r.analysis.checks {
            let verdict = match (c.verdict, c.expect) {
                (Verdict::Agrees, _) => "agrees".to_string(),
                (Verdict::Disagrees, Expect::Disagree) => "**disagrees** (known difference)".into(),
                (Verdict::Disagrees, Expect::Agree) => "**disagrees** (unexpected)".into(),
                (Verdict::NotEvaluated, _) => "**not evaluated**".into(),
            };
            let verdict = if c.verdict == Verdict::Agrees && c.expect == Expect::Disagree {
                "agrees (a difference was expected)".to_string()
            } else {
                verdict
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} |",
                cell_text(&c.claim),
                cell_text(&c.source),
                verdict,
                cell_text(&c.detail),
                why(c.note.as_deref(), c.verdict != Verdict::Agrees),
                cell_text(&robustness_cell(
                    r.robustness.as_ref().map(|m| m.0),
                    c.index
                ))
            );
        }
        let _ = writeln!(s);
    }
}

/// The experiment's notes.
fn notes_section(s: &mut String, r: &ExperimentReport) {
    let spec = &r.exp.spec;
    if !spec.notes.is_empty() {
        let _ = writeln!(s, "### Notes\n");
        for n in &spec.notes {
            match &n.about {
                Some(a) => {
                    let _ = writeln!(s, "- **{a}**: {}", n.text.trim());
                }
                None => {
                    let _ = writeln!(s, "- {}", n.text.trim());
                }
            }
        }
        let _ = writeln!(s);
    }
}

/// The failed runs (the first 20).
fn failed_section(s: &mut String, r: &ExperimentReport) {
    if !r.failed.is_empty() {
        let _ = writeln!(s, "### Failed runs\n");
        for f in r.failed.iter().take(20) {
            let _ = writeln!(s, "- {}: {}", f.what, cell_text(&f.error.to_string()));
        }
        if r.failed.len() > 20 {
            let _ = writeln!(s, "- ... and {} more", r.failed.len() - 20);
        }
        let _ = writeln!(s);
    }
}

/// The robustness column of a claim: its share over the study's map, or
/// why it has none.
fn robustness_cell(map: Option<&RobustnessMap>, check: usize) -> String {
    let Some(m) = map else {
        return "not mapped".into();
    };
    if let Some(c) = m.claims.iter().find(|c| c.check == check) {
        return format!(
            "holds in {}; most moved by {}",
            RobustnessMap::share_text(c),
            m.influence_text(c)
        );
    }
    match m.unmapped.iter().find(|u| u.check == check) {
        Some(u) => format!("not mapped: {}", u.why),
        None => "not mapped (the map predates this claim)".into(),
    }
}

/// The map's parameters, size and figure.
fn robustness_section(s: &mut String, m: &RobustnessMap, figure: Option<&str>) {
    let _ = writeln!(
        s,
        "### Robustness over the values the paper leaves unsaid\n"
    );
    let _ = writeln!(
        s,
        "`msctp reproduce --robustness`: {} Latin hypercube points over the space below, \
         each run as the quick study ({} of {} runs stored); a claim's share is the part of \
         the points where it holds, with its 95% Wilson interval; \"most moved by\" is the \
         parameter with the largest difference in holding share between its range's upper \
         and lower halves (or between its choices).\n",
        m.points, m.stored, m.planned
    );
    let _ = writeln!(s, "| Parameter | Keys | Range | Why unsaid |");
    let _ = writeln!(s, "|---|---|---|---|");
    for p in &m.params {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |",
            cell_text(&p.name),
            cell_text(&p.keys.join(", ")),
            cell_text(&p.domain),
            cell_text(&p.reason)
        );
    }
    let _ = writeln!(s);
    if let Some(f) = figure {
        let _ = writeln!(
            s,
            "![Claims over the two parameters that move each most]({f})\n"
        );
    }
}

/// The whole `REPRODUCTION.md`. `missing` lists experiments that could
/// not be reported, with the reason.
pub fn reproduction_md(reports: &[ExperimentReport], missing: &[(String, String)]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Reproduction of the mobility studies\n");
    let _ = writeln!(
        s,
        "Generated by `msctp reproduce` from the stored results and the experiment files in \
         `experiments/`; do not edit by hand (edit the notes in the experiment files). \
         Every number is a mean over independent repetitions with its 95% Student-t \
         confidence interval.\n"
    );
    let _ = writeln!(
        s,
        "| Study | Runs | Claims as expected | Published values agreeing | Mode | Robustness map |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|");
    for r in reports {
        let (done, planned) = r.analysis.results.completeness();
        let checks = &r.analysis.checks;
        let ok = checks.iter().filter(|c| c.as_expected()).count();
        let pubs = &r.analysis.published;
        let agree = pubs
            .iter()
            .filter(|p| p.verdict == PublishedVerdict::Agrees)
            .count();
        let _ = writeln!(
            s,
            "| [{}: {}](#{}) | {done}/{planned} | {ok}/{} | {agree}/{} | {} | {} |",
            r.exp.spec.id,
            cell_text(&r.exp.spec.title),
            anchor(&format!("{}: {}", r.exp.spec.id, r.exp.spec.title)),
            checks.len(),
            pubs.len(),
            if r.plan.quick { "quick" } else { "full" },
            match r.robustness {
                Some((m, _)) => format!("{} points, {} claims", m.points, m.claims.len()),
                None if checks.is_empty() => "no claims".into(),
                None => "not mapped".into(),
            }
        );
    }
    for (id, why) in missing {
        let _ = writeln!(s, "| {id} | not reported: {} | | | | |", cell_text(why));
    }
    let _ = writeln!(s);
    for r in reports {
        s.push_str(&experiment_section(r));
    }
    s
}

/// GitHub's heading anchor.
fn anchor(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c)
            } else if c == ' ' {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}
