//! Goodput of this crate's TCP (`TcpConfig::ns3_compatible`, SACK on and
//! off) against ns-3 3.37 on the scenarios of `bench/ns3/README.md`, 20
//! seeds for the lossy ones: the table of that README's section "The tcp
//! crate's harness on the same scenarios". Prints, asserts nothing: the
//! assertions are the test `ns3_reference`.
//!
//! `cargo run --profile ci -p msctp-tcp --example ns3_sack`

#[path = "../tests/harness/mod.rs"]
mod harness;
#[path = "../tests/ns3/mod.rs"]
mod ns3;

use ns3::{ns3_mean, ours_mean};

fn main() {
    for name in ["a", "b", "c", "d", "e"] {
        let ours = ours_mean(name, true, 20);
        let theirs = ns3_mean(name, true);
        println!(
            "sack {name}: ours {ours:.0} ns-3 {theirs:.0} ratio {:.3}",
            ours / theirs
        );
    }
    for name in ["a", "b", "c", "d", "e"] {
        let ours = ours_mean(name, false, 20);
        let theirs = ns3_mean(name, false);
        println!(
            "newreno {name}: ours {ours:.0} ns-3 {theirs:.0} ratio {:.3}",
            ours / theirs
        );
    }
}
