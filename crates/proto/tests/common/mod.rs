//! The end-to-end tests' harness: two endpoints over an in-memory network
//! in virtual time ([`msctp_proto::testing::Pair`], as [`Net`] with
//! closure filters), and payload helpers.

#![allow(dead_code)]

pub mod reconfig;
pub mod script;
pub mod two_paths;

use std::time::Duration;

use bytes::Bytes;
use msctp_proto::AssocId;
// Each test uses its own part of the harness.
#[allow(unused_imports)]
pub use msctp_proto::testing::{Filter, Link, Seen, Side, Verdict, chunk_types, ip};

/// Two endpoints over the in-memory network, with packet filters written
/// as closures.
pub type Net = msctp_proto::testing::Pair<Filter>;

/// A deterministic payload: byte i of the stream is `(i * 7 + i / 251) as u8`.
pub fn pattern(offset: usize, len: usize) -> Vec<u8> {
    (offset..offset + len)
        .map(|i| (i.wrapping_mul(7) + i / 251) as u8)
        .collect()
}

/// Moves `total` bytes from association `a` (side A) to `b` (side B) in
/// messages of `msg` bytes, as fast as the send buffer takes them, then
/// aborts so that no timer is left; returns the bytes B received. For the
/// throughput benchmark and the profiling example.
pub fn bulk_transfer(n: &mut Net, a: AssocId, b: AssocId, total: usize, msg: usize) -> usize {
    let payload = Bytes::from(vec![0x5au8; msg]);
    let (mut sent, mut got) = (0usize, 0usize);
    let end = n.now + Duration::from_secs(3600);
    n.run_with(end, &mut |n| {
        if got >= total {
            return;
        }
        let x = n.a.association_mut(a).unwrap();
        while sent < total && x.send_capacity() >= msg {
            let k = (total - sent).min(msg);
            x.send(0, 0, payload.slice(..k), false).unwrap();
            sent += k;
        }
        let y = n.b.association_mut(b).unwrap();
        while let Some(m) = y.recv() {
            got += m.data.len();
        }
        if got >= total {
            // Stop the run: no more timers once both sides are gone.
            n.a.association_mut(a).unwrap().abort(None);
        }
    });
    got
}
