//! Mobile IPv6 (RFC 6275) with route optimisation: the "Mobile IP" of
//! experiment E2.
//!
//! - [`AccessRouter`]: router advertisements with the link's prefix (the
//!   H flag on a home link);
//! - [`HomeAgent6`]: binding cache, Binding Acknowledgements, IPv6-in-IPv6
//!   tunnel to the care-of address, reverse tunnel;
//! - [`Correspondent6`]: the correspondent's binding cache and the route
//!   optimised data path (type 2 routing header out, Home Address option
//!   in);
//! - [`MobileNode6`]: movement detection, care-of address configuration,
//!   Binding Updates to the home agent then to the correspondents, the
//!   mobile side of the data path; and the mobile side of FMIPv6 (the
//!   access-router side is [`crate::models::fmip`]).
//!
//! What is left out, and its effect: IPsec between mobile node and home
//! agent, the return routability procedure (one round trip through the
//! home agent less per handover than a real stack), DHAAD, proxy neighbour
//! discovery (the home agent intercepts instead), binding refresh (bindings
//! are granted for 600 s by default, longer than the runs).

mod binding_update;
mod correspondent;
mod home_agent;
mod mobile_node;
mod router;
mod settings;
pub mod wire;

pub use correspondent::{Correspondent6, Correspondent6Config, Correspondent6Stats};
pub use home_agent::{CacheEntry, HomeAgent6, HomeAgent6Config, HomeAgent6Stats};
pub use mobile_node::{
    Current6, FastRecord, Handover6Record, MobileNode6, MobileNode6Config, MobileNode6Stats,
};
pub use router::{ALL_NODES, ALL_ROUTERS, AccessRouter, AccessRouterConfig};
pub use settings::Mip6Settings;
