//! Stream reconfiguration (RFC 6525) against a hand-driven peer P: bad
//! requests get the result codes of RFC 6525 section 4.4, never a panic;
//! without the extension RE-CONFIG is an unknown chunk. (The charts
//! between two engines are in engine_reconfig.rs.)

mod common;

use bytes::Bytes;
use common::reconfig::{config, response};
use common::script::{Out, Scripted};
use common::*;
use msctp_proto::ReconfigError;
use msctp_proto::wire::chunk::reconfig_result as res;
use msctp_proto::wire::{Chunk, InitChunk, Param, ReconfigChunk, ReconfigParam};

const RECONFIG: u8 = 0x82;

const P: &str = "10.9.0.1";
const PORT: u16 = 7000;

/// The endpoint under test E (RE-CONFIG on, AUTH off) and an association
/// with P, whose INIT announced RE-CONFIG with two streams each way and
/// Initial TSN 1000 (so P's first request is sequence number 1000).
fn scripted() -> (Scripted, u32) {
    let mut cfg = config(5000, &|c| {
        c.auth = false;
        c.asconf = false;
        c.outbound_streams = 2;
    });
    cfg.listen = true;
    let mut e = Scripted::listener(cfg, ip("10.0.0.1"), 3);
    let init = Chunk::Init(InitChunk {
        initiate_tag: 0x1234,
        a_rwnd: 65_535,
        outbound_streams: 2,
        inbound_streams: 2,
        initial_tsn: 1000,
        params: vec![Param::SupportedExtensions(vec![RECONFIG])],
    });
    let out = e.inject(ip(P), PORT, 0, vec![init]);
    let (tag, cookie) = common::script::init_ack_cookie(&out).expect("INIT ACK");
    let out = e.inject(ip(P), PORT, tag, vec![Chunk::CookieEcho { cookie }]);
    assert!(matches!(out[0].first(), Some(Chunk::CookieAck)));
    (e, tag)
}

fn answers(out: &[Out]) -> Vec<(u32, u32)> {
    out.iter()
        .flat_map(|o| o.pkt.chunks.iter())
        .filter_map(|c| match c {
            Chunk::Reconfig(r) => Some(r.params.iter().map(response).collect::<Vec<_>>()),
            _ => None,
        })
        .flatten()
        .collect()
}

fn reconfig(params: Vec<ReconfigParam>) -> Vec<Chunk> {
    vec![Chunk::Reconfig(ReconfigChunk { params })]
}

/// ```text
///   P                                                 E (2 inbound streams)
///     |--- RE-CONFIG [Out SSN Reset 1000: stream 7] ----->|
///     |<-- RE-CONFIG [Response 1000: Error - Wrong SSN] --|
///     |--- RE-CONFIG [Out SSN Reset 1000] (again) ------->|
///     |<-- RE-CONFIG [Response 1000: Error - Wrong SSN] --|  same answer
///     |--- RE-CONFIG [In SSN Reset 1005] ---------------->|
///     |<-- RE-CONFIG [Response 1005: Bad Sequence Number]-|
///     |--- RE-CONFIG [Out SSN Reset, 3 bytes of stream] ->|  malformed
///     |    (nothing back; the association lives on)       |
///     |--- RE-CONFIG [SSN/TSN Reset 1001] --------------->|  E's own request out
///     |<-- RE-CONFIG [Response 1001: Request in progress]-|
/// ```
/// RFC 6525 section 5.2: the result codes of section 4.4, never a panic.
#[test]
fn bad_requests_get_the_rfc_result_codes() {
    let (mut e, tag) = scripted();
    let p = ip(P);
    let unknown_stream = ReconfigParam::OutgoingSsnReset {
        request_seq: 1000,
        response_seq: 0,
        last_tsn: 999,
        streams: vec![7],
    };
    let out = e.inject(p, PORT, tag, reconfig(vec![unknown_stream.clone()]));
    assert_eq!(answers(&out), [(1000, res::ERROR_WRONG_SSN)]);
    let out = e.inject(p, PORT, tag, reconfig(vec![unknown_stream]));
    assert_eq!(answers(&out), [(1000, res::ERROR_WRONG_SSN)], "duplicate");

    let out = e.inject(
        p,
        PORT,
        tag,
        reconfig(vec![ReconfigParam::IncomingSsnReset {
            request_seq: 1005,
            streams: vec![],
        }]),
    );
    assert_eq!(answers(&out), [(1005, res::ERROR_BAD_SEQUENCE_NUMBER)]);

    // An Outgoing SSN Reset Request with an odd length: its stream list
    // ends in the middle of a stream number.
    let mut value = vec![0, 13, 0, 19];
    value.extend_from_slice(&1001u32.to_be_bytes());
    value.extend_from_slice(&0u32.to_be_bytes());
    value.extend_from_slice(&999u32.to_be_bytes());
    value.extend_from_slice(&[0, 1, 0, 0]);
    let malformed = Chunk::Unknown {
        chunk_type: RECONFIG,
        flags: 0,
        value: Bytes::from(value),
    };
    let out = e.inject(p, PORT, tag, vec![malformed]);
    assert!(answers(&out).is_empty());
    let id = e.events[0].0;
    assert_eq!(e.ep.association(id).unwrap().stats().malformed_chunks, 1);

    let x = e.ep.association_mut(id).unwrap();
    assert_eq!(x.reset_streams(&[9]), Err(ReconfigError::InvalidStream(9)));
    assert_eq!(
        x.reset_streams(&vec![0; msctp_proto::association::MAX_LISTED_STREAMS + 1]),
        Err(ReconfigError::TooMany)
    );
    x.request_incoming_reset(&[1]).unwrap();
    let out = e.poll();
    assert!(
        out.iter()
            .any(|o| matches!(o.first(), Some(Chunk::Reconfig(_))))
    );
    let out = e.inject(
        p,
        PORT,
        tag,
        reconfig(vec![ReconfigParam::SsnTsnReset { request_seq: 1001 }]),
    );
    assert_eq!(answers(&out), [(1001, res::ERROR_REQUEST_IN_PROGRESS)]);
    assert_eq!(
        e.ep.association(id).unwrap().state(),
        msctp_proto::State::Established
    );
}

/// ```text
///   P                                             E (RE-CONFIG off)
///     |--- RE-CONFIG [SSN/TSN Reset] --------------->|  skipped, counted
///     |    (nothing back)                            |
/// ```
/// Without the extension RE-CONFIG stays an unknown chunk: its upper bits
/// 10 say skip it and report nothing (RFC 9260 section 3.2).
#[test]
fn reconfig_without_the_extension_is_an_unknown_chunk() {
    let mut e = Scripted::listener(
        config(5000, &|c| {
            c.stream_reconfig = false;
            c.auth = false;
            c.asconf = false;
        }),
        ip("10.0.0.1"),
        3,
    );
    let (id, tag, _) = e.handshake(ip(P), PORT, 0x1234, &[]);
    let out = e.inject(
        ip(P),
        PORT,
        tag,
        reconfig(vec![ReconfigParam::SsnTsnReset { request_seq: 1000 }]),
    );
    assert!(out.is_empty(), "{out:?}");
    let x = e.ep.association(id).unwrap();
    assert_eq!(x.stats().unknown_chunks, 1);
    assert_eq!(x.state(), msctp_proto::State::Established);
}
