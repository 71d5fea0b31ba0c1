//! msctp-sim: a deterministic discrete-event network simulator in which the
//! unchanged `msctp-proto` engine runs beside models of the protocols it is
//! compared with (Mobile IP, FMIPv6, TCP handoff schemes).
//!
//! # The wings
//!
//! | wing | holds | builds on |
//! |---|---|---|
//! | [`kernel`] | the simulation kernel: world, scheduler, timers, nodes, routing, links, queues, pipes, wireless cells, IP/UDP/tunnel packets, agents and notifications, traces, pcap, drops, error models, random streams | the engine's `Time` |
//! | [`models`] | the protocol and radio models that run as agents: [`models::sctp`] (the unchanged engine), [`models::tcp`], [`models::mip`] (v4 and v6 side by side), [`models::fmip`], [`models::handoff`], [`models::cmhn`], [`models::app`], [`models::radio`], [`models::mobility`] | `kernel`, `measure` |
//! | [`measure`] | the measures, in one room: what a flow records ([`measure::FlowLog`]), the measures defined over those records (goodput, handoff delay and latency, failover time, losses), a run's summary, CSV series, traces and captures ([`measure::RunResult`]) | `kernel` |
//! | [`scenario`] | scenario files: the format, their resolution into checked values, the building of a world from them, the run, and the reading of a finished world into the measures | `kernel`, `models`, `measure` |
//!
//! A wing uses only the wings to its right in the table's last column
//! (checked with the other module circles by `crates/modgraph`). What each
//! model implements, and from which RFC or paper, is in
//! `docs/MODELS.md` of the repository.
//!
//! # mSCTP in the simulator
//!
//! - [`models::sctp`]: the unchanged engine as an agent
//!   ([`models::sctp::SctpAgent`]), with the observers that write a flow's
//!   records ([`measure::FlowLog`]), and its handover manager
//!   ([`models::sctp::handover`]): link events fed to an
//!   `msctp_proto::policy` handover policy, whose decisions are carried out
//!   as ASCONFs;
//! - [`models::radio::driver`]: a mobile's radio timeline
//!   ([`models::radio`]) as World events: attach and detach on physical
//!   coverage, link-layer notifications, addresses and routes after
//!   acquisition;
//! - [`scenario`]: TOML scenario files ([`scenario::REFERENCE`] lists every
//!   key) and [`scenario::run_scenario`];
//! - [`measure`]: a run's JSON summary (the measures over its records), CSV
//!   series and pcaps, byte-identical for the same scenario and seed;
//! - [`bench`](mod@bench): the simulator's speed on a bulk mSCTP transfer.
//!
//! # Plugging in
//!
//! ```
//! use std::time::Duration;
//! use msctp_sim::models::app::{CbrConfig, SinkConfig, UdpCbr, UdpFlow, UdpSink};
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

pub mod bench;
pub mod cpu;
pub mod kernel;
pub mod measure;
pub mod models;
pub mod scenario;

pub use kernel::{
    Agent, AgentId, CaptureError, CaptureId, CellConfig, CellId, Ctx, Direction, DropReason,
    DropSite, ErrorModelSpec, ErrorUnit, IfaceId, IpPacket, LinkConfig, LinkId, NodeId, NodeKind,
    Notification, PacketOrigin, Route, RunStats, RxInfo, SendError, Sharing, TimerId,
    TopologyError, World, WorldConfig,
};

/// The speed benchmark against ns-3 (TCP NewReno bulk, 10 Mbit/s 15 ms then
/// 2 Mbit/s 1 ms, 600 simulated seconds): see
/// [`models::tcp::reference::speed_benchmark`].
pub use models::tcp::reference::speed_benchmark as baseline_bench;
