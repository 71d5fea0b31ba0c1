//! End-to-end behaviour over the simulated link: handshake, byte-exact
//! bulk transfers with and without losses, throughput near the link rate.

mod harness;

use std::time::Duration;

use harness::{Harness, LinkConfig, random_bytes};
use msctp_tcp::{CloseReason, TcpConfig, TcpEvent, TcpState, Time};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[test]
fn three_way_handshake_negotiates_options() {
    let cfg = TcpConfig {
        sack: true,
        timestamps: true,
        ..TcpConfig::default()
    };
    let mut h = Harness::symmetric(cfg, LinkConfig::new(10_000_000, ms(10), 100), 1);
    h.run_until(Time::from_millis(100));
    assert_eq!(h.client.state(), TcpState::Established);
    let server = h.server.as_ref().expect("accepted");
    assert_eq!(server.state(), TcpState::Established);
    assert!(h.client.sack_enabled() && server.sack_enabled());
    assert!(
        h.client_events
            .iter()
            .any(|(_, e)| *e == TcpEvent::Connected)
    );
    assert!(
        h.server_events
            .iter()
            .any(|(_, e)| *e == TcpEvent::Connected)
    );
    // SYN, SYN-ACK, ACK: the client is connected one RTT after its SYN.
    let syn = &h.trace[0];
    assert!(syn.header.flags.syn && !syn.header.flags.ack && syn.header.options.mss == Some(1460));
    let synack = h
        .trace
        .iter()
        .find(|e| !e.forward && e.sent)
        .expect("syn-ack");
    assert!(synack.header.flags.syn && synack.header.flags.ack);
    assert_eq!(synack.header.ack, syn.header.seq.wrapping_add(1));
    // Three segments in all: no extra ACK or window update.
    assert_eq!(h.trace.iter().filter(|e| e.sent).count(), 3);
    // The handshake gave the first RTT sample: 2 * (10 ms + serialisation).
    let srtt = h.client.stats().srtt.expect("sampled");
    assert!(srtt > ms(20) && srtt < ms(21), "{srtt:?}");
}

fn transfer(cfg: TcpConfig, link: LinkConfig, bytes: usize, seed: u64) -> Harness {
    let mut h = Harness::symmetric(cfg, link, seed);
    h.keep_trace = false;
    h.to_send = random_bytes(bytes, seed);
    h.close_when_done = true;
    let done = h.run_transfer(Time::from_secs(300));
    assert!(
        done.is_some(),
        "transfer did not finish: {} of {} bytes",
        h.received.len(),
        bytes
    );
    h.run_until(h.now + Duration::from_secs(5));
    assert_eq!(h.received.len(), h.to_send.len());
    assert!(h.received == h.to_send, "received bytes differ");
    h
}

#[test]
fn ten_megabytes_byte_exact_with_random_loss() {
    let mut link = LinkConfig::new(20_000_000, ms(10), 50);
    link.loss = 0.005;
    let h = transfer(TcpConfig::default(), link, 10 << 20, 7);
    let s = h.client.stats();
    assert!(
        s.segments_retransmitted > 0,
        "losses must have been repaired"
    );
    assert!(s.fast_retransmits > 0);
    // Orderly close: FIN exchanged both ways.
    assert!(h.server.as_ref().is_some_and(|s| s.peer_finished()));
    assert!(
        h.client_events
            .iter()
            .any(|(_, e)| *e == TcpEvent::Closed(CloseReason::Normal))
    );
}

#[test]
fn ten_megabytes_byte_exact_with_sack_and_timestamps() {
    let mut link = LinkConfig::new(20_000_000, ms(10), 50);
    link.loss = 0.01;
    let cfg = TcpConfig {
        sack: true,
        timestamps: true,
        ..TcpConfig::ns3_compatible()
    };
    let h = transfer(cfg, link, 10 << 20, 11);
    assert!(h.client.sack_enabled());
    assert!(h.client.stats().segments_retransmitted > 0);
}

#[test]
fn clean_link_throughput_is_close_to_link_rate() {
    // 10 Mbps, 40 ms RTT: BDP 50 kB; the 128 KiB receive window covers it
    // and stays below BDP + queue (50 + 145 kB), so the link never idles and
    // the queue never overflows.
    let cfg = TcpConfig::ns3_compatible();
    let link = LinkConfig::new(10_000_000, ms(20), 100);
    let mut h = Harness::symmetric(cfg, link, 3);
    h.keep_trace = false;
    h.to_send = random_bytes(40 << 20, 3);
    h.run_until(Time::from_secs(20));
    let goodput = h.received.len() as f64 * 8.0 / 20.0;
    // Payload share of the wire: 1448 / (1448 + 20 TCP + 20 IP + 2 PPP).
    let ceiling = 10e6 * 1448.0 / 1490.0;
    assert!(
        goodput > 0.97 * ceiling,
        "goodput {goodput} vs ceiling {ceiling}: {:?}",
        h.client.stats()
    );
    assert!(goodput <= ceiling * 1.001);
    let s = h.client.stats();
    assert_eq!((s.timeouts, s.segments_retransmitted), (0, 0));
}

#[test]
fn slow_start_overshoot_is_repaired_without_corruption() {
    // A window far above BDP + queue: slow start overshoots and loses many
    // segments in one window; NewReno repairs one per RTT and may need a
    // timeout. The data must still arrive intact.
    let cfg = TcpConfig {
        send_buffer: 1 << 20,
        recv_buffer: 1 << 20,
        ..TcpConfig::ns3_compatible()
    };
    let link = LinkConfig::new(10_000_000, ms(20), 100);
    let h = transfer(cfg, link, 8 << 20, 5);
    assert!(h.client.stats().segments_retransmitted > 50);
}
