//! Serial number arithmetic for 32-bit TSNs and serial numbers (RFC 9260
//! section 1.6, after RFC 1982), and unwrapping to 64 bits so the engine
//! can key ordered maps without wrap-around surprises: the shared
//! [`msctp_serial`], which the TCP model uses for its sequence numbers.

pub use msctp_serial::{Serial, Unwrapper, ge, gt, le, lt};
