//! The stream scheduler setting (RFC 8260 section 3); the schedulers
//! themselves are `association/send/schedule.rs`.

/// The scheduler of an association's outgoing streams (RFC 8260 section 3,
/// RFC 8260 section 4.3.2's `SCTP_SS_*` values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum StreamScheduler {
    /// First come, first served (section 3.1, `SCTP_SS_FCFS`): messages
    /// leave in the order the application queued them, whatever their
    /// stream. The default, and what the stack did before schedulers.
    #[default]
    Fcfs,
    /// Round robin (section 3.2, `SCTP_SS_RR`): the streams with data take
    /// turns, in increasing stream number; a turn is one message without
    /// I-DATA and one chunk with it.
    RoundRobin,
    /// Round robin per packet (section 3.3, `SCTP_SS_RR_PKT`): as round
    /// robin, but a stream keeps its turn for a whole packet.
    RoundRobinPerPacket,
    /// Priority (section 3.4, `SCTP_SS_PRIO`): the stream with the highest
    /// priority (the lowest value, [`crate::Association::set_stream_priority`])
    /// sends first; streams of equal priority take turns.
    Priority,
    /// Fair capacity (section 3.5, `SCTP_SS_FC`): the stream that has sent
    /// the fewest bytes goes next.
    FairCapacity,
    /// Weighted fair queueing (section 3.6, `SCTP_SS_WFQ`): as fair
    /// capacity with the bytes of each stream divided by its weight
    /// ([`crate::Association::set_stream_priority`]), so a stream of weight
    /// n gets n times the capacity of a stream of weight 1.
    WeightedFair,
}
