//! Max.Burst (RFC 9260 section 6.1 rule D) and its autosizing
//! (`AssociationConfig::burst_autosize`): how many DATA packets A sends
//! back to back, at one instant, in a bulk transfer at 1452-byte packets.
//! Fixed, a burst is at most Max.Burst (4) packets whatever the path; grown
//! with the path's rate, a fast path carries bursts of more than one UDP GSO
//! send (64 KB) and up to four, while a slow one keeps Max.Burst.

mod common;

use std::time::Duration;

use common::{Link, Net, Side, bulk_transfer, ip};
use msctp_proto::config::MAX_AUTOSIZED_BURST;
use msctp_proto::{AssociationConfig, EndpointConfig};

const MTU: usize = 1452;

/// The longest run of DATA packets A sent at one instant.
fn longest_burst(link: Link, autosize: Option<Duration>) -> usize {
    let mut ca = EndpointConfig::new(5000);
    let mut cb = EndpointConfig::new(6000);
    for c in [&mut ca, &mut cb] {
        c.association = AssociationConfig {
            path_mtu: MTU,
            receive_window: 4 << 20,
            send_buffer: 4 << 20,
            burst_autosize: autosize,
            ..Default::default()
        };
    }
    let mut n = Net::new(ca, &[ip("10.0.0.1")], cb, &[ip("10.0.1.1")], link, 1);
    let (a, b) = n.connect(Duration::from_secs(1));
    assert_eq!(bulk_transfer(&mut n, a, b, 4 << 20, 1424), 4 << 20);
    let (mut longest, mut run, mut at) = (0, 0, None);
    for s in n.seen.iter().filter(|s| s.from == Side::A) {
        if s.chunks.first() != Some(&0) {
            continue;
        }
        if at == Some(s.time) {
            run += 1;
        } else {
            (run, at) = (1, Some(s.time));
        }
        longest = longest.max(run);
    }
    longest
}

fn fast() -> Link {
    Link::new(Duration::from_micros(50))
}

/// 2 Mbit/s, 10 ms one way, a 100-packet queue.
fn slow() -> Link {
    Link::new(Duration::from_millis(10)).rate(2_000_000, 100)
}

#[test]
fn fixed_max_burst_sends_four_packets_at_once_on_a_fast_path() {
    let b = longest_burst(fast(), None);
    assert!(b <= 4, "{b}");
}

#[test]
fn autosized_burst_grows_past_one_gso_train_on_a_fast_path() {
    let b = longest_burst(fast(), Some(Duration::from_millis(1)));
    let cap = MAX_AUTOSIZED_BURST as usize / MTU;
    let one_train = (64 << 10) / MTU;
    assert!(
        b > one_train && b <= cap,
        "{b} (one train {one_train}, cap {cap})"
    );
}

#[test]
fn autosized_burst_stays_at_max_burst_on_a_slow_path() {
    let b = longest_burst(slow(), Some(Duration::from_millis(1)));
    assert!(b <= 4, "{b}");
}
