//! Mobile IPv4 (RFC 5944) with foreign-agent care-of addresses:
//!
//! - [`HomeAgent`]: advertises on the home link, processes registrations
//!   (processing and authentication delays configurable), keeps bindings,
//!   intercepts packets for registered home addresses and tunnels them
//!   IP-in-IP (RFC 2003) to the care-of address;
//! - [`ForeignAgent`]: advertises a care-of address on its cell, answers
//!   solicitations, relays registrations, decapsulates and delivers;
//! - [`MobileNode`]: agent discovery, movement detection, registration,
//!   home address kept on the interface in use; triangle routing (packets
//!   from the mobile node go directly to the correspondent);
//! - [`wire`]: the messages (agent advertisement and solicitation, ICMP
//!   router discovery extensions, registration request and reply).

mod advert;
mod foreign_agent;
mod home_agent;
mod mobile_node;
mod settings;
pub mod wire;

pub use advert::AdvertisementConfig;
pub use foreign_agent::{ForeignAgent, ForeignAgentConfig, ForeignAgentStats, Visitor};
pub use home_agent::{Binding, HomeAgent, HomeAgentConfig, HomeAgentStats, MobileSecurity};
pub use mobile_node::{Attached, HandoverRecord, MobileNode, MobileNodeConfig, MobileNodeStats};
pub use settings::Mip4Settings;
