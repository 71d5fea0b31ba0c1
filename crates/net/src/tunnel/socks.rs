//! The server side of SOCKS version 5 (RFC 1928) that the tunnel's client
//! offers to applications: the "no authentication required" method
//! (section 3; the tunnel listens on a local address), the CONNECT
//! command with IPv4, IPv6 and domain-name destinations (sections 4, 5),
//! and the replies of section 6. Anything else gets the matching error
//! reply and the connection is closed.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// SOCKS protocol version (RFC 1928 section 3).
pub const VERSION: u8 = 5;
/// Method "no authentication required" (section 3).
pub const NO_AUTH: u8 = 0x00;
/// "No acceptable methods" (section 3).
pub const NO_ACCEPTABLE: u8 = 0xff;
/// CONNECT (section 4).
pub const CMD_CONNECT: u8 = 1;

/// Address types (section 4).
pub const ATYP_IPV4: u8 = 1;
pub const ATYP_DOMAIN: u8 = 3;
pub const ATYP_IPV6: u8 = 4;

/// Reply codes (RFC 1928 section 6).
pub mod reply {
    pub const SUCCEEDED: u8 = 0x00;
    pub const GENERAL_FAILURE: u8 = 0x01;
    pub const NOT_ALLOWED: u8 = 0x02;
    pub const NETWORK_UNREACHABLE: u8 = 0x03;
    pub const HOST_UNREACHABLE: u8 = 0x04;
    pub const CONNECTION_REFUSED: u8 = 0x05;
    pub const TTL_EXPIRED: u8 = 0x06;
    pub const COMMAND_NOT_SUPPORTED: u8 = 0x07;
    pub const ADDRESS_TYPE_NOT_SUPPORTED: u8 = 0x08;
}

/// Where a CONNECT goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Addr(SocketAddr),
    /// A domain name (resolved by the tunnel's server) and a port.
    Domain(String, u16),
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Addr(a) => write!(f, "{a}"),
            Target::Domain(d, p) => write!(f, "{d}:{p}"),
        }
    }
}

impl Target {
    /// ATYP, DST.ADDR and DST.PORT as in a SOCKS request (section 4).
    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(20);
        let port = match self {
            Target::Addr(SocketAddr::V4(a)) => {
                v.push(ATYP_IPV4);
                v.extend_from_slice(&a.ip().octets());
                a.port()
            }
            Target::Addr(SocketAddr::V6(a)) => {
                v.push(ATYP_IPV6);
                v.extend_from_slice(&a.ip().octets());
                a.port()
            }
            Target::Domain(d, p) => {
                v.push(ATYP_DOMAIN);
                v.push(d.len() as u8);
                v.extend_from_slice(d.as_bytes());
                *p
            }
        };
        v.extend_from_slice(&port.to_be_bytes());
        v
    }
}

/// A request that cannot be served: the reply code to send (if any can
/// be) and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SocksError {
    /// Reply code of section 6; `None` when the client did not get as
    /// far as a request (bad greeting: the method reply says it).
    pub reply: Option<u8>,
    pub why: String,
}

impl fmt::Display for SocksError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.why)
    }
}

fn fail(reply: u8, why: impl Into<String>) -> SocksError {
    SocksError {
        reply: Some(reply),
        why: why.into(),
    }
}

fn gone(e: std::io::Error) -> SocksError {
    SocksError {
        reply: None,
        why: format!("the client left: {e}"),
    }
}

/// Reads ATYP's address and the port (the rest of a request, or of the
/// tunnel's own request header).
pub async fn read_target<R: AsyncRead + Unpin>(r: &mut R, atyp: u8) -> Result<Target, SocksError> {
    let ip = match atyp {
        ATYP_IPV4 => {
            let mut a = [0u8; 4];
            r.read_exact(&mut a).await.map_err(gone)?;
            Some(IpAddr::V4(Ipv4Addr::from(a)))
        }
        ATYP_IPV6 => {
            let mut a = [0u8; 16];
            r.read_exact(&mut a).await.map_err(gone)?;
            Some(IpAddr::V6(Ipv6Addr::from(a)))
        }
        ATYP_DOMAIN => None,
        other => {
            let why = format!("address type {other:#04x} is not IPv4, IPv6 or a domain name");
            return Err(fail(reply::ADDRESS_TYPE_NOT_SUPPORTED, why));
        }
    };
    let domain = match ip {
        Some(_) => None,
        None => {
            let n = r.read_u8().await.map_err(gone)? as usize;
            let mut d = vec![0u8; n];
            r.read_exact(&mut d).await.map_err(gone)?;
            Some(check_domain(d)?)
        }
    };
    let port = r.read_u16().await.map_err(gone)?;
    if port == 0 {
        return Err(fail(reply::GENERAL_FAILURE, "destination port 0"));
    }
    Ok(match (ip, domain) {
        (Some(ip), _) => Target::Addr(SocketAddr::new(ip, port)),
        (None, Some(d)) => Target::Domain(d, port),
        (None, None) => unreachable!("one of the two was read"),
    })
}

/// A domain name as RFC 1035 spells host names: 1 to 253 bytes of
/// letters, digits, '-', '.' (and '_', found in real names).
fn check_domain(d: Vec<u8>) -> Result<String, SocksError> {
    let ok = !d.is_empty()
        && d.len() <= 253
        && d.iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'));
    match String::from_utf8(d) {
        Ok(s) if ok => Ok(s),
        _ => Err(fail(reply::GENERAL_FAILURE, "malformed domain name")),
    }
}

/// Method negotiation and the request (sections 3 and 4): the CONNECT
/// destination, or why not (the caller sends the reply and closes).
pub async fn accept<S: AsyncRead + AsyncWrite + Unpin>(s: &mut S) -> Result<Target, SocksError> {
    let mut head = [0u8; 2];
    s.read_exact(&mut head).await.map_err(gone)?;
    let mut methods = vec![0u8; head[1] as usize];
    s.read_exact(&mut methods).await.map_err(gone)?;
    if head[0] != VERSION || !methods.contains(&NO_AUTH) {
        let _ = s.write_all(&[VERSION, NO_ACCEPTABLE]).await;
        let why = if head[0] != VERSION {
            format!("not SOCKS 5 (version {})", head[0])
        } else {
            "the client offers no method without authentication".to_string()
        };
        return Err(SocksError { reply: None, why });
    }
    s.write_all(&[VERSION, NO_AUTH]).await.map_err(gone)?;
    let mut req = [0u8; 4];
    s.read_exact(&mut req).await.map_err(gone)?;
    let [ver, cmd, rsv, atyp] = req;
    if ver != VERSION || rsv != 0 {
        let why = format!("malformed request (version {ver}, reserved byte {rsv})");
        return Err(fail(reply::GENERAL_FAILURE, why));
    }
    if cmd != CMD_CONNECT {
        let why = format!("command {cmd} is not supported (only CONNECT)");
        return Err(fail(reply::COMMAND_NOT_SUPPORTED, why));
    }
    read_target(s, atyp).await
}

/// Sends a reply (section 6); BND.ADDR and BND.PORT are zero (the bound
/// address is the tunnel server's, of no use to the client).
pub async fn send_reply<W: AsyncWrite + Unpin>(w: &mut W, code: u8) -> std::io::Result<()> {
    w.write_all(&[VERSION, code, 0, ATYP_IPV4, 0, 0, 0, 0, 0, 0])
        .await?;
    w.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `accept` on `input`; returns its result and what it wrote.
    fn run(input: &[u8]) -> (Result<Target, SocksError>, Vec<u8>) {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let (mut client, mut server) = tokio::io::duplex(1024);
            client.write_all(input).await.unwrap();
            // The client sends nothing more: a short request ends in EOF.
            drop(client.shutdown().await);
            let r = accept(&mut server).await;
            let mut out = Vec::new();
            drop(server);
            client.read_to_end(&mut out).await.unwrap();
            (r, out)
        })
    }

    #[test]
    fn connect_requests_of_each_address_type() {
        let cases: &[(&[u8], Target)] = &[
            (
                &[5, 1, 0, 5, 1, 0, 1, 10, 0, 0, 1, 0, 80],
                Target::Addr("10.0.0.1:80".parse().unwrap()),
            ),
            (
                &[
                    5, 2, 2, 0, 5, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 187,
                ],
                Target::Addr("[::1]:443".parse().unwrap()),
            ),
            (
                &[
                    5, 1, 0, 5, 1, 0, 3, 11, b'e', b'x', b'a', b'm', b'p', b'l', b'e', b'.', b'o',
                    b'r', b'g', 0, 80,
                ],
                Target::Domain("example.org".into(), 80),
            ),
        ];
        for (input, want) in cases {
            let (r, out) = run(input);
            assert_eq!(r.as_ref(), Ok(want), "{input:?}");
            assert_eq!(out, [5, 0], "method reply only");
        }
    }

    #[test]
    fn malformed_requests_get_the_error_reply_never_a_panic() {
        use reply::*;
        // (input, reply code expected; None: the method reply refuses).
        let cases: &[(&str, &[u8], Option<u8>)] = &[
            ("SOCKS 4 greeting", &[4, 1, 0, 80, 10, 0, 0, 1, 0], None),
            ("no methods", &[5, 0], None),
            ("only user/password", &[5, 1, 2], None),
            (
                "BIND",
                &[5, 1, 0, 5, 2, 0, 1, 1, 2, 3, 4, 0, 80],
                Some(COMMAND_NOT_SUPPORTED),
            ),
            (
                "UDP ASSOCIATE",
                &[5, 1, 0, 5, 3, 0, 1, 1, 2, 3, 4, 0, 80],
                Some(COMMAND_NOT_SUPPORTED),
            ),
            (
                "command 0",
                &[5, 1, 0, 5, 0, 0, 1, 1, 2, 3, 4, 0, 80],
                Some(COMMAND_NOT_SUPPORTED),
            ),
            (
                "address type 2",
                &[5, 1, 0, 5, 1, 0, 2, 1, 2, 3, 4, 0, 80],
                Some(ADDRESS_TYPE_NOT_SUPPORTED),
            ),
            (
                "address type 0xff",
                &[5, 1, 0, 5, 1, 0, 255],
                Some(ADDRESS_TYPE_NOT_SUPPORTED),
            ),
            (
                "request version 4",
                &[5, 1, 0, 4, 1, 0, 1, 1, 2, 3, 4, 0, 80],
                Some(GENERAL_FAILURE),
            ),
            (
                "reserved byte set",
                &[5, 1, 0, 5, 1, 9, 1, 1, 2, 3, 4, 0, 80],
                Some(GENERAL_FAILURE),
            ),
            (
                "empty domain",
                &[5, 1, 0, 5, 1, 0, 3, 0, 0, 80],
                Some(GENERAL_FAILURE),
            ),
            (
                "domain with a space",
                &[5, 1, 0, 5, 1, 0, 3, 3, b'a', b' ', b'b', 0, 80],
                Some(GENERAL_FAILURE),
            ),
            (
                "domain not UTF-8",
                &[5, 1, 0, 5, 1, 0, 3, 2, 0xc3, 0x28, 0, 80],
                Some(GENERAL_FAILURE),
            ),
            (
                "port 0",
                &[5, 1, 0, 5, 1, 0, 1, 1, 2, 3, 4, 0, 0],
                Some(GENERAL_FAILURE),
            ),
        ];
        for (name, input, code) in cases {
            let (r, out) = run(input);
            let e = r.expect_err(name);
            assert_eq!(e.reply, *code, "{name}: {e}");
            if code.is_none() {
                assert_eq!(out, [5, NO_ACCEPTABLE], "{name}");
            }
        }
        // Truncated anywhere: an error, no reply (the client is gone).
        let full = [5u8, 1, 0, 5, 1, 0, 3, 4, b'h', b'o', b's', b't', 0, 80];
        for n in 0..full.len() {
            let (r, _) = run(&full[..n]);
            let e = r.expect_err("truncated");
            assert_eq!(e.reply, None, "cut at {n}: {e}");
        }
    }

    #[test]
    fn targets_encode_as_they_are_read() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        for t in [
            Target::Addr("192.0.2.1:8080".parse().unwrap()),
            Target::Addr("[2001:db8::1]:22".parse().unwrap()),
            Target::Domain("a-b.example".into(), 443),
        ] {
            let bytes = t.encode();
            let back = rt.block_on(async {
                let mut r = &bytes[1..];
                read_target(&mut r, bytes[0]).await
            });
            assert_eq!(back, Ok(t));
        }
    }
}
