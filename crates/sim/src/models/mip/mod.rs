//! Mobile IP in the simulator, as agents at the IP layer that exchange
//! real packets, so that any transport agent (TCP, SCTP, UDP) of a mobile
//! node runs unchanged above them (docs/MODELS.md section 2.1).
//!
//! Side by side:
//!
//! - [`v4`]: Mobile IPv4 (RFC 5944) with foreign-agent care-of addresses:
//!   home agent, foreign agent, mobile node;
//! - [`v6`]: Mobile IPv6 (RFC 6275) with route optimisation: home agent
//!   with bidirectional tunnelling, correspondent node with a binding
//!   cache, mobile node with router discovery, binding updates to the home
//!   agent and the correspondents; the access routers of FMIPv6 build on
//!   it ([`crate::models::fmip`]).
//!
//! Messages are the RFCs' formats ([`v4::wire`], [`v6::wire`]) so that a
//! simulator capture decodes in Wireshark. Every agent keeps a bounded
//! trace of what it did ([`MipTraceEvent`]) for handoff timelines.

pub mod binding;
pub mod v4;
pub mod v6;

use std::net::{IpAddr, Ipv4Addr};

use crate::Time;
use crate::kernel::ids::IfaceId;

/// IP protocol number of ICMP (RFC 792).
pub const ICMP: u8 = 1;

/// What a Mobile IP agent did (for handoff timelines).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MipTraceEvent {
    /// A mobile node heard a new agent on an interface.
    AgentDiscovered {
        iface: IfaceId,
        agent: IpAddr,
        home: bool,
    },
    /// A mobile node lost an agent (link down or advertisement expired).
    AgentLost {
        iface: IfaceId,
        agent: IpAddr,
    },
    SolicitationSent {
        iface: IfaceId,
    },
    /// A mobile node decided to move to another agent.
    MovementDetected {
        from: Option<IpAddr>,
        to: IpAddr,
        iface: IfaceId,
    },
    /// A registration request or binding update left the mobile node.
    RegistrationSent {
        identification: u64,
        agent: IpAddr,
        care_of: IpAddr,
        lifetime_s: u16,
    },
    RegistrationAccepted {
        identification: u64,
        lifetime_s: u16,
    },
    RegistrationDenied {
        identification: u64,
        code: u8,
    },
    /// A foreign agent relayed a request to the home agent.
    RequestRelayed {
        home: Ipv4Addr,
        identification: u64,
    },
    /// A home agent (or correspondent) bound a home address to a care-of
    /// address.
    BindingUpdated {
        home: IpAddr,
        care_of: IpAddr,
    },
    BindingRemoved {
        home: IpAddr,
    },
    /// An FMIPv6 message (RFC 5568 section 6) left this agent for `peer`.
    FmipSent {
        message: FmipMessage,
        peer: IpAddr,
    },
    /// An FMIPv6 message from `peer` arrived at this agent.
    FmipReceived {
        message: FmipMessage,
        peer: IpAddr,
    },
}

impl MipTraceEvent {
    /// An FMIPv6 message this agent sent to `peer` (`sent`) or received
    /// from it.
    pub fn fmip(message: FmipMessage, sent: bool, peer: std::net::Ipv6Addr) -> Self {
        let peer = IpAddr::V6(peer);
        if sent {
            MipTraceEvent::FmipSent { message, peer }
        } else {
            MipTraceEvent::FmipReceived { message, peer }
        }
    }
}

/// The messages of fast handovers for Mobile IPv6 (RFC 5568 section 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FmipMessage {
    /// Router Solicitation for Proxy Advertisement (6.1.1).
    RtSolPr,
    /// Proxy Router Advertisement (6.1.2).
    PrRtAdv,
    /// Handover Initiate (6.2.1).
    HI,
    /// Handover Acknowledge (6.2.2).
    HAck,
    /// Fast Binding Update (6.3.1).
    FBU,
    /// Fast Binding Acknowledgment (6.3.2).
    FBack,
    /// Unsolicited Neighbor Advertisement (6.4).
    UNA,
}

/// Most trace events an agent keeps (the rest are counted).
pub const TRACE_LIMIT: usize = 10_000;

/// A bounded list of timed events.
#[derive(Debug, Clone, Default)]
pub struct TraceLog {
    events: Vec<(Time, MipTraceEvent)>,
    dropped: u64,
}

impl TraceLog {
    pub fn push(&mut self, t: Time, e: MipTraceEvent) {
        if self.events.len() < TRACE_LIMIT {
            self.events.push((t, e));
        } else {
            self.dropped += 1;
        }
    }

    pub fn events(&self) -> &[(Time, MipTraceEvent)] {
        &self.events
    }

    /// Events not kept because the log was full.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}
