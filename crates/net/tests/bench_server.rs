//! The server benchmark, shortened (500 clients from 64 loopback
//! addresses, 10 of them moving, 1 s idle), with the clients in a thread:
//! every association comes up and is accepted, the moves complete, the
//! idle server's work per datagram does not depend on the number of
//! associations, and kernel TCP accepts the same number of connections;
//! a usrsctp server (the `bench-server` mode of `interop/usrsctp_peer.c`,
//! built with gcc against libusrsctp-dev) takes the same 500 clients,
//! moves included, and its handshake rate is set against msctp's.
//! Figures are printed (`--nocapture`), not asserted. The full run is
//! `msctp bench server` (10 000 clients).

mod common;

use msctp_net::bench_server::{self, ServerBenchConfig};

#[test]
fn a_listener_takes_500_clients_and_tcp_accepts_as_many() {
    let cfg = ServerBenchConfig {
        clients: 500,
        addresses: 64,
        window: 128,
        idle_secs: 1.0,
        moving: 10,
        ..Default::default()
    };
    let r = bench_server::run(&cfg).unwrap();
    println!("{r}");
    let m = r.msctp.as_ref().expect("msctp measured");
    assert_eq!(m.clients.established, 500, "{:?}", m.clients);
    assert_eq!(m.clients.failed, 0);
    assert_eq!(m.accepted, 500);
    assert_eq!(m.clients.moved, 10, "{:?}", m.clients);
    assert!(m.handshakes_per_s > 0.0);
    // Idle: HEARTBEATs and their acks, each costing a few calls into one
    // association (a walk over all would cost 500 per event).
    assert!(
        m.idle_visits_per_datagram < 10.0,
        "{}",
        m.idle_visits_per_datagram
    );
    let t = r.tcp.as_ref().expect("TCP measured");
    assert_eq!(t.connections, 500);
    assert!(r.ratio_tcp.is_some());
    // usrsctp: skipped without gcc or libusrsctp-dev, a failure under
    // CI=true (scripts/install-deps.sh installs both).
    let Some(u) = r.usrsctp.as_ref() else {
        let why = r.usrsctp_not_run.clone().expect("a reason");
        msctp_testkit::skip(&format!(
            "the usrsctp contender: {}",
            msctp_testkit::require(why)
        ));
        return;
    };
    assert_eq!(u.clients.established, 500, "{:?}", u.clients);
    assert_eq!(u.clients.failed, 0);
    assert_eq!((u.accepted, u.held), (500, 500), "usrsctp's own count");
    assert_eq!(u.clients.moved, 10, "{:?}", u.clients);
    assert!(u.rss_per_association.is_some_and(|m| m > 0.0));
    assert!(r.ratio_usrsctp.is_some_and(|x| x > 0.0));
}
