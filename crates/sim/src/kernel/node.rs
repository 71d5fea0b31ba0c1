//! Nodes (hosts and routers) and their interfaces.
//!
//! A node has interfaces, each with zero or more addresses (IPv4 or IPv6,
//! each with its prefix length, as an [`IpNet`]) and at most one attachment
//! (an end of a point-to-point link, the access point side of a cell, or a
//! station in a cell). Adding an address also adds the connected route of
//! its prefix; removing it removes that route. A host does not forward; a
//! router does (switchable at run time, e.g. for a host that runs a home
//! agent).

use std::collections::BTreeMap;
use std::net::IpAddr;

use ipnet::IpNet;

use crate::kernel::demux::AgentDirectory;
use crate::kernel::ids::{AgentId, CellId, IfaceId, LinkId, NodeId};
use crate::kernel::routing::RoutingTable;

/// Default bound on the addresses of one interface.
pub const DEFAULT_MAX_ADDRS: usize = 64;

/// Host or router: only changes the default of `forwarding`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    Host,
    Router,
}

/// What an interface is plugged into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attachment {
    /// Nothing (a station interface out of every cell).
    None,
    /// End `end` (0 or 1) of a point-to-point link.
    Link { link: LinkId, end: u8 },
    /// The access point / base station side of a cell.
    CellAp { cell: CellId },
    /// A station attached to a cell (its slot in that cell).
    CellStation { cell: CellId, slot: u32 },
}

/// One interface.
#[derive(Debug, Clone)]
pub struct Iface {
    pub(crate) id: IfaceId,
    pub(crate) name: String,
    pub(crate) up: bool,
    pub(crate) addrs: Vec<IpNet>,
    pub(crate) attachment: Attachment,
    pub(crate) captures: Vec<usize>,
}

impl Iface {
    pub(crate) fn new(id: IfaceId, name: String) -> Self {
        Iface {
            id,
            name,
            up: true,
            addrs: Vec::new(),
            attachment: Attachment::None,
            captures: Vec::new(),
        }
    }

    pub fn id(&self) -> IfaceId {
        self.id
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Administrative state.
    pub fn is_up(&self) -> bool {
        self.up
    }

    /// Addresses with prefix length, in the order they were added.
    pub fn addrs(&self) -> &[IpNet] {
        &self.addrs
    }

    pub fn has_addr(&self, a: IpAddr) -> bool {
        self.addrs.iter().any(|n| n.addr() == a)
    }

    /// First address of the family of `like`.
    pub fn addr_like(&self, like: IpAddr) -> Option<IpAddr> {
        self.addrs
            .iter()
            .map(|n| n.addr())
            .find(|a| a.is_ipv4() == like.is_ipv4())
    }

    pub fn attachment(&self) -> Attachment {
        self.attachment
    }
}

/// Per-node counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NodeStats {
    pub sent: u64,
    pub received: u64,
    pub delivered: u64,
    pub forwarded: u64,
}

/// A host or router.
#[derive(Debug)]
pub struct Node {
    pub(crate) id: NodeId,
    pub(crate) name: String,
    pub(crate) kind: NodeKind,
    pub(crate) forwarding: bool,
    pub(crate) ifaces: Vec<Iface>,
    pub(crate) routes: RoutingTable,
    pub(crate) agents: Vec<AgentId>,
    /// The agents by name (names are unique per node).
    pub(crate) agent_names: BTreeMap<String, AgentId>,
    /// The agents for local delivery (by port binding).
    pub(crate) directory: AgentDirectory,
    pub(crate) interceptors: Vec<AgentId>,
    pub(crate) stats: NodeStats,
    /// Every address of every interface with its interface, in interface
    /// order then address order: [`Node::owns`] and
    /// [`Node::iface_of_addr`] (asked for every packet) scan one flat
    /// list. Rebuilt by [`Node::reindex_addrs`] whenever the world adds
    /// or removes an address (a node built by hand, in a unit test, calls
    /// it after giving its interfaces addresses).
    addr_index: Vec<(IpAddr, IfaceId)>,
}

impl Node {
    pub(crate) fn new(id: NodeId, name: String, kind: NodeKind) -> Self {
        Node {
            id,
            name,
            kind,
            forwarding: kind == NodeKind::Router,
            ifaces: Vec::new(),
            routes: RoutingTable::default(),
            agents: Vec::new(),
            agent_names: BTreeMap::new(),
            directory: AgentDirectory::default(),
            interceptors: Vec::new(),
            stats: NodeStats::default(),
            addr_index: Vec::new(),
        }
    }

    /// Rebuilds the flat address list from the interfaces; called after
    /// every change of an interface's addresses.
    pub(crate) fn reindex_addrs(&mut self) {
        self.addr_index.clear();
        for i in &self.ifaces {
            self.addr_index
                .extend(i.addrs.iter().map(|n| (n.addr(), i.id)));
        }
    }

    pub fn id(&self) -> NodeId {
        self.id
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn kind(&self) -> NodeKind {
        self.kind
    }

    pub fn forwarding(&self) -> bool {
        self.forwarding
    }

    pub fn ifaces(&self) -> &[Iface] {
        &self.ifaces
    }

    pub fn iface(&self, id: IfaceId) -> Option<&Iface> {
        self.ifaces.get(id.index())
    }

    pub fn iface_by_name(&self, name: &str) -> Option<&Iface> {
        self.ifaces.iter().find(|i| i.name == name)
    }

    pub fn routes(&self) -> &RoutingTable {
        &self.routes
    }

    pub fn agents(&self) -> &[AgentId] {
        &self.agents
    }

    pub fn stats(&self) -> NodeStats {
        self.stats
    }

    /// True if `a` is one of the node's addresses (any interface: the weak
    /// host model of RFC 1122 section 3.3.4.2).
    #[inline]
    pub fn owns(&self, a: IpAddr) -> bool {
        self.addr_index.iter().any(|(x, _)| *x == a)
    }

    /// The interface holding address `a` (the first in interface order).
    #[inline]
    pub fn iface_of_addr(&self, a: IpAddr) -> Option<IfaceId> {
        self.addr_index
            .iter()
            .find(|(x, _)| *x == a)
            .map(|(_, i)| *i)
    }
}
