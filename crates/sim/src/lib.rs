//! msctp-sim: a deterministic discrete-event network simulator in which the
//! unchanged `msctp-proto` engine runs beside models of the protocols it is
//! compared with (Mobile IP, FMIPv6, TCP handoff schemes).
//!
//! # Architecture
//!
//! One [`World`] holds a run: the virtual clock, the event queue, the
//! network and the agents. Time is virtual, in integer nanoseconds
//! ([`Time`], shared with the engine); nothing reads the wall clock.
//!
//! - **Events** ([`scheduler`]): a binary heap ordered by (time, insertion
//!   sequence), so simultaneous events run in the order they were
//!   scheduled. Events are small values (end of a serialisation, arrival
//!   at the head of a propagation pipe, agent timer, agent start, scheduled
//!   action); packets never sit in the heap.
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
//! - **Cells** ([`cell`]): an access point interface with position, radius,
//!   rate, delay, queue and error models; station interfaces are attached
//!   and detached at run time ([`World::attach`], [`World::detach`]) by
//!   whoever runs the radio model. Capacity is shared (one medium, round
//!   robin per packet over the AP queue and the station queues) or
//!   dedicated (a full-rate channel per station).
//! - **Agents** ([`agent`]): protocol stacks and applications implement
//!   [`Agent`]: `start`, `on_packet` (packets for the node, offered in turn
//!   until one consumes it), `on_intercept` (interceptors see every packet
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
//! - **Applications** ([`app`]): UDP CBR, Pareto ON/OFF (ns-2 semantics)
//!   and a sink that records arrivals.
//!
//! # mSCTP in the simulator
//!
//! - [`sctp`]: the unchanged engine as an agent ([`sctp::SctpAgent`]), with
//!   the observers that write a flow's records ([`flow::FlowLog`]);
//! - [`radio_driver`]: a mobile's radio timeline ([`radio`]) as World
//!   events: attach and detach on physical coverage, link-layer
//!   notifications, addresses and routes after acquisition;
//! - [`mobility_manager`]: link events fed to an `msctp_proto::policy`
//!   handover policy, whose decisions are carried out as ASCONFs;
//! - [`scenario`]: TOML scenario files ([`scenario::REFERENCE`] lists every
//!   key) and [`scenario::run_scenario`];
//! - [`output`]: a run's JSON summary (the measures of [`metrics`]), CSV
//!   series and pcaps, byte-identical for the same scenario and seed;
//! - [`bench`](mod@bench): the simulator's speed on a bulk mSCTP transfer.
//!
//! # Plugging in
//!
//! ```
//! use std::time::Duration;
//! use msctp_sim::app::{CbrConfig, SinkConfig, UdpCbr, UdpFlow, UdpSink};
//! use msctp_sim::{LinkConfig, Route, Time, World, WorldConfig};
//!
//! let mut w = World::new(WorldConfig::with_seed(7));
//! let h1 = w.add_host("h1").unwrap();
//! let r = w.add_router("r").unwrap();
//! let h2 = w.add_host("h2").unwrap();
//! let link = LinkConfig::new(10_000_000, Duration::from_millis(5));
//! let (_, i1, _) = w.connect("l1", h1, "10.1.0.1/24".parse().unwrap(),
//!                            r, "10.1.0.254/24".parse().unwrap(), link.clone()).unwrap();
//! w.connect("l2", r, "10.2.0.254/24".parse().unwrap(),
//!           h2, "10.2.0.1/24".parse().unwrap(), link).unwrap();
//! w.add_route(h1, Route::via("0.0.0.0/0".parse().unwrap(), i1,
//!                            "10.1.0.254".parse().unwrap())).unwrap();
//! let flow = UdpFlow::new("10.1.0.1".parse().unwrap(), 5000,
//!                         "10.2.0.1".parse().unwrap(), 5001);
//! let cbr = CbrConfig { flow, packet_size: 500, rate_bps: 400_000,
//!                       start: Time::ZERO, stop: Some(Time::from_secs(1)), max_packets: None };
//! w.add_agent(h1, "cbr", Box::new(UdpCbr::new(cbr).unwrap())).unwrap();
//! let sink = w.add_agent(h2, "sink", Box::new(UdpSink::new(SinkConfig::new(5001)))).unwrap();
//! w.at(Time::from_millis(500), |w| { /* e.g. w.cut_link(..), w.detach(..) */ });
//! w.run_until(Time::from_secs(2));
//! assert_eq!(w.agent::<UdpSink>(sink).unwrap().packets(), 100);
//! ```
//!
//! An SCTP or TCP stack becomes an agent that feeds received packets
//! (protocol 132 or 6) to its sans-I/O engine, wraps what the engine emits
//! in [`IpPacket::build`] with the path's source address, and re-arms one
//! timer at the engine's next deadline.

pub use msctp_proto::Time;

// Radio and mobility models, link-layer event generation, metrics.
pub mod metrics;
pub mod mobility;
pub mod propagation;
pub mod radio;
pub mod radio_driver;

pub mod agent;
pub mod app;
pub mod bench;
pub mod cell;
pub mod drop;
pub mod error_model;
pub mod flow;
pub mod ids;
pub mod ip;
pub mod link;
pub mod mobility_manager;
pub mod node;
pub mod notification;
pub mod output;
pub mod pcap;
pub mod pipe;
pub mod queue;
pub mod rng;
pub mod routing;
pub mod scenario;
pub mod scheduler;
pub mod sctp;
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
