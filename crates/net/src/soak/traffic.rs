//! The soak's applications: numbered messages on several streams,
//! checked exactly-once and in order per stream at the correspondent
//! (RFC 9260 section 6.6: ordered delivery within a stream), and file
//! transfers one after another, each on a new association, checked by
//! SHA-256 ([`crate::transfer`]).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use bytes::{BufMut, Bytes, BytesMut};
use msctp_proto::{CloseReason, Event};

use crate::transfer;
use crate::{Association, NetEvent, Stack};

/// PPID of the soak's numbered messages.
pub const PPID_SOAK: u32 = 0x6d73_0010;
/// Header: stream (2), payload length (2), sequence number (8).
const HEADER: usize = 12;

/// The message number `seq` of `stream`: its header and a payload of a
/// length and content that follow from both (so that a corrupted or
/// misplaced message is seen).
pub fn encode(stream: u16, seq: u64) -> Bytes {
    let len = 64 + (seq.wrapping_mul(977) % 1100) as usize;
    let mut b = BytesMut::with_capacity(HEADER + len);
    b.put_u16(stream);
    b.put_u16(len as u16);
    b.put_u64(seq);
    b.extend((0..len).map(|i| fill(stream, seq, i)));
    b.freeze()
}

fn fill(stream: u16, seq: u64, i: usize) -> u8 {
    (seq.wrapping_mul(31) ^ (i as u64).wrapping_mul(7) ^ u64::from(stream)) as u8
}

/// What the checker found on the message association.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct StreamCheck {
    /// Next sequence number expected per stream.
    pub expected: Vec<u64>,
    /// Messages delivered in order, once.
    pub delivered: u64,
    pub bytes: u64,
    /// Messages delivered again (sequence number below the expected one).
    pub duplicates: u64,
    /// Messages delivered ahead of one not yet delivered on their stream.
    pub reorders: u64,
    /// Messages whose header or payload is not what was sent.
    pub corrupt: u64,
}

impl StreamCheck {
    pub fn new(streams: u16) -> Self {
        StreamCheck {
            expected: vec![0; usize::from(streams)],
            ..Default::default()
        }
    }

    /// One delivered message.
    pub fn check(&mut self, stream: u16, ppid: u32, data: &[u8]) {
        let ok_header = ppid == PPID_SOAK
            && data.len() >= HEADER
            && u16::from_be_bytes([data[0], data[1]]) == stream
            && usize::from(u16::from_be_bytes([data[2], data[3]])) == data.len() - HEADER;
        let Some(exp) = self.expected.get_mut(usize::from(stream)) else {
            self.corrupt += 1;
            return;
        };
        if !ok_header {
            self.corrupt += 1;
            return;
        }
        let seq = u64::from_be_bytes(data[4..HEADER].try_into().unwrap_or_default());
        if encode(stream, seq)[..] != *data {
            self.corrupt += 1;
            return;
        }
        if seq < *exp {
            self.duplicates += 1;
            return;
        }
        if seq > *exp {
            self.reorders += 1;
        }
        *exp = seq + 1;
        self.delivered += 1;
        self.bytes += data.len() as u64;
    }

    /// Messages sent (per stream) but not delivered in order once.
    pub fn missing(&self, sent: &[u64]) -> u64 {
        sent.iter().sum::<u64>().saturating_sub(self.delivered)
    }
}

/// The longest wait between two deliveries since the window opened.
#[derive(Debug, Default)]
pub struct GapWindow {
    last: Option<Instant>,
    /// When the window opened (the previous `close`).
    opened: Option<Instant>,
    longest: Duration,
}

impl GapWindow {
    pub fn delivered(&mut self, t: Instant) {
        if let Some(l) = self.last {
            self.longest = self.longest.max(t.saturating_duration_since(l));
        }
        self.last = Some(t);
    }

    /// Closes the window at `t` (a wait still going on counts up to `t`)
    /// and opens the next one: the longest wait of the closed window.
    /// Nothing ever delivered: the whole window is a wait.
    pub fn close(&mut self, t: Instant) -> Duration {
        let open = self
            .last
            .or(self.opened)
            .map_or(Duration::ZERO, |l| t.saturating_duration_since(l));
        self.opened = Some(t);
        std::mem::take(&mut self.longest).max(open)
    }
}

/// What one mobile's applications share with the soak's loop.
#[derive(Debug, Default)]
pub struct Mobile {
    pub check: Mutex<StreamCheck>,
    pub window: Mutex<GapWindow>,
    /// Messages handed to the stack, per stream (set by the sender).
    pub sent: Mutex<Vec<u64>>,
    pub files_sent: AtomicU64,
    pub files_intact: AtomicU64,
    pub files_corrupt: AtomicU64,
    pub file_bytes: AtomicU64,
    /// Associations that ended other than by a shutdown, or failed a
    /// send or receive.
    pub lost: AtomicU64,
    /// Of those, the message association (0 or 1).
    pub message_lost: AtomicU64,
    /// What went wrong, first few.
    pub errors: Mutex<Vec<String>>,
    pub connect_failures: AtomicU64,
    /// The sender and the file loop have finished.
    pub done: AtomicBool,
    /// The correspondent's message checker saw the association end.
    pub checked: AtomicBool,
    /// The message association is up.
    pub ready: AtomicBool,
}

impl Mobile {
    pub fn fail(&self, what: String) {
        self.lost.fetch_add(1, Relaxed);
        self.note(what);
    }

    /// The message association failed (always kept in the errors).
    pub fn fail_messages(&self, what: String) {
        self.message_lost.fetch_add(1, Relaxed);
        self.lost.fetch_add(1, Relaxed);
        self.note_always(what);
    }

    /// Keeps `what` in the errors even when there are many.
    pub fn note_always(&self, what: String) {
        if let Ok(mut e) = self.errors.lock() {
            e.push(what);
        }
    }

    /// Keeps the first few errors for the report.
    pub fn note(&self, what: String) {
        if let Ok(mut e) = self.errors.lock()
            && e.len() < 20
        {
            e.push(what);
        }
    }
}

/// The mobile's numbered messages: one every `interval`, streams in turn,
/// until `stop`; then waits until all are acknowledged and shuts down.
pub async fn send_messages(
    a: &Association,
    streams: u16,
    interval: Duration,
    stop: &AtomicBool,
    m: &Mobile,
) {
    let mut seqs = vec![0u64; usize::from(streams)];
    let mut tick = tokio::time::interval(interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut k = 0usize;
    let mut result = Ok(());
    while !stop.load(Relaxed) {
        tick.tick().await;
        let s = k % seqs.len();
        k += 1;
        if let Err(e) = a.send(s as u16, PPID_SOAK, encode(s as u16, seqs[s])).await {
            result = Err(e);
            break;
        }
        seqs[s] += 1;
    }
    if let Ok(mut sent) = m.sent.lock() {
        *sent = seqs;
    }
    if result.is_ok() {
        result = async {
            let mut st = a.status().await?;
            while st.send_buffered > 0 && st.state == msctp_proto::State::Established {
                tokio::time::sleep(Duration::from_millis(20)).await;
                st = a.status().await?;
            }
            a.shutdown().await
        }
        .await;
    }
    if let Err(e) = result {
        m.fail_messages(format!("message association (sender): {e}"));
    }
}

/// The correspondent's side of the messages: checks each, feeds the gap
/// window, and looks how the association ended.
pub async fn check_messages(mut a: Association, stop: &AtomicBool, m: &Mobile) {
    let mut closed = None;
    loop {
        match a.recv().await {
            Ok(Some(msg)) => {
                let now = Instant::now();
                if let Ok(mut w) = m.window.lock() {
                    w.delivered(now);
                }
                let corrupt = m.check.lock().is_ok_and(|mut c| {
                    let before = c.corrupt;
                    c.check(msg.stream, msg.ppid, &msg.data);
                    c.corrupt > before
                });
                if corrupt {
                    m.note(format!(
                        "corrupt message: stream {}, ppid {:#x}, {} bytes, starting {:02x?}",
                        msg.stream,
                        msg.ppid,
                        msg.data.len(),
                        &msg.data[..msg.data.len().min(16)]
                    ));
                }
            }
            Ok(None) => break,
            Err(e) => {
                m.fail_messages(format!("message association (receiver): {e}"));
                break;
            }
        }
        while let Some(e) = a.try_event() {
            if let NetEvent::Assoc(Event::Closed { reason }) = e {
                closed = Some(reason);
            }
        }
    }
    while let Some(e) = a.try_event() {
        if let NetEvent::Assoc(Event::Closed { reason }) = e {
            closed = Some(reason);
        }
    }
    if !stop.load(Relaxed) || closed.as_ref().is_some_and(|r| *r != CloseReason::Shutdown) {
        m.fail_messages(format!(
            "message association ended early or badly: {closed:?}"
        ));
    }
    m.checked.store(true, Relaxed);
}

/// The mobile's file transfers: `data` as a file on a new association,
/// again and again until `stop`.
pub async fn send_files(
    s: &Stack,
    peers: &[std::net::IpAddr],
    data: &[u8],
    stop: &AtomicBool,
    m: &Mobile,
) {
    while !stop.load(Relaxed) {
        // The stack's connect timeout bounds the wait.
        let a = match s
            .connect_via(peers, super::FILE_PORT, Some(super::FILE_UDP_PORT))
            .await
        {
            Ok(a) => a,
            Err(e) => {
                m.note(format!("connect failed: {e}"));
                m.connect_failures.fetch_add(1, Relaxed);
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
        };
        match transfer::send_file(&a, "soak.bin", data.len() as u64, data, 1200).await {
            Ok(_) => {
                m.files_sent.fetch_add(1, Relaxed);
            }
            Err(e) => {
                let mut a = a;
                let mut evs = Vec::new();
                while let Some(e) = a.try_event() {
                    if !matches!(e, NetEvent::Assoc(Event::SendFailed { .. })) {
                        evs.push(format!("{e:?}"));
                    }
                }
                m.fail(format!("file association (sender): {e}; events {evs:?}"))
            }
        }
    }
}

/// The correspondent's side of one file.
pub async fn receive_file(mut a: Association, m: &Mobile) {
    match transfer::receive_file(&mut a, tokio::io::sink(), Duration::from_millis(50)).await {
        Ok(r) if r.intact => {
            m.files_intact.fetch_add(1, Relaxed);
            m.file_bytes.fetch_add(r.bytes, Relaxed);
        }
        Ok(r) if r.announced_sha256.is_none() => m.fail(format!(
            "file association (receiver): ended after {} of {} bytes, before the trailer",
            r.bytes, r.announced_size
        )),
        Ok(r) => {
            m.files_corrupt.fetch_add(1, Relaxed);
            m.fail(format!(
                "file not intact: {} of {} bytes, sha256 {} (announced {:?})",
                r.bytes, r.announced_size, r.sha256, r.announced_sha256
            ));
        }
        Err(e) => m.fail(format!("file association (receiver): {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deliver(c: &mut StreamCheck, s: u16, seq: u64) {
        c.check(s, PPID_SOAK, &encode(s, seq));
    }

    #[test]
    fn in_order_once_is_clean() {
        let mut c = StreamCheck::new(2);
        for q in 0..100 {
            deliver(&mut c, 0, q);
            deliver(&mut c, 1, q);
        }
        assert_eq!(
            (c.delivered, c.duplicates, c.reorders, c.corrupt),
            (200, 0, 0, 0)
        );
        assert_eq!(c.missing(&[100, 100]), 0);
        assert_eq!(c.missing(&[101, 100]), 1, "one sent, never delivered");
    }

    #[test]
    fn duplicates_reorders_and_corruption_are_counted() {
        let mut c = StreamCheck::new(2);
        deliver(&mut c, 0, 0);
        deliver(&mut c, 0, 0);
        assert_eq!(c.duplicates, 1);
        deliver(&mut c, 0, 2);
        assert_eq!(c.reorders, 1);
        deliver(&mut c, 0, 1);
        assert_eq!(c.duplicates, 2, "late after a skip counts as seen again");
        let mut bad = encode(1, 0).to_vec();
        bad[HEADER + 3] ^= 1;
        c.check(1, PPID_SOAK, &bad);
        c.check(1, PPID_SOAK, &encode(0, 0));
        c.check(5, PPID_SOAK, &encode(5, 0));
        c.check(1, 7, &encode(1, 0));
        assert_eq!(c.corrupt, 4);
    }

    #[test]
    fn gap_window_counts_the_open_wait() {
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut w = GapWindow::default();
        assert_eq!(w.close(ms(0)), Duration::ZERO, "the first window opens");
        assert_eq!(
            w.close(ms(40)),
            Duration::from_millis(40),
            "nothing delivered yet"
        );
        w.delivered(ms(0));
        w.delivered(ms(10));
        w.delivered(ms(250));
        assert_eq!(w.close(ms(260)), Duration::from_millis(240));
        w.delivered(ms(270));
        assert_eq!(
            w.close(ms(900)),
            Duration::from_millis(630),
            "still waiting"
        );
    }
}
