//! The time an 802.11 DCF frame exchange holds a shared medium (MODELS.md
//! 4.1): the contention MAC that Song and Wang's ns-2 runs used for both of
//! their networks (they made UMTS by "modifying settings of existing
//! wireless LAN MAC protocol", section 5.1).
//!
//! One data frame of `L` bytes of IP packet costs, with RTS/CTS,
//!
//! ```text
//! DIFS + CWmin/2 x slot + RTS + SIFS + CTS + SIFS + DATA(L) + SIFS + ACK
//! ```
//!
//! where every frame starts with the PLCP preamble and header (192 bits at
//! 1 Mbit/s), RTS (20 bytes), CTS and ACK (14 bytes each) go at the basic
//! rate and DATA (24-byte MAC header, the packet, 4-byte FCS) at the data
//! rate. Without RTS/CTS the RTS, CTS and their two SIFS are left out.
//! The constants are the 802.11 DSSS PHY's, which are also ns-2's defaults
//! (`tcl/lib/ns-default.tcl` 684-691: CWMin_ 31, SlotTime_ 20 us, SIFS_
//! 10 us, PreambleLength_ 144 bits, PLCPHeaderLength_ 48 bits,
//! PLCPDataRate_ 1 Mbit/s, RTSThreshold_ 0 i.e. RTS/CTS before every
//! frame; DIFS = SIFS + 2 slots, `mac/mac-802_11.h` 239; frame sizes from
//! the frame structures of the same file, lines 97-117 and 253-268).
//!
//! What is left out: the backoff is its mean (15.5 slots), not a draw;
//! the medium is shared round robin, so there are no collisions and no
//! retries; broadcast frames pay the same exchange as unicast ones.

use std::time::Duration;

/// Slot time, SIFS and DIFS of the 802.11 DSSS PHY, in nanoseconds.
const SLOT_NS: u64 = 20_000;
const SIFS_NS: u64 = 10_000;
const DIFS_NS: u64 = SIFS_NS + 2 * SLOT_NS;
/// CWmin: the mean first backoff is CWmin / 2 slots.
const CW_MIN: u64 = 31;
/// PLCP preamble (144 bits) and header (48 bits) at 1 Mbit/s.
const PLCP_NS: u64 = 192_000;
/// RTS, CTS and ACK frames, bytes (frame control, duration, addresses,
/// FCS).
const RTS_BYTES: u64 = 20;
const CTS_BYTES: u64 = 14;
const ACK_BYTES: u64 = 14;
/// MAC header (24 bytes) and FCS (4) of a data frame.
pub const DATA_MAC_BYTES: usize = 28;

/// An 802.11 DCF contention MAC's cost per frame exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DcfTiming {
    /// Rate of the control frames (RTS, CTS, ACK), bit/s.
    pub basic_rate_bps: u64,
    /// RTS/CTS before every data frame.
    pub rts_cts: bool,
}

impl DcfTiming {
    /// The exchange's time besides the data frame's MAC header and
    /// payload at the data rate (which the medium adds per packet).
    pub fn overhead(&self) -> Duration {
        let at_basic =
            |bytes: u64| PLCP_NS + bytes * 8 * 1_000_000_000 / self.basic_rate_bps.max(1);
        let backoff = CW_MIN * SLOT_NS / 2;
        let mut ns = DIFS_NS + backoff + PLCP_NS + SIFS_NS + at_basic(ACK_BYTES);
        if self.rts_cts {
            ns += at_basic(RTS_BYTES) + SIFS_NS + at_basic(CTS_BYTES) + SIFS_NS;
        }
        Duration::from_nanos(ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::link::serialization_time;

    #[test]
    fn a_1040_byte_packet_at_2_mbit_s_with_rts_cts_takes_5_8_ms() {
        // 50 + 310 + 352 + 10 + 304 + 10 + (192 + 4272) + 10 + 304 us.
        let dcf = DcfTiming {
            basic_rate_bps: 1_000_000,
            rts_cts: true,
        };
        let t = dcf.overhead() + serialization_time(1040 + DATA_MAC_BYTES, 2_000_000);
        assert_eq!(t, Duration::from_micros(5_814));
        // Without RTS/CTS: 676 us less (RTS, CTS, two SIFS).
        let basic = DcfTiming {
            rts_cts: false,
            ..dcf
        };
        assert_eq!(
            dcf.overhead() - basic.overhead(),
            Duration::from_micros(676)
        );
    }
}
