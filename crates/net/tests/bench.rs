//! The loopback benchmark runs (a short version: 20 MB) and every
//! measurement it can take is a positive figure with its CPU time; msctp's
//! data all arrives, with AUTH off, with AUTH on every DATA and SACK, and
//! in Ethernet-size packets. The ratios are printed (`--nocapture`), not asserted: they
//! depend on the load of the machine. The full run is
//! `cargo run --release -p msctp-net --example bench`.

use msctp_net::bench::{self, BenchConfig};

#[test]
fn bench_measures_msctp_usrsctp_and_tcp() {
    let cfg = BenchConfig {
        bytes: 20_000_000,
        ..Default::default()
    };
    let r = bench::run(&cfg).unwrap();
    println!("{r}");
    for x in [&r.msctp, &r.msctp_auth, &r.msctp_ethernet] {
        let m = x.mb_per_s.expect("msctp measured");
        assert!(m > 1.0, "{}: {m} MB/s", x.system);
        assert!(x.cpu_s_per_gb.is_some_and(|c| c > 0.0), "{x:?}");
    }
    assert!(r.ratio_tcp.is_some() && r.ratio_auth_tcp.is_some());
    assert!(r.tcp.mb_per_s.is_some_and(|t| t > 1.0));
    match r.usrsctp.mb_per_s {
        Some(u) => assert!(u > 1.0),
        None => eprintln!("usrsctp not measured: {:?}", r.usrsctp.missing),
    }
}
