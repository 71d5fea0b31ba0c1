//! The receiver's processing of a FORWARD TSN (RFC 3758 section 3.6): the
//! TSNs the peer abandoned count as received, the fragments of abandoned
//! messages are dropped, and the ordered streams skip the abandoned
//! sequence numbers, delivering what waited behind them.

use super::{Receiver, Unwrapper};

impl Receiver {
    /// Processes a FORWARD TSN with `new_cum` and its stream entries.
    /// Returns false when `new_cum` is not ahead of the cumulative TSN
    /// (a stale or duplicate FORWARD TSN: nothing changes, the caller
    /// still acknowledges it).
    pub fn on_forward_tsn(&mut self, new_cum: u32, streams: &[(u16, u16)]) -> bool {
        let t = self.unwrap.unwrap(new_cum);
        if t <= self.cum {
            return false;
        }
        // Every TSN up to `t` is taken as received; gap blocks at or
        // below it go, and one that now follows on joins the cumulative
        // point.
        self.cum = t;
        self.ranges.retain(|&(_, e)| e > t);
        if let Some(first) = self.ranges.first_mut()
            && first.0 <= t
        {
            first.0 = t + 1;
        }
        if let Some(&(s, e)) = self.ranges.first()
            && s == self.cum + 1
        {
            self.cum = e;
            self.ranges.remove(0);
        }
        self.unwrap.advance(Unwrapper::wrap(self.cum));
        self.highest = self.highest.max(self.cum);
        self.drop_fragments_up_to(t);
        for &(stream, ssn) in streams {
            if usize::from(stream) < self.streams.len() {
                self.skip_to(stream, ssn);
            }
        }
        true
    }

    /// Drops the partly received messages with a fragment at or below
    /// TSN `t`: the peer abandoned them (each run of fragments is one
    /// message's, so a run starting at or below `t` goes whole).
    pub(super) fn drop_fragments_up_to(&mut self, t: u64) {
        let gone: Vec<(u64, u64)> = self
            .runs
            .range(..=t)
            .map(|(&first, r)| (first, r.last))
            .collect();
        for (first, last) in gone {
            self.runs.remove(&first);
            for k in first..=last {
                if let Some(c) = self.fragments.remove(&k) {
                    self.buffered -= c.payload.len();
                }
            }
        }
    }

    /// The ordered messages of `stream` up to `ssn` were abandoned: those
    /// of them that arrived complete (waiting for an earlier one) are
    /// delivered in order, and the stream goes on at `ssn + 1`. An entry
    /// at or behind the next expected SSN (serial arithmetic) is stale.
    fn skip_to(&mut self, stream: u16, ssn: u16) {
        let s = &mut self.streams[usize::from(stream)];
        let span = ssn.wrapping_sub(s.next_ssn);
        if span >= 1 << 15 {
            return;
        }
        let mut due: Vec<u16> = s
            .waiting
            .keys()
            .copied()
            .filter(|k| k.wrapping_sub(s.next_ssn) <= span)
            .collect();
        due.sort_unstable_by_key(|k| k.wrapping_sub(s.next_ssn));
        for k in due {
            if let Some(m) = s.waiting.remove(&k) {
                self.waiting_count -= 1;
                self.ready.push_back(m);
            }
        }
        s.next_ssn = ssn.wrapping_add(1);
        while let Some(m) = s.waiting.remove(&s.next_ssn) {
            self.waiting_count -= 1;
            self.ready.push_back(m);
            s.next_ssn = s.next_ssn.wrapping_add(1);
        }
    }
}
