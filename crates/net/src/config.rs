//! Configuration of a stack: SCTP and UDP ports (RFC 6951), local
//! addresses, the interface monitor and handover policy, and every buffer
//! and queue bound of the driver.

use std::net::IpAddr;
use std::time::Duration;

use msctp_proto::{EndpointConfig, EstimatorConfig, PmtudConfig};

/// The IANA port for SCTP over UDP (RFC 6951 section 5.1).
pub const SCTP_UDP_PORT: u16 = 9899;

/// Which handover policy decides for associations when interfaces
/// change: the engine's [`msctp_proto::policy::PolicyKind`], interfaces
/// by name (fastest-first's rates per interface name, in bit/s).
pub type PolicyKind = msctp_proto::policy::PolicyKind<String>;

/// Everything a [`Stack`](crate::Stack) needs.
#[derive(Debug, Clone)]
pub struct StackConfig {
    /// The engine's endpoint configuration (SCTP port, listening, every
    /// RFC parameter of the associations).
    pub endpoint: EndpointConfig,
    /// Local UDP encapsulation port: one socket per local address is bound
    /// to it (RFC 6951 section 5.1; 9899 by default).
    pub udp_port: u16,
    /// Remote UDP encapsulation port used for a peer address until a
    /// packet from it teaches the real one (RFC 6951 section 5.5).
    pub remote_udp_port: u16,
    /// Local addresses. Empty: every usable address of the interfaces the
    /// monitor follows (or of the host, found once, without monitor).
    pub local_addrs: Vec<IpAddr>,
    /// Follow the host's interfaces with Linux netlink: new addresses are
    /// added to running associations, lost ones deleted, link up/down
    /// reported to the policy.
    pub monitor: bool,
    /// Interface names the monitor follows; empty: all but loopback.
    pub interfaces: Vec<String>,
    /// The handover policy.
    pub policy: PolicyKind,
    /// When the policy moves data off a path whose link is down, resend
    /// that path's outstanding data at once (instead of after T3-rtx).
    pub move_data_on_link_down: bool,
    /// When every local address is a loopback address (the peer is on this
    /// host), packets are sized to the loopback interface's MTU less the
    /// IP and UDP headers (at most 65 507 bytes), as the kernel's TCP and
    /// SCTP size theirs there; `endpoint.association.path_mtu` applies
    /// otherwise.
    pub loopback_mtu: bool,
    /// SO_RCVBUF and SO_SNDBUF of each UDP socket, bytes.
    pub socket_buffer: usize,
    /// Largest datagram received (bytes); larger ones are truncated and
    /// then fail the SCTP checksum.
    pub max_datagram: usize,
    /// Datagrams read in one go before the driver sends what they caused
    /// (64: one GSO train's most segments). The SACK then leaves while
    /// the peer is still sending; with 512 a burst of small packets was
    /// read whole before its SACK left, and the two ends of a transfer
    /// took turns (docs/measurements/quic-compare.md).
    pub recv_batch: usize,
    /// Use the kernel's UDP segmentation offload (GSO, `UDP_SEGMENT`) and
    /// receive coalescing (GRO, `UDP_GRO`) where it has them; without
    /// them (or with `false`) datagrams are still sent and read many per
    /// system call (`sendmmsg`, `recvmmsg`).
    pub offload: bool,
    /// Send requests waiting for room in an association's send buffer.
    pub max_pending_sends: usize,
    /// Bytes of messages an application may hand over ahead of the
    /// association's send buffer without waiting for each one to be taken
    /// (send credit; larger messages take all of it).
    pub send_credit: usize,
    /// Events kept for an application that does not read them (the oldest
    /// are dropped beyond this and counted).
    pub event_queue: usize,
    /// Associations accepted but not yet taken by `accept`.
    pub accept_queue: usize,
    /// How long `connect` waits for the association.
    pub connect_timeout: Duration,
    /// When every handle is dropped, how long open associations get to
    /// shut down gracefully before they are aborted.
    pub drain_timeout: Duration,
    /// User-space impairment of every received datagram (seeded loss,
    /// duplication, reordering; [`crate::impair`]): for soak tests of
    /// RFC 9260's loss recovery (sections 6.2, 6.3, 7.2.4) on hosts
    /// without netem. `None` (the default): datagrams go to the engine
    /// untouched.
    pub impair: Option<crate::impair::ImpairConfig>,
}

impl StackConfig {
    /// Defaults for SCTP port `port`: RFC 9260 parameters, UDP port 9899.
    pub fn new(port: u16) -> Self {
        // The stack's endpoint is the only one behind its sockets: a
        // packet for another SCTP port is refused at once (RFC 9260 8.4).
        // An association idle for 5 minutes (no user data either way) is
        // aborted, so that idle peers cannot hold a server's slots (issue
        // 31); the engine's default is none, as RFC 9260's.
        let mut endpoint = EndpointConfig {
            answer_other_ports: true,
            idle_timeout: Some(Duration::from_secs(300)),
            ..EndpointConfig::new(port)
        };
        // The path estimators run on real hosts (capacity and available
        // bandwidth per path, shown by `msctp perf`); the capacity counts
        // the IPv4 and UDP headers of each packet.
        endpoint.association.estimators = EstimatorConfig {
            packet_overhead: 28,
            ..EstimatorConfig::on()
        };
        // Path MTU discovery per path (RFC 8899 section 6.2): a path's
        // MTU is not known on a real host (a tunnel or a cellular path is
        // often 1280-1420 bytes, and ICMP is often filtered), so data
        // starts at the base PLPMTU and probes find the rest. On loopback
        // it is off (the interface's MTU is known, `loopback_mtu`); the
        // CLI's --no-pmtud turns it off.
        endpoint.association.pmtud = PmtudConfig::on();
        StackConfig {
            endpoint,
            udp_port: SCTP_UDP_PORT,
            remote_udp_port: SCTP_UDP_PORT,
            local_addrs: Vec::new(),
            monitor: false,
            interfaces: Vec::new(),
            policy: PolicyKind::FailoverOnly,
            move_data_on_link_down: true,
            loopback_mtu: true,
            socket_buffer: 4 << 20,
            max_datagram: 65_535,
            recv_batch: crate::udp::MAX_SEGMENTS,
            offload: true,
            max_pending_sends: 4096,
            send_credit: 256 << 10,
            event_queue: 4096,
            accept_queue: 64,
            connect_timeout: Duration::from_secs(10),
            drain_timeout: Duration::from_secs(10),
            impair: None,
        }
    }

    /// How the driver opens its UDP sockets.
    pub fn socket_options(&self) -> crate::encap::SocketOptions {
        crate::encap::SocketOptions {
            buffer: self.socket_buffer,
            max_datagram: self.max_datagram,
            offload: self.offload,
            pmtud: self.endpoint.association.pmtud.enabled,
        }
    }

    /// Settings for real networks with small RTTs (the mobility studies'
    /// choice, docs/MODELS.md 1.1): RTO.Min 20 ms, RTO.Initial 200 ms, a
    /// heartbeat every second, SACK delay 4 ms, 4 MB windows and
    /// buffers, Max.Burst 4 grown to 1 ms of the path's rate
    /// (`burst_autosize`). The defaults above stay those of RFC 9260.
    ///
    /// The SACK delay must stay well below RTO.Min: a chunk that waits
    /// for a delayed SACK is acknowledged after the delay plus the RTT,
    /// and while the RTO sits at its floor (SRTT + 4 RTTVAR below
    /// RTO.Min, the usual case on a LAN) the T3 timer fires at RTO.Min.
    /// With 20 ms of each, the last odd packet of every burst of a paced
    /// sender timed out spuriously (and AISLE took each timeout for
    /// congestion). 4 ms keeps RFC 9260's ratio of RTO.Min to SACK delay
    /// (1 s to 200 ms) and leaves 16 ms of round trip before a delayed
    /// SACK can meet the timer; a bulk transfer is acknowledged every
    /// second packet anyway, so the shorter delay costs few SACKs.
    pub fn tuned_for_lan(mut self) -> Self {
        let a = &mut self.endpoint.association;
        a.rto_min = Duration::from_millis(20);
        a.rto_initial = Duration::from_millis(200);
        a.rto_max = Duration::from_secs(5);
        a.heartbeat_interval = Some(Duration::from_secs(1));
        a.sack_delay = Some(Duration::from_millis(4));
        a.receive_window = 4 << 20;
        a.send_buffer = 4 << 20;
        // Max.Burst stays RFC 9260's 4 (section 7.2.4): unlimited, a
        // sender whose window a SACK opened wide sent it all at once, and
        // the bursts of several associations overflowed the receiving
        // socket's buffer (issue 18: four loopback senders lost thousands
        // of chunks and stalled on timeouts; with 4, none). One
        // association on loopback is no slower with it.
        a.max_burst = Some(4);
        // Grown with the path's rate, up to 1 ms of it and four 64 KB GSO
        // sends (Linux sizes TCP's offload segments to 64 KB): at
        // 1452-byte packets on a fast path four packets per SACK made
        // every sendmmsg, GSO train, recvmmsg and SACK carry four
        // packets, and the system calls cost most of the CPU (on loopback
        // 5.3 to 5.6 CPU s per GB, 1.7 to 1.9 with bursts grown); one GSO
        // send per SACK made a transfer a ping-pong of one train and one
        // SACK (docs/measurements/quic-compare.md). A slow path (under 4
        // packets per ms) and loopback-size packets (one per 64 KB) keep
        // Max.Burst 4.
        a.burst_autosize = Some(Duration::from_millis(1));
        self
    }
}
