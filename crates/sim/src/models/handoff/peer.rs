//! The correspondent side of the single-connection scheme: a TCP server
//! (a [`TcpAgent`]) that also takes the mobile node's location updates and
//! moves the connection's remote address, acknowledging each update.

use crate::kernel::ip::{DEFAULT_TTL, IpPacket, proto};
use crate::kernel::notification::Notification;
use crate::kernel::udp::{self, UdpView};
use crate::kernel::{Agent, Ctx, PacketOrigin, RxInfo};
use crate::models::tcp::TcpAgent;

use super::location::LocationUpdate;
use super::single::LOCATION_PORT;

/// The correspondent: a TCP agent plus location updates.
#[derive(Debug)]
pub struct HandoffPeer {
    tcp: TcpAgent,
    updates: u64,
    unknown: u64,
}

impl HandoffPeer {
    pub fn new(tcp: TcpAgent) -> Self {
        HandoffPeer {
            tcp,
            updates: 0,
            unknown: 0,
        }
    }

    pub fn tcp(&self) -> &TcpAgent {
        &self.tcp
    }

    /// Location updates that moved a connection.
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// Location updates for no known connection.
    pub fn unknown_updates(&self) -> u64 {
        self.unknown
    }

    fn on_update(&mut self, ctx: &mut Ctx<'_>, pkt: &IpPacket) -> bool {
        let Ok(u) = UdpView::parse(pkt) else {
            return false;
        };
        if u.dst_port != LOCATION_PORT {
            return false;
        }
        let Some(lu) = LocationUpdate::parse(u.payload) else {
            return true;
        };
        if lu.ack {
            return true;
        }
        let mut found = false;
        let mut moved = false;
        for ep in self.tcp.endpoints_mut() {
            let r = ep.connection().remote_addr();
            let l = ep.connection().local_addr();
            if r.port() == lu.mobile_port
                && l.port() == lu.correspondent_port
                && (r.ip() == lu.old || r.ip() == lu.new)
            {
                found = true;
                if r.ip() != lu.new {
                    ep.connection_mut().set_remote_ip(lu.new);
                    moved = true;
                }
            }
        }
        // A repeated update (its acknowledgement crossed a retransmission)
        // is acknowledged again but changes nothing.
        if moved {
            self.updates += 1;
        } else if !found {
            self.unknown += 1;
        }
        let ack = LocationUpdate { ack: true, ..lu };
        if let Ok(p) = udp::build(
            pkt.dst(),
            lu.new,
            LOCATION_PORT,
            u.src_port,
            DEFAULT_TTL,
            &ack.emit(),
        ) {
            let _ = ctx.send(p);
        }
        true
    }
}

impl Agent for HandoffPeer {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        self.tcp.start(ctx);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: IpPacket, rx: &RxInfo) -> Option<IpPacket> {
        if pkt.protocol() == proto::UDP && self.on_update(ctx, &pkt) {
            return None;
        }
        self.tcp.on_packet(ctx, pkt, rx)
    }

    fn on_intercept(
        &mut self,
        ctx: &mut Ctx<'_>,
        pkt: IpPacket,
        origin: &PacketOrigin,
    ) -> Option<IpPacket> {
        self.tcp.on_intercept(ctx, pkt, origin)
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, token: u64) {
        self.tcp.on_timer(ctx, token);
    }

    fn on_notify(&mut self, ctx: &mut Ctx<'_>, n: &Notification) {
        self.tcp.on_notify(ctx, n);
    }
}
