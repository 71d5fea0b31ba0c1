//! One figure per mapped study: a panel per claim, its verdict at each
//! design point over the two parameters that move it most (by the
//! sensitivity index). Axes are the parameters' quantiles in the declared
//! space (0 = min or the first choice, 1 = max or the last), so ranges in
//! different units and log ranges read alike; the panel's title gives the
//! holding share. Holds: a filled green circle; does not: a red cross;
//! not evaluated: a grey dot.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use super::plot::{PlotError, register_font};
use crate::robustness::{ClaimMap, RobustnessMap};

/// Pixels per panel.
const PANEL: (u32, u32) = (480, 400);

fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let t: String = s.chars().take(n - 3).collect();
        format!("{t}...")
    }
}

/// Draws the map as `<dir>/<name>.png` and `.svg`; nothing (an empty
/// list) for a map without claims.
pub fn render(map: &RobustnessMap, dir: &Path, name: &str) -> Result<Vec<PathBuf>, PlotError> {
    let err = |message: String| PlotError {
        figure: name.to_string(),
        message,
    };
    if map.claims.is_empty() {
        return Ok(Vec::new());
    }
    register_font().map_err(err)?;
    std::fs::create_dir_all(dir).map_err(|e| err(format!("{}: {e}", dir.display())))?;
    let cols = map.claims.len().min(3);
    let rows = map.claims.len().div_ceil(cols);
    let size = (PANEL.0 * cols as u32, PANEL.1 * rows as u32 + 40);
    let png = dir.join(format!("{name}.png"));
    let svg = dir.join(format!("{name}.svg"));
    {
        let root = BitMapBackend::new(&png, size).into_drawing_area();
        draw(&root, map, rows, cols).map_err(err)?;
    }
    {
        let root = SVGBackend::new(&svg, size).into_drawing_area();
        draw(&root, map, rows, cols).map_err(err)?;
    }
    Ok(vec![png, svg])
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    map: &RobustnessMap,
    rows: usize,
    cols: usize,
) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    let root = root
        .titled(
            &format!(
                "{}: claims over the unsaid values ({} points)",
                map.study, map.points
            ),
            ("sans-serif", 20),
        )
        .map_err(e)?;
    let panels = root.split_evenly((rows, cols));
    for (c, area) in map.claims.iter().zip(panels.iter()) {
        panel(area, map, c)?;
    }
    root.present().map_err(e)
}

fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    map: &RobustnessMap,
    c: &ClaimMap,
) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    let order = c.by_influence();
    let px = order.first().copied().unwrap_or(0);
    let py = order.get(1).copied();
    let label = |j: usize| {
        let p = &map.params[j];
        short(&format!("{} ({})", p.name, p.domain), 48)
    };
    let title = format!(
        "{} [{}]",
        short(&c.claim, 44),
        RobustnessMap::share_text(c)
            .split(" (")
            .next()
            .unwrap_or_default()
    );
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 13))
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(44)
        .build_cartesian_2d(0.0..1.0, 0.0..1.0)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc(label(px))
        .y_desc(py.map(label).unwrap_or_else(|| "(one parameter)".into()))
        .x_labels(3)
        .y_labels(3)
        .label_style(("sans-serif", 11))
        .axis_desc_style(("sans-serif", 12))
        .draw()
        .map_err(e)?;
    let green = RGBColor(0, 158, 115);
    let red = RGBColor(213, 94, 0);
    let grey = RGBColor(150, 150, 150);
    for (i, v) in c.verdicts.iter().enumerate() {
        let x = map.u[i].get(px).copied().unwrap_or(0.5);
        let y = py.and_then(|j| map.u[i].get(j).copied()).unwrap_or(0.5);
        match v.as_str() {
            "agrees" => {
                chart
                    .draw_series(std::iter::once(Circle::new((x, y), 5, green.filled())))
                    .map_err(e)?;
            }
            "disagrees" => {
                chart
                    .draw_series(std::iter::once(Cross::new((x, y), 5, red.stroke_width(2))))
                    .map_err(e)?;
            }
            _ => {
                chart
                    .draw_series(std::iter::once(Circle::new((x, y), 2, grey.filled())))
                    .map_err(e)?;
            }
        }
    }
    Ok(())
}
