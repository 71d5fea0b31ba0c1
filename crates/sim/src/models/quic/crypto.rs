//! A deterministic TLS 1.3 session for QUIC in the simulator (RFC 9001).
//!
//! quinn-proto's handshake is rustls's TLS 1.3 (RFC 8446). Three things in
//! it are random by default and are replaced here so that a run is a
//! function of its seed:
//! - rustls's own randomness (the hello randoms, session ticket values):
//!   [`CryptoProvider::secure_random`] draws from the stream the running
//!   agent installed ([`RandomScope`]);
//! - the ephemeral key exchange: ring draws ECDHE keys from the operating
//!   system and takes no seed, so the one group offered is a stand-in with
//!   X25519's code point and sizes (RFC 8446 section 4.2.8.2: a 32-byte
//!   share each way): the share is 32 bytes of the same stream, and the
//!   shared secret is SHA-256 of the two shares in byte order. A declared
//!   choice: the simulator measures transport, not cryptography; the key
//!   schedule is rustls's own;
//! - the certificate: an Ed25519 self-signed certificate checked in
//!   beside this file (`cert/`), whose signatures are deterministic
//!   (RFC 8032 section 5.1.6); the client accepts exactly that certificate
//!   and verifies the CertificateVerify signature with it.
//!
//! The wall clock rustls reads (ticket times) is a fixed instant.
//!
//! QUIC's packet protection (RFC 9001 section 5) is the null protection of
//! [`super::protection`]: the same suites, sizes, limits and key updates,
//! every packet opening or failing as with the real AEAD, without the
//! AES-GCM computation.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;
use std::sync::Arc;

use rand_chacha::ChaCha20Rng;
use rand_core::RngCore;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{
    ActiveKeyExchange, CryptoProvider, GetRandomFailed, SecureRandom, SharedSecret,
    SupportedKxGroup,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, NamedGroup, SignatureScheme};
use sha2::{Digest, Sha256};

/// The server name the client asks for (the certificate's subject).
pub const SERVER_NAME: &str = "msctp-sim";

const CERT_DER: &[u8] = include_bytes!("cert/cert.der");
const KEY_DER: &[u8] = include_bytes!("cert/key.der");

/// 2026-01-01T00:00:00Z, the wall clock rustls sees.
const FIXED_UNIX_SECS: u64 = 1_767_225_600;

thread_local! {
    static CURRENT: RefCell<Option<Rc<RefCell<ChaCha20Rng>>>> = const { RefCell::new(None) };
}

/// Makes `rng` the stream the TLS session and the connection-ID generator
/// draw from on this thread until dropped. The simulator runs one agent
/// callback at a time on one thread, so each agent's draws come from its
/// own stream in a fixed order.
pub struct RandomScope {
    previous: Option<Rc<RefCell<ChaCha20Rng>>>,
}

impl RandomScope {
    pub fn enter(rng: &Rc<RefCell<ChaCha20Rng>>) -> RandomScope {
        let previous = CURRENT.with(|c| c.replace(Some(rng.clone())));
        RandomScope { previous }
    }
}

impl Drop for RandomScope {
    fn drop(&mut self) {
        let previous = self.previous.take();
        CURRENT.with(|c| *c.borrow_mut() = previous);
    }
}

/// Fills `buf` from the installed stream; false when none is installed
/// (a call from outside an agent's callback).
pub(super) fn fill_random(buf: &mut [u8]) -> bool {
    CURRENT.with(|c| match c.borrow().as_ref() {
        Some(rng) => {
            rng.borrow_mut().fill_bytes(buf);
            true
        }
        None => false,
    })
}

#[derive(Debug)]
struct ScopedRandom;

impl SecureRandom for ScopedRandom {
    fn fill(&self, buf: &mut [u8]) -> Result<(), GetRandomFailed> {
        if fill_random(buf) {
            Ok(())
        } else {
            Err(GetRandomFailed)
        }
    }
}

static SCOPED_RANDOM: ScopedRandom = ScopedRandom;

/// The stand-in key exchange (see the module documentation).
#[derive(Debug)]
struct SimKx;

static SIM_KX: SimKx = SimKx;

struct SimKxActive {
    share: [u8; 32],
}

impl SupportedKxGroup for SimKx {
    fn start(&self) -> Result<Box<dyn ActiveKeyExchange>, rustls::Error> {
        let mut share = [0u8; 32];
        if !fill_random(&mut share) {
            return Err(rustls::Error::FailedToGetRandomBytes);
        }
        Ok(Box::new(SimKxActive { share }))
    }

    fn name(&self) -> NamedGroup {
        NamedGroup::X25519
    }
}

impl ActiveKeyExchange for SimKxActive {
    fn complete(self: Box<Self>, peer: &[u8]) -> Result<SharedSecret, rustls::Error> {
        if peer.len() != 32 {
            return Err(rustls::Error::from(rustls::PeerMisbehaved::InvalidKeyShare));
        }
        let (a, b) = if self.share.as_slice() <= peer {
            (self.share.as_slice(), peer)
        } else {
            (peer, self.share.as_slice())
        };
        let mut h = Sha256::new();
        h.update(a);
        h.update(b);
        Ok(SharedSecret::from(h.finalize().to_vec()))
    }

    fn pub_key(&self) -> &[u8] {
        &self.share
    }

    fn group(&self) -> NamedGroup {
        NamedGroup::X25519
    }
}

#[derive(Debug)]
struct FixedTime;

impl rustls::time_provider::TimeProvider for FixedTime {
    fn current_time(&self) -> Option<UnixTime> {
        Some(UnixTime::since_unix_epoch(std::time::Duration::from_secs(
            FIXED_UNIX_SECS,
        )))
    }
}

fn provider() -> Arc<CryptoProvider> {
    let mut p = rustls::crypto::ring::default_provider();
    p.secure_random = &SCOPED_RANDOM;
    p.kx_groups = vec![&SIM_KX];
    super::protection::install(&mut p);
    Arc::new(p)
}

/// Accepts exactly the checked-in certificate.
struct FixedCertVerifier {
    provider: Arc<CryptoProvider>,
}

impl fmt::Debug for FixedCertVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FixedCertVerifier")
    }
}

impl ServerCertVerifier for FixedCertVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if end_entity.as_ref() == CERT_DER {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::UnknownIssuer,
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        // QUIC is TLS 1.3 only (RFC 9001 section 4.2).
        Err(rustls::Error::PeerIncompatible(
            rustls::PeerIncompatible::Tls12NotOffered,
        ))
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        vec![SignatureScheme::ED25519]
    }
}

/// Why a QUIC crypto configuration could not be built.
#[derive(Debug, thiserror::Error)]
#[error("QUIC TLS configuration: {0}")]
pub struct CryptoError(String);

/// The client's TLS configuration for quinn-proto.
pub fn client_crypto() -> Result<Arc<quinn_proto::crypto::rustls::QuicClientConfig>, CryptoError> {
    let provider = provider();
    let verifier = Arc::new(FixedCertVerifier {
        provider: provider.clone(),
    });
    let cfg = rustls::ClientConfig::builder_with_details(provider, Arc::new(FixedTime))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| CryptoError(e.to_string()))?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    let q = quinn_proto::crypto::rustls::QuicClientConfig::try_from(cfg)
        .map_err(|e| CryptoError(e.to_string()))?;
    Ok(Arc::new(q))
}

/// The server's TLS configuration for quinn-proto (the checked-in
/// certificate and key).
pub fn server_crypto() -> Result<Arc<quinn_proto::crypto::rustls::QuicServerConfig>, CryptoError> {
    let cert = CertificateDer::from(CERT_DER.to_vec());
    let key = PrivateKeyDer::try_from(KEY_DER.to_vec()).map_err(|e| CryptoError(e.to_string()))?;
    let cfg = rustls::ServerConfig::builder_with_details(provider(), Arc::new(FixedTime))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| CryptoError(e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(vec![cert], key)
        .map_err(|e| CryptoError(e.to_string()))?;
    let q = quinn_proto::crypto::rustls::QuicServerConfig::try_from(cfg)
        .map_err(|e| CryptoError(e.to_string()))?;
    Ok(Arc::new(q))
}
