//! The multi-connection transport's records inside each TCP byte stream
//! (the model's own framing: the paper describes a socket layer that
//! stripes data over several TCP connections, not its wire format):
//!
//! ```text
//! Hello: 0x01 | slot (u8)                       first record of a connection
//! Data:  0x02 | sequence (u64) | length (u32) | length payload bytes
//! Link:  0x03 | slot (u8) | up (u8: 0 or 1)     a link decision, to the peer
//! ```
//!
//! The sequence numbers the application data across all connections, so
//! the receiver can put stripes back in order and drop the copies a
//! switch resends.

/// Bytes of a data record's header.
pub const DATA_HEADER: usize = 13;

const HELLO: u8 = 1;
const DATA: u8 = 2;
const LINK: u8 = 3;

/// One record (a data record's payload is not kept: only its length).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Record {
    Hello { slot: u8 },
    Data { sequence: u64, length: u32 },
    Link { slot: u8, up: bool },
}

impl Record {
    /// The record's header bytes (a data record's payload follows).
    pub fn header(&self) -> Vec<u8> {
        match *self {
            Record::Hello { slot } => vec![HELLO, slot],
            Record::Data { sequence, length } => {
                let mut b = Vec::with_capacity(DATA_HEADER);
                b.push(DATA);
                b.extend_from_slice(&sequence.to_be_bytes());
                b.extend_from_slice(&length.to_be_bytes());
                b
            }
            Record::Link { slot, up } => vec![LINK, slot, u8::from(up)],
        }
    }

    /// Total bytes on the stream.
    pub fn wire_len(&self) -> usize {
        match *self {
            Record::Hello { .. } => 2,
            Record::Data { length, .. } => DATA_HEADER + length as usize,
            Record::Link { .. } => 3,
        }
    }
}

/// A stream that does not carry records.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error("unknown record type {0}")]
    UnknownType(u8),
    #[error("data record of {0} bytes exceeds the limit")]
    TooLong(u32),
    #[error("bad link record")]
    BadLink,
}

/// Cuts one connection's byte stream into records.
#[derive(Debug, Clone)]
pub struct RecordParser {
    header: Vec<u8>,
    /// Payload bytes still to skip for the data record being read.
    remaining: u64,
    current: Option<Record>,
    max_length: u32,
    failed: bool,
}

impl RecordParser {
    pub fn new(max_length: u32) -> Self {
        RecordParser {
            header: Vec::with_capacity(DATA_HEADER),
            remaining: 0,
            current: None,
            max_length,
            failed: false,
        }
    }

    /// Feeds stream bytes; complete records are appended to `out`. After an
    /// error the parser refuses everything.
    pub fn push(&mut self, mut bytes: &[u8], out: &mut Vec<Record>) -> Result<(), RecordError> {
        if self.failed {
            return Err(RecordError::UnknownType(0));
        }
        while !bytes.is_empty() {
            if let Some(r) = self.current {
                let take = (self.remaining.min(bytes.len() as u64)) as usize;
                self.remaining -= take as u64;
                bytes = &bytes[take..];
                if self.remaining == 0 {
                    out.push(r);
                    self.current = None;
                }
                continue;
            }
            self.header.push(bytes[0]);
            bytes = &bytes[1..];
            let need = match self.header[0] {
                HELLO => 2,
                DATA => DATA_HEADER,
                LINK => 3,
                t => {
                    self.failed = true;
                    return Err(RecordError::UnknownType(t));
                }
            };
            if self.header.len() < need {
                continue;
            }
            let h = std::mem::take(&mut self.header);
            match h[0] {
                HELLO => out.push(Record::Hello { slot: h[1] }),
                LINK => {
                    if h[2] > 1 {
                        self.failed = true;
                        return Err(RecordError::BadLink);
                    }
                    out.push(Record::Link {
                        slot: h[1],
                        up: h[2] == 1,
                    })
                }
                _ => {
                    let mut s = [0u8; 8];
                    s.copy_from_slice(&h[1..9]);
                    let sequence = u64::from_be_bytes(s);
                    let length = u32::from_be_bytes([h[9], h[10], h[11], h[12]]);
                    if length > self.max_length {
                        self.failed = true;
                        return Err(RecordError::TooLong(length));
                    }
                    let r = Record::Data { sequence, length };
                    if length == 0 {
                        out.push(r);
                    } else {
                        self.current = Some(r);
                        self.remaining = u64::from(length);
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_survive_any_segmentation() {
        let recs = [
            Record::Hello { slot: 1 },
            Record::Data {
                sequence: 7,
                length: 100,
            },
            Record::Link { slot: 0, up: false },
            Record::Data {
                sequence: 8,
                length: 0,
            },
            Record::Data {
                sequence: 9,
                length: 3,
            },
        ];
        let mut stream = Vec::new();
        for r in &recs {
            stream.extend(r.header());
            if let Record::Data { length, .. } = r {
                stream.extend(std::iter::repeat_n(0xaa, *length as usize));
            }
        }
        assert_eq!(
            stream.len(),
            recs.iter().map(|r| r.wire_len()).sum::<usize>()
        );
        for chunk in [1usize, 2, 5, 13, 64, 1000] {
            let mut p = RecordParser::new(1 << 20);
            let mut out = Vec::new();
            for c in stream.chunks(chunk) {
                p.push(c, &mut out).unwrap();
            }
            assert_eq!(out, recs, "chunk {chunk}");
        }
    }

    #[test]
    fn garbage_is_an_error() {
        let mut p = RecordParser::new(10);
        let mut out = Vec::new();
        assert_eq!(p.push(&[9], &mut out), Err(RecordError::UnknownType(9)));
        assert!(p.push(&[1, 0], &mut out).is_err());
        let mut p = RecordParser::new(10);
        let big = Record::Data {
            sequence: 1,
            length: 11,
        };
        assert_eq!(
            p.push(&big.header(), &mut out),
            Err(RecordError::TooLong(11))
        );
        let mut p = RecordParser::new(10);
        assert_eq!(p.push(&[3, 0, 7], &mut out), Err(RecordError::BadLink));
    }
}
