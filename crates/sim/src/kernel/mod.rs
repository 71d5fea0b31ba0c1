//! The simulation kernel: everything a run needs that is not a protocol
//! model.
//!
//! One [`World`] holds a run: the virtual clock, the event queue, the
//! network and the agents. Time is virtual, in integer nanoseconds
//! ([`Time`], shared with the engine); nothing reads the wall clock.
//!
//! - **Events** ([`scheduler`]): a radix heap ordered by (time, insertion
//!   sequence), so simultaneous events run in the order they were
//!   scheduled. Events are small values (end of a serialisation, arrival
//!   at the head of a propagation pipe, agent start, scheduled action);
//!   packets never sit in the heap. Agent timers have their own indexed
//!   heap ([`timer`]), so a cancelled timer leaves at once, with keys from
//!   the same sequence so both queues merge into one order.
//! - **Randomness** ([`rng`]): every component draws from its own ChaCha8
//!   stream derived from the run seed and the component's stable name
//!   (`link/<name>/ab`, `cell/<cell>/<node>/<iface>/down`,
//!   `agent/<node>/<agent>`), so adding a component never shifts another's
//!   numbers. Same scenario and seed: byte-identical captures and traces
//!   (see `tests/determinism.rs`).
//! - **Nodes** ([`node`]): hosts (no forwarding) and routers, each with
//!   interfaces holding IPv4/IPv6 addresses with prefix lengths (adding one
//!   adds its connected route), a routing table with longest-prefix match
//!   ([`routing`]), and agents. Hosts pick the outgoing interface from the
//!   packet's source address (multi-homing); routers by destination.
//! - **Packets** ([`ip`], [`udp`], [`tunnel`]): real IPv4/IPv6 bytes
//!   ([`IpPacket`] around one `BytesMut`), validated when built or parsed;
//!   routers decrement TTL in place with an incremental checksum update.
//!   Captures ([`pcap`], `LINKTYPE_RAW`) open in Wireshark.
//! - **Links** ([`link`]): point-to-point, full duplex; per direction a
//!   drop-tail queue, a transmitter at the link rate (serialisation time
//!   rounded to the nanosecond), an error model ([`error_model`]: none,
//!   Bernoulli, ns-2 `ErrorModel/Expo`, Gilbert-Elliott, linear ramp) and a
//!   FIFO propagation pipe ([`pipe`]). Links can be cut and restored.
//! - **Wireless cells** ([`wireless`]): an access point interface with position, radius,
//!   rate, delay, queue and error models; station interfaces are attached
//!   and detached at run time ([`World::attach`], [`World::detach`]) by
//!   whoever runs the radio model. Capacity is shared (one medium, round
//!   robin per packet over the AP queue and the station queues) or
//!   dedicated (a full-rate channel per station).
//! - **Agents** ([`world::agent`]): protocol stacks and applications implement
//!   [`Agent`]: `start`, `on_packet` (packets for the node, offered in turn
//!   until one consumes it; an agent bound to a port is offered only its
//!   port's packets, [`demux`]), `on_intercept` (interceptors see every packet
//!   the node receives or sends, before routing: home agents, FMIPv6
//!   routers, tunnelling clients), `on_timer`, `on_notify`. A [`Ctx`] gives
//!   the time, the node (interfaces, addresses, routes, all changeable),
//!   sending, timers, the agent's random stream, tracing and notifications.
//!   What an agent sends is processed after it returns, at the same instant.
//! - **Notifications** ([`notification`]): link up/down (interface state,
//!   cut/restore, attach/detach), address added/removed, station
//!   attached/detached at the AP, and radio events (beacons, signal
//!   samples, link going down) raised with [`World::notify`]; agents of a
//!   node talk through `Custom` notifications.
//! - **Outputs**: every drop is counted with its [`DropReason`] and logged
//!   (bounded) with the packet's identity ([`drop`](mod@drop)); a structured trace
//!   ([`trace`]) becomes CSV; per-link, per-station and per-node counters.
//!
//! The models of [`crate::models`] are agents; the kernel knows none of
//! them.

pub mod dcf;
pub mod demux;
pub mod drop;
pub mod engine_timer;
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
pub mod txset;
pub mod udp;
pub mod wireless;
pub mod world;

pub use crate::Time;
pub use demux::PortBinding;
pub use drop::{DropReason, DropSite};
pub use engine_timer::EngineTimer;
pub use error_model::{ErrorModelSpec, ErrorUnit};
pub use ids::{AgentId, CellId, IfaceId, LinkId, NodeId};
pub use ip::IpPacket;
pub use link::{Direction, LinkConfig};
pub use node::NodeKind;
pub use notification::Notification;
pub use routing::Route;
pub use timer::TimerId;
pub use wireless::{CellConfig, Sharing};
pub use world::agent::{Agent, AsAny, Ctx, PacketOrigin, RxInfo, SendError};
pub use world::{CaptureError, CaptureId, RunStats, TopologyError, World, WorldConfig};
