//! TCP sequence numbers: 32-bit values compared modulo 2^32 (RFC 9293
//! section 3.4; serial number arithmetic, RFC 1982): the shared
//! [`msctp_serial::Serial`], which the SCTP engine uses for its TSNs.

/// A sequence number in the 32-bit circular space of TCP.
pub use msctp_serial::Serial as SeqNum;
