//! `msctp listen | send | recv | perf`: the real-network driver (being built).

use std::process::ExitCode;

#[derive(clap::Args)]
pub struct ListenArgs {}
#[derive(clap::Args)]
pub struct SendArgs {}
#[derive(clap::Args)]
pub struct RecvArgs {}
#[derive(clap::Args)]
pub struct PerfArgs {}

pub fn listen(_a: ListenArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`msctp listen` is not built yet")
}
pub fn send(_a: SendArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`msctp send` is not built yet")
}
pub fn recv(_a: RecvArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`msctp recv` is not built yet")
}
pub fn perf(_a: PerfArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`msctp perf` is not built yet")
}
