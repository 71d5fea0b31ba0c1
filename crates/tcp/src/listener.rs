//! A listening endpoint (RFC 9293 section 3.10.7.2): it keeps no state per
//! peer; a SYN creates a [`TcpConnection`] in SYN-RECEIVED, other segments
//! get a reset or are ignored.

use std::net::{IpAddr, SocketAddr};

use msctp_time::Time;

use crate::config::TcpConfig;
use crate::connection::{Segment, TcpConnection};
use crate::event::TcpError;
use crate::wire::{self, Flags, SegmentHeader};

/// What the listener made of a segment.
#[derive(Debug)]
pub enum ListenOutcome {
    /// A SYN: a new connection whose SYN-ACK is ready to be polled.
    Accepted(Box<TcpConnection>),
    /// A segment for no connection: answer with this reset.
    Reset(Segment),
    /// Nothing to do (a reset, or a segment without ACK or SYN).
    Ignored,
}

/// Accepts connections on one local port, on any local address.
#[derive(Debug, Clone)]
pub struct TcpListener {
    config: TcpConfig,
    port: u16,
    isn_state: u64,
}

impl TcpListener {
    /// `isn_seed` seeds the initial sequence numbers of accepted
    /// connections (a simulator wants them reproducible; this generator is
    /// not the keyed hash RFC 6528 asks of a real host).
    pub fn new(config: TcpConfig, port: u16, isn_seed: u64) -> Result<Self, TcpError> {
        config.validate()?;
        Ok(TcpListener {
            config,
            port,
            isn_state: isn_seed,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    fn next_isn(&mut self) -> u32 {
        // splitmix64 step.
        self.isn_state = self.isn_state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.isn_state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) as u32
    }

    /// Handles a segment from `src_ip` to `dst_ip` addressed to this port.
    pub fn handle_segment(
        &mut self,
        now: Time,
        src_ip: IpAddr,
        dst_ip: IpAddr,
        bytes: &[u8],
    ) -> Result<ListenOutcome, TcpError> {
        let (h, payload) = wire::parse(src_ip, dst_ip, bytes)?;
        if h.dst_port != self.port {
            return Err(TcpError::NotForThisConnection);
        }
        if h.flags.rst {
            return Ok(ListenOutcome::Ignored);
        }
        let local = SocketAddr::new(dst_ip, self.port);
        let remote = SocketAddr::new(src_ip, h.src_port);
        if h.flags.ack {
            let rst = SegmentHeader {
                src_port: self.port,
                dst_port: h.src_port,
                seq: h.ack,
                flags: Flags {
                    rst: true,
                    ..Flags::default()
                },
                ..SegmentHeader::default()
            };
            let bytes = wire::emit(&rst, &[], dst_ip, src_ip)?;
            return Ok(ListenOutcome::Reset(Segment {
                src_ip: dst_ip,
                dst_ip: src_ip,
                bytes,
            }));
        }
        if !h.flags.syn {
            return Ok(ListenOutcome::Ignored);
        }
        let _ = payload; // data on a SYN is not kept (no TCP Fast Open)
        let iss = self.next_isn();
        let conn = TcpConnection::accept(self.config.clone(), now, local, remote, iss, &h)?;
        Ok(ListenOutcome::Accepted(Box::new(conn)))
    }
}
