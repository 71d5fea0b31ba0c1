//! The IP layer of every node: sending (interceptors, loopback, routing),
//! receiving (interceptors, local delivery, forwarding with TTL decrement).

use std::net::IpAddr;

use super::{Outgoing, Via, World};
use crate::kernel::demux::PortBinding;
use crate::kernel::drop::{DropReason, DropSite};
use crate::kernel::ids::{AgentId, IfaceId, NodeId};
use crate::kernel::ip::{IpPacket, is_group_address};
use crate::kernel::node::NodeKind;
use crate::kernel::trace::TraceKind;
use crate::kernel::{PacketOrigin, RxInfo};

impl World {
    /// A packet sent by an agent (or injected): interceptors of the node
    /// other than the sender, then loopback or routing.
    pub(crate) fn process_outgoing(&mut self, o: Outgoing) {
        let node = o.node;
        let now = self.core.now;
        self.core.nodes[node.index()].stats.sent += 1;
        self.core
            .tracer
            .packet(now, node, None, TraceKind::Send, &o.pkt);
        let Some(pkt) = self.intercept(node, o.pkt, PacketOrigin::Local { from: o.from }, o.from)
        else {
            return;
        };
        let dst = pkt.dst();
        if self.core.nodes[node.index()].owns(dst) {
            self.deliver_local(node, None, pkt);
            return;
        }
        let (iface, next_hop) = match o.via {
            Via::Iface { iface, next_hop } => (iface, next_hop.unwrap_or(dst)),
            Via::Route => match self.route_local(node, pkt.src(), dst) {
                Some(r) => r,
                None => {
                    self.core.drop_pkt(
                        DropSite::Node { node, iface: None },
                        DropReason::NoRoute,
                        pkt,
                    );
                    return;
                }
            },
        };
        self.core.transmit(node, iface, next_hop, pkt);
    }

    /// Route of a locally originated packet. Hosts pin a packet whose
    /// source address belongs to one of their interfaces to that interface
    /// (source-address-based interface selection); routers, and hosts
    /// sending from an address they do not hold, route by destination,
    /// skipping interfaces that are down.
    fn route_local(&self, node: NodeId, src: IpAddr, dst: IpAddr) -> Option<(IfaceId, IpAddr)> {
        let n = &self.core.nodes[node.index()];
        if n.kind == NodeKind::Host
            && let Some(i) = n.iface_of_addr(src)
        {
            return n
                .routes
                .lookup_on(dst, i)
                .map(|r| (r.iface, r.next_hop(dst)));
        }
        n.routes
            .lookup(dst, |i| n.ifaces[i.index()].up)
            .map(|r| (r.iface, r.next_hop(dst)))
    }

    /// A packet arriving on an interface.
    pub(crate) fn receive(&mut self, node: NodeId, iface: IfaceId, pkt: IpPacket) {
        let now = self.core.now;
        if !self.core.nodes[node.index()].ifaces[iface.index()].up {
            self.core.drop_pkt(
                DropSite::Node {
                    node,
                    iface: Some(iface),
                },
                DropReason::IfaceDown,
                pkt,
            );
            return;
        }
        self.core.write_capture(node, iface, &pkt);
        self.core
            .tracer
            .packet(now, node, Some(iface), TraceKind::Receive, &pkt);
        self.core.nodes[node.index()].stats.received += 1;
        let Some(mut pkt) = self.intercept(node, pkt, PacketOrigin::Received { iface }, None)
        else {
            return;
        };
        let dst = pkt.dst();
        let n = &self.core.nodes[node.index()];
        if is_group_address(dst) || n.owns(dst) {
            self.deliver_local(node, Some(iface), pkt);
            return;
        }
        if !n.forwarding {
            self.core.drop_pkt(
                DropSite::Node {
                    node,
                    iface: Some(iface),
                },
                DropReason::NotForwarding,
                pkt,
            );
            return;
        }
        if !pkt.decrement_ttl() {
            self.core.drop_pkt(
                DropSite::Node {
                    node,
                    iface: Some(iface),
                },
                DropReason::TtlExpired,
                pkt,
            );
            return;
        }
        let route = n
            .routes
            .lookup(dst, |i| n.ifaces[i.index()].up)
            .map(|r| (r.iface, r.next_hop(dst)));
        let Some((out, next_hop)) = route else {
            self.core.drop_pkt(
                DropSite::Node {
                    node,
                    iface: Some(iface),
                },
                DropReason::NoRoute,
                pkt,
            );
            return;
        };
        self.core.nodes[node.index()].stats.forwarded += 1;
        self.core
            .tracer
            .packet(now, node, Some(out), TraceKind::Forward, &pkt);
        self.core.transmit(node, out, next_hop, pkt);
    }

    /// Offers a packet to the node's interceptors (except `skip`), in
    /// registration order; `None` if one took it.
    fn intercept(
        &mut self,
        node: NodeId,
        mut pkt: IpPacket,
        origin: PacketOrigin,
        skip: Option<AgentId>,
    ) -> Option<IpPacket> {
        let mut i = 0;
        while let Some(&a) = self.core.nodes[node.index()].interceptors.get(i) {
            i += 1;
            if Some(a) == skip {
                continue;
            }
            pkt = self.call_agent(a, |agent, ctx| agent.on_intercept(ctx, pkt, &origin))?;
        }
        Some(pkt)
    }

    /// Offers a packet addressed to the node to its agents in order (those
    /// bound to another port skipped: [`crate::kernel::demux`]).
    fn deliver_local(&mut self, node: NodeId, iface: Option<IfaceId>, mut pkt: IpPacket) {
        let now = self.core.now;
        self.core
            .tracer
            .packet(now, node, iface, TraceKind::Deliver, &pkt);
        let rx = RxInfo { iface };
        let mut walk = self.core.nodes[node.index()]
            .directory
            .cursor(PortBinding::of_packet(&pkt));
        while let Some(a) = self.core.nodes[node.index()].directory.next(&mut walk) {
            match self.call_agent(a, |agent, ctx| agent.on_packet(ctx, pkt, &rx)) {
                Some(p) => pkt = p,
                None => {
                    self.core.nodes[node.index()].stats.delivered += 1;
                    return;
                }
            }
        }
        self.core
            .drop_pkt(DropSite::Node { node, iface }, DropReason::NoListener, pkt);
    }
}
