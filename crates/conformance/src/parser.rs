//! From script text to [`Script`]: preprocessing, tokens, then events.
//!
//! Grammar (packetdrill's, for the parts the SCTP scripts use):
//!
//! ```text
//! event    = time ( packet | syscall | `command` )
//! time     = "*" | ["+"] seconds ["~" ["+"] seconds]
//! packet   = ("<" | ">") [addr ">" addr] "sctp" ["(" opt {"," opt} ")"] ":" body
//! opt      = "tag=" number | "bad_crc32c"
//! body     = "[" byte {"," byte} "]" | chunk {";" chunk}
//! chunk    = NAME "[" [item {"," item}] "]"
//! item     = name "=" value | "..." | NAME "[" ... "]"
//! syscall  = name "(" [value {"," value}] ")" "=" value [ERRNO] ["(" text ")"]
//! value    = "..." | word | string | "[" values "]" | "{" name=value ... "}"
//!          | NAME "[" items "]" | name "(" values ")" | "-" value | value "|" value
//! ```

use std::net::IpAddr;
use std::time::Duration;

use crate::error::ParseError;
use crate::lexer::{Tok, Token, tokenize};
use crate::names;
use crate::preprocess::{OptionLine, preprocess};
use crate::script::{
    Direction, Event, EventKind, EventTime, PacketBody, PacketSpec, Script, ScriptOptions,
    SyscallSpec,
};
use crate::spec::{ChunkSpec, chunk_from};
use crate::value::{Item, Reader, Value, parse_seconds, parse_uint};

/// Bound on nesting of values (lists in lists in specs ...).
const MAX_DEPTH: usize = 32;
/// Bound on the events of one script.
const MAX_EVENTS: usize = 100_000;

/// Parses a script, keeping the `#ifdef` sections of `platform`.
pub fn parse_script(text: &str, platform: &str) -> Result<Script, ParseError> {
    let pre = preprocess(text, &[platform])?;
    let options = parse_options(&pre.options)?;
    let tokens = tokenize(&pre.lines)?;
    let mut p = Parser {
        toks: tokens,
        pos: 0,
        depth: 0,
    };
    let mut events = Vec::new();
    while !p.at_end() {
        if events.len() >= MAX_EVENTS {
            return Err(ParseError::new(p.line(), "too many events"));
        }
        let mut ev = p.event()?;
        let last = p
            .toks
            .get(p.pos.saturating_sub(1))
            .map_or(ev.line, |t| t.line);
        ev.text = event_text(&pre.lines, ev.line, last);
        events.push(ev);
    }
    Ok(Script { options, events })
}

/// The source lines of an event, whitespace collapsed.
fn event_text(lines: &[String], first: usize, last: usize) -> String {
    let mut words = Vec::new();
    for l in first..=last.max(first) {
        if let Some(text) = lines.get(l.wrapping_sub(1)) {
            words.extend(text.split_whitespace());
        }
    }
    words.join(" ")
}

fn on_off(o: &OptionLine) -> Result<bool, ParseError> {
    match o.value.as_deref() {
        None | Some("on") | Some("1") | Some("true") | Some("yes") => Ok(true),
        Some("off") | Some("0") | Some("false") | Some("no") => Ok(false),
        Some(v) => Err(ParseError::new(
            o.line,
            format!("--{}: expected on or off, found {v}", o.name),
        )),
    }
}

fn option_value(o: &OptionLine) -> Result<&str, ParseError> {
    o.value
        .as_deref()
        .ok_or_else(|| ParseError::new(o.line, format!("--{} needs a value", o.name)))
}

fn option_ip(o: &OptionLine) -> Result<IpAddr, ParseError> {
    let v = option_value(o)?;
    v.parse()
        .map_err(|_| ParseError::new(o.line, format!("--{}: {v} is not an IP address", o.name)))
}

/// Reads the `--name=value` lines.
pub fn parse_options(lines: &[OptionLine]) -> Result<ScriptOptions, ParseError> {
    let mut opts = ScriptOptions::default();
    for o in lines {
        match o.name.as_str() {
            "tolerance_usecs" => {
                let v = option_value(o)?;
                let us = parse_uint(v).ok_or_else(|| {
                    ParseError::new(o.line, format!("--tolerance_usecs: bad number {v}"))
                })?;
                opts.tolerance = Duration::from_micros(us);
            }
            "local_ip" => opts.local_ip = option_ip(o)?,
            "remote_ip" => opts.remote_ip = option_ip(o)?,
            "local_ip2" => opts.local_ip2 = Some(option_ip(o)?),
            "remote_ip2" => opts.remote_ip2 = Some(option_ip(o)?),
            "ip_version" => {
                if option_value(o)? != "ipv4" {
                    return Err(ParseError::new(
                        o.line,
                        "only --ip_version=ipv4 is supported",
                    ));
                }
            }
            "asconf" => opts.asconf = on_off(o)?,
            "auth" => opts.auth = on_off(o)?,
            "pr_sctp" => opts.pr_sctp = on_off(o)?,
            "stream_reconfig" => opts.stream_reconfig = on_off(o)?,
            "hmac" => {
                let mut ids = Vec::new();
                for part in option_value(o)?.split(',') {
                    ids.push(match part.trim() {
                        "sha1" | "SHA1" => 1,
                        "sha256" | "SHA256" => 3,
                        other => parse_uint(other)
                            .and_then(|n| u16::try_from(n).ok())
                            .ok_or_else(|| {
                                ParseError::new(
                                    o.line,
                                    format!("--hmac: unknown algorithm {other}"),
                                )
                            })?,
                    });
                }
                opts.hmac_ids = Some(ids);
            }
            "auth_chunks" => {
                for part in option_value(o)?.split(',') {
                    let p = part.trim();
                    let t = names::chunk_type(p)
                        .or_else(|| parse_uint(p).and_then(|n| u8::try_from(n).ok()))
                        .ok_or_else(|| {
                            ParseError::new(o.line, format!("--auth_chunks: unknown chunk {p}"))
                        })?;
                    opts.auth_chunks.push(t);
                }
            }
            other => {
                return Err(ParseError::new(o.line, format!("unknown option --{other}")));
            }
        }
    }
    Ok(opts)
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    depth: usize,
}

impl Parser {
    fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }

    fn line(&self) -> usize {
        self.toks
            .get(self.pos)
            .or_else(|| self.toks.last())
            .map_or(0, |t| t.line)
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|t| &t.tok)
    }

    fn next(&mut self) -> Result<Tok, ParseError> {
        let t = self
            .toks
            .get(self.pos)
            .ok_or_else(|| ParseError::new(self.line(), "unexpected end of script"))?
            .tok
            .clone();
        self.pos += 1;
        Ok(t)
    }

    fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }

    fn expect_punct(&mut self, c: char) -> Result<(), ParseError> {
        let line = self.line();
        match self.next()? {
            Tok::Punct(d) if d == c => Ok(()),
            other => Err(ParseError::new(
                line,
                format!("expected '{c}', found {}", describe(&other)),
            )),
        }
    }

    fn word(&mut self) -> Result<String, ParseError> {
        let line = self.line();
        match self.next()? {
            Tok::Word(w) => Ok(w),
            other => Err(ParseError::new(
                line,
                format!("expected a word, found {}", describe(&other)),
            )),
        }
    }

    fn seconds(&mut self) -> Result<Duration, ParseError> {
        let line = self.line();
        let w = self.word()?;
        parse_seconds(&w)
            .map(Duration::from_nanos)
            .ok_or_else(|| ParseError::new(line, format!("bad time {w}")))
    }

    fn time(&mut self) -> Result<EventTime, ParseError> {
        if self.is_punct('*') {
            self.pos += 1;
            return Ok(EventTime::Any);
        }
        let relative = self.is_punct('+');
        if relative {
            self.pos += 1;
        }
        let start = self.seconds()?;
        if self.is_punct('~') {
            self.pos += 1;
            if self.is_punct('+') {
                self.pos += 1;
            }
            let end = self.seconds()?;
            if end < start {
                return Err(ParseError::new(
                    self.line(),
                    "time range ends before it starts",
                ));
            }
            return Ok(if relative {
                EventTime::RelativeRange(start, end)
            } else {
                EventTime::AbsoluteRange(start, end)
            });
        }
        Ok(if relative {
            EventTime::Relative(start)
        } else {
            EventTime::Absolute(start)
        })
    }

    fn event(&mut self) -> Result<Event, ParseError> {
        let line = self.line();
        let time = self.time()?;
        let kind = match self.peek() {
            Some(Tok::Punct('<')) | Some(Tok::Punct('>')) => EventKind::Packet(self.packet()?),
            Some(Tok::Command(c)) => {
                let c = c.clone();
                self.pos += 1;
                EventKind::Command(c)
            }
            Some(Tok::Word(_)) if self.peek_at(1) == Some(&Tok::Punct('(')) => {
                EventKind::Syscall(self.syscall()?)
            }
            Some(other) => {
                return Err(ParseError::new(
                    self.line(),
                    format!(
                        "expected a packet, system call or command, found {}",
                        describe(other)
                    ),
                ));
            }
            None => return Err(ParseError::new(line, "event without action")),
        };
        if matches!(time, EventTime::Any)
            && !matches!(&kind, EventKind::Packet(p) if p.direction == Direction::Outbound)
        {
            return Err(ParseError::new(
                line,
                "`*` time is only allowed for outbound packets",
            ));
        }
        Ok(Event {
            line,
            text: String::new(),
            time,
            kind,
        })
    }

    fn address(&mut self) -> Result<Option<IpAddr>, ParseError> {
        let line = self.line();
        match self.next()? {
            Tok::Ellipsis => Ok(None),
            Tok::Word(w) => w
                .parse()
                .map(Some)
                .map_err(|_| ParseError::new(line, format!("{w} is not an IP address"))),
            other => Err(ParseError::new(
                line,
                format!("expected an address, found {}", describe(&other)),
            )),
        }
    }

    fn packet(&mut self) -> Result<PacketSpec, ParseError> {
        let direction = match self.next()? {
            Tok::Punct('<') => Direction::Inbound,
            _ => Direction::Outbound,
        };
        let starts_with_address = match self.peek() {
            Some(Tok::Word(w)) => w.parse::<IpAddr>().is_ok(),
            Some(Tok::Ellipsis) => true,
            _ => false,
        };
        let addresses = if starts_with_address {
            let src = self.address()?;
            self.expect_punct('>')?;
            let dst = self.address()?;
            Some((src, dst))
        } else {
            None
        };
        let line = self.line();
        let proto = self.word()?;
        if proto != "sctp" {
            return Err(ParseError::new(
                line,
                format!("only sctp packets are supported, found {proto}"),
            ));
        }
        let mut tag = None;
        let mut bad_crc32c = false;
        if self.is_punct('(') {
            self.pos += 1;
            loop {
                let line = self.line();
                let name = self.word()?;
                match name.as_str() {
                    "bad_crc32c" => bad_crc32c = true,
                    "tag" => {
                        self.expect_punct('=')?;
                        let w = self.word()?;
                        let v = parse_uint(&w)
                            .and_then(|n| u32::try_from(n).ok())
                            .ok_or_else(|| ParseError::new(line, format!("bad tag {w}")))?;
                        tag = Some(v);
                    }
                    other => {
                        return Err(ParseError::new(
                            line,
                            format!("unknown sctp option {other}"),
                        ));
                    }
                }
                if self.is_punct(',') {
                    self.pos += 1;
                    continue;
                }
                self.expect_punct(')')?;
                break;
            }
        }
        self.expect_punct(':')?;
        let body = if self.is_punct('[') {
            let line = self.line();
            let v = self.value()?;
            PacketBody::Raw(Reader { line }.bytes(&v, "raw packet")?)
        } else {
            let mut chunks: Vec<ChunkSpec> = Vec::new();
            loop {
                let line = self.line();
                let name = self.word()?;
                self.expect_punct('[')?;
                let items = self.items()?;
                chunks.push(chunk_from(line, &name, &items)?);
                if self.is_punct(';') {
                    self.pos += 1;
                    continue;
                }
                break;
            }
            PacketBody::Chunks(chunks)
        };
        Ok(PacketSpec {
            direction,
            addresses,
            tag,
            bad_crc32c,
            body,
        })
    }

    /// Items up to the closing `]` (the `[` is consumed).
    fn items(&mut self) -> Result<Vec<Item>, ParseError> {
        let mut items = Vec::new();
        if self.is_punct(']') {
            self.pos += 1;
            return Ok(items);
        }
        loop {
            let line = self.line();
            match self.peek() {
                Some(Tok::Ellipsis) => {
                    self.pos += 1;
                    items.push(Item::Bare(Value::Any));
                }
                Some(Tok::Word(_)) if self.peek_at(1) == Some(&Tok::Punct('=')) => {
                    let name = self.word()?;
                    self.pos += 1;
                    items.push(Item::Assign(name, self.value()?));
                }
                Some(Tok::Word(_)) if self.peek_at(1) == Some(&Tok::Punct('[')) => {
                    items.push(Item::Bare(self.value()?));
                }
                Some(other) => {
                    return Err(ParseError::new(
                        line,
                        format!("expected name=value, found {}", describe(other)),
                    ));
                }
                None => return Err(ParseError::new(line, "unexpected end of script")),
            }
            if self.is_punct(',') {
                self.pos += 1;
                continue;
            }
            self.expect_punct(']')?;
            return Ok(items);
        }
    }

    fn value(&mut self) -> Result<Value, ParseError> {
        if self.depth >= MAX_DEPTH {
            return Err(ParseError::new(self.line(), "values nested too deep"));
        }
        self.depth += 1;
        let r = self.value_inner();
        self.depth -= 1;
        let first = r?;
        if !self.is_punct('|') {
            return Ok(first);
        }
        let mut alts = vec![first];
        while self.is_punct('|') {
            self.pos += 1;
            self.depth += 1;
            let v = self.value_inner();
            self.depth -= 1;
            alts.push(v?);
        }
        Ok(Value::Or(alts))
    }

    fn value_inner(&mut self) -> Result<Value, ParseError> {
        let line = self.line();
        match self.next()? {
            Tok::Ellipsis => Ok(Value::Any),
            Tok::Str(s) => Ok(Value::Str(s)),
            Tok::Punct('-') => Ok(Value::Neg(Box::new(self.value_inner()?))),
            Tok::Punct('[') => {
                let mut list = Vec::new();
                if self.is_punct(']') {
                    self.pos += 1;
                    return Ok(Value::List(list));
                }
                loop {
                    list.push(self.value()?);
                    if self.is_punct(',') {
                        self.pos += 1;
                        continue;
                    }
                    self.expect_punct(']')?;
                    return Ok(Value::List(list));
                }
            }
            Tok::Punct('{') => {
                let mut fields = Vec::new();
                if self.is_punct('}') {
                    self.pos += 1;
                    return Ok(Value::Struct(fields));
                }
                loop {
                    // `{name=value, ...}`, or positional members as in
                    // packetdrill's `{1,0}` (FORWARD TSN stream entries)
                    // and `{..., 500}` (an iovec): those get an empty name.
                    let named = matches!(self.peek(), Some(Tok::Word(_)))
                        && self.peek_at(1) == Some(&Tok::Punct('='));
                    let name = if named {
                        let n = self.word()?;
                        self.expect_punct('=')?;
                        n
                    } else {
                        String::new()
                    };
                    fields.push((name, self.value()?));
                    if self.is_punct(',') {
                        self.pos += 1;
                        continue;
                    }
                    self.expect_punct('}')?;
                    return Ok(Value::Struct(fields));
                }
            }
            Tok::Word(w) => {
                let ident = w
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
                if !ident {
                    return Ok(Value::Word(w));
                }
                if self.is_punct('[') {
                    self.pos += 1;
                    let items = self.items()?;
                    return Ok(Value::Spec(w, items));
                }
                if self.is_punct('(') {
                    self.pos += 1;
                    let args = self.args()?;
                    return Ok(Value::Call(w, args));
                }
                Ok(Value::Word(w))
            }
            other => Err(ParseError::new(
                line,
                format!("expected a value, found {}", describe(&other)),
            )),
        }
    }

    /// Arguments up to the closing `)` (the `(` is consumed).
    fn args(&mut self) -> Result<Vec<Value>, ParseError> {
        let mut args = Vec::new();
        if self.is_punct(')') {
            self.pos += 1;
            return Ok(args);
        }
        loop {
            args.push(self.value()?);
            if self.is_punct(',') {
                self.pos += 1;
                continue;
            }
            self.expect_punct(')')?;
            return Ok(args);
        }
    }

    fn syscall(&mut self) -> Result<SyscallSpec, ParseError> {
        let name = self.word()?;
        self.expect_punct('(')?;
        let args = self.args()?;
        self.expect_punct('=')?;
        let ret = self.value()?;
        let errno = match self.peek() {
            Some(Tok::Word(w)) if is_errno_name(w) => {
                let w = w.clone();
                self.pos += 1;
                Some(w)
            }
            _ => None,
        };
        // A trailing "(description)" is a comment.
        if self.is_punct('(') {
            let line = self.line();
            let mut depth = 0usize;
            loop {
                match self.next() {
                    Ok(Tok::Punct('(')) => depth += 1,
                    Ok(Tok::Punct(')')) => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    Ok(_) => {}
                    Err(_) => return Err(ParseError::new(line, "unclosed ( after system call")),
                }
            }
        }
        Ok(SyscallSpec {
            name,
            args,
            ret,
            errno,
        })
    }
}

fn is_errno_name(w: &str) -> bool {
    w.len() > 1
        && w.starts_with('E')
        && w.bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Word(w) => format!("'{w}'"),
        Tok::Str(s) => format!("\"{s}\""),
        Tok::Ellipsis => "'...'".into(),
        Tok::Command(c) => format!("`{c}`"),
        Tok::Punct(c) => format!("'{c}'"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{CauseSpec, Field, ParamSpec};

    #[test]
    fn a_small_script() {
        let text = "--tolerance_usecs=10000\n\
            0.0 socket(..., SOCK_STREAM, IPPROTO_SCTP) = 3\n\
            +0.0 fcntl(3, F_SETFL, O_RDWR | O_NONBLOCK) = 0\n\
            +0.1 connect(3, ..., ...) = -1 EINPROGRESS (Operation now in progress)\n\
            +0.0 > sctp: INIT[flgs=0, tag=1, a_rwnd=..., os=..., is=..., tsn=0, ...]\n\
            +0.0 < sctp: INIT_ACK[flgs=0, tag=2, a_rwnd=1500, os=1, is=1, tsn=3,\n\
                                  STATE_COOKIE[len=4, val=...]]\n\
            * > sctp: COOKIE_ECHO[flgs=0, len=4, val=...];\n\
                      ERROR[flgs=0, UNRECOGNIZED_PARAMETERS[params=[PARAMETER[type=0xc00c, len=5, val=[0x01]]]]]\n\
            +0.0 < sctp(tag=3): SHUTDOWN_COMPLETE[flgs=T]\n\
            +0.0 < sctp(tag=0): [0x01, 0x00, 0x00, 0x60]\n\
            +0.0 < 224.0.0.0 > 192.168.0.1 sctp: COOKIE_ECHO[flgs=0, len=..., val=...]\n\
            +1.0 `sysctl x`\n\
            +0.0 write(3, ..., 1000) = -1\n\
            +0.0 getsockopt(3, SOL_SOCKET, SO_ERROR, [ETIMEDOUT], [4]) = 0\n";
        let s = parse_script(text, "FreeBSD").unwrap();
        assert_eq!(s.options.tolerance, Duration::from_millis(10));
        assert_eq!(s.events.len(), 12);
        assert_eq!(s.events[0].time, EventTime::Absolute(Duration::ZERO));
        assert_eq!(
            s.events[2].time,
            EventTime::Relative(Duration::from_millis(100))
        );
        match &s.events[2].kind {
            EventKind::Syscall(c) => {
                assert_eq!(c.name, "connect");
                assert_eq!(c.ret, Value::Neg(Box::new(Value::Word("1".into()))));
                assert_eq!(c.errno.as_deref(), Some("EINPROGRESS"));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(s.events[5].time, EventTime::Any);
        assert_eq!(s.events[5].line, 8);
        match &s.events[5].kind {
            EventKind::Packet(p) => match &p.body {
                PacketBody::Chunks(c) => {
                    assert_eq!(c.len(), 2);
                    match &c[1] {
                        ChunkSpec::Error { causes, .. } => match &causes.items[0] {
                            CauseSpec::UnrecognizedParams(Field::Is(ps)) => {
                                assert_eq!(
                                    ps[0],
                                    ParamSpec::Generic {
                                        ty: Field::Is(0xc00c),
                                        len: Field::Is(5),
                                        val: Field::Is(vec![1])
                                    }
                                );
                            }
                            other => panic!("{other:?}"),
                        },
                        other => panic!("{other:?}"),
                    }
                }
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
        match &s.events[6].kind {
            EventKind::Packet(p) => assert_eq!(p.tag, Some(3)),
            other => panic!("{other:?}"),
        }
        match &s.events[7].kind {
            EventKind::Packet(p) => assert_eq!(p.body, PacketBody::Raw(vec![1, 0, 0, 0x60])),
            other => panic!("{other:?}"),
        }
        match &s.events[8].kind {
            EventKind::Packet(p) => assert_eq!(
                p.addresses,
                Some((
                    Some("224.0.0.0".parse().unwrap()),
                    Some("192.168.0.1".parse().unwrap())
                ))
            ),
            other => panic!("{other:?}"),
        }
        assert!(matches!(s.events[9].kind, EventKind::Command(_)));
        match &s.events[10].kind {
            EventKind::Syscall(c) => assert_eq!(c.errno, None),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn errors_name_their_line() {
        let e = parse_script("0.0 socket() = 3\n+0.0 > tcp: S 0:0(0)\n", "x").unwrap_err();
        assert_eq!(e.line, 2);
        let e = parse_script(
            "0.0 socket() = 3\n\n+0.0 < sctp: DATA[flgs=BE, tsn=x]\n",
            "x",
        )
        .unwrap_err();
        assert_eq!(e.line, 3);
        assert!(parse_script("--bogus=1\n", "x").is_err());
        assert!(parse_script("* socket() = 3\n", "x").is_err());
        assert!(parse_script("0.0 < sctp: INIT[\n", "x").is_err());
    }
}
