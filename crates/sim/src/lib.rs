//! msctp-sim: a deterministic discrete-event network simulator in which the
//! unchanged `msctp-proto` engine runs beside models of the protocols it is
//! compared with.
//!
//! Time is virtual, in integer nanoseconds ([`Time`], shared with the
//! engine). Same scenario and seed give byte-identical outputs.

pub use msctp_proto::Time;

// Radio and mobility models, link-layer event generation, metrics.
pub mod metrics;
pub mod mobility;
pub mod propagation;
pub mod radio;

pub mod agent;
pub mod app;
pub mod cell;
pub mod drop;
pub mod error_model;
pub mod ids;
pub mod ip;
pub mod link;
pub mod node;
pub mod notification;
pub mod pcap;
pub mod pipe;
pub mod queue;
pub mod rng;
pub mod routing;
pub mod scheduler;
pub mod timer;
pub mod trace;
pub mod tunnel;
pub mod udp;
mod world;

pub use agent::{Agent, Ctx, PacketOrigin, RxInfo, SendError};
pub use cell::{CellConfig, Sharing};
pub use drop::{DropReason, DropSite};
pub use error_model::{ErrorModelSpec, ErrorUnit};
pub use ids::{AgentId, CellId, IfaceId, LinkId, NodeId};
pub use ip::IpPacket;
pub use link::{Direction, LinkConfig};
pub use node::NodeKind;
pub use notification::Notification;
pub use routing::Route;
pub use timer::TimerId;
pub use world::{CaptureError, CaptureId, RunStats, TopologyError, World, WorldConfig};
