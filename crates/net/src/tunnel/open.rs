//! Sealed stream opens: every request that asks the server to connect
//! somewhere carries a MAC under a key of this association, so that only
//! the client that proved the key ([`super::auth`]) can have the server
//! connect anywhere, whether or not SCTP-AUTH covers DATA.
//!
//! Without SCTP-AUTH on DATA (the default; `--data-auth` adds it), the association's only
//! guard after the key proof is the verification tag (RFC 9260 section
//! 8.5): someone on the path who reads the tags can put a DATA chunk of
//! their own into it, and an OPEN with a request on a new stream would
//! make the server an open relay. The request is therefore:
//!
//! ```text
//! REQUEST_VERSION (1)  COUNTER (8, big-endian)  ATYP DST.ADDR DST.PORT  TAG (32)
//! TAG = HMAC-SHA-256(K_open, "open" STREAM (2) COUNTER ATYP DST.ADDR DST.PORT)
//! K_open = HMAC-SHA-256(K, "stream opens" c n)
//! ```
//!
//! `c` and `n` are the server's and the client's nonces of the key
//! exchange, so `K_open` is new for every association (HMAC as the key
//! derivation function with a label, as HKDF-Expand's first block does,
//! RFC 5869 section 2.3) and no request of another association is valid
//! on this one. The tag binds the stream number, so a request copied to
//! another stream fails; the counter is the client's count of opens on
//! the association (strictly increasing), and the server accepts on each
//! stream number only a counter above the last one it accepted there, so
//! a request replayed on its own stream number, once the number is free
//! again, fails as well. (Per stream number rather than one high-water
//! mark for the association: requests on different streams may arrive
//! and be read in any order, RFC 9260 section 6.6, but on one stream in
//! the order sent, and a number is reused only after its last stream
//! ended.) The server checks the tag before it looks at the counter, so
//! a forged counter moves nothing.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use hmac::{Hmac, Mac};
use sha2::Sha256;
use tokio::io::{AsyncRead, AsyncReadExt};

use super::REQUEST_VERSION;
use super::socks::{self, SocksError, Target, reply};

/// Bytes of the tag that ends a request.
pub const TAG: usize = 32;

type HmacSha256 = Hmac<Sha256>;

/// The association's key for stream opens (`K_open` above).
#[derive(Clone)]
pub struct OpenKey([u8; 32]);

impl std::fmt::Debug for OpenKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OpenKey(..)")
    }
}

impl OpenKey {
    /// Derives it from the pre-shared key and the key exchange's nonces.
    pub fn derive(key: &[u8], c: &[u8], n: &[u8]) -> OpenKey {
        let m = super::keyed::mac(key, b"stream opens", c, n);
        OpenKey(m.finalize().into_bytes().into())
    }

    fn mac(&self, stream: u16, counter: u64, target: &[u8]) -> HmacSha256 {
        let mut m = super::keyed::hmac(&self.0);
        m.update(b"open");
        m.update(&stream.to_be_bytes());
        m.update(&counter.to_be_bytes());
        m.update(target);
        m
    }
}

/// Client side: numbers and seals the association's stream opens.
#[derive(Debug)]
pub struct Opener {
    key: OpenKey,
    next: AtomicU64,
}

impl Opener {
    pub fn new(key: OpenKey) -> Opener {
        Opener {
            key,
            next: AtomicU64::new(1),
        }
    }

    /// The request asking for `target` on `stream`, with the next count.
    pub fn request(&self, stream: u16, target: &Target) -> Vec<u8> {
        let counter = self.next.fetch_add(1, Relaxed);
        seal(&self.key, stream, counter, target)
    }
}

/// The request for `target` on `stream` with `counter` (see the module
/// documentation for its layout).
pub fn seal(key: &OpenKey, stream: u16, counter: u64, target: &Target) -> Vec<u8> {
    let t = target.encode();
    let tag = key.mac(stream, counter, &t).finalize().into_bytes();
    let mut req = Vec::with_capacity(1 + 8 + t.len() + TAG);
    req.push(REQUEST_VERSION);
    req.extend_from_slice(&counter.to_be_bytes());
    req.extend_from_slice(&t);
    req.extend_from_slice(&tag);
    req
}

/// A request as read, before its tag is checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub counter: u64,
    pub target: Target,
    pub tag: [u8; TAG],
}

/// Reads a request (see the module documentation); a wrong version or a
/// malformed destination is an error with its SOCKS reply code.
pub async fn read_request<R: AsyncRead + Unpin>(r: &mut R) -> Result<Request, SocksError> {
    let gone = |e: std::io::Error| SocksError {
        reply: None,
        why: e.to_string(),
    };
    let v = r.read_u8().await.map_err(gone)?;
    if v != REQUEST_VERSION {
        return Err(SocksError {
            reply: Some(reply::GENERAL_FAILURE),
            why: format!("request version {v} (this server speaks {REQUEST_VERSION})"),
        });
    }
    let counter = r.read_u64().await.map_err(gone)?;
    let atyp = r.read_u8().await.map_err(gone)?;
    let target = socks::read_target(r, atyp).await?;
    let mut tag = [0u8; TAG];
    r.read_exact(&mut tag).await.map_err(gone)?;
    Ok(Request {
        counter,
        target,
        tag,
    })
}

/// Why an open was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The tag is not the association's for this stream, counter and
    /// destination: not from the client (or changed on the way).
    BadTag,
    /// A valid tag whose counter is not above the last one accepted on
    /// this stream number: a replay.
    Replayed,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Refusal::BadTag => "the request's MAC is wrong",
            Refusal::Replayed => "the request's counter was used before (a replay)",
        })
    }
}

/// Server side: checks the association's stream opens.
#[derive(Debug)]
pub struct OpenCheck {
    key: OpenKey,
    /// The last counter accepted on each stream number; at most one
    /// entry per number the peer may open (bounded by the association's
    /// negotiated streams, RFC 9260 section 5.1.1).
    last: Mutex<HashMap<u16, u64>>,
}

impl OpenCheck {
    pub fn new(key: OpenKey) -> OpenCheck {
        OpenCheck {
            key,
            last: Mutex::default(),
        }
    }

    /// Accepts `req` on `stream` once: its tag must be valid, then its
    /// counter above the last accepted on `stream`.
    pub fn check(&self, stream: u16, req: &Request) -> Result<(), Refusal> {
        self.key
            .mac(stream, req.counter, &req.target.encode())
            .verify_slice(&req.tag)
            .map_err(|_| Refusal::BadTag)?;
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        let seen = last.entry(stream).or_insert(0);
        if req.counter <= *seen {
            return Err(Refusal::Replayed);
        }
        *seen = req.counter;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> Target {
        Target::Addr("192.0.2.7:443".parse().unwrap())
    }

    fn keys() -> (OpenKey, OpenKey) {
        let k = b"0123456789abcdef";
        (
            OpenKey::derive(k, &[1; 32], &[2; 32]),
            OpenKey::derive(k, &[1; 32], &[2; 32]),
        )
    }

    async fn read(bytes: &[u8]) -> Request {
        read_request(&mut &bytes[..]).await.unwrap()
    }

    #[tokio::test]
    async fn a_sealed_request_is_accepted_once_on_its_stream() {
        // client --open #1 on stream 3--> server: accepted
        // (the same bytes again on stream 3)  --> refused: replayed
        // (the same bytes on stream 5)        --> refused: bad tag
        let (kc, ks) = keys();
        let client = Opener::new(kc);
        let server = OpenCheck::new(ks);
        let req = client.request(3, &target());
        let r = read(&req).await;
        assert_eq!((r.counter, &r.target), (1, &target()));
        assert_eq!(server.check(3, &r), Ok(()));
        assert_eq!(server.check(3, &r), Err(Refusal::Replayed));
        assert_eq!(server.check(5, &r), Err(Refusal::BadTag));
        // The stream number's next open (a higher count) is accepted.
        let next = read(&client.request(3, &target())).await;
        assert_eq!(server.check(3, &next), Ok(()));
        assert_eq!(server.check(3, &r), Err(Refusal::Replayed));
    }

    #[tokio::test]
    async fn opens_on_different_streams_may_be_checked_in_any_order() {
        let (kc, ks) = keys();
        let client = Opener::new(kc);
        let server = OpenCheck::new(ks);
        let reqs: Vec<_> = [1u16, 3, 5]
            .map(|s| (s, client.request(s, &target())))
            .into();
        for (s, req) in reqs.iter().rev() {
            assert_eq!(server.check(*s, &read(req).await), Ok(()), "stream {s}");
        }
    }

    #[tokio::test]
    async fn a_changed_destination_counter_or_key_fails_the_tag() {
        let (kc, ks) = keys();
        let server = OpenCheck::new(ks);
        let good = read(&seal(&kc, 1, 7, &target())).await;
        let mut other = good.clone();
        other.target = Target::Addr("192.0.2.8:443".parse().unwrap());
        assert_eq!(server.check(1, &other), Err(Refusal::BadTag));
        let mut other = good.clone();
        other.counter = 8;
        assert_eq!(server.check(1, &other), Err(Refusal::BadTag));
        // Another association's nonces: another key.
        let stranger = OpenKey::derive(b"0123456789abcdef", &[1; 32], &[3; 32]);
        let foreign = read(&seal(&stranger, 1, 9, &target())).await;
        assert_eq!(server.check(1, &foreign), Err(Refusal::BadTag));
        // A bad tag moved nothing: the genuine request still passes.
        assert_eq!(server.check(1, &good), Ok(()));
    }

    #[tokio::test]
    async fn a_request_of_another_version_is_refused_with_its_reply() {
        let mut old = vec![1u8];
        old.extend_from_slice(&target().encode());
        let e = read_request(&mut &old[..]).await.unwrap_err();
        assert_eq!(e.reply, Some(reply::GENERAL_FAILURE));
        // Cut short: the stream ended, no reply can be sent.
        let req = seal(&keys().0, 1, 1, &target());
        let e = read_request(&mut &req[..req.len() - 1]).await.unwrap_err();
        assert_eq!(e.reply, None);
    }
}
