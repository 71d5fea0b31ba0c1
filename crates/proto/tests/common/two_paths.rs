//! The estimators' network: A and B each with two addresses, one path per
//! pair of like-numbered addresses, rate-limited towards B:
//!
//! ```text
//!   A1 10.1.0.2 ------- r1, 10 ms ------->  B1 10.1.0.1
//!   A2 10.2.0.2 ------- r2, 30 ms ------->  B2 10.2.0.1
//!   (return directions: same delay, no rate limit; crossed pairs down)
//! ```

use std::time::Duration;

use msctp_proto::{AssocId, EndpointConfig};

use super::{Link, Net, ip};

pub const A1: &str = "10.1.0.2";
pub const A2: &str = "10.2.0.2";
pub const B1: &str = "10.1.0.1";
pub const B2: &str = "10.2.0.1";

/// The network with rates `r1` and `r2` (bit/s, 200-packet queues)
/// towards B, endpoints configured by `a` and `b`.
pub fn net(a: EndpointConfig, b: EndpointConfig, r1: u64, r2: u64, seed: u64) -> Net {
    let mut n = Net::new(
        a,
        &[ip(A1), ip(A2)],
        b,
        &[ip(B1), ip(B2)],
        Link::new(Duration::from_millis(10)),
        seed,
    );
    for (x, y) in [(A1, B2), (A2, B1)] {
        n.set_up(ip(x), ip(y), false);
    }
    n.set_link(
        ip(A1),
        ip(B1),
        Link::new(Duration::from_millis(10)).rate(r1, 200),
    );
    n.set_link(
        ip(A2),
        ip(B2),
        Link::new(Duration::from_millis(30)).rate(r2, 200),
    );
    n.set_link(ip(B2), ip(A2), Link::new(Duration::from_millis(30)));
    n
}

/// Connects and pins each of A's paths to its like-numbered source.
pub fn connect(n: &mut Net) -> (AssocId, AssocId) {
    let (a, b) = n.connect(Duration::from_secs(2));
    let x = n.a.association_mut(a).unwrap();
    x.set_path_source(ip(B1), Some(ip(A1))).unwrap();
    x.set_path_source(ip(B2), Some(ip(A2))).unwrap();
    (a, b)
}
