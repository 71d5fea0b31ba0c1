//! System calls of the scripts (RFC 6458 socket API, one-to-one style),
//! mapped to the engine: `socket`, `bind`, `listen`, `fcntl`,
//! `setsockopt` / `getsockopt` (in [`sockopt`]: SO_ERROR, SCTP_RTOINFO, SCTP_INITMSG,
//! SCTP_PEER_ADDR_PARAMS, SCTP_STATUS, SCTP_PRIMARY_ADDR,
//! SCTP_SET_PEER_PRIMARY_ADDR), `connect`, `accept`, `read`, `write`,
//! `shutdown`, `close`, and `sctp_bindx`, `sctp_getpaddrs`,
//! `sctp_getladdrs` for address reconfiguration; the calls and options of
//! partial reliability are in [`sendv`]. Engine errors become the errno
//! names a kernel would return.

use std::net::IpAddr;

use bytes::Bytes;
use msctp_proto::asconf::{AsconfError, LocalAddrState};
use msctp_proto::association::{AddressError, SendError, SendOptions};
use msctp_proto::{Event as EngineEvent, State};

use crate::error::{Failure, FailureKind};
use crate::runner::{REMOTE_PORT, Run};
use crate::script::SyscallSpec;
use crate::sockets::{MAX_SOCKETS, SockState, Socket, errno_eq};
use crate::value::{Reader, Value, parse_uint};

mod sendv;
mod sockopt;
mod streams;

/// What a call returned.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    Ok(i64),
    Err(&'static str),
}

/// What a receive call took: its outcome, the message's stream, PPID and
/// U bit (when a new message was started), and whether it ended the
/// message (MSG_EOR).
struct Received {
    outcome: Outcome,
    meta: Option<(u16, u32, bool)>,
    complete: bool,
}

/// Bound on the bytes one `write` may ask for.
const MAX_WRITE: u64 = 16 << 20;

/// `[...]`: a list of one wildcard.
fn is_any_list(v: &Value) -> bool {
    matches!(v, Value::List(items) if matches!(items.as_slice(), [Value::Any]))
}

fn o_nonblock(platform: &str) -> i64 {
    if platform == "Linux" { 0o4000 } else { 0x4 }
}

impl Run<'_> {
    fn unsupported(&self, msg: impl Into<String>) -> Failure {
        self.fail(FailureKind::Unsupported, msg)
    }

    /// A value read back by a call (`what`, now `got`) against the
    /// script's `want`: a number, else the call is unsupported.
    fn expect_value(&self, what: &str, want: &Value, got: i64) -> Result<(), Failure> {
        let w = self
            .eval_int(want)
            .ok_or_else(|| self.unsupported(format!("{what}: not a number")))?;
        if w != got {
            return Err(self
                .fail(
                    FailureKind::SyscallResult,
                    format!("{what} is {got}, expected {w}"),
                )
                .expected(w.to_string())
                .actual(got.to_string()));
        }
        Ok(())
    }

    fn arg<'v>(&self, s: &'v SyscallSpec, k: usize) -> Result<&'v Value, Failure> {
        s.args
            .get(k)
            .ok_or_else(|| self.unsupported(format!("{}: missing argument {}", s.name, k + 1)))
    }

    fn int_arg(&self, s: &SyscallSpec, k: usize) -> Result<i64, Failure> {
        let v = self.arg(s, k)?;
        self.eval_int(v).ok_or_else(|| {
            self.unsupported(format!("{}: argument {} is not a number", s.name, k + 1))
        })
    }

    /// A number, a known constant, or an `|` of them.
    fn eval_int(&self, v: &Value) -> Option<i64> {
        match v {
            Value::Word(w) => parse_uint(w)
                .and_then(|n| i64::try_from(n).ok())
                .or_else(|| self.constant(w)),
            Value::Neg(x) => self.eval_int(x).map(|n| -n),
            Value::Or(alts) => alts
                .iter()
                .try_fold(0i64, |acc, a| Some(acc | self.eval_int(a)?)),
            Value::Call(name, args) if name == "htons" || name == "htonl" => {
                args.first().and_then(|a| self.eval_int(a))
            }
            _ => None,
        }
    }

    fn constant(&self, name: &str) -> Option<i64> {
        Some(match name {
            "O_RDONLY" => 0,
            "O_WRONLY" => 1,
            "O_RDWR" => 2,
            "O_NONBLOCK" => o_nonblock(&self.cfg.platform),
            "F_GETFL" => 3,
            "F_SETFL" => 4,
            "SHUT_RD" => 0,
            "SHUT_WR" => 1,
            "SHUT_RDWR" => 2,
            "SCTP_BINDX_ADD_ADDR" => 1,
            "SCTP_BINDX_REM_ADDR" => 2,
            _ => {
                return sendv::api_constant(name, &self.cfg.platform)
                    .or_else(|| streams::api_constant(name));
            }
        })
    }

    fn fd_arg(&self, s: &SyscallSpec) -> Result<i64, Failure> {
        self.int_arg(s, 0)
    }

    fn word<'v>(&self, s: &'v SyscallSpec, k: usize) -> Result<&'v str, Failure> {
        match self.arg(s, k)? {
            Value::Word(w) => Ok(w),
            other => Err(self.unsupported(format!(
                "{}: argument {} should be a name, found {}",
                s.name,
                k + 1,
                other.describe()
            ))),
        }
    }

    /// Runs one system call and checks its result against the script.
    pub(crate) fn syscall(&mut self, s: &SyscallSpec) -> Result<(), Failure> {
        let outcome = match s.name.as_str() {
            "socket" => self.sys_socket(s)?,
            "bind" => self.with_socket(s, |_, _| Ok(Outcome::Ok(0)))?,
            "listen" => self.sys_listen(s)?,
            "fcntl" => self.sys_fcntl(s)?,
            "setsockopt" => self.sys_setsockopt(s)?,
            "getsockopt" => self.sys_getsockopt(s)?,
            "connect" => self.sys_connect(s)?,
            "sctp_connectx" => self.sys_connectx(s)?,
            "accept" => self.sys_accept(s)?,
            "close" => self.sys_close(s)?,
            "shutdown" => self.sys_shutdown(s)?,
            "write" | "send" => self.sys_write(s)?,
            "read" | "recv" => self.sys_read(s)?,
            "sctp_bindx" => self.sys_bindx(s)?,
            "sctp_getpaddrs" | "sctp_getladdrs" => self.sys_getaddrs(s)?,
            "sctp_sendv" => self.sys_sendv(s)?,
            "sctp_sendmsg" => self.sys_sendmsg(s)?,
            "sctp_recvv" => self.sys_recvv(s)?,
            "engine_event" => self.sys_engine_event(s)?,
            other => return Err(self.unsupported(format!("system call {other} is not supported"))),
        };
        let line = self.line;
        self.note(|| format!("line {line}: {} returned {outcome:?}", s.name));
        self.check_outcome(s, &outcome)
    }

    fn check_outcome(&self, s: &SyscallSpec, got: &Outcome) -> Result<(), Failure> {
        let expected = match &s.ret {
            Value::Any => None,
            v => Some(self.eval_int(v).ok_or_else(|| {
                self.unsupported(format!(
                    "{}: cannot read return value {}",
                    s.name,
                    v.describe()
                ))
            })?),
        };
        let (ret, errno) = match got {
            Outcome::Ok(n) => (*n, None),
            Outcome::Err(e) => (-1, Some(*e)),
        };
        let shown = match errno {
            Some(e) => format!("{ret} {e}"),
            None => ret.to_string(),
        };
        let wanted = match (&expected, &s.errno) {
            (Some(n), Some(e)) => format!("{n} {e}"),
            (Some(n), None) => n.to_string(),
            (None, _) => "...".to_string(),
        };
        let ok_ret = expected.is_none_or(|n| n == ret);
        let ok_errno = match (&s.errno, errno) {
            (Some(want), Some(got)) => errno_eq(want, got),
            (Some(_), None) => false,
            (None, _) => true,
        };
        if ok_ret && ok_errno {
            return Ok(());
        }
        Err(self
            .fail(
                FailureKind::SyscallResult,
                format!("{} returned {shown}, expected {wanted}", s.name),
            )
            .expected(wanted)
            .actual(shown))
    }

    fn with_socket(
        &mut self,
        s: &SyscallSpec,
        f: impl FnOnce(&mut Self, i64) -> Result<Outcome, Failure>,
    ) -> Result<Outcome, Failure> {
        let fd = self.fd_arg(s)?;
        if self.sockets.get(fd).is_none() {
            return Ok(Outcome::Err("EBADF"));
        }
        f(self, fd)
    }

    fn sys_socket(&mut self, s: &SyscallSpec) -> Result<Outcome, Failure> {
        let ty = self.word(s, 1)?;
        let proto = self.word(s, 2)?;
        if proto != "IPPROTO_SCTP" {
            return Err(self.unsupported(format!("socket: protocol {proto} is not SCTP")));
        }
        if ty != "SOCK_STREAM" {
            return Err(self.unsupported(format!(
                "socket: only one-to-one style (SOCK_STREAM) sockets are supported, not {ty}"
            )));
        }
        if self.sockets.list.len() >= MAX_SOCKETS {
            return Ok(Outcome::Err("EMFILE"));
        }
        let fd = self.sockets.next_fd();
        let cfg = self.default_assoc_config();
        self.sockets.list.push(Socket::new(fd, cfg));
        Ok(Outcome::Ok(fd))
    }

    fn sys_listen(&mut self, s: &SyscallSpec) -> Result<Outcome, Failure> {
        self.with_socket(s, |r, fd| {
            let Some(sock) = r.sockets.get(fd) else {
                return Ok(Outcome::Err("EBADF"));
            };
            if sock.assoc().is_some() {
                return Ok(Outcome::Err("EINVAL"));
            }
            let cfg = sock.cfg.clone();
            let line = r.line;
            let ep = r.endpoint(&cfg)?;
            if let Err(e) = ep.set_association_defaults(cfg) {
                return Err(Failure::new(line, FailureKind::Unsupported, e.to_string()));
            }
            ep.set_listening(true);
            if let Some(sock) = r.sockets.get_mut(fd) {
                sock.state = SockState::Listening;
            }
            Ok(Outcome::Ok(0))
        })
    }

    fn sys_fcntl(&mut self, s: &SyscallSpec) -> Result<Outcome, Failure> {
        let cmd = self.int_arg(s, 1)?;
        let nb = o_nonblock(&self.cfg.platform);
        let flags = if cmd == 4 {
            Some(self.int_arg(s, 2)?)
        } else {
            None
        };
        self.with_socket(s, |r, fd| {
            let Some(sock) = r.sockets.get_mut(fd) else {
                return Ok(Outcome::Err("EBADF"));
            };
            match (cmd, flags) {
                (3, _) => Ok(Outcome::Ok(2 | if sock.nonblocking { nb } else { 0 })),
                (4, Some(f)) => {
                    sock.nonblocking = f & nb != 0;
                    Ok(Outcome::Ok(0))
                }
                _ => Ok(Outcome::Err("EINVAL")),
            }
        })
    }

    fn sys_connect(&mut self, s: &SyscallSpec) -> Result<Outcome, Failure> {
        let remote = self.opts_remote();
        self.connect_to(s, &[remote])
    }

    /// `sctp_connectx(fd, [addrs], n, [id])` (RFC 6458 section 9.9): as
    /// `connect`, with every listed peer address (`[...]`: the script's
    /// address); each must be one the script owns (`--remote_ip`,
    /// `--remote_ip2`). The association identifier is not checked
    /// (one-to-one sockets).
    fn sys_connectx(&mut self, s: &SyscallSpec) -> Result<Outcome, Failure> {
        let addrs = if is_any_list(self.arg(s, 1)?) {
            vec![self.opts_remote()]
        } else {
            self.addr_list(s, 1)?
                .ok_or_else(|| self.unsupported("sctp_connectx needs the addresses"))?
        };
        let n = self.int_arg(s, 2)?;
        if addrs.is_empty() || usize::try_from(n).ok() != Some(addrs.len()) {
            return Ok(Outcome::Err("EINVAL"));
        }
        let owned = [Some(self.opts_remote()), self.script.options.remote_ip2];
        if let Some(a) = addrs.iter().find(|a| !owned.contains(&Some(**a))) {
            return Err(self.unsupported(format!(
                "sctp_connectx: {a} is not an address of the script (--remote_ip, --remote_ip2)"
            )));
        }
        // FreeBSD's sctp_connectx (a socket option underneath) returns 0
        // on a non-blocking socket, Linux's EINPROGRESS as connect does.
        match self.connect_to(s, &addrs)? {
            Outcome::Err("EINPROGRESS") if self.cfg.platform != "Linux" => Ok(Outcome::Ok(0)),
            other => Ok(other),
        }
    }

    fn connect_to(&mut self, s: &SyscallSpec, remotes: &[IpAddr]) -> Result<Outcome, Failure> {
        let fd = self.fd_arg(s)?;
        let Some(sock) = self.sockets.get(fd) else {
            return Ok(Outcome::Err("EBADF"));
        };
        match sock.state {
            SockState::Assoc(_) => return Ok(Outcome::Err("EISCONN")),
            SockState::Listening => return Ok(Outcome::Err("EOPNOTSUPP")),
            SockState::Fresh => {}
        }
        if !sock.nonblocking {
            return Err(self.unsupported(
                "connect on a blocking socket (it would wait for packets the script sends later)",
            ));
        }
        let cfg = sock.cfg.clone();
        let now = self.now;
        let ep = self.endpoint(&cfg)?;
        match ep.connect_with(now, remotes, REMOTE_PORT, cfg) {
            Ok(id) => {
                if let Some(sock) = self.sockets.get_mut(fd) {
                    sock.state = SockState::Assoc(id);
                }
                Ok(Outcome::Err("EINPROGRESS"))
            }
            Err(msctp_proto::endpoint::ConnectError::Exists) => Ok(Outcome::Err("EADDRINUSE")),
            Err(msctp_proto::endpoint::ConnectError::TooManyAssociations(_)) => {
                Ok(Outcome::Err("EAGAIN"))
            }
            Err(e) => Err(self.unsupported(format!("{}: {e}", s.name))),
        }
    }

    fn opts_remote(&self) -> IpAddr {
        self.script.options.remote_ip
    }

    fn sys_accept(&mut self, s: &SyscallSpec) -> Result<Outcome, Failure> {
        let fd = self.fd_arg(s)?;
        let Some(sock) = self.sockets.get_mut(fd) else {
            return Ok(Outcome::Err("EBADF"));
        };
        if sock.state != SockState::Listening {
            return Ok(Outcome::Err("EINVAL"));
        }
        let nonblocking = sock.nonblocking;
        let cfg = sock.cfg.clone();
        let inherited = (
            sock.default_prinfo,
            sock.recv_rcvinfo,
            sock.recv_nxtinfo,
            sock.fragment_interleave,
            sock.reset_mask,
        );
        let Some(id) = sock.accept_queue.pop_front() else {
            if nonblocking {
                return Ok(Outcome::Err("EAGAIN"));
            }
            return Err(self.unsupported(
                "accept on a blocking socket with no association ready (it would wait)",
            ));
        };
        if self.sockets.list.len() >= MAX_SOCKETS {
            return Ok(Outcome::Err("EMFILE"));
        }
        let new_fd = self.sockets.next_fd();
        let mut ns = Socket::new(new_fd, cfg);
        ns.state = SockState::Assoc(id);
        (
            ns.default_prinfo,
            ns.recv_rcvinfo,
            ns.recv_nxtinfo,
            ns.fragment_interleave,
            ns.reset_mask,
        ) = inherited;
        if self.ep.as_ref().and_then(|e| e.association(id)).is_none() {
            ns.closed = Some(msctp_proto::CloseReason::Shutdown);
        }
        self.sockets.list.push(ns);
        Ok(Outcome::Ok(new_fd))
    }

    fn sys_close(&mut self, s: &SyscallSpec) -> Result<Outcome, Failure> {
        let fd = self.fd_arg(s)?;
        let Some(sock) = self.sockets.remove(fd) else {
            return Ok(Outcome::Err("EBADF"));
        };
        let now = self.now;
        match sock.state {
            SockState::Listening => {
                let other_listener = self
                    .sockets
                    .list
                    .iter()
                    .any(|s| s.state == SockState::Listening);
                if !other_listener && let Some(ep) = self.ep.as_mut() {
                    ep.set_listening(false);
                }
            }
            SockState::Assoc(id) => {
                if let Some(a) = self.ep.as_mut().and_then(|e| e.association_mut(id)) {
                    a.shutdown(now);
                }
            }
            SockState::Fresh => {}
        }
        Ok(Outcome::Ok(0))
    }

    fn sys_shutdown(&mut self, s: &SyscallSpec) -> Result<Outcome, Failure> {
        let how = self.int_arg(s, 1)?;
        let fd = self.fd_arg(s)?;
        let Some(sock) = self.sockets.get(fd) else {
            return Ok(Outcome::Err("EBADF"));
        };
        let Some(id) = sock.assoc() else {
            return Ok(Outcome::Err("ENOTCONN"));
        };
        if how == 0 {
            // SHUT_RD has no protocol action.
            return Ok(Outcome::Ok(0));
        }
        let now = self.now;
        match self.ep.as_mut().and_then(|e| e.association_mut(id)) {
            Some(a) if !a.is_closed() => {
                a.shutdown(now);
                Ok(Outcome::Ok(0))
            }
            _ => Ok(Outcome::Err("ENOTCONN")),
        }
    }

    fn sys_write(&mut self, s: &SyscallSpec) -> Result<Outcome, Failure> {
        let len = self.int_arg(s, 2)?;
        let fd = self.fd_arg(s)?;
        let Some(sock) = self.sockets.get(fd) else {
            return Ok(Outcome::Err("EBADF"));
        };
        let prinfo = sock.default_prinfo;
        let policy = match self.pr_policy(prinfo) {
            Some(p) => p,
            None => return Ok(Outcome::Err("EINVAL")),
        };
        let opts = SendOptions {
            policy,
            ..SendOptions::default()
        };
        self.send_message(fd, len, 0, 0, &opts)
    }

    /// Queues one message of `len` zero bytes on the socket's association
    /// (`write`, `sctp_sendv`, `sctp_sendmsg`).
    fn send_message(
        &mut self,
        fd: i64,
        len: i64,
        stream: u16,
        ppid: u32,
        opts: &SendOptions,
    ) -> Result<Outcome, Failure> {
        let len = u64::try_from(len)
            .ok()
            .filter(|n| *n <= MAX_WRITE)
            .ok_or_else(|| self.unsupported(format!("write of {len} bytes")))?;
        let Some(sock) = self.sockets.get(fd) else {
            return Ok(Outcome::Err("EBADF"));
        };
        let Some(id) = sock.assoc() else {
            return Ok(Outcome::Err("ENOTCONN"));
        };
        let nonblocking = sock.nonblocking;
        if sock.closed.is_some() {
            return Ok(Outcome::Err("EPIPE"));
        }
        let now = self.now;
        let Some(a) = self.ep.as_mut().and_then(|e| e.association_mut(id)) else {
            return Ok(Outcome::Err("EPIPE"));
        };
        let data = Bytes::from(vec![0u8; len as usize]);
        Ok(match a.send_with(now, stream, ppid, data, opts) {
            Ok(()) => Outcome::Ok(len as i64),
            Err(SendError::NotConnected) => Outcome::Err("ENOTCONN"),
            Err(SendError::ShuttingDown) => Outcome::Err("EPIPE"),
            Err(SendError::InvalidStream(_)) => Outcome::Err("EINVAL"),
            Err(SendError::TooLarge(_)) => Outcome::Err("EMSGSIZE"),
            Err(SendError::Empty) => Outcome::Ok(0),
            Err(SendError::BufferFull) => {
                if nonblocking {
                    Outcome::Err("EAGAIN")
                } else {
                    return Err(self.unsupported("write on a blocking socket with a full buffer"));
                }
            }
        })
    }

    fn sys_read(&mut self, s: &SyscallSpec) -> Result<Outcome, Failure> {
        let want = self.int_arg(s, 2)?;
        let want = usize::try_from(want).unwrap_or(0);
        let fd = self.fd_arg(s)?;
        Ok(self.receive(fd, want)?.outcome)
    }

    /// Takes up to `want` bytes of the next message (`read`,
    /// `sctp_recvv`); the rest of a message stays for the next call.
    fn receive(&mut self, fd: i64, want: usize) -> Result<Received, Failure> {
        let plain = |outcome| Received {
            outcome,
            meta: None,
            complete: false,
        };
        let Some(sock) = self.sockets.get_mut(fd) else {
            return Ok(plain(Outcome::Err("EBADF")));
        };
        if let Some(rest) = sock.partial.take() {
            let n = rest.len().min(want);
            if n < rest.len() {
                sock.partial = Some(rest.slice(n..));
            }
            return Ok(Received {
                outcome: Outcome::Ok(n as i64),
                meta: None,
                complete: n == rest.len(),
            });
        }
        let Some(id) = sock.assoc() else {
            return Ok(plain(Outcome::Err("ENOTCONN")));
        };
        let nonblocking = sock.nonblocking;
        let closed = sock.closed.clone();
        let msg_and_state = self
            .ep
            .as_mut()
            .and_then(|e| e.association_mut(id))
            .map(|a| (a.recv(), a.state()));
        let outcome = match msg_and_state {
            Some((Some(m), _)) => {
                let n = m.data.len().min(want);
                if n < m.data.len()
                    && let Some(sock) = self.sockets.get_mut(fd)
                {
                    sock.partial = Some(m.data.slice(n..));
                }
                return Ok(Received {
                    outcome: Outcome::Ok(n as i64),
                    meta: Some((m.stream, m.ppid, m.unordered)),
                    complete: n == m.data.len(),
                });
            }
            Some((None, State::ShutdownReceived | State::ShutdownAckSent)) => Outcome::Ok(0),
            Some((None, State::Closed)) | None => match closed {
                Some(msctp_proto::CloseReason::Shutdown) | None => Outcome::Ok(0),
                Some(reason) => {
                    Outcome::Err(crate::sockets::close_errno(&reason).unwrap_or("ECONNRESET"))
                }
            },
            Some((None, _)) => {
                if nonblocking {
                    Outcome::Err("EAGAIN")
                } else {
                    return Err(
                        self.unsupported("read on a blocking socket with no data (it would wait)")
                    );
                }
            }
        };
        Ok(plain(outcome))
    }

    fn addr_list(&self, s: &SyscallSpec, k: usize) -> Result<Option<Vec<IpAddr>>, Failure> {
        let r = Reader { line: self.line };
        match self.arg(s, k)? {
            Value::Any => Ok(None),
            Value::List(items) => items
                .iter()
                .map(|v| r.ip(v, &s.name).map_err(|e| self.unsupported(e.message)))
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            other => Err(self.unsupported(format!(
                "{}: expected an address list, found {}",
                s.name,
                other.describe()
            ))),
        }
    }

    /// `engine_event(fd, NAME[, {addr=A, accepted=0|1}]) = 0`: the engine
    /// reported this event for the socket's association and no earlier
    /// `engine_event` call took it (each call takes the oldest matching
    /// one); `-1 ENOENT` when there is none. An extension: the engine's
    /// events stand for the RFC 6458 notifications the interpreter does
    /// not model.
    fn sys_engine_event(&mut self, s: &SyscallSpec) -> Result<Outcome, Failure> {
        let name = self.word(s, 1)?.to_string();
        let (want_addr, want_accepted) = match s.args.get(2) {
            None | Some(Value::Any) => (None, None),
            Some(Value::Struct(fields)) => {
                let mut addr = None;
                let mut accepted = None;
                for (k, v) in fields {
                    match (k.as_str(), v) {
                        (_, Value::Any) => {}
                        ("addr", v) => {
                            addr = Some(
                                Reader { line: self.line }
                                    .ip(v, "addr")
                                    .map_err(|e| self.unsupported(e.message))?,
                            )
                        }
                        ("accepted", v) => accepted = self.eval_int(v).map(|n| n != 0),
                        (other, _) => {
                            return Err(self.unsupported(format!("engine_event field {other}")));
                        }
                    }
                }
                (addr, accepted)
            }
            Some(other) => {
                return Err(self.unsupported(format!(
                    "engine_event: expected {{...}}, found {}",
                    other.describe()
                )));
            }
        };
        let fd = self.fd_arg(s)?;
        let Some(id) = self.sockets.get(fd).and_then(|x| x.assoc()) else {
            return Ok(Outcome::Err("ENOTCONN"));
        };
        let Some(log) = self.events.get_mut(&id) else {
            return Ok(Outcome::Err("ENOENT"));
        };
        let found = log.iter().position(|e| {
            let (n, addr) = event_name(e);
            let accepted = match e {
                EngineEvent::PeerPrimaryRequest { accepted, .. } => Some(*accepted),
                _ => None,
            };
            n == name
                && want_addr.is_none_or(|w| addr == Some(w))
                && want_accepted.is_none_or(|w| accepted == Some(w))
        });
        match found {
            Some(k) => {
                log.remove(k);
                Ok(Outcome::Ok(0))
            }
            None => Ok(Outcome::Err("ENOENT")),
        }
    }

    /// `sctp_bindx(fd, [addrs], count, SCTP_BINDX_ADD_ADDR | _REM_ADDR)`:
    /// adds or removes local addresses of the association (RFC 6458
    /// section 9.1), which the engine announces with ASCONF.
    fn sys_bindx(&mut self, s: &SyscallSpec) -> Result<Outcome, Failure> {
        if is_any_list(self.arg(s, 1)?) {
            // `[...]`: the socket's own address, as `bind(fd, ..., ...)`;
            // before an association there is nothing to change.
            let fd = self.fd_arg(s)?;
            return match self.sockets.get(fd) {
                None => Ok(Outcome::Err("EBADF")),
                Some(x) if x.assoc().is_none() => Ok(Outcome::Ok(0)),
                Some(_) => Err(self.unsupported("sctp_bindx [...] on an association")),
            };
        }
        let addrs = self
            .addr_list(s, 1)?
            .ok_or_else(|| self.unsupported("sctp_bindx needs the addresses"))?;
        let flags = self.int_arg(s, 3)?;
        let fd = self.fd_arg(s)?;
        let Some(id) = self.sockets.get(fd).and_then(|x| x.assoc()) else {
            return Err(self.unsupported("sctp_bindx is supported on connected sockets only"));
        };
        let Some(a) = self.ep.as_mut().and_then(|e| e.association_mut(id)) else {
            return Ok(Outcome::Err("ENOTCONN"));
        };
        for addr in addrs {
            let r = match flags {
                1 => a.add_local_address(addr),
                2 => a.remove_local_address(addr),
                _ => return Ok(Outcome::Err("EINVAL")),
            };
            if let Err(e) = r {
                return Ok(Outcome::Err(address_errno(&e)));
            }
        }
        Ok(Outcome::Ok(0))
    }

    /// `sctp_getpaddrs(fd, id, [addrs]) = n` / `sctp_getladdrs(...)`: the
    /// association's peer (local) addresses, compared as a set; local
    /// addresses count only once usable (acknowledged by the peer).
    fn sys_getaddrs(&mut self, s: &SyscallSpec) -> Result<Outcome, Failure> {
        let want = self.addr_list(s, 2)?;
        let fd = self.fd_arg(s)?;
        let Some(a) = self.assoc_of(fd) else {
            return Ok(Outcome::Err("ENOTCONN"));
        };
        let mut got: Vec<IpAddr> = if s.name == "sctp_getpaddrs" {
            a.paths().iter().map(|p| p.remote).collect()
        } else {
            a.local_addresses()
                .iter()
                .filter(|l| l.state != LocalAddrState::AddPending)
                .map(|l| l.addr)
                .collect()
        };
        got.sort();
        if let Some(mut w) = want {
            w.sort();
            if w != got {
                let show = |v: &[IpAddr]| {
                    v.iter()
                        .map(|a| a.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                return Err(self
                    .fail(
                        FailureKind::SyscallResult,
                        format!(
                            "{} returned [{}], expected [{}]",
                            s.name,
                            show(&got),
                            show(&w)
                        ),
                    )
                    .expected(show(&w))
                    .actual(show(&got)));
            }
        }
        Ok(Outcome::Ok(got.len() as i64))
    }
}

/// An engine event's name in scripts, and its address if it has one.
fn event_name(e: &EngineEvent) -> (&'static str, Option<IpAddr>) {
    match e {
        EngineEvent::Connected => ("CONNECTED", None),
        EngineEvent::Closed { .. } => ("CLOSED", None),
        EngineEvent::Restarted => ("RESTARTED", None),
        EngineEvent::Readable => ("READABLE", None),
        EngineEvent::Writable => ("WRITABLE", None),
        EngineEvent::PathUp { addr } => ("PATH_UP", Some(*addr)),
        EngineEvent::PathDown { addr } => ("PATH_DOWN", Some(*addr)),
        EngineEvent::PathPotentiallyFailed { addr } => ("PATH_POTENTIALLY_FAILED", Some(*addr)),
        EngineEvent::PathConfirmed { addr } => ("PATH_CONFIRMED", Some(*addr)),
        EngineEvent::PeerAddressAdded { addr } => ("PEER_ADDRESS_ADDED", Some(*addr)),
        EngineEvent::PeerAddressRemoved { addr } => ("PEER_ADDRESS_REMOVED", Some(*addr)),
        EngineEvent::PrimaryChanged { addr, .. } => ("PRIMARY_CHANGED", Some(*addr)),
        EngineEvent::LocalAddressAdded { addr } => ("LOCAL_ADDRESS_ADDED", Some(*addr)),
        EngineEvent::LocalAddressAddFailed { addr, .. } => {
            ("LOCAL_ADDRESS_ADD_FAILED", Some(*addr))
        }
        EngineEvent::LocalAddressRemoved { addr } => ("LOCAL_ADDRESS_REMOVED", Some(*addr)),
        EngineEvent::LocalAddressRemoveFailed { addr, .. } => {
            ("LOCAL_ADDRESS_REMOVE_FAILED", Some(*addr))
        }
        EngineEvent::PeerPrimaryRequest { addr, .. } => ("PEER_PRIMARY_REQUEST", Some(*addr)),
        EngineEvent::AsconfUnsupported => ("ASCONF_UNSUPPORTED", None),
        EngineEvent::Adaptation { .. } => ("ADAPTATION", None),
        EngineEvent::PeerError { .. } => ("PEER_ERROR", None),
        EngineEvent::AuthenticationFailure => ("AUTHENTICATION_FAILURE", None),
        EngineEvent::SendFailed { .. } => ("SEND_FAILED", None),
        EngineEvent::Reconfig(_) => ("STREAM_RECONFIG", None),
    }
}

fn address_errno(e: &AddressError) -> &'static str {
    match e {
        AddressError::AlreadyPresent => "EADDRINUSE",
        AddressError::Unknown => "EADDRNOTAVAIL",
        AddressError::Limit => "ENOBUFS",
        AddressError::Asconf(AsconfError::NotSupported) => "EOPNOTSUPP",
        AddressError::Asconf(AsconfError::QueueFull) => "EAGAIN",
        AddressError::Asconf(AsconfError::BadAddress) => "EINVAL",
        AddressError::Asconf(AsconfError::LastAddress) => "EINVAL",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonblock_flag_follows_the_platform() {
        assert_eq!(o_nonblock("Linux"), 0o4000);
        assert_eq!(o_nonblock("FreeBSD"), 4);
    }

    #[test]
    fn address_errors_have_errno_names() {
        assert_eq!(address_errno(&AddressError::Unknown), "EADDRNOTAVAIL");
        assert_eq!(
            address_errno(&AddressError::Asconf(AsconfError::NotSupported)),
            "EOPNOTSUPP"
        );
    }
}
