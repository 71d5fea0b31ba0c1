//! Mobile IP in the simulator, as agents at the IP layer that exchange
//! real packets, so that any transport agent (TCP, SCTP, UDP) of a mobile
//! node runs unchanged above them (SYSTEMS.md section 2.1).
//!
//! Mobile IPv4 (RFC 5944), with foreign-agent care-of addresses:
//! - [`HomeAgent`]: advertises on the home link, processes registrations
//!   (processing and authentication delays configurable), keeps bindings,
//!   intercepts packets for registered home addresses and tunnels them
//!   IP-in-IP (RFC 2003) to the care-of address;
//! - [`ForeignAgent`]: advertises a care-of address on its cell, answers
//!   solicitations, relays registrations, decapsulates and delivers;
//! - [`MobileNode`]: agent discovery, movement detection, registration,
//!   home address kept on the interface in use; triangle routing (packets
//!   from the mobile node go directly to the correspondent).
//!
//! Mobile IPv6 (RFC 6275) with route optimisation, in [`v6`]: home agent
//! with bidirectional tunnelling, correspondent node with a binding cache,
//! mobile node with router discovery, binding updates to the home agent
//! and the correspondents.
//!
//! Messages are the RFCs' formats ([`wire4`], [`v6::wire`]) so that a
//! simulator capture decodes in Wireshark. Every agent keeps a bounded
//! trace of what it did ([`MipTraceEvent`]) for handoff timelines.

mod advert;
mod foreign_agent;
mod home_agent;
mod mobile_node;
pub mod v6;
pub mod wire4;

use std::net::{IpAddr, Ipv4Addr};

pub use advert::AdvertisementConfig;
pub use foreign_agent::{ForeignAgent, ForeignAgentConfig, ForeignAgentStats, Visitor};
pub use home_agent::{Binding, HomeAgent, HomeAgentConfig, HomeAgentStats, MobileSecurity};
pub use mobile_node::{Attached, HandoverRecord, MobileNode, MobileNodeConfig, MobileNodeStats};

use crate::Time;
use crate::ids::IfaceId;

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
