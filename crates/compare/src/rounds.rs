//! `msctp bench net --rounds N`: every contender N times, in rounds (each
//! round runs them all one after the other, as one `msctp bench net`
//! does), each figure the median over the rounds and each ratio the
//! median of the rounds' own ratios (both sides of a ratio measured in
//! the same round, minutes apart at most).
//!
//! One transfer is no measure on a shared two-core machine: kernel TCP's
//! MB/s on loopback varied from 1.9 to 3.2 GB/s between runs of the same
//! build, quinn's from 569 to 888 MB/s
//! (docs/measurements/quic-compare.md), so a ratio taken from one round
//! said more about the moment than about the stacks. The rounds and
//! their spread are printed, not only the medians.

use msctp_net::bench::{BenchReport, Measure};
use serde::Serialize;

use crate::net::{Contenders, Ratio};

/// One round: msctp's contenders, then quinn and sctp-proto.
#[derive(Debug, Clone, Serialize)]
pub struct Round {
    pub msctp: BenchReport,
    pub others: Contenders,
}

impl Round {
    /// Every ratio of the round whose two sides were measured: msctp's
    /// own against kernel TCP and usrsctp (those `BenchReport` holds as
    /// MB/s only), then the contenders' ([`Contenders::ratios`]).
    pub fn ratios(&self) -> Vec<Ratio> {
        let m = &self.msctp;
        let mut v = vec![];
        for (of, to) in [
            (&m.msctp, &m.tcp),
            (&m.msctp_auth, &m.tcp),
            (&m.msctp, &m.usrsctp),
            (&m.msctp_auth, &m.usrsctp),
        ] {
            v.extend(crate::net::ratio(of, to));
        }
        v.extend(self.others.ratios(m));
        v
    }
}

/// The median of the finite values of `v` ([`msctp_net::bench::median`]),
/// `None` when there are none.
pub fn median(v: &[f64]) -> Option<f64> {
    let finite: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    (!finite.is_empty()).then(|| msctp_net::bench::median(&finite))
}

/// The smallest and the largest of `v`.
fn spread(v: &[f64]) -> Option<(f64, f64)> {
    let lo = v.iter().copied().reduce(f64::min)?;
    let hi = v.iter().copied().reduce(f64::max)?;
    Some((lo, hi))
}

/// One contender over the rounds: the median of its MB/s and of its CPU
/// per GB (each over the rounds that measured it), or why it has none.
pub fn median_measure(each: &[&Measure]) -> Measure {
    let first = each[0];
    let mb: Vec<f64> = each.iter().filter_map(|m| m.mb_per_s).collect();
    let cpu: Vec<f64> = each.iter().filter_map(|m| m.cpu_s_per_gb).collect();
    Measure {
        system: first.system.clone(),
        mb_per_s: median(&mb),
        cpu_s_per_gb: median(&cpu),
        missing: if mb.is_empty() {
            first.missing.clone()
        } else {
            None
        },
    }
}

/// A ratio over the rounds.
#[derive(Debug, Clone, Serialize)]
pub struct RatioOverRounds {
    pub of: String,
    pub to: String,
    /// Median of the rounds' MB/s ratios, and their range.
    pub mb_per_s: f64,
    pub mb_per_s_range: (f64, f64),
    /// Median of the rounds' CPU per GB ratios, and their range.
    pub cpu_per_gb: Option<f64>,
    pub cpu_per_gb_range: Option<(f64, f64)>,
    /// Rounds in which both sides were measured.
    pub rounds: usize,
}

/// The rounds of one `msctp bench net --rounds N`.
#[derive(Debug, Clone, Serialize)]
pub struct Rounds {
    pub rounds: Vec<Round>,
}

impl Rounds {
    /// Each contender's median row, msctp's then the others', in the
    /// order of one round's table.
    pub fn medians(&self) -> Vec<Measure> {
        if self.rounds.is_empty() {
            return Vec::new();
        }
        (0..ROWS)
            .map(|i| {
                let each: Vec<&Measure> = self.rounds.iter().map(|r| pick_row(r, i)).collect();
                median_measure(&each)
            })
            .collect()
    }

    /// Every ratio that some round measured: the median of the rounds'
    /// ratios and their range.
    pub fn ratios(&self) -> Vec<RatioOverRounds> {
        let per_round: Vec<Vec<Ratio>> = self.rounds.iter().map(Round::ratios).collect();
        let mut names: Vec<(String, String)> = vec![];
        for r in per_round.iter().flatten() {
            let k = (r.of.clone(), r.to.clone());
            if !names.contains(&k) {
                names.push(k);
            }
        }
        names
            .into_iter()
            .filter_map(|(of, to)| {
                let same: Vec<&Ratio> = (per_round.iter().flatten())
                    .filter(|r| r.of == of && r.to == to)
                    .collect();
                let mb: Vec<f64> = same.iter().filter_map(|r| r.mb_per_s).collect();
                let cpu: Vec<f64> = same.iter().filter_map(|r| r.cpu_per_gb).collect();
                Some(RatioOverRounds {
                    mb_per_s: median(&mb)?,
                    mb_per_s_range: spread(&mb)?,
                    cpu_per_gb: median(&cpu),
                    cpu_per_gb_range: spread(&cpu),
                    rounds: mb.len(),
                    of,
                    to,
                })
            })
            .collect()
    }

    /// The table of medians (MB/s with its range over the rounds), then
    /// the ratios.
    pub fn render(&self) -> String {
        let n = self.rounds.len();
        let mut s = String::new();
        if let Some(r) = self.rounds.first() {
            s += &format!(
                "loopback throughput, {} MB in {}-byte messages, {n} rounds: medians (MB/s range over the rounds)\n",
                r.msctp.bytes / 1_000_000,
                r.msctp.message
            );
        }
        s += &format!(
            "  {:<52} {:>10} {:>12} {:>6}\n",
            "", "MB/s", "CPU s/GB", "cores"
        );
        for (i, m) in self.medians().iter().enumerate() {
            s += &m.row();
            let mb: Vec<f64> = (self.rounds.iter())
                .filter_map(|r| pick_row(r, i).mb_per_s)
                .collect();
            if let Some((lo, hi)) = spread(&mb).filter(|_| mb.len() > 1) {
                s += &format!("   ({lo:.0} to {hi:.0})");
            }
            s.push('\n');
        }
        s += "ratios, median of the rounds' own (range):\n";
        for r in self.ratios() {
            s += &format!(
                "  {} / {}: MB/s {:.2}x ({:.2} to {:.2})",
                r.of, r.to, r.mb_per_s, r.mb_per_s_range.0, r.mb_per_s_range.1
            );
            if let (Some(c), Some((lo, hi))) = (r.cpu_per_gb, r.cpu_per_gb_range) {
                s += &format!(", CPU per GB {c:.2}x ({lo:.2} to {hi:.2})");
            }
            s.push('\n');
        }
        s
    }
}

/// Rows of a round's table: msctp's five, quinn, sctp-proto.
const ROWS: usize = 7;

/// Row `i` of a round's table (the order of [`Rounds::medians`]).
fn pick_row(r: &Round, i: usize) -> &Measure {
    match i {
        0 => &r.msctp.msctp,
        1 => &r.msctp.msctp_auth,
        2 => &r.msctp.msctp_ethernet,
        3 => &r.msctp.usrsctp,
        4 => &r.msctp.tcp,
        5 => &r.others.quinn,
        _ => &r.others.sctp_proto,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(system: &str, mb: Option<f64>, cpu: Option<f64>) -> Measure {
        Measure {
            system: system.into(),
            mb_per_s: mb,
            cpu_s_per_gb: cpu,
            missing: mb.is_none().then(|| "not selected".to_string()),
        }
    }

    fn round(eth: f64, quinn: f64, tcp: f64) -> Round {
        let none = |s: &str| m(s, None, None);
        Round {
            msctp: BenchReport {
                bytes: 200 << 20,
                message: 65_536,
                path_mtu: None,
                msctp: m("msctp", Some(2000.0), Some(0.5)),
                msctp_auth: none("msctp-auth"),
                msctp_ethernet: m("msctp-eth", Some(eth), Some(1.0)),
                usrsctp: none("usrsctp"),
                tcp: m("tcp", Some(tcp), Some(0.4)),
                ratio_usrsctp: None,
                ratio_tcp: None,
                ratio_auth_usrsctp: None,
                ratio_auth_tcp: None,
            },
            others: Contenders {
                quinn: m("quinn", Some(quinn), Some(2.0)),
                sctp_proto: none("sctp-proto"),
            },
        }
    }

    #[test]
    fn a_ratio_is_the_median_of_the_rounds_own_ratios_not_of_the_medians() {
        // Round by round msctp-eth / quinn: 2.0, 0.9, 1.2. The ratio of
        // the medians would be 900 / 800 = 1.125; the rounds' own: 1.2.
        let r = Rounds {
            rounds: vec![
                round(1000.0, 500.0, 2500.0),
                round(900.0, 1000.0, 2000.0),
                round(960.0, 800.0, 3000.0),
            ],
        };
        let q = (r.ratios().into_iter())
            .find(|x| x.of == "msctp-eth" && x.to == "quinn")
            .unwrap();
        assert_eq!(q.rounds, 3);
        assert!((q.mb_per_s - 1.2).abs() < 1e-9, "{}", q.mb_per_s);
        assert!((q.mb_per_s_range.0 - 0.9).abs() < 1e-9);
        assert!((q.mb_per_s_range.1 - 2.0).abs() < 1e-9);
        assert_eq!(q.cpu_per_gb, Some(0.5));
        let tcp = (r.ratios().into_iter())
            .find(|x| x.of == "msctp" && x.to == "tcp")
            .unwrap();
        // 2000/2500, 2000/2000, 2000/3000: median 0.8.
        assert!((tcp.mb_per_s - 0.8).abs() < 1e-9, "{}", tcp.mb_per_s);
    }

    #[test]
    fn a_contender_never_measured_keeps_its_reason_and_makes_no_ratio() {
        let r = Rounds {
            rounds: vec![round(1000.0, 500.0, 2500.0), round(900.0, 1000.0, 2000.0)],
        };
        let med = r.medians();
        let auth = med.iter().find(|x| x.system == "msctp-auth").unwrap();
        assert_eq!(auth.mb_per_s, None);
        assert_eq!(auth.missing.as_deref(), Some("not selected"));
        assert!(r.ratios().iter().all(|x| x.of != "msctp-auth"));
        let eth = med.iter().find(|x| x.system == "msctp-eth").unwrap();
        assert_eq!(eth.mb_per_s, Some(950.0));
        let text = r.render();
        assert!(text.contains("2 rounds"), "{text}");
        assert!(text.contains("(900 to 1000)"), "{text}");
    }

    #[test]
    fn median_of_nothing_is_none() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[f64::NAN]), None);
        assert_eq!(median(&[3.0, 1.0]), Some(2.0));
    }
}
