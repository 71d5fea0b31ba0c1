//! Authenticated chunks, RFC 4895.
//!
//! Each endpoint announces a RANDOM (32 bytes), the chunk types it wants
//! authenticated (CHUNKS) and the HMAC algorithms it supports (HMAC-ALGO).
//! Both sides derive the same association shared key (section 6.1) and use
//! it to authenticate the chunks that follow an AUTH chunk (section 6.2).

use hmac::{Hmac, Mac};
use sha1::Sha1;
use sha2::Sha256;

use crate::wire::AuthChunk;
use crate::wire::chunk::chunk_type;
use crate::wire::param::param_type;

/// A MAC, in place: at most 32 bytes (HMAC-SHA-256), so that authenticating
/// or checking a packet allocates nothing.
pub type MacValue = smallvec::SmallVec<[u8; 32]>;

/// The zeros that stand for the HMAC field while it is computed (RFC 4895
/// section 6.2), for the longest MAC; also the placeholder an AUTH chunk
/// is emitted with, without allocating.
pub(crate) static ZERO_MAC: [u8; 32] = [0; 32];

/// The HMAC algorithms of RFC 4895 section 3.3 / 8.3 (`"sha1"`,
/// `"sha256"` in a configuration file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum HmacAlgorithm {
    /// HMAC-SHA-1, identifier 1 (mandatory to support).
    Sha1,
    /// HMAC-SHA-256, identifier 3.
    Sha256,
}

impl HmacAlgorithm {
    pub const fn id(self) -> u16 {
        match self {
            HmacAlgorithm::Sha1 => 1,
            HmacAlgorithm::Sha256 => 3,
        }
    }

    pub fn from_id(id: u16) -> Option<Self> {
        match id {
            1 => Some(HmacAlgorithm::Sha1),
            3 => Some(HmacAlgorithm::Sha256),
            _ => None,
        }
    }

    /// Length of the MAC in bytes (20 for SHA-1, 32 for SHA-256).
    pub const fn mac_len(self) -> usize {
        match self {
            HmacAlgorithm::Sha1 => 20,
            HmacAlgorithm::Sha256 => 32,
        }
    }

    /// HMAC of the concatenation of `parts` under `key`.
    pub fn mac(self, key: &[u8], parts: &[&[u8]]) -> MacValue {
        KeyedMac::new(self, key).finish(parts)
    }
}

/// An HMAC state right after keying (RFC 2104: the key hashed when longer
/// than a block, then the inner and outer padded-key blocks), for one
/// algorithm.
#[derive(Clone)]
enum KeyedMac {
    Sha1(Hmac<Sha1>),
    Sha256(Hmac<Sha256>),
}

impl KeyedMac {
    fn new(algorithm: HmacAlgorithm, key: &[u8]) -> KeyedMac {
        // `new_from_slice` accepts keys of any length for HMAC.
        const ANY: &str = "HMAC takes any key length";
        match algorithm {
            HmacAlgorithm::Sha1 => KeyedMac::Sha1(Mac::new_from_slice(key).expect(ANY)),
            HmacAlgorithm::Sha256 => KeyedMac::Sha256(Mac::new_from_slice(key).expect(ANY)),
        }
    }

    /// The MAC of the concatenation of `parts`.
    fn finish(self, parts: &[&[u8]]) -> MacValue {
        match self {
            KeyedMac::Sha1(mut m) => {
                parts.iter().for_each(|p| m.update(p));
                MacValue::from_slice(&m.finalize().into_bytes())
            }
            KeyedMac::Sha256(mut m) => {
                parts.iter().for_each(|p| m.update(p));
                MacValue::from_slice(&m.finalize().into_bytes())
            }
        }
    }
}

/// Length of the RANDOM value this stack sends and requires (RFC 4895
/// section 6.1: "MUST contain a 32-byte Random Number").
pub const RANDOM_LEN: usize = 32;

/// What one endpoint announced in its INIT or INIT ACK.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthParams {
    pub random: Vec<u8>,
    /// `None` when the CHUNKS parameter was absent (allowed when empty).
    pub chunks: Option<Vec<u8>>,
    pub hmac_ids: Vec<u16>,
}

impl AuthParams {
    /// The key vector of RFC 4895 section 6.1: the RANDOM, CHUNKS and
    /// HMAC-ALGO parameters as sent (type, length and value, padding
    /// omitted), concatenated; a parameter not sent is omitted.
    pub fn key_vector(&self) -> Vec<u8> {
        let mut v =
            Vec::with_capacity(4 + self.random.len() + 4 + 64 + 4 + 2 * self.hmac_ids.len());
        push_tlv(&mut v, param_type::RANDOM, &self.random);
        if let Some(chunks) = &self.chunks {
            push_tlv(&mut v, param_type::CHUNKS, chunks);
        }
        let ids: Vec<u8> = self
            .hmac_ids
            .iter()
            .flat_map(|id| id.to_be_bytes())
            .collect();
        push_tlv(&mut v, param_type::HMAC_ALGO, &ids);
        v
    }
}

fn push_tlv(out: &mut Vec<u8>, ty: u16, value: &[u8]) {
    out.extend_from_slice(&ty.to_be_bytes());
    out.extend_from_slice(&((value.len() + 4) as u16).to_be_bytes());
    out.extend_from_slice(value);
}

/// Compares two key vectors as big-endian numbers of their lengths (the
/// shorter left-padded with zeros); equal values order by length.
fn key_vector_order(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    let n = a.len().max(b.len());
    let byte = |v: &[u8], i: usize| {
        if i < n - v.len() {
            0
        } else {
            v[i - (n - v.len())]
        }
    };
    (0..n)
        .map(|i| byte(a, i).cmp(&byte(b, i)))
        .find(|o| o.is_ne())
        .unwrap_or_else(|| a.len().cmp(&b.len()))
}

/// The association shared key of RFC 4895 section 6.1: the endpoint-pair
/// shared key, then the smaller key vector, then the larger one.
pub fn association_key(shared_key: &[u8], local: &AuthParams, peer: &AuthParams) -> Vec<u8> {
    let l = local.key_vector();
    let p = peer.key_vector();
    let (first, second) = if key_vector_order(&l, &p).is_le() {
        (l, p)
    } else {
        (p, l)
    };
    let mut key = Vec::with_capacity(shared_key.len() + first.len() + second.len());
    key.extend_from_slice(shared_key);
    key.extend_from_slice(&first);
    key.extend_from_slice(&second);
    key
}

/// Why the peer's AUTH parameters are unacceptable (answered with an ABORT
/// carrying a Protocol Violation cause, RFC 4895 section 6.1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthParamError {
    #[error("RANDOM parameter missing or repeated")]
    RandomCount,
    #[error("RANDOM parameter is {0} bytes, not 32")]
    RandomLength(usize),
    #[error("HMAC-ALGO parameter missing or repeated")]
    HmacAlgoCount,
    #[error("HMAC-ALGO does not list SHA-1")]
    NoSha1,
    #[error("CHUNKS parameter repeated or listing more than 256 chunk types")]
    BadChunks,
}

/// Negotiated AUTH state of one association.
#[derive(Debug, Clone)]
pub struct AuthState {
    /// Chunk types the peer wants us to authenticate (from its CHUNKS).
    send_required: [bool; 256],
    /// Chunk types we require authenticated on receipt (our CHUNKS).
    recv_required: [bool; 256],
    /// Algorithm we use when sending: the first of the peer's list that we
    /// support (section 6.1).
    pub send_algorithm: HmacAlgorithm,
    /// Algorithms we announced (and therefore accept).
    accepted: Vec<HmacAlgorithm>,
    key: Vec<u8>,
    /// HMAC under `key`, keyed once for each algorithm.
    keyed: KeyedMacs,
}

/// The association key's HMAC keyed once for each algorithm: each MAC
/// starts from a copy. The association key of RFC 4895 section 6.1 is
/// about 100 bytes, longer than the 64-byte block of SHA-1 and SHA-256,
/// so keying afresh for every packet cost four of the six compressions of
/// a small packet's MAC.
#[derive(Clone)]
struct KeyedMacs {
    sha1: KeyedMac,
    sha256: KeyedMac,
}

impl KeyedMacs {
    fn new(key: &[u8]) -> KeyedMacs {
        KeyedMacs {
            sha1: KeyedMac::new(HmacAlgorithm::Sha1, key),
            sha256: KeyedMac::new(HmacAlgorithm::Sha256, key),
        }
    }

    fn mac(&self, algorithm: HmacAlgorithm, parts: &[&[u8]]) -> MacValue {
        let keyed = match algorithm {
            HmacAlgorithm::Sha1 => &self.sha1,
            HmacAlgorithm::Sha256 => &self.sha256,
        };
        keyed.clone().finish(parts)
    }
}

impl std::fmt::Debug for KeyedMacs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeyedMacs")
    }
}

/// Whether two MACs are equal, in time that depends only on their lengths.
pub(crate) fn equal_in_constant_time(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Chunk types that are never authenticated even if listed (RFC 4895
/// section 3.2).
fn never_authenticated(ty: u8) -> bool {
    matches!(
        ty,
        chunk_type::INIT | chunk_type::INIT_ACK | chunk_type::SHUTDOWN_COMPLETE | chunk_type::AUTH
    )
}

impl AuthState {
    /// Builds the state from what both sides announced. `local_algorithms`
    /// is our HMAC-ALGO list in order.
    pub fn new(
        shared_key: &[u8],
        local: &AuthParams,
        peer: &AuthParams,
    ) -> Result<AuthState, AuthParamError> {
        if peer.random.len() != RANDOM_LEN {
            return Err(AuthParamError::RandomLength(peer.random.len()));
        }
        if !peer.hmac_ids.contains(&HmacAlgorithm::Sha1.id()) {
            return Err(AuthParamError::NoSha1);
        }
        let accepted: Vec<HmacAlgorithm> = local
            .hmac_ids
            .iter()
            .filter_map(|&id| HmacAlgorithm::from_id(id))
            .collect();
        let send_algorithm = peer
            .hmac_ids
            .iter()
            .filter_map(|&id| HmacAlgorithm::from_id(id))
            .find(|a| accepted.contains(a))
            .unwrap_or(HmacAlgorithm::Sha1);
        let table = |list: &Option<Vec<u8>>| {
            let mut t = [false; 256];
            for &c in list.iter().flatten() {
                if !never_authenticated(c) {
                    t[c as usize] = true;
                }
            }
            t
        };
        let key = association_key(shared_key, local, peer);
        Ok(AuthState {
            send_required: table(&peer.chunks),
            recv_required: table(&local.chunks),
            send_algorithm,
            accepted,
            keyed: KeyedMacs::new(&key),
            key,
        })
    }

    /// Must a chunk of this type be sent after an AUTH chunk?
    pub fn must_authenticate(&self, ty: u8) -> bool {
        self.send_required[ty as usize]
    }

    /// Must a received chunk of this type have been authenticated?
    pub fn requires_authentication(&self, ty: u8) -> bool {
        self.recv_required[ty as usize]
    }

    /// Do we accept this HMAC identifier in a received AUTH chunk?
    pub fn accepts(&self, hmac_id: u16) -> Option<HmacAlgorithm> {
        HmacAlgorithm::from_id(hmac_id).filter(|a| self.accepted.contains(a))
    }

    /// MAC over `data` (the AUTH chunk with a zeroed HMAC field followed by
    /// the authenticated chunks, section 6.2).
    pub fn mac(&self, algorithm: HmacAlgorithm, data: &[u8]) -> MacValue {
        self.keyed.mac(algorithm, &[data])
    }

    /// Checks a received MAC in constant time; `data` as for
    /// [`AuthState::mac`].
    pub fn verify(&self, algorithm: HmacAlgorithm, data: &[u8], mac: &[u8]) -> bool {
        equal_in_constant_time(&self.keyed.mac(algorithm, &[data]), mac)
    }

    /// Checks the MAC of a received AUTH chunk and the chunks after it
    /// (section 6.3) in constant time: `auth` is the packet from the AUTH
    /// chunk's first byte to its end, `mac` the HMAC field read from it.
    /// The MAC is computed with the field taken as zeros, without copying
    /// the packet. False if `auth` is too short to hold the field.
    pub fn verify_auth_chunk(&self, algorithm: HmacAlgorithm, auth: &[u8], mac: &[u8]) -> bool {
        let field = AuthChunk::HMAC_OFFSET..AuthChunk::HMAC_OFFSET + algorithm.mac_len();
        let Some(after) = auth.get(field.end..) else {
            return false;
        };
        let parts = [
            &auth[..field.start],
            &ZERO_MAC[..algorithm.mac_len()],
            after,
        ];
        equal_in_constant_time(&self.keyed.mac(algorithm, &parts), mac)
    }

    /// The association shared key (for tests and diagnostics).
    pub fn key(&self) -> &[u8] {
        &self.key
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> MacValue {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// RFC 2202 test cases 1, 2 and 6 for HMAC-SHA-1.
    #[test]
    fn hmac_sha1_rfc2202() {
        let a = HmacAlgorithm::Sha1;
        assert_eq!(
            a.mac(&[0x0b; 20], &[b"Hi There"]),
            hex("b617318655057264e28bc0b6fb378c8ef146be00")
        );
        assert_eq!(
            a.mac(b"Jefe", &[b"what do ya want ", b"for nothing?"]),
            hex("effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
        );
        assert_eq!(
            a.mac(
                &[0xaa; 80],
                &[b"Test Using Larger Than Block-Size Key - Hash Key First"]
            ),
            hex("aa4ae5e15272d00e95705637ce8a3b55ed402112")
        );
    }

    /// RFC 4231 test cases 1, 2 and 6 for HMAC-SHA-256.
    #[test]
    fn hmac_sha256_rfc4231() {
        let a = HmacAlgorithm::Sha256;
        assert_eq!(
            a.mac(&[0x0b; 20], &[b"Hi There"]),
            hex("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        );
        assert_eq!(
            a.mac(b"Jefe", &[b"what do ya want for nothing?"]),
            hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        );
        assert_eq!(
            a.mac(
                &[0xaa; 131],
                &[b"Test Using Larger Than Block-Size Key - Hash Key First"]
            ),
            hex("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        );
    }

    fn params(random_byte: u8, chunks: Option<Vec<u8>>, ids: Vec<u16>) -> AuthParams {
        AuthParams {
            random: vec![random_byte; 32],
            chunks,
            hmac_ids: ids,
        }
    }

    #[test]
    fn key_vector_is_tlvs_without_padding() {
        let p = params(0xab, Some(vec![0xc1, 0x80, 0x03]), vec![3, 1]);
        let v = p.key_vector();
        // RANDOM TLV (36) + CHUNKS TLV (4 + 3, no padding) + HMAC-ALGO TLV (4 + 4).
        assert_eq!(v.len(), 36 + 7 + 8);
        assert_eq!(&v[0..4], &[0x80, 0x02, 0x00, 36]);
        assert_eq!(&v[36..43], &[0x80, 0x03, 0x00, 7, 0xc1, 0x80, 0x03]);
        assert_eq!(&v[43..], &[0x80, 0x04, 0x00, 8, 0, 3, 0, 1]);
        // An absent CHUNKS parameter is omitted.
        assert_eq!(params(1, None, vec![1]).key_vector().len(), 36 + 6);
    }

    #[test]
    fn association_key_orders_vectors_by_value_then_length() {
        let small = params(0x01, None, vec![1]);
        let big = params(0x02, None, vec![1]);
        let k1 = association_key(b"sk", &small, &big);
        let k2 = association_key(b"sk", &big, &small);
        assert_eq!(k1, k2, "both sides derive the same key");
        assert_eq!(&k1[..2], b"sk");
        assert_eq!(&k1[2..2 + 42], &small.key_vector()[..]);
        // Numeric comparison: a shorter vector is left-padded with zeros.
        assert!(key_vector_order(&[0xff], &[0x01, 0x00]).is_lt());
        assert!(key_vector_order(&[0x00, 0x05], &[0x05]).is_gt());
    }

    #[test]
    fn negotiation_picks_first_common_algorithm_and_ignores_forbidden_chunks() {
        let local = params(
            1,
            Some(vec![chunk_type::ASCONF, chunk_type::ASCONF_ACK]),
            vec![3, 1],
        );
        let peer = params(
            2,
            Some(vec![
                chunk_type::INIT,
                chunk_type::AUTH,
                chunk_type::ASCONF,
                chunk_type::SACK,
            ]),
            vec![1, 3],
        );
        let st = AuthState::new(b"", &local, &peer).unwrap();
        assert_eq!(st.send_algorithm, HmacAlgorithm::Sha1);
        assert!(st.must_authenticate(chunk_type::ASCONF));
        assert!(st.must_authenticate(chunk_type::SACK));
        assert!(!st.must_authenticate(chunk_type::INIT));
        assert!(!st.must_authenticate(chunk_type::AUTH));
        assert!(st.requires_authentication(chunk_type::ASCONF_ACK));
        assert!(!st.requires_authentication(chunk_type::DATA));
        assert_eq!(st.accepts(3), Some(HmacAlgorithm::Sha256));
        assert_eq!(st.accepts(2), None);
        let mac = st.mac(HmacAlgorithm::Sha1, b"data");
        assert!(st.verify(HmacAlgorithm::Sha1, b"data", &mac));
        assert!(!st.verify(HmacAlgorithm::Sha1, b"datA", &mac));
        assert!(!st.verify(HmacAlgorithm::Sha1, b"data", &mac[..19]));
    }

    #[test]
    fn keyed_once_the_state_gives_the_mac_of_keying_afresh() {
        // The association key (about 100 bytes: longer than a block, so
        // HMAC hashes it first) and a short one; both algorithms; empty,
        // small and multi-block messages.
        let local = params(1, Some(vec![chunk_type::ASCONF]), vec![3, 1]);
        let peer = params(2, Some(vec![chunk_type::ASCONF_ACK]), vec![1, 3]);
        let st = AuthState::new(b"", &local, &peer).unwrap();
        assert!(st.key().len() > 64, "{}", st.key().len());
        let short = KeyedMacs::new(b"k");
        for alg in [HmacAlgorithm::Sha1, HmacAlgorithm::Sha256] {
            for len in [0usize, 20, 64, 200, 1452] {
                let data: Vec<u8> = (0..len).map(|i| i as u8).collect();
                assert_eq!(st.mac(alg, &data), alg.mac(st.key(), &[&data]));
                assert_eq!(short.mac(alg, &[&data]), alg.mac(b"k", &[&data]));
                // The state is not consumed: a second MAC is the same.
                assert_eq!(st.mac(alg, &data), st.mac(alg, &data));
            }
        }
    }

    /// RFC 4895 section 6.3: the MAC of an AUTH chunk and what follows it,
    /// with its HMAC field as zeros, computed in place: the same as the
    /// MAC of a copy whose field is zeroed; any changed byte, a MAC of
    /// another length, or a chunk too short for its field fails.
    #[test]
    fn an_auth_chunk_is_checked_in_place_with_its_hmac_field_as_zeros() {
        let local = params(1, Some(vec![chunk_type::ASCONF]), vec![3, 1]);
        let peer = params(2, Some(vec![chunk_type::ASCONF_ACK]), vec![1, 3]);
        let st = AuthState::new(b"", &local, &peer).unwrap();
        for alg in [HmacAlgorithm::Sha1, HmacAlgorithm::Sha256] {
            let field = AuthChunk::HMAC_OFFSET..AuthChunk::HMAC_OFFSET + alg.mac_len();
            // AUTH header, an HMAC field, then 40 bytes of other chunks.
            let mut packet: Vec<u8> = (0..field.end as u8 + 40).collect();
            let mut zeroed = packet.clone();
            zeroed[field.clone()].fill(0);
            let mac = st.mac(alg, &zeroed);
            packet[field.clone()].copy_from_slice(&mac);
            assert!(st.verify_auth_chunk(alg, &packet, &mac));
            for k in [0, field.start - 1, field.end, packet.len() - 1] {
                let mut bad = packet.clone();
                bad[k] ^= 1;
                assert!(!st.verify_auth_chunk(alg, &bad, &mac), "byte {k} changed");
            }
            // The field's own bytes do not enter the MAC.
            let mut other = packet.clone();
            other[field.start] ^= 0xff;
            assert!(st.verify_auth_chunk(alg, &other, &mac));
            assert!(!st.verify_auth_chunk(alg, &packet, &mac[..mac.len() - 1]));
            assert!(!st.verify_auth_chunk(alg, &packet[..field.end - 1], &mac));
            assert!(st.verify_auth_chunk(
                alg,
                &packet[..field.end],
                &st.mac(alg, &zeroed[..field.end])
            ));
        }
    }

    #[test]
    fn peer_params_are_validated() {
        let local = params(1, None, vec![1]);
        let mut peer = params(2, None, vec![3]);
        assert_eq!(
            AuthState::new(b"", &local, &peer).unwrap_err(),
            AuthParamError::NoSha1
        );
        peer.hmac_ids = vec![1];
        peer.random.truncate(16);
        assert_eq!(
            AuthState::new(b"", &local, &peer).unwrap_err(),
            AuthParamError::RandomLength(16)
        );
    }
}
