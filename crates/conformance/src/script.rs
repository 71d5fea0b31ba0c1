//! A parsed script: its options and its events in order.

use std::net::IpAddr;
use std::time::Duration;

use crate::spec::ChunkSpec;
use crate::value::Value;

/// When an event happens (packetdrill's time column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventTime {
    /// `0.5`: since the start of the script.
    Absolute(Duration),
    /// `+0.5`: since the previous event ended.
    Relative(Duration),
    /// `0.1~0.3`
    AbsoluteRange(Duration, Duration),
    /// `+0.1~+0.3`
    RelativeRange(Duration, Duration),
    /// `*`: any time (outbound packets only).
    Any,
}

/// Direction of a packet line: `<` into the engine, `>` out of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Inbound,
    Outbound,
}

/// What follows `sctp` in a packet line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PacketBody {
    Chunks(Vec<ChunkSpec>),
    /// `[0x01, 0x00, ...]`: the bytes after the common header, verbatim.
    Raw(Vec<u8>),
}

/// A `<` or `>` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PacketSpec {
    pub direction: Direction,
    /// `SRC > DST` written before `sctp` (the multi-homing extension;
    /// packetdrill's syntax for explicit addresses).
    pub addresses: Option<(Option<IpAddr>, Option<IpAddr>)>,
    /// `sctp(tag=N)`
    pub tag: Option<u32>,
    /// `sctp(bad_crc32c)`
    pub bad_crc32c: bool,
    pub body: PacketBody,
}

/// A system call line: `name(args) = ret [ERRNO] [(comment)]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyscallSpec {
    pub name: String,
    pub args: Vec<Value>,
    pub ret: Value,
    /// The errno name after the return value, if written.
    pub errno: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventKind {
    Packet(PacketSpec),
    Syscall(SyscallSpec),
    /// A backtick shell command: the interpreter has no shell; the
    /// engine's configuration comes from the script options instead, and
    /// from the `sysctl`s that switch PR-SCTP.
    Command(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub line: usize,
    /// The event as written (its lines joined), for messages.
    pub text: String,
    pub time: EventTime,
    pub kind: EventKind,
}

/// Options written as `--name=value` lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptOptions {
    /// `--tolerance_usecs` (packetdrill's default 4000).
    pub tolerance: Duration,
    /// `--local_ip` / `--remote_ip` (packetdrill's defaults).
    pub local_ip: IpAddr,
    pub remote_ip: IpAddr,
    /// Multi-homing extension: `--local_ip2`, `--remote_ip2`.
    pub local_ip2: Option<IpAddr>,
    pub remote_ip2: Option<IpAddr>,
    /// Engine extensions, off by default as on packetdrill's targets:
    /// `--asconf=on`, `--auth=on`, `--pr_sctp=on` (PR-SCTP, RFC 3758; also
    /// switched by the scripts' `sysctl` of `net.inet.sctp.pr_enable` or
    /// `net.sctp.prsctp_enable`), `--stream_reconfig=on` (RFC 6525).
    pub asconf: bool,
    pub auth: bool,
    pub pr_sctp: bool,
    pub stream_reconfig: bool,
    /// `--hmac=sha256,sha1`: HMAC identifiers the engine offers, in order.
    pub hmac_ids: Option<Vec<u16>>,
    /// `--auth_chunks=DATA,SACK`: chunk types the engine requires
    /// authenticated (beyond ASCONF and ASCONF-ACK).
    pub auth_chunks: Vec<u8>,
}

impl Default for ScriptOptions {
    fn default() -> Self {
        ScriptOptions {
            tolerance: Duration::from_micros(4000),
            local_ip: IpAddr::from([192, 168, 0, 1]),
            remote_ip: IpAddr::from([192, 0, 2, 1]),
            local_ip2: None,
            remote_ip2: None,
            asconf: false,
            auth: false,
            pr_sctp: false,
            stream_reconfig: false,
            hmac_ids: None,
            auth_chunks: Vec::new(),
        }
    }
}

/// A whole script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    pub options: ScriptOptions,
    pub events: Vec<Event>,
}
