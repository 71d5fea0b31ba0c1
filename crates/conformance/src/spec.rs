//! Packets as the script describes them: chunks (RFC 9260 section 3.3,
//! RFC 5061 section 4, RFC 4895 section 4), parameters and error causes,
//! each field either a value or the wildcard `...`.
//!
//! Names follow packetdrill (`INIT[flgs=0, tag=1, ...]`,
//! `STATE_COOKIE[len=..., val=...]`, `UNRECOGNIZED_CHUNK_TYPE[chk=...]`);
//! the ADD-IP and AUTH chunks, parameters and causes packetdrill lacks are
//! added in the same style (see the crate documentation).

use std::net::IpAddr;

use crate::error::ParseError;
use crate::names;
use crate::value::{Item, Reader, Value, parse_uint};

/// A field that is either given or the wildcard `...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Field<T> {
    Any,
    Is(T),
}

impl<T> Field<T> {
    pub fn get(&self) -> Option<&T> {
        match self {
            Field::Any => None,
            Field::Is(v) => Some(v),
        }
    }

    pub fn is_any(&self) -> bool {
        matches!(self, Field::Any)
    }
}

/// A list of parameters; `more` when it ends with `...` (any further
/// parameters, or none at all if the list is otherwise empty).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParamList {
    pub items: Vec<ParamSpec>,
    pub more: bool,
}

/// A list of error causes, with the same `...` convention.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CauseList {
    pub items: Vec<CauseSpec>,
    pub more: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitSpec {
    pub flags: Field<u8>,
    pub tag: Field<u32>,
    pub a_rwnd: Field<u32>,
    pub os: Field<u16>,
    pub is: Field<u16>,
    pub tsn: Field<u32>,
    pub params: ParamList,
}

/// One chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChunkSpec {
    Data {
        flags: Field<u8>,
        len: Field<u16>,
        tsn: Field<u32>,
        sid: Field<u16>,
        ssn: Field<u16>,
        ppid: Field<u32>,
    },
    Init(InitSpec),
    InitAck(InitSpec),
    Sack {
        flags: Field<u8>,
        cum_tsn: Field<u32>,
        a_rwnd: Field<u32>,
        gaps: Field<Vec<(u16, u16)>>,
        dups: Field<Vec<u32>>,
    },
    Heartbeat {
        flags: Field<u8>,
        info: Option<ParamSpec>,
    },
    HeartbeatAck {
        flags: Field<u8>,
        info: Option<ParamSpec>,
    },
    Abort {
        flags: Field<u8>,
        causes: CauseList,
    },
    Shutdown {
        flags: Field<u8>,
        cum_tsn: Field<u32>,
    },
    ShutdownAck {
        flags: Field<u8>,
    },
    Error {
        flags: Field<u8>,
        causes: CauseList,
    },
    CookieEcho {
        flags: Field<u8>,
        len: Field<u16>,
        val: Field<Vec<u8>>,
    },
    CookieAck {
        flags: Field<u8>,
    },
    ShutdownComplete {
        flags: Field<u8>,
    },
    /// `CHUNK[type=..., flgs=..., len=..., val=[...]]`: any chunk, raw.
    Generic {
        ty: Field<u8>,
        flags: Field<u8>,
        len: Field<u16>,
        val: Field<Vec<u8>>,
    },
    /// RFC 5061 section 4.1.1.
    Asconf {
        flags: Field<u8>,
        serial: Field<u32>,
        addr: Field<IpAddr>,
        params: ParamList,
    },
    /// RFC 5061 section 4.1.2.
    AsconfAck {
        flags: Field<u8>,
        serial: Field<u32>,
        params: ParamList,
    },
    /// RFC 3758 section 3.2, as packetdrill writes it:
    /// `FORWARD_TSN[cum_tsn=N, ids=[{sid,ssn}, ...]]`. The New Cumulative
    /// TSN is in the sender's TSN space (the engine's on `>` lines).
    ForwardTsn {
        flags: Field<u8>,
        cum_tsn: Field<u32>,
        ids: Field<Vec<(u16, u16)>>,
    },
    /// RFC 8260 section 2.1, as the public I-DATA scripts write it:
    /// `I_DATA[flgs=BE, len=N, tsn=N, sid=N, mid=N, ppid=N]`, with `fsn=N`
    /// in place of `ppid=` on a fragment other than the first (the two
    /// share one field). `len` counts the 20-byte header.
    IData {
        flags: Field<u8>,
        len: Field<u16>,
        tsn: Field<u32>,
        sid: Field<u16>,
        mid: Field<u32>,
        ppid_fsn: Field<u32>,
    },
    /// RFC 8260 section 2.3: `I_FORWARD_TSN[cum_tsn=N, ids=[{sid, u,
    /// mid}, ...]]` (`u` the U flag, 0 or 1), in the sender's TSN space.
    IForwardTsn {
        flags: Field<u8>,
        cum_tsn: Field<u32>,
        ids: Field<Vec<(u16, bool, u32)>>,
    },
    /// RFC 4895 section 4.1. On inbound packets `hmac=...` is replaced by
    /// the correct MAC; on outbound packets it means "the correct MAC".
    Auth {
        flags: Field<u8>,
        key_id: Field<u16>,
        hmac_id: Field<u16>,
        hmac: Field<Vec<u8>>,
    },
}

/// One parameter (of INIT, INIT ACK, ASCONF, ASCONF-ACK, or nested).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamSpec {
    Ipv4(Field<IpAddr>),
    Ipv6(Field<IpAddr>),
    StateCookie {
        len: Field<u16>,
        val: Field<Vec<u8>>,
    },
    HostName(Field<String>),
    SupportedAddressTypes(Field<Vec<u16>>),
    CookiePreservative(Field<u32>),
    /// `UNRECOGNIZED_PARAMETER[params=[...]]` (RFC 9260 type 8).
    Unrecognized(Field<Vec<ParamSpec>>),
    HeartbeatInfo {
        len: Field<u16>,
        val: Field<Vec<u8>>,
    },
    EcnCapable,
    ForwardTsnSupported,
    SupportedExtensions(Field<Vec<u8>>),
    Adaptation(Field<u32>),
    Random {
        len: Field<u16>,
        val: Field<Vec<u8>>,
    },
    Chunks(Field<Vec<u8>>),
    HmacAlgo(Field<Vec<u16>>),
    AddIp {
        corr: Field<u32>,
        addr: Field<IpAddr>,
    },
    DeleteIp {
        corr: Field<u32>,
        addr: Field<IpAddr>,
    },
    SetPrimary {
        corr: Field<u32>,
        addr: Field<IpAddr>,
    },
    ErrorIndication {
        corr: Field<u32>,
        causes: CauseList,
    },
    Success {
        corr: Field<u32>,
    },
    /// `PARAMETER[type=..., len=..., val=[...]]`.
    Generic {
        ty: Field<u16>,
        len: Field<u16>,
        val: Field<Vec<u8>>,
    },
}

/// One error cause (RFC 9260 section 3.3.10, RFC 5061 section 4.3, RFC
/// 4895 section 4.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CauseSpec {
    InvalidStream(Field<u16>),
    MissingMandatory(Field<Vec<u16>>),
    StaleCookie(Field<u32>),
    OutOfResources,
    Unresolvable(Option<Box<ParamSpec>>),
    UnrecognizedChunk(Option<Box<ChunkSpec>>),
    InvalidMandatory,
    UnrecognizedParams(Field<Vec<ParamSpec>>),
    NoUserData(Field<u32>),
    CookieWhileShutdown,
    RestartNewAddresses(Field<Vec<ParamSpec>>),
    UserAbort(Field<Vec<u8>>),
    ProtocolViolation(Field<Vec<u8>>),
    DeleteLast(Option<Box<ParamSpec>>),
    ResourceShortage(Option<Box<ParamSpec>>),
    DeleteSource(Option<Box<ParamSpec>>),
    IllegalAsconfAck,
    RequestRefused(Option<Box<ParamSpec>>),
    UnsupportedHmac(Field<u16>),
    /// `CAUSE[code=..., len=..., info=[...]]`.
    Generic {
        code: Field<u16>,
        len: Field<u16>,
        info: Field<Vec<u8>>,
    },
}

impl ChunkSpec {
    /// The packetdrill name of the chunk.
    pub fn name(&self) -> &'static str {
        match self {
            ChunkSpec::Data { .. } => "DATA",
            ChunkSpec::Init(_) => "INIT",
            ChunkSpec::InitAck(_) => "INIT_ACK",
            ChunkSpec::Sack { .. } => "SACK",
            ChunkSpec::Heartbeat { .. } => "HEARTBEAT",
            ChunkSpec::HeartbeatAck { .. } => "HEARTBEAT_ACK",
            ChunkSpec::Abort { .. } => "ABORT",
            ChunkSpec::Shutdown { .. } => "SHUTDOWN",
            ChunkSpec::ShutdownAck { .. } => "SHUTDOWN_ACK",
            ChunkSpec::Error { .. } => "ERROR",
            ChunkSpec::CookieEcho { .. } => "COOKIE_ECHO",
            ChunkSpec::CookieAck { .. } => "COOKIE_ACK",
            ChunkSpec::ShutdownComplete { .. } => "SHUTDOWN_COMPLETE",
            ChunkSpec::Generic { .. } => "CHUNK",
            ChunkSpec::Asconf { .. } => "ASCONF",
            ChunkSpec::AsconfAck { .. } => "ASCONF_ACK",
            ChunkSpec::Auth { .. } => "AUTH",
            ChunkSpec::ForwardTsn { .. } => "FORWARD_TSN",
            ChunkSpec::IData { .. } => "I_DATA",
            ChunkSpec::IForwardTsn { .. } => "I_FORWARD_TSN",
        }
    }

    /// The chunk type, when the spec fixes it.
    pub fn chunk_type(&self) -> Option<u8> {
        use msctp_proto::wire::chunk::chunk_type as t;
        Some(match self {
            ChunkSpec::Data { .. } => t::DATA,
            ChunkSpec::Init(_) => t::INIT,
            ChunkSpec::InitAck(_) => t::INIT_ACK,
            ChunkSpec::Sack { .. } => t::SACK,
            ChunkSpec::Heartbeat { .. } => t::HEARTBEAT,
            ChunkSpec::HeartbeatAck { .. } => t::HEARTBEAT_ACK,
            ChunkSpec::Abort { .. } => t::ABORT,
            ChunkSpec::Shutdown { .. } => t::SHUTDOWN,
            ChunkSpec::ShutdownAck { .. } => t::SHUTDOWN_ACK,
            ChunkSpec::Error { .. } => t::ERROR,
            ChunkSpec::CookieEcho { .. } => t::COOKIE_ECHO,
            ChunkSpec::CookieAck { .. } => t::COOKIE_ACK,
            ChunkSpec::ShutdownComplete { .. } => t::SHUTDOWN_COMPLETE,
            ChunkSpec::Auth { .. } => t::AUTH,
            ChunkSpec::AsconfAck { .. } => t::ASCONF_ACK,
            ChunkSpec::Asconf { .. } => t::ASCONF,
            ChunkSpec::ForwardTsn { .. } => t::FORWARD_TSN,
            ChunkSpec::IData { .. } => t::I_DATA,
            ChunkSpec::IForwardTsn { .. } => t::I_FORWARD_TSN,
            ChunkSpec::Generic { ty, .. } => return ty.get().copied(),
        })
    }

    pub fn flags(&self) -> &Field<u8> {
        match self {
            ChunkSpec::Data { flags, .. }
            | ChunkSpec::Sack { flags, .. }
            | ChunkSpec::Heartbeat { flags, .. }
            | ChunkSpec::HeartbeatAck { flags, .. }
            | ChunkSpec::Abort { flags, .. }
            | ChunkSpec::Shutdown { flags, .. }
            | ChunkSpec::ShutdownAck { flags }
            | ChunkSpec::Error { flags, .. }
            | ChunkSpec::CookieEcho { flags, .. }
            | ChunkSpec::CookieAck { flags }
            | ChunkSpec::ShutdownComplete { flags }
            | ChunkSpec::Generic { flags, .. }
            | ChunkSpec::Asconf { flags, .. }
            | ChunkSpec::AsconfAck { flags, .. }
            | ChunkSpec::Auth { flags, .. }
            | ChunkSpec::ForwardTsn { flags, .. }
            | ChunkSpec::IData { flags, .. }
            | ChunkSpec::IForwardTsn { flags, .. } => flags,
            ChunkSpec::Init(i) | ChunkSpec::InitAck(i) => &i.flags,
        }
    }
}

// ---------------------------------------------------------------------
// From the generic value tree
// ---------------------------------------------------------------------

/// A nested `NAME[items]`.
type NamedItems = (String, Vec<Item>);

/// Fields of one `NAME[...]`, consumed one by one; leftovers are errors.
struct Fields {
    r: Reader,
    what: String,
    assigns: Vec<(String, Value)>,
    bare: Vec<Value>,
}

impl Fields {
    fn new(line: usize, what: &str, items: &[Item]) -> Result<Self, ParseError> {
        let mut assigns: Vec<(String, Value)> = Vec::new();
        let mut bare = Vec::new();
        for it in items {
            match it {
                Item::Assign(n, v) => {
                    if assigns.iter().any(|(m, _)| m == n) {
                        return Err(ParseError::new(line, format!("{what}: {n} given twice")));
                    }
                    assigns.push((n.clone(), v.clone()));
                }
                Item::Bare(v) => bare.push(v.clone()),
            }
        }
        Ok(Fields {
            r: Reader { line },
            what: what.to_string(),
            assigns,
            bare,
        })
    }

    fn take(&mut self, name: &str) -> Option<Value> {
        let i = self.assigns.iter().position(|(n, _)| n == name)?;
        Some(self.assigns.remove(i).1)
    }

    /// A numeric field; absent fields are wildcards.
    fn num(&mut self, name: &str, max: u64) -> Result<Field<u64>, ParseError> {
        match self.take(name) {
            None | Some(Value::Any) => Ok(Field::Any),
            Some(v) => {
                let what = format!("{}.{name}", self.what);
                Ok(Field::Is(self.r.uint(&v, &what, max)?))
            }
        }
    }

    fn u16(&mut self, name: &str) -> Result<Field<u16>, ParseError> {
        Ok(map(self.num(name, 0xffff)?, |v| v as u16))
    }
    fn u32(&mut self, name: &str) -> Result<Field<u32>, ParseError> {
        Ok(map(self.num(name, 0xffff_ffff)?, |v| v as u32))
    }

    fn flags(&mut self, letters: &[(char, u8)]) -> Result<Field<u8>, ParseError> {
        match self.take("flgs") {
            None | Some(Value::Any) => Ok(Field::Any),
            Some(Value::Word(w)) => {
                if let Some(n) = parse_uint(&w) {
                    return u8::try_from(n)
                        .map(Field::Is)
                        .map_err(|_| self.r.err(format!("{}: flags {w} too large", self.what)));
                }
                let mut f = 0u8;
                for c in w.chars() {
                    match letters.iter().find(|(l, _)| *l == c) {
                        Some((_, bit)) => f |= bit,
                        None => {
                            return Err(self
                                .r
                                .err(format!("{}: unknown flag letter {c:?}", self.what)));
                        }
                    }
                }
                Ok(Field::Is(f))
            }
            Some(v) => Err(self
                .r
                .err(format!("{}: bad flags {}", self.what, v.describe()))),
        }
    }

    fn bytes(&mut self, name: &str) -> Result<Field<Vec<u8>>, ParseError> {
        match self.take(name) {
            None | Some(Value::Any) => Ok(Field::Any),
            Some(v) => Ok(Field::Is(
                self.r.bytes(&v, &format!("{}.{name}", self.what))?,
            )),
        }
    }

    fn ip(&mut self, name: &str) -> Result<Field<IpAddr>, ParseError> {
        match self.take(name) {
            None | Some(Value::Any) => Ok(Field::Any),
            Some(v) => Ok(Field::Is(self.r.ip(&v, &format!("{}.{name}", self.what))?)),
        }
    }

    fn list<T>(
        &mut self,
        name: &str,
        each: impl Fn(&Reader, &Value) -> Result<T, ParseError>,
    ) -> Result<Field<Vec<T>>, ParseError> {
        match self.take(name) {
            None | Some(Value::Any) => Ok(Field::Any),
            Some(Value::List(items)) => {
                let r = Reader { line: self.r.line };
                Ok(Field::Is(
                    items
                        .iter()
                        .map(|v| each(&r, v))
                        .collect::<Result<_, _>>()?,
                ))
            }
            Some(v) => Err(self.r.err(format!(
                "{}.{name}: expected a list, found {}",
                self.what,
                v.describe()
            ))),
        }
    }

    /// Nested specs given bare (parameters of INIT, causes of ABORT).
    fn bare_specs(&mut self) -> Result<(Vec<NamedItems>, bool), ParseError> {
        let mut specs = Vec::new();
        let mut more = false;
        for (k, v) in std::mem::take(&mut self.bare).into_iter().enumerate() {
            match v {
                Value::Any => more = true,
                Value::Spec(n, items) => {
                    if more {
                        return Err(self.r.err(format!(
                            "{}: `...` must come last (item {})",
                            self.what,
                            k + 1
                        )));
                    }
                    specs.push((n, items));
                }
                other => {
                    return Err(self.r.err(format!(
                        "{}: unexpected {}",
                        self.what,
                        other.describe()
                    )));
                }
            }
        }
        Ok((specs, more))
    }

    fn finish(self) -> Result<(), ParseError> {
        if let Some((n, _)) = self.assigns.first() {
            return Err(self.r.err(format!("{}: unknown field {n}", self.what)));
        }
        if let Some(v) = self.bare.first() {
            return Err(self
                .r
                .err(format!("{}: unexpected {}", self.what, v.describe())));
        }
        Ok(())
    }
}

fn map<T, U>(f: Field<T>, g: impl Fn(T) -> U) -> Field<U> {
    match f {
        Field::Any => Field::Any,
        Field::Is(v) => Field::Is(g(v)),
    }
}

const DATA_FLAGS: &[(char, u8)] = &[('E', 1), ('B', 2), ('U', 4), ('I', 8)];
const T_FLAG: &[(char, u8)] = &[('T', 1)];

fn type_list_u8(r: &Reader, v: &Value) -> Result<u8, ParseError> {
    if let Value::Word(w) = v
        && let Some(t) = names::chunk_type(w)
    {
        return Ok(t);
    }
    r.uint(v, "chunk type", 0xff).map(|n| n as u8)
}

fn hmac_id(r: &Reader, v: &Value) -> Result<u16, ParseError> {
    if let Value::Word(w) = v {
        match w.as_str() {
            "SHA1" | "SHA_1" => return Ok(1),
            "SHA256" | "SHA_256" => return Ok(3),
            _ => {}
        }
    }
    r.uint(v, "HMAC identifier", 0xffff).map(|n| n as u16)
}

fn address_type(r: &Reader, v: &Value) -> Result<u16, ParseError> {
    if let Value::Word(w) = v {
        match w.as_str() {
            "IPv4" => return Ok(5),
            "IPv6" => return Ok(6),
            "HOSTNAME" => return Ok(11),
            _ => {}
        }
    }
    r.uint(v, "address type", 0xffff).map(|n| n as u16)
}

fn param_type_item(r: &Reader, v: &Value) -> Result<u16, ParseError> {
    if let Value::Word(w) = v
        && let Some(t) = names::param_type(w)
    {
        return Ok(t);
    }
    r.uint(v, "parameter type", 0xffff).map(|n| n as u16)
}

/// Reads a chunk `NAME[items]`.
// Long because: one arm per chunk name of the script language, each reading its fields.
pub fn chunk_from(line: usize, name: &str, items: &[Item]) -> Result<ChunkSpec, ParseError> {
    let mut f = Fields::new(line, name, items)?;
    let spec = match name {
        "DATA" => ChunkSpec::Data {
            flags: f.flags(DATA_FLAGS)?,
            len: f.u16("len")?,
            tsn: f.u32("tsn")?,
            sid: f.u16("sid")?,
            ssn: f.u16("ssn")?,
            ppid: f.u32("ppid")?,
        },
        "INIT" | "INIT_ACK" => {
            let init = InitSpec {
                flags: f.flags(&[])?,
                tag: f.u32("tag")?,
                a_rwnd: f.u32("a_rwnd")?,
                os: f.u16("os")?,
                is: f.u16("is")?,
                tsn: f.u32("tsn")?,
                params: param_list(&mut f)?,
            };
            if name == "INIT" {
                ChunkSpec::Init(init)
            } else {
                ChunkSpec::InitAck(init)
            }
        }
        "SACK" => ChunkSpec::Sack {
            flags: f.flags(&[])?,
            cum_tsn: f.u32("cum_tsn")?,
            a_rwnd: f.u32("a_rwnd")?,
            gaps: f.list("gaps", gap_block)?,
            dups: f.list("dups", |r, v| {
                r.uint(v, "dup TSN", 0xffff_ffff).map(|n| n as u32)
            })?,
        },
        "HEARTBEAT" | "HEARTBEAT_ACK" => {
            let flags = f.flags(&[])?;
            let (specs, _more) = f.bare_specs()?;
            let info = match specs.as_slice() {
                [] => None,
                [(n, items)] => Some(param_from(line, n, items)?),
                _ => {
                    return Err(ParseError::new(
                        line,
                        format!("{name}: one parameter at most"),
                    ));
                }
            };
            if name == "HEARTBEAT" {
                ChunkSpec::Heartbeat { flags, info }
            } else {
                ChunkSpec::HeartbeatAck { flags, info }
            }
        }
        "ABORT" | "ERROR" => {
            let flags = f.flags(T_FLAG)?;
            let causes = cause_list(&mut f)?;
            if name == "ABORT" {
                ChunkSpec::Abort { flags, causes }
            } else {
                ChunkSpec::Error { flags, causes }
            }
        }
        "SHUTDOWN" => ChunkSpec::Shutdown {
            flags: f.flags(&[])?,
            cum_tsn: f.u32("cum_tsn")?,
        },
        "SHUTDOWN_ACK" => ChunkSpec::ShutdownAck {
            flags: f.flags(&[])?,
        },
        "COOKIE_ECHO" => ChunkSpec::CookieEcho {
            flags: f.flags(&[])?,
            len: f.u16("len")?,
            val: f.bytes("val")?,
        },
        "COOKIE_ACK" => ChunkSpec::CookieAck {
            flags: f.flags(&[])?,
        },
        "SHUTDOWN_COMPLETE" => ChunkSpec::ShutdownComplete {
            flags: f.flags(T_FLAG)?,
        },
        "CHUNK" => {
            let ty = match f.take("type") {
                None | Some(Value::Any) => Field::Any,
                Some(v) => Field::Is(type_list_u8(&f.r, &v)?),
            };
            ChunkSpec::Generic {
                ty,
                flags: f.flags(&[])?,
                len: f.u16("len")?,
                val: f.bytes("val")?,
            }
        }
        "ASCONF" => ChunkSpec::Asconf {
            flags: f.flags(&[])?,
            serial: f.u32("serial")?,
            addr: f.ip("addr")?,
            params: param_list(&mut f)?,
        },
        "ASCONF_ACK" => ChunkSpec::AsconfAck {
            flags: f.flags(&[])?,
            serial: f.u32("serial")?,
            params: param_list(&mut f)?,
        },
        "AUTH" => ChunkSpec::Auth {
            flags: f.flags(&[])?,
            key_id: f.u16("keyid")?,
            hmac_id: match f.take("hmac_id") {
                None | Some(Value::Any) => Field::Any,
                Some(v) => Field::Is(hmac_id(&f.r, &v)?),
            },
            hmac: f.bytes("hmac")?,
        },
        "FORWARD_TSN" => ChunkSpec::ForwardTsn {
            flags: f.flags(&[])?,
            cum_tsn: f.u32("cum_tsn")?,
            ids: f.list("ids", stream_entry)?,
        },
        "I_DATA" => {
            let head = (f.flags(DATA_FLAGS)?, f.u16("len")?, f.u32("tsn")?);
            let (sid, mid) = (f.u16("sid")?, f.u32("mid")?);
            let (ppid, fsn) = (f.u32("ppid")?, f.u32("fsn")?);
            if !ppid.is_any() && !fsn.is_any() {
                return Err(ParseError::new(line, "I_DATA: ppid and fsn share a field"));
            }
            ChunkSpec::IData {
                flags: head.0,
                len: head.1,
                tsn: head.2,
                sid,
                mid,
                ppid_fsn: if ppid.is_any() { fsn } else { ppid },
            }
        }
        "I_FORWARD_TSN" => ChunkSpec::IForwardTsn {
            flags: f.flags(&[])?,
            cum_tsn: f.u32("cum_tsn")?,
            ids: f.list("ids", message_entry)?,
        },
        other => return Err(ParseError::new(line, format!("unknown chunk {other}"))),
    };
    f.finish()?;
    Ok(spec)
}

fn gap_block(r: &Reader, v: &Value) -> Result<(u16, u16), ParseError> {
    match v {
        Value::Word(w) => {
            let (a, b) = w
                .split_once(':')
                .ok_or_else(|| r.err(format!("gap block {w}: expected start:end")))?;
            let s = parse_uint(a).filter(|n| *n <= 0xffff);
            let e = parse_uint(b).filter(|n| *n <= 0xffff);
            match (s, e) {
                (Some(s), Some(e)) => Ok((s as u16, e as u16)),
                _ => Err(r.err(format!("gap block {w}: bad offsets"))),
            }
        }
        other => Err(r.err(format!("bad gap block {}", other.describe()))),
    }
}

/// A FORWARD TSN stream entry `{sid,ssn}` (RFC 3758 section 3.2).
fn stream_entry(r: &Reader, v: &Value) -> Result<(u16, u16), ParseError> {
    match v {
        Value::Struct(members) if members.len() == 2 => {
            let sid = r.uint(&members[0].1, "FORWARD_TSN stream identifier", 0xffff)?;
            let ssn = r.uint(&members[1].1, "FORWARD_TSN stream sequence number", 0xffff)?;
            Ok((sid as u16, ssn as u16))
        }
        other => Err(r.err(format!(
            "FORWARD_TSN ids: expected {{sid,ssn}}, found {}",
            other.describe()
        ))),
    }
}

/// An I-FORWARD-TSN entry `{sid, u, mid}` (RFC 8260 section 2.3).
fn message_entry(r: &Reader, v: &Value) -> Result<(u16, bool, u32), ParseError> {
    match v {
        Value::Struct(m) if m.len() == 3 => {
            let sid = r.uint(&m[0].1, "I_FORWARD_TSN stream identifier", 0xffff)?;
            let u = r.uint(&m[1].1, "I_FORWARD_TSN U flag", 1)?;
            let mid = r.uint(&m[2].1, "I_FORWARD_TSN message identifier", 0xffff_ffff)?;
            Ok((sid as u16, u == 1, mid as u32))
        }
        other => Err(r.err(format!(
            "I_FORWARD_TSN ids: expected {{sid, u, mid}}, found {}",
            other.describe()
        ))),
    }
}

fn param_list(f: &mut Fields) -> Result<ParamList, ParseError> {
    let (specs, more) = f.bare_specs()?;
    let items = specs
        .iter()
        .map(|(n, items)| param_from(f.r.line, n, items))
        .collect::<Result<_, _>>()?;
    Ok(ParamList { items, more })
}

fn cause_list(f: &mut Fields) -> Result<CauseList, ParseError> {
    let (specs, more) = f.bare_specs()?;
    let items = specs
        .iter()
        .map(|(n, items)| cause_from(f.r.line, n, items))
        .collect::<Result<_, _>>()?;
    Ok(CauseList { items, more })
}

fn nested_params(r: &Reader, v: &Value) -> Result<ParamSpec, ParseError> {
    match v {
        Value::Spec(n, items) => param_from(r.line, n, items),
        other => Err(r.err(format!("expected a parameter, found {}", other.describe()))),
    }
}

fn one_param(f: &mut Fields, name: &str) -> Result<Option<Box<ParamSpec>>, ParseError> {
    match f.take(name) {
        None | Some(Value::Any) => Ok(None),
        Some(v) => Ok(Some(Box::new(nested_params(&f.r, &v)?))),
    }
}

/// Reads a parameter `NAME[items]`.
pub fn param_from(line: usize, name: &str, items: &[Item]) -> Result<ParamSpec, ParseError> {
    let mut f = Fields::new(line, name, items)?;
    let p = match name {
        "IPV4_ADDRESS" | "IPV6_ADDRESS" => {
            let a = f.ip("addr")?;
            if let Field::Is(ip) = &a
                && (ip.is_ipv4() != (name == "IPV4_ADDRESS"))
            {
                return Err(ParseError::new(
                    line,
                    format!("{name}: wrong address family"),
                ));
            }
            if name == "IPV4_ADDRESS" {
                ParamSpec::Ipv4(a)
            } else {
                ParamSpec::Ipv6(a)
            }
        }
        "STATE_COOKIE" => ParamSpec::StateCookie {
            len: f.u16("len")?,
            val: f.bytes("val")?,
        },
        "HOSTNAME_ADDRESS" => ParamSpec::HostName(match f.take("addr") {
            None | Some(Value::Any) => Field::Any,
            Some(Value::Str(s)) => Field::Is(s),
            Some(v) => {
                return Err(ParseError::new(
                    line,
                    format!(
                        "HOSTNAME_ADDRESS.addr: expected a string, found {}",
                        v.describe()
                    ),
                ));
            }
        }),
        "SUPPORTED_ADDRESS_TYPES" => {
            ParamSpec::SupportedAddressTypes(f.list("types", address_type)?)
        }
        "COOKIE_PRESERVATIVE" => ParamSpec::CookiePreservative(f.u32("incr")?),
        "UNRECOGNIZED_PARAMETER" => ParamSpec::Unrecognized(f.list("params", nested_params)?),
        "HEARTBEAT_INFORMATION" => ParamSpec::HeartbeatInfo {
            len: f.u16("len")?,
            val: f.bytes("val")?,
        },
        "ECN_CAPABLE" => ParamSpec::EcnCapable,
        "FORWARD_TSN_SUPPORTED" => ParamSpec::ForwardTsnSupported,
        "SUPPORTED_EXTENSIONS" => ParamSpec::SupportedExtensions(f.list("types", type_list_u8)?),
        "ADAPTATION_INDICATION" => {
            ParamSpec::Adaptation(map(f.num("adaptation_code_point", 0xffff_ffff)?, |v| {
                v as u32
            }))
        }
        "RANDOM" => ParamSpec::Random {
            len: f.u16("len")?,
            val: f.bytes("val")?,
        },
        "CHUNKS" => ParamSpec::Chunks(f.list("types", type_list_u8)?),
        "HMAC_ALGO" => ParamSpec::HmacAlgo(f.list("ids", hmac_id)?),
        "ADD_IP_ADDRESS" => ParamSpec::AddIp {
            corr: f.u32("corr_id")?,
            addr: f.ip("addr")?,
        },
        "DELETE_IP_ADDRESS" => ParamSpec::DeleteIp {
            corr: f.u32("corr_id")?,
            addr: f.ip("addr")?,
        },
        "SET_PRIMARY_ADDRESS" => ParamSpec::SetPrimary {
            corr: f.u32("corr_id")?,
            addr: f.ip("addr")?,
        },
        "ERROR_CAUSE_INDICATION" => ParamSpec::ErrorIndication {
            corr: f.u32("corr_id")?,
            causes: cause_list(&mut f)?,
        },
        "SUCCESS_INDICATION" => ParamSpec::Success {
            corr: f.u32("corr_id")?,
        },
        "PARAMETER" => {
            let ty = match f.take("type") {
                None | Some(Value::Any) => Field::Any,
                Some(v) => Field::Is(param_type_item(&f.r, &v)?),
            };
            ParamSpec::Generic {
                ty,
                len: f.u16("len")?,
                val: f.bytes("val")?,
            }
        }
        other => return Err(ParseError::new(line, format!("unknown parameter {other}"))),
    };
    f.finish()?;
    Ok(p)
}

fn text_or_bytes(f: &mut Fields, name: &str) -> Result<Field<Vec<u8>>, ParseError> {
    match f.take(name) {
        None | Some(Value::Any) => Ok(Field::Any),
        Some(Value::Str(s)) => Ok(Field::Is(s.into_bytes())),
        Some(v) => Ok(Field::Is(f.r.bytes(&v, name)?)),
    }
}

/// Reads an error cause `NAME[items]`.
pub fn cause_from(line: usize, name: &str, items: &[Item]) -> Result<CauseSpec, ParseError> {
    let mut f = Fields::new(line, name, items)?;
    let c = match name {
        "INVALID_STREAM_IDENTIFIER" => CauseSpec::InvalidStream(f.u16("sid")?),
        "MISSING_MANDATORY_PARAMETER" => {
            CauseSpec::MissingMandatory(f.list("types", param_type_item)?)
        }
        "STALE_COOKIE_ERROR" => CauseSpec::StaleCookie(f.u32("staleness")?),
        "OUT_OF_RESOURCES" => CauseSpec::OutOfResources,
        "UNRESOLVABLE_ADDRESS" => CauseSpec::Unresolvable(one_param(&mut f, "param")?),
        "UNRECOGNIZED_CHUNK_TYPE" => CauseSpec::UnrecognizedChunk(match f.take("chk") {
            None | Some(Value::Any) => None,
            Some(Value::Spec(n, items)) => Some(Box::new(chunk_from(line, &n, &items)?)),
            Some(v) => {
                return Err(ParseError::new(
                    line,
                    format!(
                        "UNRECOGNIZED_CHUNK_TYPE.chk: expected a chunk, found {}",
                        v.describe()
                    ),
                ));
            }
        }),
        "INVALID_MANDATORY_PARAMETER" => CauseSpec::InvalidMandatory,
        "UNRECOGNIZED_PARAMETERS" => {
            CauseSpec::UnrecognizedParams(f.list("params", nested_params)?)
        }
        "NO_USER_DATA" => CauseSpec::NoUserData(f.u32("tsn")?),
        "COOKIE_RECEIVED_WHILE_SHUTDOWN" => CauseSpec::CookieWhileShutdown,
        "RESTART_WITH_NEW_ADDRESSES" => {
            CauseSpec::RestartNewAddresses(f.list("list", nested_params)?)
        }
        "USER_INITIATED_ABORT" => CauseSpec::UserAbort(text_or_bytes(&mut f, "info")?),
        "PROTOCOL_VIOLATION" => CauseSpec::ProtocolViolation(text_or_bytes(&mut f, "info")?),
        "DELETE_LAST_REMAINING_ADDRESS" => CauseSpec::DeleteLast(one_param(&mut f, "param")?),
        "RESOURCE_SHORTAGE" => CauseSpec::ResourceShortage(one_param(&mut f, "param")?),
        "DELETE_SOURCE_ADDRESS" => CauseSpec::DeleteSource(one_param(&mut f, "param")?),
        "ILLEGAL_ASCONF_ACK" => CauseSpec::IllegalAsconfAck,
        "REQUEST_REFUSED" => CauseSpec::RequestRefused(one_param(&mut f, "param")?),
        "UNSUPPORTED_HMAC_IDENTIFIER" => CauseSpec::UnsupportedHmac(match f.take("hmac_id") {
            None | Some(Value::Any) => Field::Any,
            Some(v) => Field::Is(hmac_id(&f.r, &v)?),
        }),
        "CAUSE" => CauseSpec::Generic {
            code: f.u16("code")?,
            len: f.u16("len")?,
            info: f.bytes("info")?,
        },
        other => {
            return Err(ParseError::new(
                line,
                format!("unknown error cause {other}"),
            ));
        }
    };
    f.finish()?;
    Ok(c)
}

#[cfg(test)]
mod tests;
