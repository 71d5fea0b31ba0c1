//! The fuzz targets' two endpoints: [`msctp_proto::testing::Pair`] over a
//! clean network (every packet takes `delay`, nothing is lost unless a
//! direction is cut), checking that every packet the engine sends decodes
//! and that its checksum is good. `Clone`, so a target sets up an
//! association once and starts every input from a copy of it.

use std::net::IpAddr;
use std::time::Duration;

use bytes::Bytes;
use msctp_proto::EndpointConfig;
use msctp_proto::testing::Link;
pub use msctp_proto::testing::{PACKETS, Pair, STEPS, Seen, Side, ip};

use crate::wire_out::{check_decodes, check_sent};

/// Endpoints A and B with their addresses, B listening, joined by links
/// of `delay`; the endpoints' secrets derive from `seed`. Records nothing
/// until asked (`record`).
pub fn pair(
    cfg_a: EndpointConfig,
    a_addrs: &[IpAddr],
    cfg_b: EndpointConfig,
    b_addrs: &[IpAddr],
    delay: Duration,
    seed: u8,
) -> Pair {
    let a = (cfg_a, a_addrs, [seed; 32]);
    let b = (cfg_b, b_addrs, [seed.wrapping_add(1); 32]);
    let mut p = Pair::with_secrets(a, b, Link::new(delay), 0);
    p.record = false;
    p.check_output = Some(check_output);
    p
}

/// Every packet sent decodes; one that reaches no endpoint has its
/// checksum checked here (the receiving endpoint checks the others).
fn check_output(data: &Bytes, delivered: bool) {
    if delivered {
        check_decodes(data);
    } else {
        check_sent(data);
    }
}

/// A fuzzed wait: from 1 ms to 65 s, each of the 16 octaves (1-2 ms,
/// ..., 33-65 s) as likely as any other, so that short waits (a delayed SACK, one
/// RTO) are as common as the long ones that reach heartbeats and the
/// retransmission limits.
pub fn wait_duration(x: u16) -> Duration {
    let octave = u32::from(x >> 12);
    let frac = u64::from(x & 0xfff);
    Duration::from_micros((1000 << octave) * (4096 + frac) / 4096)
}
