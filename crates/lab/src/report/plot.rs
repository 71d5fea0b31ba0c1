//! Figures as PNG and SVG with `plotters`: one line per variant with 95%
//! confidence-interval error bars, analytic formulas as dashed lines, the
//! paper's published values as crosses, a legend, and the study's axes
//! and units. Text uses the DejaVu Sans font embedded in the binary (no
//! system font library needed).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use thiserror::Error;

use crate::analysis::Analysis;
use crate::experiment::value;
use crate::experiment::{Experiment, ExperimentSpec, FigureSpec};
use crate::plan::Plan;

/// A figure that could not be drawn.
#[derive(Debug, Error)]
#[error("figure `{figure}`: {message}")]
pub struct PlotError {
    pub figure: String,
    pub message: String,
}

/// Picture size in pixels.
pub const SIZE: (u32, u32) = (960, 600);

/// A line of the figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub label: String,
    pub color: usize,
    /// (x, y, 95% CI half-width).
    pub points: Vec<(f64, f64, Option<f64>)>,
    pub dashed: bool,
    /// Joined by a line (numeric x) or markers only (categories).
    pub connect: bool,
}

/// Published values of one variant: (legend label, colour index,
/// points).
pub type Marks = (String, usize, Vec<(f64, f64)>);

/// Everything drawn, independent of the backend.
#[derive(Debug, Clone, PartialEq)]
pub struct FigureData {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// Category names when the x axis is not numeric (x = index).
    pub categories: Option<Vec<String>>,
    pub lines: Vec<Line>,
    pub published: Vec<Marks>,
    pub y_range: Option<[f64; 2]>,
    pub y_from_zero: bool,
}

/// Collects the data of one figure from the analysis.
pub fn figure_data(
    exp: &Experiment,
    plan: &Plan,
    analysis: &Analysis,
    fig: &FigureSpec,
) -> FigureData {
    let mut data = FigureData {
        title: if fig.source.is_empty() {
            fig.title.clone()
        } else {
            format!("{} (cf. {})", fig.title, fig.source)
        },
        x_label: String::new(),
        y_label: String::new(),
        categories: None,
        lines: Vec::new(),
        published: Vec::new(),
        y_range: fig.y_range,
        y_from_zero: fig.y_from_zero,
    };
    match (&fig.y, &fig.x) {
        (Some(y), Some(x)) => AxisFigure::new(&exp.spec, plan, analysis, fig, x, y).fill(&mut data),
        _ => series_figure(&exp.spec, analysis, fig, &mut data),
    }
    data
}

/// A figure of metric `y` along axis `x`: a line per variant (or per
/// variant and value of `lines`), the formulas dashed, the paper's values.
struct AxisFigure<'a> {
    spec: &'a ExperimentSpec,
    plan: &'a Plan,
    analysis: &'a Analysis,
    fig: &'a FigureSpec,
    x: &'a str,
    y: &'a str,
    /// The axis's values are numbers (else categories).
    numeric: bool,
    /// The axis's values present in this plan.
    present: Vec<toml::Value>,
}

/// A line group: (variant, where, legend label, colour index).
type Group = (String, toml::Table, String, usize);

impl<'a> AxisFigure<'a> {
    fn new(
        spec: &'a ExperimentSpec,
        plan: &'a Plan,
        analysis: &'a Analysis,
        fig: &'a FigureSpec,
        x: &'a str,
        y: &'a str,
    ) -> Self {
        let all_values = spec.axis(x).map(|a| a.values.clone()).unwrap_or_default();
        let numeric = all_values.iter().all(|v| value::as_number(v).is_some());
        let present = present_values(plan, x, all_values);
        AxisFigure {
            spec,
            plan,
            analysis,
            fig,
            x,
            y,
            numeric,
            present,
        }
    }

    /// Where value `v` of the axis is drawn: itself, or its category's
    /// index.
    fn xpos(&self, v: &toml::Value) -> Option<f64> {
        if self.numeric {
            value::as_number(v)
        } else {
            self.present
                .iter()
                .position(|w| value::same(v, w))
                .map(|i| i as f64)
        }
    }

    fn fill(&self, data: &mut FigureData) {
        let (spec, fig, x, y) = (self.spec, self.fig, self.x, self.y);
        if !self.numeric {
            data.categories = Some(self.present.iter().map(value::label).collect());
        }
        let axis = spec.axis(x);
        data.x_label = fig
            .x_label
            .clone()
            .or_else(|| axis.and_then(|a| a.label.clone()))
            .unwrap_or_else(|| x.to_string());
        data.y_label = fig.y_label.clone().unwrap_or_else(|| {
            spec.metric(y)
                .map(|m| m.axis_label())
                .unwrap_or_else(|| y.to_string())
        });
        let groups = self.groups();
        let n_groups = groups.len();
        for (gi, g) in groups.into_iter().enumerate() {
            // Categories: lines side by side around the category.
            let dodge = if self.numeric {
                0.0
            } else {
                (gi as f64 - (n_groups as f64 - 1.0) / 2.0) * (0.4 / n_groups.max(1) as f64)
            };
            self.group_lines(&g, dodge, data);
        }
    }

    /// One line per variant, or per (variant, value of `lines`).
    fn groups(&self) -> Vec<Group> {
        let (spec, fig) = (self.spec, self.fig);
        let variants: Vec<String> = fig.variants.clone().unwrap_or_else(|| spec.variant_names());
        let all_variants = spec.variant_names();
        let mut groups: Vec<Group> = Vec::new();
        let Some(la) = &fig.lines else {
            for v in &variants {
                let color = all_variants.iter().position(|w| w == v).unwrap_or(0);
                groups.push((v.clone(), fig.at.clone(), spec.variant_label(v), color));
            }
            return groups;
        };
        let axis_label = spec
            .axis(la)
            .and_then(|a| a.label.clone())
            .unwrap_or_else(|| la.clone());
        let all = spec.axis(la).map(|a| a.values.clone()).unwrap_or_default();
        let values = present_values(self.plan, la, all);
        for v in &variants {
            for val in &values {
                let mut at = fig.at.clone();
                at.insert(la.clone(), val.clone());
                let label = if variants.len() > 1 {
                    format!(
                        "{}, {axis_label} = {}",
                        spec.variant_label(v),
                        value::label(val)
                    )
                } else {
                    format!("{axis_label} = {}", value::label(val))
                };
                let color = groups.len();
                groups.push((v.clone(), at, label, color));
            }
        }
        groups
    }

    /// A group's measured line, its formulas' dashed lines and the
    /// paper's values, shifted by `dodge`.
    fn group_lines(&self, (v, at, label, color): &Group, dodge: f64, data: &mut FigureData) {
        let (spec, x, y) = (self.spec, self.x, self.y);
        let (color, numeric) = (*color, self.numeric);
        let mut pts: Vec<(f64, f64, Option<f64>)> = self
            .analysis
            .results
            .select(std::slice::from_ref(v), at)
            .into_iter()
            .filter_map(|c| {
                let s = c.summary(y)?;
                Some((
                    self.xpos(c.point.get(x)?)? + dodge,
                    s.mean,
                    s.ci95_half_width,
                ))
            })
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        data.lines.push(Line {
            label: label.clone(),
            color,
            points: pts,
            dashed: false,
            connect: numeric,
        });
        for fid in &self.fig.formulas {
            let Some(f) = spec.formulas.iter().find(|f| f.id == *fid) else {
                continue;
            };
            if !f.applies_to(v) {
                continue;
            }
            let mut fpts: Vec<(f64, f64, Option<f64>)> = self
                .plan
                .cells
                .iter()
                .filter(|c| c.variant == *v && c.point.matches(at))
                .filter_map(|c| {
                    let val = self
                        .analysis
                        .formulas
                        .get(&(fid.clone(), v.clone(), c.point.label()))?
                        .as_ref()
                        .ok()?;
                    Some((self.xpos(c.point.get(x)?)? + dodge, *val, None))
                })
                .collect();
            fpts.sort_by(|a, b| a.0.total_cmp(&b.0));
            data.lines.push(Line {
                label: format!("{} ({label})", f.label()),
                color,
                points: fpts,
                dashed: true,
                connect: numeric,
            });
        }
        let first_variant = spec.variant_names().into_iter().next().unwrap_or_default();
        let ppts: Vec<(f64, f64)> = spec
            .published
            .iter()
            .filter(|p| p.metric == *y)
            .filter(|p| p.variant.as_deref().unwrap_or(&first_variant) == v.as_str())
            .filter(|p| {
                at.iter()
                    .all(|(k, want)| p.at.get(k).is_none_or(|have| value::same(have, want)))
            })
            .filter_map(|p| Some((self.xpos(p.at.get(x)?)? + dodge, p.value)))
            .collect();
        if !ppts.is_empty() {
            data.published
                .push((format!("paper: {label}"), color, ppts));
        }
    }
}

/// The values of `all` that some point of the plan has on axis `axis`.
fn present_values(plan: &Plan, axis: &str, all: Vec<toml::Value>) -> Vec<toml::Value> {
    all.into_iter()
        .filter(|v| {
            plan.points
                .iter()
                .any(|p| p.get(axis).is_some_and(|w| value::same(v, w)))
        })
        .collect()
}

/// A figure of time series (`series`): a line per series of each
/// selected cell.
fn series_figure(
    spec: &ExperimentSpec,
    analysis: &Analysis,
    fig: &FigureSpec,
    data: &mut FigureData,
) {
    data.x_label = fig.x_label.clone().unwrap_or_else(|| "Time (s)".into());
    data.y_label = fig.y_label.clone().unwrap_or_else(|| "Value".into());
    let variants: Vec<String> = fig.variants.clone().unwrap_or_else(|| spec.variant_names());
    let mut color = 0;
    for v in &variants {
        for cell in analysis.results.select(std::slice::from_ref(v), &fig.at) {
            for s in &fig.series {
                let Some(st) = cell.series.get(s) else {
                    continue;
                };
                let avg = if st.averaged && st.repetitions > 1 {
                    format!(", mean of {}", st.repetitions)
                } else if st.repetitions > 1 {
                    ", first repetition".to_string()
                } else {
                    String::new()
                };
                let label = if variants.len() > 1 {
                    format!("{s} ({}{avg})", spec.variant_label(v))
                } else {
                    format!("{s}{avg}")
                };
                data.lines.push(Line {
                    label,
                    color,
                    points: st.points.iter().map(|(t, y)| (*t, *y, None)).collect(),
                    dashed: false,
                    connect: true,
                });
                color += 1;
            }
        }
    }
}

pub(crate) fn register_font() -> Result<(), String> {
    static DONE: OnceLock<Result<(), String>> = OnceLock::new();
    DONE.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
            .map_err(|_| "the embedded font is invalid".to_string())?;
        plotters::style::register_font("sans-serif", FontStyle::Bold, dejavu::sans::bold())
            .map_err(|_| "the embedded font is invalid".to_string())
    })
    .clone()
}

/// Draws `data` as `<dir>/<name>.png` and `<dir>/<name>.svg`.
pub fn render(data: &FigureData, dir: &Path, name: &str) -> Result<Vec<PathBuf>, PlotError> {
    let err = |message: String| PlotError {
        figure: name.to_string(),
        message,
    };
    register_font().map_err(err)?;
    std::fs::create_dir_all(dir).map_err(|e| err(format!("{}: {e}", dir.display())))?;
    let png = dir.join(format!("{name}.png"));
    let svg = dir.join(format!("{name}.svg"));
    {
        let root = BitMapBackend::new(&png, SIZE).into_drawing_area();
        draw(&root, data).map_err(err)?;
    }
    {
        let root = SVGBackend::new(&svg, SIZE).into_drawing_area();
        draw(&root, data).map_err(err)?;
    }
    Ok(vec![png, svg])
}

fn color(i: usize) -> RGBColor {
    // Distinct, print-friendly colours (Okabe-Ito palette).
    const C: [(u8, u8, u8); 8] = [
        (0, 114, 178),
        (213, 94, 0),
        (0, 158, 115),
        (204, 121, 167),
        (86, 180, 233),
        (230, 159, 0),
        (0, 0, 0),
        (240, 228, 66),
    ];
    let (r, g, b) = C[i % C.len()];
    RGBColor(r, g, b)
}

fn ranges(data: &FigureData) -> ((f64, f64), (f64, f64)) {
    let mut xs: Vec<f64> = Vec::new();
    let mut ys: Vec<f64> = Vec::new();
    for l in &data.lines {
        for (x, y, h) in &l.points {
            xs.push(*x);
            ys.push(y - h.unwrap_or(0.0));
            ys.push(y + h.unwrap_or(0.0));
        }
    }
    for (_, _, pts) in &data.published {
        for (x, y) in pts {
            xs.push(*x);
            ys.push(*y);
        }
    }
    let (mut x0, mut x1) = match &data.categories {
        Some(c) => (-0.5, c.len().max(1) as f64 - 0.5),
        None => (
            xs.iter().copied().fold(f64::INFINITY, f64::min),
            xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        ),
    };
    if !(x0.is_finite() && x1.is_finite()) {
        (x0, x1) = (0.0, 1.0);
    }
    if x0 == x1 {
        (x0, x1) = (x0 - 0.5, x1 + 0.5);
    } else if data.categories.is_none() {
        let pad = (x1 - x0) * 0.03;
        (x0, x1) = (x0 - pad, x1 + pad);
    }
    let y = match data.y_range {
        Some([lo, hi]) => (lo, hi),
        None => {
            let hi = ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let lo = if data.y_from_zero {
                ys.iter().copied().fold(0.0, f64::min)
            } else {
                let min = ys.iter().copied().fold(f64::INFINITY, f64::min);
                min - (hi - min).abs() * 0.05
            };
            // Room above the data for the legend (upper right).
            let entries = data.lines.len() + data.published.len();
            let room = 0.08 + 0.06 * entries as f64;
            if !hi.is_finite() || hi <= lo {
                (lo, lo + 1.0)
            } else {
                (lo, hi + (hi - lo) * room)
            }
        }
    };
    ((x0, x1), y)
}

/// The chart of a figure: x and y in data units.
type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// A drawing error as text.
fn err<E: std::error::Error + Send + Sync>(x: DrawingAreaErrorKind<E>) -> String {
    x.to_string()
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &FigureData,
) -> Result<(), String> {
    root.fill(&WHITE).map_err(err)?;
    let ((x0, x1), (y0, y1)) = ranges(data);
    let mut chart = ChartBuilder::on(root)
        .caption(&data.title, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(80)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    draw_axes(&mut chart, data)?;
    for l in &data.lines {
        draw_line(&mut chart, l)?;
    }
    for (label, ci, pts) in &data.published {
        let c = color(*ci);
        chart
            .draw_series(pts.iter().map(|p| Cross::new(*p, 7, c.stroke_width(2))))
            .map_err(err)?
            .label(label.as_str())
            .legend(move |(x, y)| Cross::new((x + 10, y), 5, c.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(err)?;
    root.present().map_err(err)?;
    Ok(())
}

/// The mesh, the axis descriptions and the x labels (a category axis
/// names its integer ticks).
fn draw_axes<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    data: &FigureData,
) -> Result<(), String> {
    let cats = data.categories.clone();
    let xfmt = move |x: &f64| -> String {
        match &cats {
            Some(c) => {
                let i = x.round();
                if (x - i).abs() < 1e-6 && i >= 0.0 {
                    c.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            }
            None => format!("{}", (x * 1e6).round() / 1e6),
        }
    };
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(data.x_label.as_str())
        .y_desc(data.y_label.as_str())
        .x_label_formatter(&xfmt)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16));
    if let Some(c) = &data.categories {
        mesh.x_labels(c.len() * 2 + 1);
    }
    mesh.draw().map_err(err)
}

/// One measured line with its legend entry: crosses (dashed, not
/// connected), a dashed line, a line with dots, or dots; then its error
/// bars.
fn draw_line<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    l: &Line,
) -> Result<(), String> {
    let c = color(l.color);
    let pts: Vec<(f64, f64)> = l.points.iter().map(|(x, y, _)| (*x, *y)).collect();
    if l.dashed && !l.connect {
        chart
            .draw_series(pts.iter().map(|p| Cross::new(*p, 4, c.stroke_width(1))))
            .map_err(err)?
            .label(l.label.as_str())
            .legend(move |(x, y)| Cross::new((x + 10, y), 4, c.stroke_width(1)));
        return Ok(());
    }
    if l.dashed {
        chart
            .draw_series(DashedLineSeries::new(pts.clone(), 8, 5, c.stroke_width(2)))
            .map_err(err)?
            .label(l.label.as_str())
            .legend(move |(x, y)| {
                EmptyElement::at((x, y))
                    + PathElement::new(vec![(0, 0), (7, 0)], c.stroke_width(2))
                    + PathElement::new(vec![(13, 0), (20, 0)], c.stroke_width(2))
            });
        return Ok(());
    }
    if l.connect {
        chart
            .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
            .map_err(err)?
            .label(l.label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
    } else {
        chart
            .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())
            .map_err(err)?
            .label(l.label.as_str())
            .legend(move |(x, y)| Circle::new((x + 10, y), 4, c.filled()));
    }
    if l.points.len() <= 200 || !l.connect {
        let r = if l.connect { 3 } else { 5 };
        chart
            .draw_series(pts.iter().map(|p| Circle::new(*p, r, c.filled())))
            .map_err(err)?;
    }
    chart
        .draw_series(l.points.iter().filter_map(|(x, y, h)| {
            h.map(|h| ErrorBar::new_vertical(*x, y - h, *y, y + h, c.stroke_width(1), 10))
        }))
        .map_err(err)?;
    Ok(())
}
