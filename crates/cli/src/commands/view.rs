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
    /// Most rows of time series the page carries, all series together:
    /// past it each series keeps the smallest and largest values per time
    /// bucket (every mark is kept), so a long run's page stays small.
    #[arg(long, default_value_t = msctp_view::DEFAULT_MAX_POINTS)]
    pub max_points: usize,
}

/// Writes the page for the run in `dir` to `out` (default `dir/view.html`),
/// its series thinned to `max_points` rows, and returns its path.
pub fn write_page(dir: &Path, out: Option<&Path>, max_points: usize) -> anyhow::Result<PathBuf> {
    let mut data = msctp_view::ViewData::load(dir)?;
    data.decimate(max_points);
    let page = msctp_view::render(&data, false);
    let out = out.map_or_else(|| dir.join("view.html"), Path::to_path_buf);
    std::fs::write(&out, page).with_context(|| out.display().to_string())?;
    Ok(out)
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let out = write_page(&a.dir, a.output.as_deref(), a.max_points)?;
    println!("{}", out.display());
    Ok(ExitCode::SUCCESS)
}

/// `msctp perf --view`: the live page's server and what it last saw.
pub struct LivePerf {
    server: msctp_view::live::LiveServer,
    /// Path states and the primary at the last interval (changes are
    /// marks).
    states: Vec<(std::net::IpAddr, &'static str)>,
    primary: Option<std::net::IpAddr>,
}

impl LivePerf {
    /// Serves the live page on 127.0.0.1:`port` (0: any free port) and
    /// says where.
    pub fn start(port: u16, title: &str) -> anyhow::Result<LivePerf> {
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
        let server = msctp_view::live::LiveServer::start(addr, title, Default::default())
            .with_context(|| format!("live view on {addr}"))?;
        eprintln!("live view: http://{}/", server.addr());
        Ok(LivePerf {
            server,
            states: Vec::new(),
            primary: None,
        })
    }

    /// Publishes one report line of the perf client.
    pub fn publish(&mut self, line: &msctp_net::perf::PerfLine) {
        use msctp_net::perf::PerfLine as L;
        use serde_json::json;
        let mark = |t: f64, cat: &str, kind: &str, detail: String| json!({ "t": t, "cat": cat, "source": "perf", "kind": kind, "detail": detail });
        let msg = match line {
            L::Interval {
                t,
                mbps,
                primary,
                paths,
                ..
            } => {
                let mut marks = Vec::new();
                if *primary != self.primary {
                    marks.push(mark(
                        *t,
                        "handover",
                        "data-destination",
                        format!("{:?} -> {:?}", self.primary, primary),
                    ));
                    self.primary = *primary;
                }
                for p in paths {
                    let before = self.states.iter().find(|s| s.0 == p.peer).map(|s| s.1);
                    if before != Some(p.state) {
                        marks.push(mark(*t, "path", p.state, p.peer.to_string()));
                        self.states.retain(|s| s.0 != p.peer);
                        self.states.push((p.peer, p.state));
                    }
                }
                let mut goodput =
                    vec![json!({ "name": "acknowledged (all paths)", "goodput_bps": mbps * 1e6 })];
                goodput.extend(paths.iter().map(|p| {
                    json!({ "name": format!("path → {}", p.peer), "goodput_bps": p.mbps * 1e6 })
                }));
                json!({
                    "t": t,
                    "paths": paths.iter().map(|p| json!({
                        "name": format!("path → {}", p.peer),
                        "cwnd": p.cwnd,
                        "flight": p.flight,
                        "srtt_ms": p.srtt_ms,
                    })).collect::<Vec<_>>(),
                    "goodput": goodput,
                    "marks": marks,
                })
            }
            L::Handover { t, handover } => json!({
                "t": t,
                "marks": [mark(*t, "handover", "handover",
                    serde_json::to_string(handover).unwrap_or_default())],
            }),
            L::HandoverResult {
                t,
                gap_ms,
                retransmitted,
                lost,
            } => json!({
                "t": t,
                "marks": [mark(*t, "other", "handover-result", format!(
                    "longest gap {gap_ms:.1} ms, {retransmitted} chunks resent, {lost} lost"))],
            }),
            _ => return,
        };
        self.server.publish(&msg);
    }
}
