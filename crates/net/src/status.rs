//! Snapshots for applications and reports: an association's state, paths
//! and counters, and the driver's counters.

use std::net::IpAddr;

use msctp_proto::association::AssociationStats;
use msctp_proto::endpoint::EndpointStats;
use msctp_proto::path::PathStats;
use msctp_proto::{Association, State};

/// One local address of an association and where it stands (RFC 5061).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalAddrStatus {
    pub addr: IpAddr,
    /// "available", "add-pending" or "delete-pending".
    pub state: &'static str,
}

/// An association at one moment.
#[derive(Debug, Clone)]
pub struct AssocStatus {
    pub state: State,
    /// The peer address chosen as primary, and where new data goes now
    /// (they differ after a failover).
    pub primary: Option<IpAddr>,
    pub data_destination: Option<IpAddr>,
    pub local_primary: Option<IpAddr>,
    pub local: Vec<LocalAddrStatus>,
    pub paths: Vec<PathStats>,
    /// Path MTU discovery per peer address (RFC 8899).
    pub path_mtus: Vec<(IpAddr, msctp_proto::association::PathMtu)>,
    pub stats: AssociationStats,
    pub send_buffered: usize,
    pub auth: bool,
    pub asconf: bool,
    /// Both sides announced PR-SCTP (RFC 3758 section 3.3.1).
    pub pr_sctp: bool,
    /// Both sides announced RE-CONFIG (RFC 6525 section 3.1): streams
    /// can be reset.
    pub stream_reconfig: bool,
    /// Outbound streams negotiated (RFC 9260 section 5.1.1: the smaller
    /// of our OS and the peer's MIS).
    pub outbound_streams: u16,
    /// Inbound streams negotiated.
    pub inbound_streams: u16,
}

impl AssocStatus {
    pub fn of(a: &Association) -> Self {
        use msctp_proto::asconf::LocalAddrState as S;
        AssocStatus {
            state: a.state(),
            primary: a.primary(),
            data_destination: a.data_destination(),
            local_primary: a.local_primary(),
            local: a
                .local_addresses()
                .iter()
                .map(|l| LocalAddrStatus {
                    addr: l.addr,
                    state: match l.state {
                        S::Available => "available",
                        S::AddPending => "add-pending",
                        S::DeletePending => "delete-pending",
                    },
                })
                .collect(),
            paths: a.paths(),
            path_mtus: a
                .peer_addresses()
                .filter_map(|p| Some((p, a.path_mtu(p)?)))
                .collect(),
            stats: a.stats(),
            send_buffered: a.send_buffered(),
            auth: a.auth_enabled(),
            asconf: a.asconf_enabled(),
            pr_sctp: a.pr_sctp(),
            stream_reconfig: a.stream_reconfig(),
            outbound_streams: a.outbound_streams(),
            inbound_streams: a.inbound_streams(),
        }
    }
}

/// Counters of the driver.
#[derive(Debug, Clone, Copy, Default)]
pub struct DriverStats {
    pub datagrams_received: u64,
    pub datagrams_sent: u64,
    /// `recvmmsg` calls that returned datagrams.
    pub recv_batches: u64,
    /// `sendmmsg` calls.
    pub send_batches: u64,
    /// GSO messages of more than one datagram.
    pub gso_trains: u64,
    /// Sockets that fell back from GSO after the kernel refused it.
    pub gso_fallbacks: u64,
    /// Sends that failed (network unreachable, address gone, ...).
    pub send_errors: u64,
    pub recv_errors: u64,
    /// Transmits with no socket for their source address.
    pub no_socket: u64,
    pub link_events: u64,
    pub handovers: u64,
    pub monitor_errors: u64,
    pub events_dropped: u64,
    pub accept_overflows: u64,
    /// Remote UDP encapsulation ports that changed for an address of an
    /// association (a NAT rebinding the peer's mapping).
    pub remote_port_changes: u64,
    pub sockets: usize,
    pub endpoint: EndpointStats,
    /// What the user-space link impairment did (all zero when off).
    pub impaired: crate::impair::ImpairStats,
}
