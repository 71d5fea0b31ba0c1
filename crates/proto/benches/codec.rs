//! Parse and emit speed of the wire codec (criterion): a full-size DATA
//! packet (1472 bytes, what fits a 1500-byte MTU over IPv4 and UDP
//! encapsulation), a SACK with gap blocks and duplicates, and an INIT with
//! the parameters usrsctp sends. Run with `cargo bench -p msctp-proto
//! --bench codec`.

use bytes::Bytes;
use criterion::{Criterion, Throughput, black_box, criterion_group, criterion_main};
use msctp_proto::wire::chunk::chunk_type;
use msctp_proto::wire::{
    Chunk, CommonHeader, DataChunk, GapBlock, InitChunk, Packet, PacketRepr, Param, SackChunk, crc,
};
use std::time::Duration;

fn header() -> CommonHeader {
    CommonHeader {
        src_port: 5001,
        dst_port: 5002,
        verification_tag: 0x1234_5678,
    }
}

fn data_packet() -> PacketRepr {
    let payload = Bytes::from(vec![0x61; 1472 - 12 - 16]);
    PacketRepr {
        header: header(),
        chunks: vec![Chunk::Data(DataChunk {
            tsn: 1,
            stream_id: 0,
            ssn: 0,
            ppid: 51,
            unordered: false,
            begin: true,
            end: true,
            immediate: false,
            payload,
        })],
    }
}

fn sack_packet() -> PacketRepr {
    PacketRepr {
        header: header(),
        chunks: vec![Chunk::Sack(SackChunk {
            flags: 0,
            cum_tsn_ack: 1000,
            a_rwnd: 131_072,
            gap_blocks: (0..4)
                .map(|i| GapBlock {
                    start: 2 + 4 * i,
                    end: 3 + 4 * i,
                })
                .collect(),
            dup_tsns: vec![990, 991],
        })],
    }
}

fn init_packet() -> PacketRepr {
    PacketRepr {
        header: CommonHeader {
            verification_tag: 0,
            ..header()
        },
        chunks: vec![Chunk::Init(InitChunk {
            initiate_tag: 0xcae1_065c,
            a_rwnd: 131_072,
            outbound_streams: 10,
            inbound_streams: 2048,
            initial_tsn: 1,
            params: vec![
                Param::EcnCapable,
                Param::ForwardTsnSupported,
                Param::SupportedExtensions(vec![
                    chunk_type::FORWARD_TSN,
                    chunk_type::AUTH,
                    chunk_type::ASCONF,
                    chunk_type::ASCONF_ACK,
                ]),
                Param::Random(Bytes::from(vec![0x5a; 32])),
                Param::HmacAlgo(vec![1]),
                Param::Chunks(vec![chunk_type::ASCONF_ACK, chunk_type::ASCONF]),
                Param::Ipv4Address([192, 0, 2, 1].into()),
                Param::Ipv4Address([198, 51, 100, 1].into()),
                Param::SupportedAddressTypes(vec![5]),
            ],
        })],
    }
}

fn codec(c: &mut Criterion) {
    let mut group = c.benchmark_group("codec");
    group
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for (name, repr) in [
        ("data_1472", data_packet()),
        ("sack_4gaps_2dups", sack_packet()),
        ("init", init_packet()),
    ] {
        let wire = Bytes::from(repr.emit());
        group.throughput(Throughput::Bytes(wire.len() as u64));
        group.bench_function(format!("parse/{name}"), |b| {
            b.iter(|| PacketRepr::parse(black_box(&wire)).expect("valid"))
        });
        let mut out = Vec::with_capacity(2048);
        group.bench_function(format!("emit/{name}"), |b| {
            b.iter(|| {
                out.clear();
                black_box(&repr).emit_into(&mut out);
                black_box(out.len())
            })
        });
        group.bench_function(format!("verify_and_walk/{name}"), |b| {
            b.iter(|| {
                let p = Packet::new_checked(black_box(&wire[..])).expect("valid");
                assert!(p.verify_checksum());
                p.chunks().count()
            })
        });
    }
    let wire = data_packet().emit();
    group.throughput(Throughput::Bytes(wire.len() as u64));
    group.bench_function("crc32c/data_1472", |b| {
        b.iter(|| crc::checksum(black_box(&wire)))
    });
    group.finish();
}

criterion_group!(benches, codec);
criterion_main!(benches);
