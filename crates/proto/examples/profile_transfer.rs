//! A bulk transfer between two engines in memory, for profilers: the
//! engine's whole per-packet work (chunking, bundling, checksums, SACKs,
//! congestion control, reassembly) and nothing else, single-threaded and
//! deterministic, so that instruction counts compare engine changes on a
//! busy machine:
//!
//! ```sh
//! cargo build --release -p msctp-proto --example profile_transfer
//! valgrind --tool=callgrind target/release/examples/profile_transfer 20 1400 [auth]
//! ```
//!
//! Arguments: megabytes (10^6 bytes), message size, `auth` to authenticate
//! every DATA and SACK chunk. `docs/measurements/net-data-path.md` records the counts.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Duration;

use common::{Link, Net, bulk_transfer, ip};
use msctp_proto::{AssociationConfig, EndpointConfig};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let total = args
        .first()
        .and_then(|a| a.parse::<usize>().ok())
        .unwrap_or(20)
        * 1_000_000;
    let msg = args
        .get(1)
        .and_then(|a| a.parse::<usize>().ok())
        .unwrap_or(1400)
        .max(1);
    let auth = args.get(2).is_some_and(|a| a == "auth");
    let mut ca = EndpointConfig::new(5000);
    let mut cb = EndpointConfig::new(6000);
    for c in [&mut ca, &mut cb] {
        c.association = AssociationConfig {
            receive_window: 4 << 20,
            send_buffer: 4 << 20,
            max_burst: None,
            sack_delay: Some(Duration::from_millis(20)),
            max_message_size: msg.max(65_536),
            ..Default::default()
        };
        if auth {
            c.association.auth_chunks = vec![0, 3];
        }
    }
    let mut n = Net::new(
        ca,
        &[ip("10.0.0.1")],
        cb,
        &[ip("10.0.1.1")],
        Link::new(Duration::from_micros(100)),
        1,
    );
    n.record = false;
    let (a, b) = n.connect(Duration::from_secs(1));
    let got = bulk_transfer(&mut n, a, b, total, msg);
    assert_eq!(got, total);
    println!(
        "{} bytes in {msg}-byte messages{} moved",
        got,
        if auth {
            ", DATA and SACK authenticated"
        } else {
            ""
        }
    );
}
