//! One-way delay and jitter per delivered message: the time from the
//! sending application handing a message to its transport to the
//! receiving application reading it, and the interarrival jitter of
//! RFC 3550 section 6.4.1 over those delays (J += (|D| - J) / 16, D the
//! difference of two consecutive messages' transit times).
//!
//! Messages are matched in order: the k-th message read is the k-th
//! handed over. That holds for a reliable ordered stream (one stream, as
//! the simulator's SCTP flows use); on unordered delivery the delays are
//! those of the k-th send and the k-th delivery.

use std::collections::VecDeque;

use crate::Time;

/// The delay of one delivered message.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MessageDelay {
    /// When the receiving application read the message.
    pub time: Time,
    /// One-way delay in seconds.
    pub delay_s: f64,
    /// RFC 3550 interarrival jitter after this message, in seconds.
    pub jitter_s: f64,
}

/// Send times waiting for their delivery, and the delays so far. Both are
/// bounded by `limit` (beyond it, deliveries are counted in `dropped`).
#[derive(Debug, Clone, Default)]
pub struct MessageDelays {
    sent: VecDeque<Time>,
    pub rows: Vec<MessageDelay>,
    jitter_s: f64,
    last_transit_s: Option<f64>,
    limit: usize,
    pub dropped: u64,
}

impl MessageDelays {
    pub fn with_limit(limit: usize) -> Self {
        MessageDelays {
            limit,
            ..Default::default()
        }
    }

    /// The sending application handed a message to the transport.
    pub fn sent(&mut self, now: Time) {
        if self.sent.len() < self.limit {
            self.sent.push_back(now);
        } else {
            self.dropped += 1;
        }
    }

    /// The receiving application read the next message.
    pub fn delivered(&mut self, now: Time) {
        let Some(t0) = self.sent.pop_front() else {
            self.dropped += 1;
            return;
        };
        let transit = now.saturating_since(t0).as_secs_f64();
        if let Some(last) = self.last_transit_s {
            self.jitter_s += ((transit - last).abs() - self.jitter_s) / 16.0;
        }
        self.last_transit_s = Some(transit);
        if self.rows.len() < self.limit {
            self.rows.push(MessageDelay {
                time: now,
                delay_s: transit,
                jitter_s: self.jitter_s,
            });
        } else {
            self.dropped += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_match_in_order_and_jitter_follows_rfc_3550() {
        let mut d = MessageDelays::with_limit(10);
        let ms = Time::from_millis;
        d.sent(ms(0));
        d.sent(ms(10));
        d.sent(ms(20));
        d.delivered(ms(50)); // 50 ms
        d.delivered(ms(76)); // 66 ms: D = 16 ms, J = 1 ms
        d.delivered(ms(70)); // 50 ms: D = 16 ms, J = 1 + 15/16 ms
        d.delivered(ms(80)); // nothing was sent: counted
        let got: Vec<(f64, f64)> = d.rows.iter().map(|r| (r.delay_s, r.jitter_s)).collect();
        let want = [(0.050, 0.0), (0.066, 0.001), (0.050, 0.001 + 0.015 / 16.0)];
        assert_eq!(got.len(), 3);
        for (g, w) in got.iter().zip(want) {
            assert!(
                (g.0 - w.0).abs() < 1e-12 && (g.1 - w.1).abs() < 1e-12,
                "{got:?}"
            );
        }
        assert_eq!(d.dropped, 1);
    }
}
