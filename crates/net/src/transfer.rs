//! File transfer over an association, as `msctp send` / `msctp recv` do
//! it, and the receiver's delivery-gap measurement (docs/MODELS.md section 5:
//! "handoff latency", the longest wait for the next new data).
//!
//! On stream 0: a header message (PPID [`PPID_HEADER`], JSON with the
//! file name and size), the file in messages of `chunk` bytes (PPID
//! [`PPID_DATA`]), a trailer (PPID [`PPID_TRAILER`], JSON with the
//! SHA-256 of the bytes sent); then the sender shuts the association down
//! gracefully, which delivers everything before it closes (RFC 9260
//! section 9.2). The receiver checks size and digest.

use std::time::{Duration, Instant};

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::error::NetError;
use crate::stack::Association;
use msctp_proto::SendOptions;

/// "ms" + 1: the header.
pub const PPID_HEADER: u32 = 0x6d73_0001;
pub const PPID_DATA: u32 = 0x6d73_0002;
pub const PPID_TRAILER: u32 = 0x6d73_0003;
/// Bound on a header or trailer message.
pub const MAX_CONTROL: usize = 4096;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Header {
    pub name: String,
    pub size: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Trailer {
    pub size: u64,
    pub sha256: String,
}

/// What the sender did.
#[derive(Debug, Clone, Serialize)]
pub struct SendReport {
    pub bytes: u64,
    pub sha256: String,
    pub messages: u64,
    pub elapsed_s: f64,
    /// What each path carried (under CMT, their shares of the file).
    pub paths: Vec<PathShare>,
    /// Data messages abandoned under their partial reliability policy
    /// (RFC 7496 section 4): the receiver then finds the file incomplete.
    pub abandoned_messages: u64,
}

/// One path's part in a transfer, once every byte was acknowledged.
#[derive(Debug, Clone, Serialize)]
pub struct PathShare {
    pub peer: std::net::IpAddr,
    /// DATA payload sent there and acknowledged.
    pub bytes_acked: u64,
    pub retransmissions: u64,
    /// Times the path entered fast recovery (three missing reports).
    pub fast_retransmissions: u64,
    /// Retransmission timeouts of the path.
    pub timeouts: u64,
}

/// How often the sender looks whether everything was acknowledged before
/// it shuts down.
const DRAIN_POLL: Duration = Duration::from_millis(10);

/// Sends `size` bytes from `src` as file `name`, then shuts down.
pub async fn send_file<R: AsyncRead + Unpin>(
    assoc: &Association,
    name: &str,
    size: u64,
    src: R,
    chunk: usize,
) -> Result<SendReport, NetError> {
    send_file_with(assoc, name, size, src, chunk, SendOptions::default()).await
}

/// [`send_file`] with the options of the data messages (the header and
/// the trailer stay reliable): with a partial reliability policy (RFC
/// 3758, RFC 7496) the messages it abandons never reach the receiver,
/// which reports the file incomplete.
pub async fn send_file_with<R: AsyncRead + Unpin>(
    assoc: &Association,
    name: &str,
    size: u64,
    mut src: R,
    chunk: usize,
    opts: SendOptions,
) -> Result<SendReport, NetError> {
    let start = Instant::now();
    let header = serde_json::to_vec(&Header {
        name: name.to_string(),
        size,
    })
    .map_err(|e| NetError::Io(e.into()))?;
    assoc.send(0, PPID_HEADER, Bytes::from(header)).await?;
    let mut h = Sha256::new();
    let mut sent = 0u64;
    let mut messages = 0u64;
    let chunk = chunk.max(1);
    loop {
        let mut buf = vec![0u8; chunk];
        let mut filled = 0;
        while filled < chunk {
            let n = src.read(&mut buf[filled..]).await?;
            if n == 0 {
                break;
            }
            filled += n;
        }
        if filled == 0 {
            break;
        }
        buf.truncate(filled);
        h.update(&buf);
        sent += filled as u64;
        messages += 1;
        assoc
            .send_message(0, PPID_DATA, Bytes::from(buf), opts)
            .await?;
    }
    let sha256 = hex(&h.finalize());
    let trailer = serde_json::to_vec(&Trailer {
        size: sent,
        sha256: sha256.clone(),
    })
    .map_err(|e| NetError::Io(e.into()))?;
    assoc.send(0, PPID_TRAILER, Bytes::from(trailer)).await?;
    // The paths' shares, read once everything was acknowledged (the
    // association forgets them when it closes).
    let mut st = assoc.status().await?;
    while st.send_buffered > 0 && st.state == msctp_proto::State::Established {
        tokio::time::sleep(DRAIN_POLL).await;
        st = assoc.status().await?;
    }
    let paths = st
        .paths
        .iter()
        .map(|p| PathShare {
            peer: p.remote,
            bytes_acked: p.counters.bytes_acked,
            retransmissions: p.counters.retransmissions,
            fast_retransmissions: p.counters.fast_retransmissions,
            timeouts: p.counters.t3_expirations,
        })
        .collect();
    assoc.shutdown().await?;
    Ok(SendReport {
        bytes: sent,
        sha256,
        messages,
        elapsed_s: start.elapsed().as_secs_f64(),
        paths,
        abandoned_messages: st.stats.abandoned.total(),
    })
}

/// Longest waits between deliveries.
#[derive(Debug, Clone, Default)]
pub struct GapTracker {
    first: Option<Instant>,
    last: Option<Instant>,
    /// Longest gap and when it ended (seconds after the first delivery).
    pub longest: Duration,
    pub longest_end_s: f64,
    /// Gaps above `threshold`: (end, seconds after the first delivery;
    /// length).
    pub gaps: Vec<(f64, Duration)>,
    pub threshold: Duration,
    /// Bound on recorded gaps.
    pub max_gaps: usize,
}

impl GapTracker {
    pub fn new(threshold: Duration) -> Self {
        GapTracker {
            threshold,
            max_gaps: 1000,
            ..Default::default()
        }
    }

    /// Data was delivered at `t`.
    pub fn observe(&mut self, t: Instant) {
        let first = *self.first.get_or_insert(t);
        if let Some(l) = self.last {
            let g = t.saturating_duration_since(l);
            let end = t.saturating_duration_since(first).as_secs_f64();
            if g > self.longest {
                self.longest = g;
                self.longest_end_s = end;
            }
            if g >= self.threshold && self.gaps.len() < self.max_gaps {
                self.gaps.push((end, g));
            }
        }
        self.last = Some(t);
    }

    /// From first to last delivery.
    pub fn span(&self) -> Duration {
        match (self.first, self.last) {
            (Some(f), Some(l)) => l.saturating_duration_since(f),
            _ => Duration::ZERO,
        }
    }
}

/// What the receiver got.
#[derive(Debug, Clone, Serialize)]
pub struct ReceiveReport {
    pub name: String,
    pub announced_size: u64,
    pub bytes: u64,
    pub sha256: String,
    pub announced_sha256: Option<String>,
    /// Size and digest match what the sender announced.
    pub intact: bool,
    pub elapsed_s: f64,
    pub throughput_bps: f64,
    pub longest_gap_ms: f64,
    pub longest_gap_end_s: f64,
    /// Gaps of at least the threshold: (end in s, length in ms).
    pub gaps: Vec<(f64, f64)>,
    /// When the first data was delivered (the origin of the gaps' ends).
    #[serde(skip)]
    pub first_delivery: Option<Instant>,
}

/// Receives one file from `assoc` into `dst` (until the sender shuts the
/// association down), measuring delivery gaps of at least `gap_threshold`.
pub async fn receive_file<W: AsyncWrite + Unpin>(
    assoc: &mut Association,
    dst: W,
    gap_threshold: Duration,
) -> Result<ReceiveReport, NetError> {
    receive_file_tracked(assoc, dst, GapTracker::new(gap_threshold)).await
}

/// [`receive_file`] with a gap tracker of the caller's (e.g. one that
/// keeps every gap above a small threshold, `max_gaps` raised).
pub async fn receive_file_tracked<W: AsyncWrite + Unpin>(
    assoc: &mut Association,
    dst: W,
    gaps: GapTracker,
) -> Result<ReceiveReport, NetError> {
    receive_file_with(assoc, dst, gaps, None).await
}

/// [`receive_file_tracked`] that gives up with [`NetError::Idle`] when no
/// message arrives for `idle` (a sender that vanished without a word: it
/// crashed, or its network is gone; the association itself would only
/// notice after Association.Max.Retrans heartbeats, RFC 9260 section
/// 8.1, and only if it has data or heartbeats to send). The caller
/// decides what becomes of the association (`msctp recv` aborts it).
pub async fn receive_file_with<W: AsyncWrite + Unpin>(
    assoc: &mut Association,
    mut dst: W,
    mut gaps: GapTracker,
    idle: Option<Duration>,
) -> Result<ReceiveReport, NetError> {
    let mut header: Option<Header> = None;
    let mut trailer: Option<Trailer> = None;
    let mut h = Sha256::new();
    let mut bytes = 0u64;
    let bad = |what: &str| {
        NetError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            what.to_string(),
        ))
    };
    while let Some(m) = recv_within(assoc, idle).await? {
        match m.ppid {
            PPID_HEADER if header.is_none() && m.data.len() <= MAX_CONTROL => {
                header = Some(serde_json::from_slice(&m.data).map_err(|_| bad("bad file header"))?);
            }
            PPID_DATA if header.is_some() && trailer.is_none() => {
                gaps.observe(Instant::now());
                h.update(&m.data);
                bytes += m.data.len() as u64;
                dst.write_all(&m.data).await?;
            }
            PPID_TRAILER if header.is_some() && m.data.len() <= MAX_CONTROL => {
                trailer =
                    Some(serde_json::from_slice(&m.data).map_err(|_| bad("bad file trailer"))?);
            }
            _ => return Err(bad("unexpected message in a file transfer")),
        }
    }
    dst.flush().await?;
    let header = header.ok_or_else(|| bad("the association ended before the file header"))?;
    let sha256 = hex(&h.finalize());
    let intact = trailer
        .as_ref()
        .is_some_and(|t| t.size == bytes && t.sha256 == sha256)
        && header.size == bytes;
    let span = gaps.span().as_secs_f64();
    Ok(ReceiveReport {
        name: header.name,
        announced_size: header.size,
        bytes,
        sha256,
        announced_sha256: trailer.map(|t| t.sha256),
        intact,
        elapsed_s: span,
        throughput_bps: if span > 0.0 {
            bytes as f64 * 8.0 / span
        } else {
            0.0
        },
        longest_gap_ms: gaps.longest.as_secs_f64() * 1e3,
        longest_gap_end_s: gaps.longest_end_s,
        gaps: gaps
            .gaps
            .iter()
            .map(|(e, g)| (*e, g.as_secs_f64() * 1e3))
            .collect(),
        first_delivery: gaps.first,
    })
}

/// The next message, if one comes within `idle` (`recv` is cancel-safe:
/// a message that comes later is not lost).
async fn recv_within(
    assoc: &mut Association,
    idle: Option<Duration>,
) -> Result<Option<msctp_proto::Message>, NetError> {
    match idle {
        Some(t) => tokio::time::timeout(t, assoc.recv())
            .await
            .map_err(|_| NetError::Idle(t.as_secs_f64()))?,
        None => assoc.recv().await,
    }
}

/// Lower-case hex.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_are_measured_between_deliveries() {
        let t0 = Instant::now();
        let mut g = GapTracker::new(Duration::from_millis(50));
        g.observe(t0);
        g.observe(t0 + Duration::from_millis(10));
        g.observe(t0 + Duration::from_millis(110));
        g.observe(t0 + Duration::from_millis(120));
        assert_eq!(g.longest, Duration::from_millis(100));
        assert!((g.longest_end_s - 0.11).abs() < 1e-9);
        assert_eq!(g.gaps.len(), 1);
        assert_eq!(g.span(), Duration::from_millis(120));
    }

    #[test]
    fn hex_is_lower_case() {
        assert_eq!(hex(&[0, 0xab, 0x10]), "00ab10");
    }
}
