//! quinn-proto's endpoint and connection settings with every source of
//! randomness and wall-clock time taken from the simulator: the stateless
//! reset key (RFC 9000 section 10.3), the address validation token key
//! (section 8.1.3), the connection IDs (section 5.1) and the token
//! timestamps all come from the run's seed and the simulated clock.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use quinn_proto::{
    ClientConfig, ConnectionId, ConnectionIdGenerator, EndpointConfig, ServerConfig, TimeSource,
    TransportConfig,
};
use rand_chacha::ChaCha20Rng;
use rand_core::RngCore;

use super::crypto::{self, CryptoError};

/// Length of our connection IDs (quinn-proto's default generator's).
const CID_LEN: usize = 8;

/// Connection IDs from the agent's random stream (installed while the
/// agent runs, [`crypto::RandomScope`]).
struct ScopedCidGenerator;

impl ConnectionIdGenerator for ScopedCidGenerator {
    fn generate_cid(&mut self) -> ConnectionId {
        let mut b = [0u8; CID_LEN];
        // Outside a scope (never in the simulator): all zero, still valid.
        let _ = super::crypto::fill_random(&mut b);
        ConnectionId::new(&b)
    }

    fn cid_len(&self) -> usize {
        CID_LEN
    }

    fn cid_lifetime(&self) -> Option<Duration> {
        None
    }
}

/// The simulated clock as a wall clock (for token timestamps): a fixed
/// epoch plus the simulation time, updated by the agent.
#[derive(Debug, Clone, Default)]
pub struct SimClock(Arc<AtomicU64>);

impl SimClock {
    pub fn set(&self, nanos: u64) {
        self.0.store(nanos, Ordering::Relaxed);
    }
}

impl TimeSource for SimClock {
    fn now(&self) -> SystemTime {
        // 2026-01-01T00:00:00Z, as the TLS session's fixed clock.
        SystemTime::UNIX_EPOCH
            + Duration::from_secs(1_767_225_600)
            + Duration::from_nanos(self.0.load(Ordering::Relaxed))
    }
}

fn key_bytes(rng: &mut ChaCha20Rng) -> [u8; 64] {
    let mut k = [0u8; 64];
    rng.fill_bytes(&mut k);
    k
}

/// The endpoint configuration: seeded reset key, scoped CID generator.
pub fn endpoint_config(rng: &mut ChaCha20Rng) -> EndpointConfig {
    let reset = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &key_bytes(rng));
    let mut cfg = EndpointConfig::new(Arc::new(reset));
    cfg.cid_generator(|| Box::new(ScopedCidGenerator));
    cfg
}

/// The server configuration: the fixed certificate, a seeded token key,
/// the simulated clock; quinn-proto's transport defaults.
pub fn server_config(
    rng: &mut ChaCha20Rng,
    clock: &SimClock,
    transport: Arc<TransportConfig>,
) -> Result<ServerConfig, CryptoError> {
    let token_key = ring::hkdf::Salt::new(ring::hkdf::HKDF_SHA256, &[]).extract(&key_bytes(rng));
    let mut cfg = ServerConfig::new(crypto::server_crypto()?, Arc::new(token_key));
    cfg.time_source(Arc::new(clock.clone()));
    cfg.transport_config(transport);
    Ok(cfg)
}

/// The client configuration: accepts the fixed certificate.
pub fn client_config(transport: Arc<TransportConfig>) -> Result<ClientConfig, CryptoError> {
    let mut cfg = ClientConfig::new(crypto::client_crypto()?);
    cfg.transport_config(transport);
    Ok(cfg)
}
