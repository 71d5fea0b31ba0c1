//! Our RFC 4895 key derivation against usrsctp: the HMACs usrsctp put on
//! its AUTH chunks (testdata/usrsctp, a real capture) must verify with the
//! association key we derive from the RANDOM, CHUNKS and HMAC-ALGO
//! parameters of the same capture's INIT and INIT ACK.

use bytes::Bytes;
use msctp_proto::auth::{AuthParams, AuthState, HmacAlgorithm, association_key};
use msctp_proto::wire::{Chunk, InitChunk, Packet, Param};

fn frames() -> Vec<(u32, Bytes)> {
    let text = include_str!("../testdata/usrsctp/packets.hex");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (n, hex) = l.split_once('\t').expect("frame<TAB>hex");
            (
                n.trim().parse().unwrap(),
                Bytes::from(hex::decode(hex.trim()).unwrap()),
            )
        })
        .collect()
}

fn init_of(bytes: &Bytes) -> InitChunk {
    let pkt = Packet::new_checked(&bytes[..]).unwrap();
    let (range, _) = pkt.chunks().next().unwrap().unwrap();
    match Chunk::parse(&bytes.slice(range)).unwrap() {
        Chunk::Init(i) | Chunk::InitAck(i) => i,
        other => panic!("not an INIT: {other:?}"),
    }
}

fn auth_params(init: &InitChunk) -> AuthParams {
    let mut random = None;
    let mut chunks = None;
    let mut hmacs = None;
    for p in &init.params {
        match p {
            Param::Random(r) => random = Some(r.to_vec()),
            Param::Chunks(c) => chunks = Some(c.clone()),
            Param::HmacAlgo(h) => hmacs = Some(h.clone()),
            _ => {}
        }
    }
    AuthParams {
        random: random.expect("RANDOM"),
        chunks,
        hmac_ids: hmacs.expect("HMAC-ALGO"),
    }
}

/// Verifies every AUTH chunk in `frames` with the key of the association
/// whose INIT / INIT ACK are frames `init` / `init_ack`; returns how many.
fn verify(
    all: &[(u32, Bytes)],
    init: u32,
    init_ack: u32,
    range: std::ops::RangeInclusive<u32>,
) -> usize {
    let get = |n: u32| {
        all.iter()
            .find(|(f, _)| *f == n)
            .map(|(_, b)| b.clone())
            .unwrap()
    };
    let client = auth_params(&init_of(&get(init)));
    let server = auth_params(&init_of(&get(init_ack)));
    let key = association_key(b"", &client, &server);
    assert_eq!(
        key,
        association_key(b"", &server, &client),
        "both ends derive the same key"
    );
    // The engine's own check, which reads the HMAC field as zeros in place.
    let state = AuthState::new(b"", &client, &server).unwrap();
    let mut verified = 0;
    for (n, bytes) in all.iter().filter(|(n, _)| range.contains(n)) {
        let pkt = Packet::new_checked(&bytes[..]).unwrap();
        for item in pkt.chunks() {
            let (r, view) = item.unwrap();
            if view.chunk_type() != 15 {
                continue;
            }
            let Chunk::Auth(a) = Chunk::parse(&bytes.slice(r.clone())).unwrap() else {
                unreachable!()
            };
            let alg = HmacAlgorithm::from_id(a.hmac_id).expect("known HMAC");
            let mut data = bytes[r.start..].to_vec();
            data[8..8 + alg.mac_len()].fill(0);
            let mac = alg.mac(&key, &[&data]);
            assert_eq!(
                &mac[..],
                &a.hmac[..],
                "frame {n}: usrsctp's HMAC does not verify with our key"
            );
            assert!(
                state.verify_auth_chunk(alg, &bytes[r.start..], &a.hmac),
                "frame {n}: usrsctp's HMAC fails the engine's in-place check"
            );
            // And a single flipped bit in an authenticated chunk breaks it.
            let last = data.len() - 1;
            data[last] ^= 1;
            assert_ne!(alg.mac(&key, &[&data]).as_slice(), &a.hmac[..]);
            verified += 1;
        }
    }
    verified
}

#[test]
fn usrsctp_auth_chunks_verify_with_our_association_key() {
    let all = frames();
    let n1 = verify(&all, 1, 2, 22..=31);
    let n2 = verify(&all, 43, 44, 53..=58);
    assert!(n1 >= 6, "association 1: {n1} AUTH chunks verified");
    assert!(n2 >= 3, "association 2: {n2} AUTH chunks verified");
}
