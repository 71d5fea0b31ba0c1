//! Null QUIC packet protection (RFC 9001 section 5) for the simulator.
//!
//! Packet protection is the AEAD of the negotiated TLS 1.3 cipher suite
//! over each packet's payload and a header-protection mask over its first
//! byte and packet number (RFC 9001 sections 5.3 and 5.4). The simulator
//! measures transport, not cryptography, so each TLS 1.3 suite of the
//! provider is offered here with the same code point, hash and key
//! schedule, and a stand-in for its QUIC protection that:
//! - leaves the payload and the header as they are (no encryption, no
//!   mask);
//! - writes a 16-byte tag that is a function of the packet key, the IV and
//!   the packet number (the AEAD nonce, RFC 9001 section 5.3), and accepts
//!   a packet only when its tag is that value; so, as with the real AEAD,
//!   a packet opens only with the keys it was sealed with (space, key
//!   phase, connection) and under its own packet number, and a stateless
//!   reset or a packet of another connection does not open;
//! - reports the real algorithm's tag length, header-protection sample
//!   length, key length and confidentiality and integrity limits (read
//!   once from the real keys), so quinn-proto builds packets of the same
//!   sizes and paddings and updates keys at the same packets (RFC 9001
//!   sections 6 and 6.6).
//!
//! The simulator loses packets but never changes their bytes, which is all
//! that the AEAD's integrity would detect beyond the cases above: every
//! packet opens or fails exactly as with the real protection, and no
//! result changes. Packet captures show the QUIC payload in clear.

use std::sync::OnceLock;

use rustls::crypto::CryptoProvider;
use rustls::crypto::cipher::{AeadKey, Iv};
use rustls::quic::{self, Tag};
use rustls::{Side, SupportedCipherSuite, Tls13CipherSuite};

/// Length of the tag this protection writes (that of every TLS 1.3 AEAD
/// rustls offers for QUIC).
const TAG_LEN: usize = 16;

/// What quinn-proto reads of a suite's real protection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Params {
    key_len: usize,
    tag_len: usize,
    sample_len: usize,
    confidentiality_limit: u64,
    integrity_limit: u64,
}

impl Params {
    /// Reads the parameters from a real key pair of `suite`.
    fn of(suite: &'static Tls13CipherSuite, real: &'static dyn quic::Algorithm) -> Params {
        let keys = quic::Keys::initial(quic::Version::V1, suite, real, b"msctp-sim", Side::Client);
        Params {
            key_len: real.aead_key_len(),
            tag_len: keys.local.packet.tag_len(),
            sample_len: keys.local.header.sample_len(),
            confidentiality_limit: keys.local.packet.confidentiality_limit(),
            integrity_limit: keys.local.packet.integrity_limit(),
        }
    }
}

/// The stand-in QUIC algorithm of one suite.
struct NullAlgorithm {
    params: Params,
}

impl quic::Algorithm for NullAlgorithm {
    fn packet_key(&self, key: AeadKey, iv: Iv) -> Box<dyn quic::PacketKey> {
        let mut base = [0u8; TAG_LEN];
        for (b, k) in base.iter_mut().zip(key.as_ref()) {
            *b = *k;
        }
        let mut nonce = [0u8; 12];
        nonce.copy_from_slice(iv.as_ref());
        Box::new(NullPacketKey {
            base,
            iv: nonce,
            params: self.params,
        })
    }

    fn header_protection_key(&self, _key: AeadKey) -> Box<dyn quic::HeaderProtectionKey> {
        Box::new(NullHeaderKey {
            sample_len: self.params.sample_len,
        })
    }

    fn aead_key_len(&self) -> usize {
        self.params.key_len
    }
}

/// A packet key: the first 16 bytes of the AEAD key and the IV.
struct NullPacketKey {
    base: [u8; TAG_LEN],
    iv: [u8; 12],
    params: Params,
}

impl NullPacketKey {
    /// The tag of packet `pn`: the key's first 16 bytes, the first 12
    /// XORed with the nonce (the IV XOR the packet number, RFC 9001
    /// section 5.3).
    fn tag(&self, pn: u64) -> [u8; TAG_LEN] {
        let mut t = self.base;
        let pn = pn.to_be_bytes();
        for i in 0..12 {
            let p = if i >= 4 { pn[i - 4] } else { 0 };
            t[i] ^= self.iv[i] ^ p;
        }
        t
    }
}

impl quic::PacketKey for NullPacketKey {
    fn encrypt_in_place(
        &self,
        packet_number: u64,
        _header: &[u8],
        _payload: &mut [u8],
    ) -> Result<Tag, rustls::Error> {
        Ok(Tag::from(&self.tag(packet_number)[..]))
    }

    fn decrypt_in_place<'a>(
        &self,
        packet_number: u64,
        _header: &[u8],
        payload: &'a mut [u8],
    ) -> Result<&'a [u8], rustls::Error> {
        let Some(n) = payload.len().checked_sub(TAG_LEN) else {
            return Err(rustls::Error::DecryptError);
        };
        let (plain, tag) = payload.split_at(n);
        if tag == self.tag(packet_number) {
            Ok(plain)
        } else {
            Err(rustls::Error::DecryptError)
        }
    }

    fn tag_len(&self) -> usize {
        self.params.tag_len
    }

    fn confidentiality_limit(&self) -> u64 {
        self.params.confidentiality_limit
    }

    fn integrity_limit(&self) -> u64 {
        self.params.integrity_limit
    }
}

/// A header protection key that masks nothing (with the real key's
/// checks of the sample and packet-number lengths, RFC 9001 section 5.4).
struct NullHeaderKey {
    sample_len: usize,
}

impl NullHeaderKey {
    fn check(&self, sample: &[u8], packet_number: &[u8]) -> Result<(), rustls::Error> {
        if sample.len() != self.sample_len || packet_number.len() > 4 {
            return Err(rustls::Error::General(
                "sample or packet number of a wrong length".into(),
            ));
        }
        Ok(())
    }
}

impl quic::HeaderProtectionKey for NullHeaderKey {
    fn encrypt_in_place(
        &self,
        sample: &[u8],
        _first: &mut u8,
        packet_number: &mut [u8],
    ) -> Result<(), rustls::Error> {
        self.check(sample, packet_number)
    }

    fn decrypt_in_place(
        &self,
        sample: &[u8],
        _first: &mut u8,
        packet_number: &mut [u8],
    ) -> Result<(), rustls::Error> {
        self.check(sample, packet_number)
    }

    fn sample_len(&self) -> usize {
        self.sample_len
    }
}

/// The TLS 1.3 suites of `real` (same order) with null QUIC protection;
/// other suites unchanged. Built once per process (the suites must live
/// for the whole program, as rustls's own statics do).
fn null_suites(real: &[SupportedCipherSuite]) -> Vec<SupportedCipherSuite> {
    real.iter()
        .map(|cs| match cs.tls13() {
            Some(s) if s.quic.is_some() => {
                let quic: &'static dyn quic::Algorithm = match s.quic {
                    Some(q) => Box::leak(Box::new(NullAlgorithm {
                        params: Params::of(s, q),
                    })),
                    None => unreachable!("checked above"),
                };
                let suite: &'static Tls13CipherSuite = Box::leak(Box::new(Tls13CipherSuite {
                    common: rustls::crypto::CipherSuiteCommon {
                        suite: s.common.suite,
                        hash_provider: s.common.hash_provider,
                        confidentiality_limit: s.common.confidentiality_limit,
                    },
                    hkdf_provider: s.hkdf_provider,
                    aead_alg: s.aead_alg,
                    quic: Some(quic),
                }));
                SupportedCipherSuite::Tls13(suite)
            }
            _ => *cs,
        })
        .collect()
}

/// Replaces the QUIC packet protection of `provider`'s TLS 1.3 suites by
/// the null protection (see the module documentation).
pub(super) fn install(provider: &mut CryptoProvider) {
    static SUITES: OnceLock<(Vec<SupportedCipherSuite>, Vec<SupportedCipherSuite>)> =
        OnceLock::new();
    let (real, null) = SUITES.get_or_init(|| {
        let real = provider.cipher_suites.clone();
        let null = null_suites(&real);
        (real, null)
    });
    debug_assert_eq!(
        real.iter().map(|c| c.suite()).collect::<Vec<_>>(),
        provider
            .cipher_suites
            .iter()
            .map(|c| c.suite())
            .collect::<Vec<_>>()
    );
    provider.cipher_suites = null.clone();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suites() -> (Vec<SupportedCipherSuite>, Vec<SupportedCipherSuite>) {
        let real = rustls::crypto::ring::default_provider().cipher_suites;
        let mut p = rustls::crypto::ring::default_provider();
        install(&mut p);
        (real, p.cipher_suites)
    }

    #[test]
    fn same_suites_and_parameters_as_the_real_protection() {
        let (real, null) = suites();
        assert_eq!(real.len(), null.len());
        for (r, n) in real.iter().zip(&null) {
            assert_eq!(r.suite(), n.suite());
            let (Some(r), Some(n)) = (r.tls13(), n.tls13()) else {
                continue;
            };
            let (rq, nq) = (r.quic.unwrap(), n.quic.unwrap());
            assert_eq!(rq.aead_key_len(), nq.aead_key_len());
            assert_eq!(
                r.common.confidentiality_limit,
                n.common.confidentiality_limit
            );
            let rk = quic::Keys::initial(quic::Version::V1, r, rq, b"abc", Side::Server);
            let nk = quic::Keys::initial(quic::Version::V1, n, nq, b"abc", Side::Server);
            for (a, b) in [(&rk.local, &nk.local), (&rk.remote, &nk.remote)] {
                assert_eq!(a.packet.tag_len(), b.packet.tag_len());
                assert_eq!(
                    a.packet.confidentiality_limit(),
                    b.packet.confidentiality_limit()
                );
                assert_eq!(a.packet.integrity_limit(), b.packet.integrity_limit());
                assert_eq!(a.header.sample_len(), b.header.sample_len());
            }
        }
    }

    #[test]
    fn opens_only_with_its_key_and_packet_number() {
        let (_, null) = suites();
        let s = null
            .iter()
            .find_map(|c| c.tls13())
            .expect("a TLS 1.3 suite");
        let q = s.quic.unwrap();
        let a = quic::Keys::initial(quic::Version::V1, s, q, b"conn-a", Side::Client);
        let b = quic::Keys::initial(quic::Version::V1, s, q, b"conn-b", Side::Client);
        let header = [0x40u8, 1, 2, 3];
        let mut payload = b"frames".to_vec();
        let tag = a
            .local
            .packet
            .encrypt_in_place(7, &header, &mut payload)
            .unwrap();
        assert_eq!(payload, b"frames", "the payload stays in clear");
        payload.extend_from_slice(tag.as_ref());
        let mut p = payload.clone();
        assert_eq!(
            a.local.packet.decrypt_in_place(7, &header, &mut p).unwrap(),
            b"frames"
        );
        for (key, pn) in [
            (&a.local.packet, 8),
            (&a.remote.packet, 7),
            (&b.local.packet, 7),
        ] {
            let mut p = payload.clone();
            assert!(key.decrypt_in_place(pn, &header, &mut p).is_err());
        }
        let mut short = vec![0u8; 15];
        assert!(
            a.local
                .packet
                .decrypt_in_place(7, &header, &mut short)
                .is_err()
        );
        let mut first = 0xc3u8;
        let mut pn = [1u8, 2];
        a.local
            .header
            .encrypt_in_place(&[0; 16], &mut first, &mut pn)
            .unwrap();
        assert_eq!((first, pn), (0xc3, [1, 2]), "no mask");
        assert!(
            a.local
                .header
                .decrypt_in_place(&[0; 15], &mut first, &mut pn)
                .is_err()
        );
    }
}
