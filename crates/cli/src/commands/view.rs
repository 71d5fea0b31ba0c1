//! `msctp view DIR`: the run viewer's page for a stored run (crate
//! `msctp-view`); `msctp run --view` calls [`write_page`] after the run.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

#[derive(clap::Args)]
pub struct Args {
    /// A run's output directory (`msctp run --out DIR`; with
    /// `output.trace = true` the page shows every change, else samples).
    pub dir: PathBuf,
    /// Where to write the page (default: DIR/view.html).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

/// Writes the page for the run in `dir` to `out` (default `dir/view.html`)
/// and returns its path.
pub fn write_page(dir: &Path, out: Option<&Path>) -> anyhow::Result<PathBuf> {
    let data = msctp_view::ViewData::load(dir)?;
    let page = msctp_view::render(&data, false);
    let out = out.map_or_else(|| dir.join("view.html"), Path::to_path_buf);
    std::fs::write(&out, page).with_context(|| out.display().to_string())?;
    Ok(out)
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let out = write_page(&a.dir, a.output.as_deref())?;
    println!("{}", out.display());
    Ok(ExitCode::SUCCESS)
}
