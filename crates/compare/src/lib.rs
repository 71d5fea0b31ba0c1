//! msctp side by side with today's alternatives (issue 37).
//!
//! - [`peer`]: one face ([`peer::Peer`]) over two sans-I/O SCTP engines,
//!   ours ([`msctp_proto`]) and sctp-proto (the SCTP of the WebRTC stacks
//!   webrtc-rs and str0m), so that the same driver moves the same bytes
//!   through either, or between one of each.
//! - [`memory`]: two peers in one thread, no sockets, in virtual time: the
//!   in-memory link of the engine bench and of the interoperability tests
//!   (`tests/interop.rs`), recording the chunk types of every packet.
//! - [`engine_bench`]: ours and sctp-proto each between two endpoints,
//!   the same transfer, payload bytes per CPU-second and their ratio
//!   (`msctp bench engine`).
//! - [`net`]: the contenders this crate adds to `msctp bench net`: quinn
//!   ([`quic`], the `quic` feature) and sctp-proto over UDP
//!   ([`sctp_udp`]), with their ratios against msctp.
//! - [`rounds`]: `msctp bench net --rounds N`, every contender N times,
//!   medians and the median of the rounds' own ratios.

pub mod engine_bench;
pub mod memory;
pub mod net;
pub mod peer;
#[cfg(feature = "quic")]
pub mod quic;
pub mod rounds;
pub mod sctp_udp;

/// CPU time (user + system) of the calling thread, in seconds
/// (`CLOCK_THREAD_CPUTIME_ID`): a single-threaded in-memory run is
/// measured without the rest of the process.
pub fn thread_cpu_seconds() -> f64 {
    // SAFETY: clock_gettime fills the timespec it is given.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a timespec.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } != 0 {
        return f64::NAN;
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// CPU time (user + system) of the whole process, in seconds
/// (`getrusage(RUSAGE_SELF)`): both ends of a loopback run.
pub fn process_cpu_seconds() -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a rusage.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return f64::NAN;
    }
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
    t(ru.ru_utime) + t(ru.ru_stime)
}
