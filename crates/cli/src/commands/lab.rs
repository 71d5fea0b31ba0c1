//! `msctp run | sweep | reproduce`: the simulation lab (being built).

use std::process::ExitCode;

#[derive(clap::Args)]
pub struct RunArgs {}
#[derive(clap::Args)]
pub struct SweepArgs {}
#[derive(clap::Args)]
pub struct ReproduceArgs {}

pub fn run(_a: RunArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`msctp run` is not built yet")
}
pub fn sweep(_a: SweepArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`msctp sweep` is not built yet")
}
pub fn reproduce(_a: ReproduceArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`msctp reproduce` is not built yet")
}
