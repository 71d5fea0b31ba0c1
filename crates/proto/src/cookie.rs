//! The State Cookie (RFC 9260 sections 5.1.3 and 5.1.5): everything needed
//! to create the association when a valid COOKIE ECHO arrives, so that the
//! listening side keeps no state before then. Signed with HMAC-SHA-256
//! under a secret of the endpoint, which verifies it and hands the
//! association the validated state (neither reads the other's module).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Duration;

use bytes::Bytes;

use crate::Time;
use crate::auth::{HmacAlgorithm, RANDOM_LEN};

const VERSION: u8 = 1;
const MAC_LEN: usize = 32;

/// What the cookie remembers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CookieState {
    pub created: Time,
    pub lifespan: Duration,
    pub local_tag: u32,
    pub peer_tag: u32,
    pub local_initial_tsn: u32,
    /// Tie-tags (section 5.2.2): the tags of an existing association when
    /// the INIT ACK answered an unexpected INIT; zero otherwise.
    pub local_tie_tag: u32,
    pub peer_tie_tag: u32,
    pub local_port: u16,
    pub peer_port: u16,
    /// Source and destination of the INIT.
    pub init_src: IpAddr,
    pub init_dst: IpAddr,
    /// Our RANDOM, when we offered AUTH.
    pub local_random: Option<[u8; RANDOM_LEN]>,
    /// The peer's INIT chunk, whole (header and value).
    pub peer_init: Bytes,
}

/// Why a COOKIE ECHO is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CookieError {
    #[error("cookie is malformed")]
    Malformed,
    #[error("cookie signature does not verify")]
    BadSignature,
    /// Expired: the staleness in microseconds (for the Stale Cookie cause)
    /// and the peer's tag (the ERROR goes out with it).
    #[error("cookie is stale by {staleness_us} us")]
    Stale { staleness_us: u32, peer_tag: u32 },
}

fn put_addr(out: &mut Vec<u8>, a: &IpAddr) {
    match a {
        IpAddr::V4(v4) => {
            out.push(4);
            out.extend_from_slice(&v4.octets());
        }
        IpAddr::V6(v6) => {
            out.push(6);
            out.extend_from_slice(&v6.octets());
        }
    }
}

struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], CookieError> {
        if self.buf.len() < n {
            return Err(CookieError::Malformed);
        }
        let (a, b) = self.buf.split_at(n);
        self.buf = b;
        Ok(a)
    }
    fn u8(&mut self) -> Result<u8, CookieError> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, CookieError> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Result<u32, CookieError> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self) -> Result<u64, CookieError> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_be_bytes(a))
    }
    fn addr(&mut self) -> Result<IpAddr, CookieError> {
        match self.u8()? {
            4 => {
                let b = self.take(4)?;
                Ok(IpAddr::V4(Ipv4Addr::new(b[0], b[1], b[2], b[3])))
            }
            6 => {
                let mut a = [0u8; 16];
                a.copy_from_slice(self.take(16)?);
                Ok(IpAddr::V6(Ipv6Addr::from(a)))
            }
            _ => Err(CookieError::Malformed),
        }
    }
}

impl CookieState {
    /// Serialises and signs the cookie.
    pub fn seal(&self, secret: &[u8]) -> Bytes {
        let mut out = Vec::with_capacity(96 + self.peer_init.len() + MAC_LEN);
        out.push(VERSION);
        out.extend_from_slice(&self.created.as_nanos().to_be_bytes());
        out.extend_from_slice(
            &u64::try_from(self.lifespan.as_nanos())
                .unwrap_or(u64::MAX)
                .to_be_bytes(),
        );
        for v in [
            self.local_tag,
            self.peer_tag,
            self.local_initial_tsn,
            self.local_tie_tag,
            self.peer_tie_tag,
        ] {
            out.extend_from_slice(&v.to_be_bytes());
        }
        out.extend_from_slice(&self.local_port.to_be_bytes());
        out.extend_from_slice(&self.peer_port.to_be_bytes());
        put_addr(&mut out, &self.init_src);
        put_addr(&mut out, &self.init_dst);
        match &self.local_random {
            Some(r) => {
                out.push(1);
                out.extend_from_slice(r);
            }
            None => out.push(0),
        }
        out.extend_from_slice(&(self.peer_init.len() as u16).to_be_bytes());
        out.extend_from_slice(&self.peer_init);
        let mac = HmacAlgorithm::Sha256.mac(secret, &[&out]);
        out.extend_from_slice(&mac);
        Bytes::from(out)
    }

    /// Verifies the signature and the lifetime, and decodes.
    pub fn open(cookie: &Bytes, secret: &[u8], now: Time) -> Result<CookieState, CookieError> {
        let c = CookieState::verify(cookie, secret)?;
        match c.staleness_us(now) {
            None => Ok(c),
            Some(staleness_us) => Err(CookieError::Stale {
                staleness_us,
                peer_tag: c.peer_tag,
            }),
        }
    }

    /// How long past its lifetime the cookie is at `now`, in
    /// microseconds (for the Stale Cookie cause), or `None` while valid.
    pub fn staleness_us(&self, now: Time) -> Option<u32> {
        let expiry = self.created + self.lifespan;
        (now > expiry).then(|| (now - expiry).as_micros().min(u32::MAX as u128) as u32)
    }

    /// Verifies the signature and decodes, whatever the lifetime (a
    /// stale cookie that matches an association's tags is still valid,
    /// RFC 9260 section 5.2.4 step 3).
    pub fn verify(cookie: &Bytes, secret: &[u8]) -> Result<CookieState, CookieError> {
        if cookie.len() < MAC_LEN + 1 {
            return Err(CookieError::Malformed);
        }
        let (body, mac) = cookie.split_at(cookie.len() - MAC_LEN);
        let expected = HmacAlgorithm::Sha256.mac(secret, &[body]);
        if !crate::auth::equal_in_constant_time(&expected, mac) {
            return Err(CookieError::BadSignature);
        }
        let mut r = Reader { buf: body };
        if r.u8()? != VERSION {
            return Err(CookieError::Malformed);
        }
        let created = Time::from_nanos(r.u64()?);
        let lifespan = Duration::from_nanos(r.u64()?);
        let local_tag = r.u32()?;
        let peer_tag = r.u32()?;
        let local_initial_tsn = r.u32()?;
        let local_tie_tag = r.u32()?;
        let peer_tie_tag = r.u32()?;
        let local_port = r.u16()?;
        let peer_port = r.u16()?;
        let init_src = r.addr()?;
        let init_dst = r.addr()?;
        let local_random = match r.u8()? {
            0 => None,
            1 => {
                let mut a = [0u8; RANDOM_LEN];
                a.copy_from_slice(r.take(RANDOM_LEN)?);
                Some(a)
            }
            _ => return Err(CookieError::Malformed),
        };
        let n = r.u16()? as usize;
        let start = body.len() - r.buf.len();
        r.take(n)?;
        if !r.buf.is_empty() {
            return Err(CookieError::Malformed);
        }
        let peer_init = cookie.slice(start..start + n);
        Ok(CookieState {
            created,
            lifespan,
            local_tag,
            peer_tag,
            local_initial_tsn,
            local_tie_tag,
            peer_tie_tag,
            local_port,
            peer_port,
            init_src,
            init_dst,
            local_random,
            peer_init,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> CookieState {
        CookieState {
            created: Time::from_secs(10),
            lifespan: Duration::from_secs(60),
            local_tag: 1,
            peer_tag: 2,
            local_initial_tsn: 3,
            local_tie_tag: 0,
            peer_tie_tag: 0,
            local_port: 5000,
            peer_port: 6000,
            init_src: "10.0.0.2".parse().unwrap(),
            init_dst: "2001:db8::1".parse().unwrap(),
            local_random: Some([7; 32]),
            peer_init: Bytes::from_static(&[
                1, 0, 0, 20, 0, 0, 0, 9, 0, 0, 5, 220, 0, 1, 0, 1, 0, 0, 0, 1,
            ]),
        }
    }

    #[test]
    fn round_trip_and_signature() {
        let s = state();
        let c = s.seal(b"secret");
        assert_eq!(
            CookieState::open(&c, b"secret", Time::from_secs(20)).unwrap(),
            s
        );
        assert_eq!(
            CookieState::open(&c, b"other", Time::from_secs(20)),
            Err(CookieError::BadSignature)
        );
        let mut tampered = c.to_vec();
        tampered[5] ^= 1;
        assert_eq!(
            CookieState::open(&Bytes::from(tampered), b"secret", Time::from_secs(20)),
            Err(CookieError::BadSignature)
        );
        assert_eq!(
            CookieState::open(&Bytes::from_static(b"short"), b"secret", Time::ZERO),
            Err(CookieError::Malformed)
        );
    }

    #[test]
    fn stale_cookie_reports_staleness() {
        let c = state().seal(b"k");
        assert_eq!(
            CookieState::open(&c, b"k", Time::from_millis(70_500)),
            Err(CookieError::Stale {
                staleness_us: 500_000,
                peer_tag: 2
            })
        );
    }
}
