//! The contenders this crate adds to `msctp bench net`, run after msctp's
//! own (`msctp_net::bench::run`) in the same process, one after the
//! other: quinn (QUIC, a bulk stream, its own GSO/GRO, 1452-byte packets)
//! and sctp-proto over UDP sockets (the driver of [`crate::sctp_udp`],
//! 1452-byte packets), in messages of the same size as msctp's. Ratios
//! are taken against msctp's Ethernet-size contender (1452-byte packets,
//! the headline), against msctp with AUTH, and against kernel TCP.

use msctp_net::bench::{BenchReport, Measure, skipped};
use serde::Serialize;

/// quinn's row.
pub const QUINN: &str = "quinn (QUIC, one stream, GSO/GRO, 1452-byte packets)";
/// sctp-proto's row.
pub const SCTP_PROTO: &str = "sctp-proto over UDP (our driver, 1452-byte packets)";

/// The packet size of both contenders: an Ethernet MTU less IPv4 and
/// UDP headers.
pub const MTU: usize = 1452;

/// What the contenders measured.
#[derive(Debug, Clone, Serialize)]
pub struct Contenders {
    pub quinn: Measure,
    pub sctp_proto: Measure,
}

/// One ratio: `of` / `to` for MB/s and for CPU seconds per GB.
#[derive(Debug, Clone, Serialize)]
pub struct Ratio {
    pub of: String,
    pub to: String,
    pub mb_per_s: Option<f64>,
    pub cpu_per_gb: Option<f64>,
}

/// `of` / `to`, when both were measured.
pub fn ratio(of: &Measure, to: &Measure) -> Option<Ratio> {
    let q = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(x), Some(y)) if y > 0.0 => Some(x / y),
        _ => None,
    };
    let mb = q(of.mb_per_s, to.mb_per_s)?;
    Some(Ratio {
        of: of.system.clone(),
        to: to.system.clone(),
        mb_per_s: Some(mb),
        cpu_per_gb: q(of.cpu_s_per_gb, to.cpu_s_per_gb),
    })
}

fn selected(only: &[String], name: &str) -> bool {
    only.is_empty() || only.iter().any(|o| o == name)
}

/// Runs the contenders selected by `only` (`quinn`, `sctp-proto`; empty:
/// both) on `bytes` in messages of `message` bytes.
pub fn run(bytes: u64, message: usize, only: &[String]) -> Contenders {
    let quinn = if selected(only, "quinn") {
        quinn(bytes, message)
    } else {
        skipped(QUINN)
    };
    let sctp_proto = if selected(only, "sctp-proto") {
        Measure::of(
            SCTP_PROTO,
            crate::sctp_udp::sctp_proto_throughput(bytes, message, MTU),
        )
    } else {
        skipped(SCTP_PROTO)
    };
    Contenders { quinn, sctp_proto }
}

#[cfg(feature = "quic")]
fn quinn(bytes: u64, message: usize) -> Measure {
    Measure::of(QUINN, crate::quic::quinn_throughput(bytes, message))
}

#[cfg(not(feature = "quic"))]
fn quinn(_: u64, _: usize) -> Measure {
    Measure::of(
        QUINN,
        Err("built without the `quic` feature of msctp-compare".into()),
    )
}

impl Contenders {
    /// msctp at 1452-byte packets / quinn (the headline), msctp with
    /// AUTH / quinn, msctp at 1452-byte packets / sctp-proto, quinn /
    /// kernel TCP: those both sides of which were measured.
    pub fn ratios(&self, msctp: &BenchReport) -> Vec<Ratio> {
        [
            ratio(&msctp.msctp_ethernet, &self.quinn),
            ratio(&msctp.msctp_auth, &self.quinn),
            ratio(&msctp.msctp_ethernet, &self.sctp_proto),
            ratio(&self.quinn, &msctp.tcp),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// The rows, in the layout of `BenchReport`'s, then the ratios.
    pub fn render(&self, msctp: &BenchReport) -> String {
        let mut s = String::new();
        for m in [&self.quinn, &self.sctp_proto] {
            s += &m.row();
            s.push('\n');
        }
        for r in self.ratios(msctp) {
            s += &format!(
                "  {} / {}: MB/s {:.2}x",
                r.of,
                r.to,
                r.mb_per_s.unwrap_or(f64::NAN)
            );
            if let Some(c) = r.cpu_per_gb {
                s += &format!(", CPU per GB {c:.2}x");
            }
            s.push('\n');
        }
        s
    }
}
