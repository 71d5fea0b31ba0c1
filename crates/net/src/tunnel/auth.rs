//! The tunnel's key proof, on stream 0 right after the association is
//! established, before any stream is carried:
//!
//! ```text
//! server                                   client
//!   CHALLENGE  c (32 random bytes)  ------->
//!           <-------  PROOF  n (32 random bytes), HMAC(K, "client" c n)
//!   verify; ACCEPTED HMAC(K, "server" c n)  ------->  verify
//! ```
//!
//! HMAC-SHA-256 (RFC 2104) under the pre-shared key K. Both sides also
//! use K as the endpoint-pair shared key of SCTP-AUTH (RFC 4895 section
//! 6.1) with DATA among the chunks to authenticate ([`super::apply_key`]):
//! without K, a client's DATA (its proof included) fails the HMAC and is
//! discarded by the engine; the proof above refuses also a peer that
//! negotiates no AUTH at all (RFC 4895 leaves AUTH optional). A server
//! that does not answer in time is treated as refusing.
//!
//! Both sides then derive the association's key for stream opens from K
//! and the nonces ([`super::open::OpenKey`]): every later request to
//! connect somewhere is sealed with it.

use std::time::Duration;

use bytes::Bytes;
use hmac::Mac;

use super::keyed::mac;
use super::open::OpenKey;
use crate::error::NetError;
use crate::stack::Association;

const BASE: u32 = 0x6d73_0100;
/// Payload protocol identifiers of the three messages.
pub const CHALLENGE: u32 = BASE | 1;
pub const PROOF: u32 = BASE | 2;
pub const ACCEPTED: u32 = BASE | 3;

const NONCE: usize = 32;
const MAC: usize = 32;

/// The next message on stream 0 of kind `ppid` and length `len`, within
/// `wait`; anything else is a failure.
async fn expect(
    a: &mut Association,
    ppid: u32,
    len: usize,
    wait: Duration,
) -> Result<Bytes, String> {
    match tokio::time::timeout(wait, a.recv()).await {
        Err(_) => Err(format!(
            "no key exchange within {:.1} s",
            wait.as_secs_f64()
        )),
        Ok(Err(e)) => Err(e.to_string()),
        Ok(Ok(None)) => Err("the association ended during the key exchange".into()),
        Ok(Ok(Some(m))) if m.stream == 0 && m.ppid == ppid && m.data.len() == len => Ok(m.data),
        Ok(Ok(Some(m))) => Err(format!(
            "unexpected message during the key exchange (stream {}, PPID {:#x}, {} bytes)",
            m.stream,
            m.ppid,
            m.data.len()
        )),
    }
}

/// Server side: challenges the client; `Err` if it does not prove it
/// holds `key` within `wait` (the caller then aborts the association),
/// else the association's key for stream opens.
pub async fn verify_client(
    a: &mut Association,
    key: &[u8],
    wait: Duration,
) -> Result<OpenKey, String> {
    let c: [u8; NONCE] = rand::random();
    a.send(0, CHALLENGE, Bytes::copy_from_slice(&c))
        .await
        .map_err(|e| e.to_string())?;
    let p = expect(a, PROOF, NONCE + MAC, wait).await?;
    let (n, tag) = p.split_at(NONCE);
    mac(key, b"client", &c, n)
        .verify_slice(tag)
        .map_err(|_| "wrong key proof".to_string())?;
    let answer = mac(key, b"server", &c, n).finalize().into_bytes();
    a.send(0, ACCEPTED, Bytes::copy_from_slice(&answer))
        .await
        .map_err(|e| e.to_string())?;
    Ok(OpenKey::derive(key, &c, n))
}

/// Client side: answers the server's challenge and checks that the server
/// holds `key` too; the association's key for stream opens.
pub async fn prove_to_server(
    a: &mut Association,
    key: &[u8],
    wait: Duration,
) -> Result<OpenKey, NetError> {
    let refused =
        |why: String| NetError::Refused(format!("tunnel key exchange: {why} (wrong key?)"));
    let c = expect(a, CHALLENGE, NONCE, wait).await.map_err(refused)?;
    let n: [u8; NONCE] = rand::random();
    let tag = mac(key, b"client", &c, &n).finalize().into_bytes();
    let mut proof = Vec::with_capacity(NONCE + MAC);
    proof.extend_from_slice(&n);
    proof.extend_from_slice(&tag);
    a.send(0, PROOF, Bytes::from(proof)).await?;
    let ok = expect(a, ACCEPTED, MAC, wait).await.map_err(refused)?;
    if mac(key, b"server", &c, &n).verify_slice(&ok).is_err() {
        let _ = a.abort().await;
        return Err(refused("the server does not hold the key".into()));
    }
    Ok(OpenKey::derive(key, &c, &n))
}
