//! The counters of one association.

use std::time::Duration;

use super::Association;

/// Counters of one association.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AssociationStats {
    pub packets_received: u64,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// Packets dropped for a wrong verification tag.
    pub bad_vtag: u64,
    /// AUTH failures and unauthenticated chunks that required AUTH.
    pub auth_failures: u64,
    /// Chunks that could not be decoded.
    pub malformed_chunks: u64,
    /// Unknown chunk types seen.
    pub unknown_chunks: u64,
    pub protocol_violations: u64,
    /// Chunks not sent because they are too long for the 16-bit Chunk
    /// Length field (RFC 9260 section 3.2); should stay 0.
    pub chunks_too_long: u64,
    pub data_chunks_received: u64,
    /// Fragments looked at by reassembly: at most three per DATA chunk
    /// received and one per fragment delivered (RFC 9260 section 6.9).
    pub reassembly_visits: u64,
    pub duplicate_tsns_received: u64,
    /// New DATA chunks that arrived below the highest TSN already
    /// received (reordering, or a retransmission filling a hole).
    pub out_of_order_tsns_received: u64,
    pub data_dropped_no_buffer: u64,
    pub sacks_sent: u64,
    pub sacks_received: u64,
    /// SACKs discarded as older than the cumulative ack point (RFC 9260
    /// section 6.2.1 D i: out of order).
    pub stale_sacks: u64,
    pub asconfs_sent: u64,
    pub asconf_retransmissions: u64,
    pub asconfs_received: u64,
    /// ASCONFs whose serial number is not the next expected one: a
    /// retransmission of the last (answered from the cached ASCONF-ACK,
    /// RFC 5061 section 5.2) or an old or future serial (discarded), as
    /// a replay would carry.
    pub stale_asconfs: u64,
    /// INITs received by an association that exists (collisions and
    /// restart attempts, RFC 9260 section 5.2): answered, never applied
    /// directly.
    pub unexpected_inits: u64,
    /// SACKs with more Gap Ack Blocks than `Limits::max_gap_blocks` (a
    /// peer's huge gap-report list; processed at a bounded cost).
    pub oversized_sacks: u64,
    /// DATA chunks sent as zero window probes (RFC 9260 section 6.1
    /// rule A) to a peer whose window was closed.
    pub zero_window_probes: u64,
    pub events_dropped: u64,
    pub t3_expirations: u64,
    pub fast_retransmissions: u64,
    pub retransmitted_chunks: u64,
    /// Retransmissions the peer reported as duplicates (it already had the
    /// data): spurious.
    pub spurious_retransmissions: u64,
    /// Of these, fast retransmissions (e.g. reordering across CMT paths
    /// taken for loss).
    pub spurious_fast_retransmissions: u64,
    /// Time the peer's receive window kept the sender waiting (data
    /// queued, a congestion window open), over finished episodes; see
    /// [`Association::rwnd_blocked`] for the one under way.
    pub rwnd_blocked: Duration,
    /// Episodes of it.
    pub rwnd_blocked_episodes: u64,
    pub messages_delivered: u64,
    /// INITs (or restart cookies) refused because they add peer
    /// addresses (RFC 9260 section 5.2.2).
    pub restarts_refused: u64,
    /// COOKIE ECHOs discarded by section 5.2.4's table (late, or
    /// matching nothing).
    pub cookies_discarded: u64,
    /// ASCONF Add IP requests refused because another association of
    /// the endpoint has that peer address.
    pub addresses_refused_in_use: u64,
    /// FORWARD TSN chunks sent and received (RFC 3758).
    pub forward_tsns_sent: u64,
    pub forward_tsns_received: u64,
    /// DATA chunks sent with the I bit (RFC 7053).
    pub sack_immediately_sent: u64,
    /// Messages abandoned, per policy (RFC 7496 section 4).
    pub abandoned: super::AbandonedCounters,
}

impl Association {
    pub fn stats(&self) -> AssociationStats {
        let mut s = self.stats;
        s.retransmitted_chunks = self.sender.stats.retransmitted_chunks;
        s.fast_retransmissions = self.sender.stats.fast_retransmitted_chunks;
        s.spurious_retransmissions = self.sender.stats.spurious_retransmissions;
        s.spurious_fast_retransmissions = self.sender.stats.spurious_fast_retransmissions;
        s.rwnd_blocked = self.rwnd_block.total;
        s.rwnd_blocked_episodes = self.rwnd_block.episodes;
        s.data_chunks_received = self.receiver.data_chunks_received;
        s.reassembly_visits = self.receiver.reassembly_visits;
        s.duplicate_tsns_received = self.receiver.duplicates_received;
        s.out_of_order_tsns_received = self.receiver.out_of_order_received;
        s.data_dropped_no_buffer = self.receiver.dropped_for_window;
        s.abandoned = self.sender.abandoned;
        s
    }
}
