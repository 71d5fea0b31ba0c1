//! The receiver's side of stream reconfiguration (RFC 6525): incoming
//! streams whose expected sequence numbers restart at 0 (section 5.2.2),
//! streams added (section 5.2.5), and the SSN/TSN reset (section 5.2.4).

use super::{Receiver, Unwrapper};

impl Receiver {
    /// The next expected SSN (with I-DATA, MID) of `streams` (all when
    /// empty) is 0 again (RFC 6525 section 5.2.2 E3). Complete messages
    /// that waited for an earlier one (none when the peer followed section
    /// 5.1.2) are delivered first, in order, as a FORWARD TSN would.
    pub fn reset_incoming(&mut self, streams: &[u16]) {
        for s in 0..self.streams.len() {
            let id = s as u16;
            if !(streams.is_empty() || streams.contains(&id)) {
                continue;
            }
            let st = &mut self.streams[s];
            let mut waiting: Vec<_> = st.waiting.drain().collect();
            waiting.sort_unstable_by_key(|(k, _)| k.wrapping_sub(st.next_ssn));
            st.next_ssn = 0;
            self.waiting_count -= waiting.len();
            self.ready.extend(waiting.into_iter().map(|(_, m)| m));
            let mut mids: Vec<_> = self
                .idata
                .waiting
                .keys()
                .filter(|k| k.0 == id)
                .copied()
                .collect();
            let next = self.idata.next_mid.remove(&id).unwrap_or(0);
            mids.sort_unstable_by_key(|k| k.1.wrapping_sub(next));
            for k in mids {
                if let Some(m) = self.idata.waiting.remove(&k) {
                    self.ready.push_back(m);
                }
            }
        }
    }

    /// Adds `n` incoming streams (RFC 6525 section 5.2.5); the total
    /// stays at most 65535.
    pub fn add_incoming(&mut self, n: u16) {
        let total = (self.streams.len() + usize::from(n)).min(usize::from(u16::MAX));
        self.streams.resize(total, Default::default());
    }

    /// SSN/TSN reset (RFC 6525 section 5.2.4 G3-G5, and section 5.1.4 at
    /// the requester): the next TSN expected is `next`; fragments of
    /// messages not complete are dropped (as by a FORWARD TSN to
    /// `next - 1`), and every incoming stream restarts at 0.
    pub fn reset_tsn(&mut self, next: u32) {
        self.drop_fragments_up_to(u64::MAX);
        self.buffered -= self.idata.drop_partial();
        self.reset_incoming(&[]);
        let cum32 = next.wrapping_sub(1);
        self.unwrap = Unwrapper::new(cum32);
        self.cum = self.unwrap.unwrap(cum32);
        self.highest = self.cum;
        self.ranges.clear();
        self.dups.clear();
    }
}
