//! Congestion window arithmetic of RFC 5681 (slow start, congestion
//! avoidance, the loss reactions) and RFC 6582 (NewReno fast recovery
//! window). The recovery state machine itself lives in the connection.

/// cwnd and ssthresh in bytes, for a sender MSS of `smss`.
#[derive(Debug, Clone)]
pub struct Congestion {
    pub cwnd: u32,
    pub ssthresh: u32,
    pub smss: u32,
}

impl Congestion {
    pub fn new(cwnd: u32, ssthresh: u32, smss: u32) -> Self {
        Congestion {
            cwnd,
            ssthresh,
            smss,
        }
    }

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// A cumulative ACK of `acked` new bytes outside recovery: slow start
    /// adds min(acked, SMSS) (RFC 5681 eq. 2), congestion avoidance adds
    /// SMSS*SMSS/cwnd, at least one byte (eq. 3). ns-3's TcpNewReno does
    /// the same per ACK.
    pub fn on_ack(&mut self, acked: u32) {
        if acked == 0 {
            return;
        }
        let inc = if self.in_slow_start() {
            acked.min(self.smss)
        } else {
            let add = u64::from(self.smss) * u64::from(self.smss) / u64::from(self.cwnd.max(1));
            u32::try_from(add.max(1)).unwrap_or(u32::MAX)
        };
        self.cwnd = self.cwnd.saturating_add(inc);
    }

    /// ssthresh after a loss with `flight` bytes outstanding:
    /// max(FlightSize / 2, 2 * SMSS) (RFC 5681 eq. 4).
    pub fn loss_ssthresh(&self, flight: u32) -> u32 {
        (flight / 2).max(2 * self.smss)
    }

    /// Fast retransmit (RFC 5681 section 3.2 steps 2-3, RFC 6582 section
    /// 3.2 step 2): ssthresh from the flight size, cwnd = ssthresh plus
    /// the `dup_acks` segments that have left the network.
    pub fn enter_fast_recovery(&mut self, flight: u32, dup_acks: u32, inflate: bool) {
        self.ssthresh = self.loss_ssthresh(flight);
        self.cwnd = if inflate {
            self.ssthresh
                .saturating_add(dup_acks.saturating_mul(self.smss))
        } else {
            self.ssthresh
        };
    }

    /// Each further duplicate ACK during NewReno recovery inflates cwnd by
    /// one SMSS (RFC 5681 section 3.2 step 4).
    pub fn inflate(&mut self) {
        self.cwnd = self.cwnd.saturating_add(self.smss);
    }

    /// A partial ACK of `acked` bytes (RFC 6582 section 3.2 step 5):
    /// deflate by the amount acknowledged, add back one SMSS if at least
    /// one SMSS was acknowledged.
    pub fn partial_ack(&mut self, acked: u32) {
        self.cwnd = self.cwnd.saturating_sub(acked);
        if acked >= self.smss {
            self.cwnd = self.cwnd.saturating_add(self.smss);
        }
        self.cwnd = self.cwnd.max(self.smss);
    }

    /// A full ACK ends recovery: cwnd = ssthresh (RFC 6582 section 3.2
    /// step 3, second option; ns-3 does the same).
    pub fn exit_fast_recovery(&mut self) {
        self.cwnd = self.ssthresh;
    }

    /// Retransmission timeout (RFC 5681 eq. 4 and the loss window of one
    /// segment); ssthresh only on the first timeout of the same data.
    pub fn on_timeout(&mut self, flight: u32, first: bool) {
        if first {
            self.ssthresh = self.loss_ssthresh(flight);
        }
        self.cwnd = self.smss;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_then_avoidance() {
        let mut c = Congestion::new(1000, 4000, 1000);
        c.on_ack(2000); // at most one SMSS per ACK
        assert_eq!(c.cwnd, 2000);
        c.on_ack(1000);
        c.on_ack(1000);
        assert_eq!(c.cwnd, 4000);
        assert!(!c.in_slow_start());
        c.on_ack(1000);
        assert_eq!(c.cwnd, 4250); // 1000*1000/4000
        c.on_ack(0);
        assert_eq!(c.cwnd, 4250);
    }

    #[test]
    fn loss_reactions() {
        let mut c = Congestion::new(10_000, u32::MAX, 1000);
        c.enter_fast_recovery(10_000, 3, true);
        assert_eq!((c.ssthresh, c.cwnd), (5000, 8000));
        c.inflate();
        assert_eq!(c.cwnd, 9000);
        c.partial_ack(2000);
        assert_eq!(c.cwnd, 8000);
        c.partial_ack(500);
        assert_eq!(c.cwnd, 7500);
        c.exit_fast_recovery();
        assert_eq!(c.cwnd, 5000);
        c.on_timeout(3000, true);
        assert_eq!((c.ssthresh, c.cwnd), (2000, 1000));
        c.on_timeout(1000, false);
        assert_eq!((c.ssthresh, c.cwnd), (2000, 1000));
    }
}
