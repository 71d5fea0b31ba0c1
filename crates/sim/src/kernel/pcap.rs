//! A minimal pcap writer (the classic libpcap file format, as documented in
//! draft-ietf-opsawg-pcap), link type `LINKTYPE_RAW` (101): every record is
//! a bare IPv4 or IPv6 packet, so Wireshark dissects the IP header and what
//! it carries. Timestamps in microseconds (magic `a1b2c3d4`) or nanoseconds
//! (magic `a1b23c4d`), written little-endian.

use std::cell::RefCell;
use std::io::{self, Write};
use std::rc::Rc;

use crate::Time;

/// An in-memory sink that stays readable while a world writes into it
/// (clone it, hand one clone to [`World::capture`](crate::World::capture),
/// read the other). Memory is bounded by the capture's `max_bytes`.
#[derive(Debug, Clone, Default)]
pub struct SharedBuffer(Rc<RefCell<Vec<u8>>>);

impl SharedBuffer {
    pub fn new() -> Self {
        Self::default()
    }

    /// A copy of the bytes written so far.
    pub fn contents(&self) -> Vec<u8> {
        self.0.borrow().clone()
    }

    pub fn len(&self) -> usize {
        self.0.borrow().len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.borrow().is_empty()
    }
}

impl Write for SharedBuffer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `LINKTYPE_RAW`: raw IPv4/IPv6.
pub const LINKTYPE_RAW: u32 = 101;

/// Timestamp resolution of a capture file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TsResolution {
    #[default]
    Micros,
    Nanos,
}

/// Options of one capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CaptureConfig {
    pub resolution: TsResolution,
    /// Bytes kept of each packet (the rest is cut, the original length kept).
    pub snaplen: u32,
    /// Stop writing records once the file has this many bytes (counted as
    /// skipped packets), so a long run cannot fill the disk.
    pub max_bytes: u64,
}

impl Default for CaptureConfig {
    fn default() -> Self {
        CaptureConfig {
            resolution: TsResolution::Micros,
            snaplen: 65_535,
            max_bytes: 1 << 30,
        }
    }
}

/// Writes one pcap stream.
pub struct PcapWriter<W: Write> {
    out: W,
    cfg: CaptureConfig,
    written: u64,
    skipped: u64,
}

impl<W: Write> PcapWriter<W> {
    /// Writes the global header.
    pub fn new(mut out: W, cfg: CaptureConfig) -> io::Result<Self> {
        let magic: u32 = match cfg.resolution {
            TsResolution::Micros => 0xa1b2_c3d4,
            TsResolution::Nanos => 0xa1b2_3c4d,
        };
        let mut h = [0u8; 24];
        h[0..4].copy_from_slice(&magic.to_le_bytes());
        h[4..6].copy_from_slice(&2u16.to_le_bytes());
        h[6..8].copy_from_slice(&4u16.to_le_bytes());
        // thiszone and sigfigs stay 0
        h[16..20].copy_from_slice(&cfg.snaplen.to_le_bytes());
        h[20..24].copy_from_slice(&LINKTYPE_RAW.to_le_bytes());
        out.write_all(&h)?;
        Ok(PcapWriter {
            out,
            cfg,
            written: 24,
            skipped: 0,
        })
    }

    /// Writes one record (the timestamp is truncated to the resolution).
    pub fn write_packet(&mut self, at: Time, data: &[u8]) -> io::Result<()> {
        let incl = data.len().min(self.cfg.snaplen as usize);
        if self.written + 16 + incl as u64 > self.cfg.max_bytes {
            self.skipped += 1;
            return Ok(());
        }
        let ns = at.as_nanos();
        let secs = u32::try_from(ns / 1_000_000_000).unwrap_or(u32::MAX);
        let frac = match self.cfg.resolution {
            TsResolution::Micros => (ns % 1_000_000_000) / 1_000,
            TsResolution::Nanos => ns % 1_000_000_000,
        } as u32;
        let orig = u32::try_from(data.len()).unwrap_or(u32::MAX);
        let mut h = [0u8; 16];
        h[0..4].copy_from_slice(&secs.to_le_bytes());
        h[4..8].copy_from_slice(&frac.to_le_bytes());
        h[8..12].copy_from_slice(&(incl as u32).to_le_bytes());
        h[12..16].copy_from_slice(&orig.to_le_bytes());
        self.out.write_all(&h)?;
        self.out.write_all(&data[..incl])?;
        self.written += 16 + incl as u64;
        Ok(())
    }

    /// Records not written because of `max_bytes`.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_record_layout() {
        let mut w = PcapWriter::new(
            Vec::new(),
            CaptureConfig {
                resolution: TsResolution::Nanos,
                snaplen: 4,
                max_bytes: 1000,
            },
        )
        .unwrap();
        w.write_packet(Time::from_nanos(3_000_000_007), &[1, 2, 3, 4, 5, 6])
            .unwrap();
        let b = w.into_inner();
        assert_eq!(&b[0..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(u32::from_le_bytes(b[20..24].try_into().unwrap()), 101);
        assert_eq!(u32::from_le_bytes(b[24..28].try_into().unwrap()), 3);
        assert_eq!(u32::from_le_bytes(b[28..32].try_into().unwrap()), 7);
        assert_eq!(u32::from_le_bytes(b[32..36].try_into().unwrap()), 4);
        assert_eq!(u32::from_le_bytes(b[36..40].try_into().unwrap()), 6);
        assert_eq!(&b[40..], &[1, 2, 3, 4]);
    }

    #[test]
    fn micros_truncate_and_size_bound() {
        let mut w = PcapWriter::new(
            Vec::new(),
            CaptureConfig {
                resolution: TsResolution::Micros,
                snaplen: 100,
                max_bytes: 24 + 16 + 10,
            },
        )
        .unwrap();
        w.write_packet(Time::from_nanos(1_999_999), &[0; 10])
            .unwrap();
        w.write_packet(Time::from_nanos(2_000_000), &[0; 10])
            .unwrap();
        assert_eq!(w.skipped(), 1);
        let b = w.into_inner();
        assert_eq!(&b[0..4], &[0xd4, 0xc3, 0xb2, 0xa1]);
        assert_eq!(u32::from_le_bytes(b[28..32].try_into().unwrap()), 1999);
        assert_eq!(b.len(), 50);
    }
}
