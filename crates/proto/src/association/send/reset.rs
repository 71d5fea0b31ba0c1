//! The sender's side of stream reconfiguration (RFC 6525): outgoing
//! streams whose sequence numbers restart at 0, streams added, and the
//! TSN of an SSN/TSN reset.

use super::Sender;

impl Sender {
    /// Whether a message of one of `streams` (all when empty) is queued
    /// and not yet cut into chunks whole: an Outgoing SSN Reset Request
    /// for them waits until it is (RFC 6525 section 5.1.2, the last TSN
    /// it carries must cover every message sent before the reset).
    pub fn queued_on(&self, streams: &[u16]) -> bool {
        self.queue
            .iter()
            .any(|r| streams.is_empty() || streams.contains(&r.stream))
    }

    /// The next SSN (and with I-DATA both MIDs) of `streams` (all when
    /// empty) restart at 0 (RFC 6525 section 5.1.2, RFC 8260 section
    /// 2.3.2).
    pub fn reset_outgoing(&mut self, streams: &[u16]) {
        for (s, ssn) in self.next_ssn.iter_mut().enumerate() {
            if streams.is_empty() || streams.contains(&(s as u16)) {
                *ssn = 0;
                self.next_mid[s] = [0; 2];
            }
        }
    }

    /// Adds `n` outgoing streams (RFC 6525 section 5.1.5), their sequence
    /// numbers from 0; the total stays at most 65535.
    pub fn add_outgoing(&mut self, n: u16) {
        let total = (self.next_ssn.len() + usize::from(n)).min(usize::from(u16::MAX));
        self.next_ssn.resize(total, 0);
        self.next_mid.resize(total, [0; 2]);
    }

    /// SSN/TSN reset (RFC 6525 section 5.2.4 G2 and G5, section 5.1.4 on
    /// the response): the next DATA chunk takes TSN `next`, everything
    /// before counts as acknowledged, every stream restarts at 0. Only
    /// when nothing is queued or outstanding (the caller checks).
    pub fn reset_tsn(&mut self, next: u32) {
        debug_assert!(self.is_idle());
        self.next_tsn = next;
        self.cum_ack = next.wrapping_sub(1);
        self.adv_peer_ack = self.cum_ack;
        self.forward_tsn_due = false;
        self.highest_gap_acked = None;
        self.reset_outgoing(&[]);
    }
}
