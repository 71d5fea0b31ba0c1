//! In-memory bulk transfer between two engines: payload bytes moved per
//! CPU-second, the whole engine (chunking, SACKs, congestion control,
//! checksums, reassembly) on both sides, without and with the path
//! estimators. Single-threaded, so wall time is CPU time.
//! `cargo bench -p msctp-proto --bench transfer`.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Duration;

use common::{Link, Net, bulk_transfer, ip};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use msctp_proto::{AssociationConfig, EndpointConfig, EstimatorConfig};

const TOTAL: usize = 8 << 20;
const MSG: usize = 64 << 10;

fn transfer(auth_data: bool, estimators: bool) {
    let mut ca = EndpointConfig::new(5000);
    let mut cb = EndpointConfig::new(6000);
    for c in [&mut ca, &mut cb] {
        c.association = AssociationConfig {
            receive_window: 4 << 20,
            send_buffer: 4 << 20,
            max_burst: None,
            ..Default::default()
        };
        if auth_data {
            c.association.auth_chunks = vec![0];
        }
        if estimators {
            c.association.estimators = EstimatorConfig::on();
        }
    }
    let mut n = Net::new(
        ca,
        &[ip("10.0.0.1")],
        cb,
        &[ip("10.0.1.1")],
        Link::new(Duration::from_micros(500)),
        1,
    );
    n.record = false;
    let (a, b) = n.connect(Duration::from_secs(1));
    let got = bulk_transfer(&mut n, a, b, TOTAL, MSG);
    assert_eq!(got, TOTAL);
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("bulk transfer (payload)");
    g.throughput(Throughput::Bytes(TOTAL as u64));
    g.sample_size(10);
    g.bench_function("8 MiB, two engines in memory", |b| {
        b.iter(|| transfer(false, false))
    });
    // The cost of the path estimators (Westwood+ on every SACK, capacity
    // trains on the new path): compare with the line above.
    g.bench_function("8 MiB, path estimators on", |b| {
        b.iter(|| transfer(false, true))
    });
    g.bench_function("8 MiB, DATA authenticated (HMAC-SHA256)", |b| {
        b.iter(|| transfer(true, false))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
