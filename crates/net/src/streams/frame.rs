//! How byte streams are framed on SCTP streams: every user message of a
//! stream carries one frame, its kind in the Payload Protocol Identifier
//! (RFC 9260 section 3.3.1: opaque to SCTP, chosen by the application).
//!
//! On one SCTP stream (ordered delivery, RFC 9260 section 6.6), each
//! side sends:
//!
//! ```text
//! OPEN (opener only, first)  DATA* WINDOW*  FIN | RESET  WINDOW*  DONE
//! ```
//!
//! - DATA: bytes of the stream, at most the credit the peer granted.
//! - WINDOW: the sender read `n` more bytes; the peer may send `n` more
//!   (a u32, big-endian). Each side starts with [`INITIAL_WINDOW`] of
//!   credit and grants the rest of its configured window at once.
//! - FIN: no more DATA from this side (the write half is shut down).
//! - RESET: no more DATA from this side and it discards what the peer
//!   still sends (the stream was dropped unread); the peer's writes fail.
//! - DONE: this side will send nothing more on the stream; sent once it
//!   has sent its FIN or RESET and received the peer's. A stream number
//!   is free again once DONE went both ways, so nothing of an old stream
//!   can reach a new one on the same number. Where both sides announced
//!   RE-CONFIG, each then resets its outgoing SCTP stream (RFC 6525
//!   section 5.1.2) before it sends anything more on the number.

/// "ms" in the two high bytes keeps the identifiers apart from the
/// IANA-registered ones applications commonly use.
const BASE: u32 = 0x6d73_0000;
pub const OPEN: u32 = BASE | 1;
pub const DATA: u32 = BASE | 2;
pub const FIN: u32 = BASE | 3;
pub const RESET: u32 = BASE | 4;
pub const WINDOW: u32 = BASE | 5;
pub const DONE: u32 = BASE | 6;

/// Credit every stream starts with in each direction (bytes), before the
/// receiver's first WINDOW: a stream can carry data at once, without a
/// round trip, whatever window the receiver is configured with.
pub const INITIAL_WINDOW: usize = 64 << 10;

/// The one-byte body of frames that carry nothing (SCTP has no empty
/// user messages, RFC 9260 section 6.1: a DATA chunk holds at least one
/// byte).
pub const MARK: &[u8] = &[0];

/// The body of a WINDOW frame.
pub fn window(n: u32) -> bytes::Bytes {
    bytes::Bytes::copy_from_slice(&n.to_be_bytes())
}

/// The increment a WINDOW frame carries, `None` if malformed.
pub fn parse_window(body: &[u8]) -> Option<u32> {
    Some(u32::from_be_bytes(body.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_round_trips_and_rejects_bad_lengths() {
        assert_eq!(parse_window(&window(70_000)), Some(70_000));
        assert_eq!(parse_window(&[1, 2, 3]), None);
        assert_eq!(parse_window(&[0; 5]), None);
    }
}
