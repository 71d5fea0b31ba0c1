//! msctp-proto: a sans-I/O mobile SCTP engine.
//!
//! SCTP (RFC 9260) with dynamic address reconfiguration (ADD-IP, RFC 5061)
//! and chunk authentication (AUTH, RFC 4895). The engine owns no sockets,
//! threads, clocks or random sources: the caller passes the current time
//! and a random seed in, hands received datagrams to it, and polls it for
//! datagrams to send, timer deadlines and application events.
//!
//! Entry point: [`Endpoint`]. Modules follow the protocol: [`wire`] (the
//! packet format), [`endpoint`] (demultiplexing, cookies), [`association`],
//! [`path`] (RTO, error counters, heartbeats), [`congestion`], [`asconf`],
//! [`auth`], [`estimate`] (capacity and available bandwidth per path),
//! [`policy`] (handover decisions), [`handover`] (the handover manager
//! that runs a policy for an association, for the simulator and real hosts);
//! with the `testing` feature, `testing` (two endpoints over an in-memory
//! network in virtual time, the harness of the tests and fuzz targets).

pub mod asconf;
pub mod association;
pub mod auth;
pub mod config;
pub mod congestion;
pub mod cookie;
pub mod endpoint;
pub mod estimate;
pub mod handover;
pub mod path;
pub mod peer_address;
pub mod pmtu;
pub mod policy;
#[cfg(feature = "testing")]
pub mod testing;
pub mod tsn;
pub mod wire;

pub use association::{
    Association, CloseReason, Event, Message, PrPolicy, PrimaryReason, ReconfigError,
    ReconfigEvent, ReconfigRequest, SendError, SendOptions, State, StreamScheduler, Transmit,
};
pub use config::{
    AssociationConfig, CmtConfig, CmtRtxPolicy, CmtScheduler, EndpointConfig, ErrorCounterReset,
    EstimatorConfig, FpfInput, Limits, PmtudConfig, RetransmitDestination,
};
pub use endpoint::{AssocId, Endpoint};
pub use msctp_time::Time;
