//! `msctp tunnel`: unmodified TCP applications over one mSCTP association.
//!
//! The client side ([`client`]) is a SOCKS 5 server (RFC 1928) on a local
//! address; it carries each TCP connection an application opens through
//! it on one stream ([`crate::streams`]) of one association to the server
//! side ([`server`]), which connects to the destination and relays. All
//! connections share the association, so a handover (RFC 5061 ASCONF)
//! moves them all at once, and a loss on one stream does not hold back
//! the others (RFC 9260 section 6.6).
//!
//! On each stream, after the streams' own framing:
//!
//! ```text
//! client -> server   REQUEST_VERSION, ATYP, DST.ADDR, DST.PORT   (as in SOCKS 5)
//! server -> client   one byte: the SOCKS 5 reply code (0: connected)
//! then the bytes of the TCP connection, both ways; end of stream = FIN
//! ```
//!
//! The server only serves clients that hold the pre-shared key
//! ([`auth`], and SCTP-AUTH on DATA, RFC 4895), only connects where its
//! [`policy::DestPolicy`] allows, and bounds associations per source,
//! streams per association and bytes buffered per stream.

pub mod auth;
pub mod bench;
pub mod client;
pub mod policy;
pub mod relay;
pub mod server;
pub mod socks;

use std::path::Path;

use msctp_proto::wire::chunk::chunk_type;

use crate::StackConfig;
use crate::error::NetError;

/// First byte of a stream's request.
pub const REQUEST_VERSION: u8 = 1;

/// Shortest pre-shared key accepted (bytes): 128 bits.
pub const MIN_KEY: usize = 16;

/// Reads a pre-shared key from a file: its bytes, surrounding white space
/// removed (e.g. `head -c 32 /dev/urandom | base64 > tunnel.key`); at
/// least [`MIN_KEY`] bytes.
pub fn read_key(path: &Path) -> Result<Vec<u8>, NetError> {
    let raw = std::fs::read(path).map_err(|e| {
        NetError::Io(std::io::Error::new(
            e.kind(),
            format!("cannot read the key file {}: {e}", path.display()),
        ))
    })?;
    let key = raw.trim_ascii().to_vec();
    check_key(&key)?;
    Ok(key)
}

pub fn check_key(key: &[u8]) -> Result<(), NetError> {
    if key.len() < MIN_KEY {
        return Err(NetError::StreamConfig(format!(
            "the tunnel key has {} bytes; at least {MIN_KEY} are needed",
            key.len()
        )));
    }
    Ok(())
}

/// Uses `key` as the endpoint-pair shared key of SCTP-AUTH (RFC 4895
/// section 6.1) and, with `data`, asks the peer to authenticate its DATA
/// chunks (section 4.2, CHUNKS): then nobody without the key can inject
/// or change data on the way, at the cost of an HMAC-SHA-256 per packet
/// (on loopback about an eighth of the throughput without it). Without
/// `data`, the key proof still admits only key holders, and the
/// verification tag (RFC 9260 section 8.5) keeps off-path senders out.
pub fn apply_key(key: &[u8], data: bool, stack: &mut StackConfig) {
    let a = &mut stack.endpoint.association;
    a.auth = true;
    a.shared_key = key.to_vec();
    if data && !a.auth_chunks.contains(&chunk_type::DATA) {
        a.auth_chunks.push(chunk_type::DATA);
    }
}
