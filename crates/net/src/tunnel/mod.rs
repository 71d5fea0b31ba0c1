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
//! client -> server   REQUEST_VERSION, COUNTER, ATYP, DST.ADDR, DST.PORT, TAG
//!                    (the destination as in SOCKS 5, sealed: [`open`])
//! server -> client   one byte: the SOCKS 5 reply code (0: connected)
//! then the bytes of the TCP connection, both ways; end of stream = FIN
//! ```
//!
//! The server only serves clients that hold the pre-shared key
//! ([`auth`]), only opens connections whose request carries the
//! association's MAC ([`open`]), only connects where its
//! [`policy::DestPolicy`] allows, and bounds associations per source,
//! streams per association and bytes buffered per stream. The address
//! changes that move the association (ASCONF) are always authenticated
//! with the key (SCTP-AUTH, RFC 4895; RFC 5061 sections 4.1.1, 4.1.2); the
//! relayed bytes only with `--data-auth` ([`DATA_AUTH_DEFAULT`]).

pub mod auth;
pub mod bench;
pub mod client;
mod keyed;
pub mod open;
pub mod policy;
pub mod relay;
pub mod server;
pub mod socks;

use std::path::Path;

use msctp_proto::wire::chunk::chunk_type;

use crate::StackConfig;
use crate::error::NetError;

/// First byte of a stream's request: 2 since requests are sealed
/// ([`open`]); version 1 (unsealed) is refused.
pub const REQUEST_VERSION: u8 = 2;

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

/// Whether the tunnel asks the peer to authenticate its DATA chunks
/// unless told otherwise (`--data-auth`): no.
///
/// The key guards what a tunnel adds to a TCP connection: who may use the
/// server (the key proof, [`auth`]), where it connects (sealed opens,
/// [`open`]) and where the association moves (ASCONF, always
/// authenticated). That is the guard MPTCP puts on its own additions
/// (RFC 8684: an HMAC on each subflow's join, section 3.2, and on each
/// address added, section 3.4.1; none on the data). The bytes of a
/// relayed connection are then as protected as on the TCP connection they
/// replace: an on-path sender who reads the verification tags can change
/// or cut them. SCTP-AUTH on every DATA chunk would stop that but gives no
/// confidentiality, so an application that needs either already runs
/// TLS or ssh end to end; and it costs two HMAC-SHA-256 passes over every
/// byte, more CPU than all the rest of the tunnel on loopback
/// (docs/measurements/tunnel.md). Those who want the integrity of the
/// relayed bytes without TLS turn it on (`--data-auth`, both sides).
pub const DATA_AUTH_DEFAULT: bool = false;

/// Uses `key` as the endpoint-pair shared key of SCTP-AUTH (RFC 4895
/// section 6.1) and, with `data`, asks the peer to authenticate its DATA
/// chunks (section 4.2, CHUNKS): then nobody without the key can inject
/// or change data on the way, at the cost of two HMAC-SHA-256 passes per
/// byte (one to send, one to receive). Without `data`, the key proof
/// still admits only key holders and every stream open must carry the
/// association's MAC ([`open`]), so nobody else can have the server
/// connect anywhere; but someone on the path who reads the verification
/// tags (RFC 9260 section 8.5; they keep off-path senders out) can change
/// or cut the relayed bytes of a connection, as on a TCP connection.
pub fn apply_key(key: &[u8], data: bool, stack: &mut StackConfig) {
    let a = &mut stack.endpoint.association;
    a.auth = true;
    a.shared_key = key.to_vec();
    if data && !a.auth_chunks.contains(&chunk_type::DATA) {
        a.auth_chunks.push(chunk_type::DATA);
    }
}

#[cfg(test)]
mod tests {
    use msctp_proto::association::local_auth_params;

    use super::*;
    use crate::tunnel::client::ClientConfig;
    use crate::tunnel::server::ServerConfig;

    /// The chunk types an endpoint configured by `apply` asks its peer to
    /// authenticate (its CHUNKS parameter, RFC 4895 section 3.2).
    fn required(apply: impl Fn(&mut StackConfig)) -> Vec<u8> {
        let mut cfg = StackConfig::new(5000);
        apply(&mut cfg);
        let p = local_auth_params(&cfg.endpoint.association, &[7; 32]);
        p.chunks.unwrap_or_default()
    }

    #[test]
    fn by_default_address_changes_are_authenticated_and_data_is_not() {
        let key = vec![1u8; 32];
        let server = ServerConfig::new(key.clone());
        let client = ClientConfig::new(key.clone(), vec!["192.0.2.1".parse().unwrap()], 5000);
        assert!(!server.authenticate_data && !client.authenticate_data);
        for chunks in [
            required(|c| server.apply_to(c)),
            required(|c| client.apply_to(c)),
        ] {
            assert!(chunks.contains(&chunk_type::ASCONF), "{chunks:?}");
            assert!(chunks.contains(&chunk_type::ASCONF_ACK), "{chunks:?}");
            assert!(!chunks.contains(&chunk_type::DATA), "{chunks:?}");
        }
        // `--data-auth`: DATA too.
        let mut server = server;
        server.authenticate_data = true;
        let chunks = required(|c| server.apply_to(c));
        assert!(chunks.contains(&chunk_type::DATA), "{chunks:?}");
        assert!(chunks.contains(&chunk_type::ASCONF), "{chunks:?}");
    }
}
