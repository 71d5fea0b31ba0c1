//! I-DATA (RFC 8260) at the association: whether it was negotiated, the
//! per-stream values of the stream schedulers (section 3), and an arriving
//! I-FORWARD-TSN (section 2.3). The sender's side is in
//! `send/interleave.rs` and `send/schedule.rs`, the receiver's in
//! `recv/interleave.rs`.

use std::net::IpAddr;

use super::Flow;
use super::{Association, State};
use crate::wire::{DataChunk, IDataChunk, IForwardTsnChunk};

/// A received chunk of user data.
pub(super) enum InData {
    Data(DataChunk),
    IData(IDataChunk),
}

impl Association {
    /// Whether both sides announced I-DATA (RFC 8260 section 2.2): user
    /// data goes in I-DATA chunks and messages of different streams may
    /// interleave.
    pub fn interleaving(&self) -> bool {
        self.sender.interleave
    }

    /// Sets the priority value (the [`Priority`] scheduler: lower is
    /// sent first) or the weight (the [`WeightedFair`] scheduler) of an
    /// outgoing stream, as RFC 8260 section 4.3.2's
    /// `SCTP_STREAM_SCHEDULER_VALUE`; 1 by default. Kept across the
    /// handshake.
    ///
    /// [`Priority`]: crate::StreamScheduler::Priority
    /// [`WeightedFair`]: crate::StreamScheduler::WeightedFair
    pub fn set_stream_priority(&mut self, stream: u16, value: u16) {
        self.sender.set_stream_value(stream, value);
    }

    /// An I-FORWARD-TSN from the peer (RFC 8260 section 2.3), when
    /// PR-SCTP and I-DATA were both negotiated: as FORWARD TSN (RFC 3758
    /// section 3.6), with the skipped messages named by MID.
    pub(super) fn on_i_forward_tsn(&mut self, f: &IForwardTsnChunk, src: IpAddr) -> Flow {
        if !matches!(
            self.state,
            State::Established | State::ShutdownPending | State::ShutdownSent
        ) {
            return Flow::Continue;
        }
        self.stats.forward_tsns_received += 1;
        self.receiver.on_i_forward_tsn(f.new_cum_tsn, &f.entries);
        self.sack.now = true;
        self.sack.deadline = None;
        self.sack.dest = Some(src);
        Flow::Continue
    }
}
