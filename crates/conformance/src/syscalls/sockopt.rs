//! `setsockopt` and `getsockopt`: SO_ERROR, SCTP_RTOINFO, SCTP_INITMSG,
//! SCTP_PEER_ADDR_PARAMS, SCTP_STATUS, SCTP_PRIMARY_ADDR,
//! SCTP_SET_PEER_PRIMARY_ADDR (RFC 6458 section 8) and the options of
//! partial reliability (handed to [`super::sendv`]), of I-DATA and of
//! stream reconfiguration (handed to [`super::streams`]), mapped to the
//! engine's configuration and state.

use std::time::Duration;

use msctp_proto::State;

use super::{Outcome, address_errno};
use crate::error::{Failure, FailureKind};
use crate::runner::Run;
use crate::script::SyscallSpec;
use crate::sockets::{SockState, errno_eq};
use crate::value::{Reader, Value};

impl Run<'_> {
    pub(super) fn struct_fields<'v>(
        &self,
        s: &'v SyscallSpec,
        k: usize,
    ) -> Result<&'v [(String, Value)], Failure> {
        match self.arg(s, k)? {
            Value::Struct(f) => Ok(f),
            other => Err(self.unsupported(format!(
                "{}: expected {{...}}, found {}",
                s.name,
                other.describe()
            ))),
        }
    }

    pub(super) fn field_ms(&self, v: &Value, what: &str) -> Result<Option<Duration>, Failure> {
        match v {
            Value::Any => Ok(None),
            v => {
                let n = self
                    .eval_int(v)
                    .filter(|n| *n >= 0)
                    .ok_or_else(|| self.unsupported(format!("{what}: not a number")))?;
                Ok(if n == 0 {
                    None
                } else {
                    Some(Duration::from_millis(n as u64))
                })
            }
        }
    }

    // Long because: one arm per socket option, each a few lines.
    pub(super) fn sys_setsockopt(&mut self, s: &SyscallSpec) -> Result<Outcome, Failure> {
        let level = self.word(s, 1)?.to_string();
        let name = self.word(s, 2)?.to_string();
        if let Some(done) = self.pr_setsockopt(s, &name)? {
            return Ok(done);
        }
        if let Some(done) = self.stream_setsockopt(s, &name)? {
            return Ok(done);
        }
        let fields: Vec<(String, Value)> = match self.arg(s, 3)? {
            Value::Struct(f) => f.clone(),
            _ => Vec::new(),
        };
        let fd = self.fd_arg(s)?;
        let Some(sock) = self.sockets.get(fd) else {
            return Ok(Outcome::Err("EBADF"));
        };
        let assoc = sock.assoc();
        let mut cfg = sock.cfg.clone();
        if level != "IPPROTO_SCTP" {
            return Err(self.unsupported(format!("setsockopt level {level}")));
        }
        let get = |n: &str| fields.iter().find(|(k, _)| k == n).map(|(_, v)| v);
        match name.as_str() {
            "SCTP_RTOINFO" => {
                if assoc.is_some() {
                    return Err(self.unsupported("SCTP_RTOINFO on an association"));
                }
                if let Some(v) = get("srto_initial")
                    && let Some(d) = self.field_ms(v, "srto_initial")?
                {
                    cfg.rto_initial = d;
                }
                if let Some(v) = get("srto_max")
                    && let Some(d) = self.field_ms(v, "srto_max")?
                {
                    cfg.rto_max = d;
                }
                if let Some(v) = get("srto_min")
                    && let Some(d) = self.field_ms(v, "srto_min")?
                {
                    cfg.rto_min = d;
                }
            }
            "SCTP_INITMSG" => {
                if assoc.is_some() {
                    return Err(self.unsupported("SCTP_INITMSG on an association"));
                }
                let num = |k: &str| -> Result<Option<i64>, Failure> {
                    match get(k) {
                        None | Some(Value::Any) => Ok(None),
                        Some(v) => self
                            .eval_int(v)
                            .filter(|n| *n >= 0)
                            .map(|n| if n == 0 { None } else { Some(n) })
                            .ok_or_else(|| self.unsupported(format!("{k}: not a number"))),
                    }
                };
                if let Some(n) = num("sinit_num_ostreams")? {
                    cfg.outbound_streams = u16::try_from(n).unwrap_or(u16::MAX);
                }
                if let Some(n) = num("sinit_max_instreams")? {
                    cfg.max_inbound_streams = u16::try_from(n).unwrap_or(u16::MAX);
                }
                if let Some(n) = num("sinit_max_attempts")? {
                    cfg.max_init_retrans = u32::try_from(n).unwrap_or(u32::MAX);
                }
                // sinit_max_init_timeo: the engine has one RTO.Max for all
                // timers; the value is accepted and not applied.
                num("sinit_max_init_timeo")?;
            }
            "SCTP_PEER_ADDR_PARAMS" => {
                let flags = match get("spp_flags") {
                    None | Some(Value::Any) => Vec::new(),
                    Some(Value::Or(alts)) => alts.iter().map(|a| a.describe()).collect(),
                    Some(v) => vec![v.describe()],
                };
                let interval = match get("spp_hbinterval") {
                    Some(v) => self.field_ms(v, "spp_hbinterval")?,
                    None => None,
                };
                let hb = if flags.iter().any(|f| f == "SPP_HB_DISABLE") {
                    Some(None)
                } else if flags.iter().any(|f| f == "SPP_HB_ENABLE") {
                    Some(interval.or(cfg.heartbeat_interval))
                } else {
                    None
                };
                let pmr = match get("spp_pathmaxrxt") {
                    None | Some(Value::Any) => None,
                    Some(v) => self
                        .eval_int(v)
                        .filter(|n| *n > 0)
                        .and_then(|n| u32::try_from(n).ok()),
                };
                if let Some(id) = assoc {
                    let now = self.now;
                    let Some(a) = self.ep.as_mut().and_then(|e| e.association_mut(id)) else {
                        return Ok(Outcome::Err("EINVAL"));
                    };
                    if let Some(h) = hb {
                        a.set_heartbeat_interval(h, now);
                    }
                    if let Some(p) = pmr {
                        a.set_path_max_retrans(p);
                    }
                    return Ok(Outcome::Ok(0));
                }
                if let Some(h) = hb {
                    cfg.heartbeat_interval = h;
                }
                if let Some(p) = pmr {
                    cfg.path_max_retrans = p;
                }
            }
            "SCTP_PRIMARY_ADDR" | "SCTP_SET_PEER_PRIMARY_ADDR" => {
                let key = if name == "SCTP_PRIMARY_ADDR" {
                    "ssp_addr"
                } else {
                    "sspp_addr"
                };
                let addr = get(key)
                    .ok_or_else(|| self.unsupported(format!("{name}: {key} missing")))
                    .and_then(|v| {
                        Reader { line: self.line }
                            .ip(v, key)
                            .map_err(|e| self.unsupported(e.message))
                    })?;
                let Some(id) = assoc else {
                    return Ok(Outcome::Err("ENOTCONN"));
                };
                let Some(a) = self.ep.as_mut().and_then(|e| e.association_mut(id)) else {
                    return Ok(Outcome::Err("ENOTCONN"));
                };
                let r = if name == "SCTP_PRIMARY_ADDR" {
                    a.set_primary(addr)
                } else {
                    a.request_peer_primary(addr)
                };
                return Ok(match r {
                    Ok(()) => Outcome::Ok(0),
                    Err(e) => Outcome::Err(address_errno(&e)),
                });
            }
            other => return Err(self.unsupported(format!("setsockopt {other}"))),
        }
        if let Err(e) = cfg.validate() {
            let _ = e;
            return Ok(Outcome::Err("EINVAL"));
        }
        let listening = matches!(
            self.sockets.get(fd).map(|s| &s.state),
            Some(SockState::Listening)
        );
        if let Some(sock) = self.sockets.get_mut(fd) {
            sock.cfg = cfg.clone();
        }
        let line = self.line;
        if listening && let Some(ep) = self.ep.as_mut() {
            ep.set_association_defaults(cfg)
                .map_err(|e| Failure::new(line, FailureKind::Unsupported, e.to_string()))?;
        }
        Ok(Outcome::Ok(0))
    }

    pub(super) fn sys_getsockopt(&mut self, s: &SyscallSpec) -> Result<Outcome, Failure> {
        let level = self.word(s, 1)?.to_string();
        let name = self.word(s, 2)?.to_string();
        let fd = self.fd_arg(s)?;
        if self.sockets.get(fd).is_none() {
            return Ok(Outcome::Err("EBADF"));
        }
        match (level.as_str(), name.as_str()) {
            ("SOL_SOCKET", "SO_ERROR") => {
                let expected = match self.arg(s, 3)? {
                    Value::List(v) => v.first().cloned().unwrap_or(Value::Any),
                    v => v.clone(),
                };
                let got = self
                    .sockets
                    .get_mut(fd)
                    .and_then(|s| s.pending_error.take());
                let ok = match (&expected, got) {
                    (Value::Any, _) => true,
                    (Value::Word(w), None) => w == "0",
                    (Value::Word(w), Some(e)) => errno_eq(w, e),
                    _ => false,
                };
                if !ok {
                    let shown = got.unwrap_or("0");
                    return Err(self
                        .fail(
                            FailureKind::SyscallResult,
                            format!(
                                "getsockopt SO_ERROR is {shown}, expected {}",
                                expected.describe()
                            ),
                        )
                        .expected(expected.describe())
                        .actual(shown.to_string()));
                }
                Ok(Outcome::Ok(0))
            }
            ("IPPROTO_SCTP", "SCTP_STATUS") => self.sctp_status(s, fd),
            ("IPPROTO_SCTP", "SCTP_PR_SUPPORTED" | "SCTP_DEFAULT_PRINFO") => {
                self.pr_getsockopt(s, fd, &name)
            }
            (
                "IPPROTO_SCTP",
                "SCTP_INTERLEAVING_SUPPORTED"
                | "SCTP_FRAGMENT_INTERLEAVE"
                | "SCTP_ENABLE_STREAM_RESET",
            ) => self.stream_getsockopt(s, fd, &name),
            ("IPPROTO_SCTP", "SCTP_PRIMARY_ADDR") => {
                let fields = self.struct_fields(s, 3)?;
                let want = match fields.iter().find(|(k, _)| k == "ssp_addr") {
                    None | Some((_, Value::Any)) => None,
                    Some((_, v)) => Some(
                        Reader { line: self.line }
                            .ip(v, "ssp_addr")
                            .map_err(|e| self.unsupported(e.message))?,
                    ),
                };
                let Some(a) = self.assoc_of(fd) else {
                    return Ok(Outcome::Err("ENOTCONN"));
                };
                let got = a.primary();
                if let Some(w) = want
                    && got != Some(w)
                {
                    return Err(self.fail(
                        FailureKind::SyscallResult,
                        format!(
                            "SCTP_PRIMARY_ADDR is {}, expected {w}",
                            got.map_or("none".to_string(), |g| g.to_string())
                        ),
                    ));
                }
                Ok(Outcome::Ok(0))
            }
            _ => Err(self.unsupported(format!("getsockopt {level} {name}"))),
        }
    }

    pub(super) fn assoc_of(&self, fd: i64) -> Option<&msctp_proto::Association> {
        let id = self.sockets.get(fd)?.assoc()?;
        self.ep.as_ref()?.association(id)
    }

    pub(super) fn sctp_status(&mut self, s: &SyscallSpec, fd: i64) -> Result<Outcome, Failure> {
        let fields = self.struct_fields(s, 3)?.to_vec();
        let closed = self.sockets.get(fd).and_then(|x| x.closed.clone());
        let a = self.assoc_of(fd);
        let state = match (a, &closed) {
            (Some(a), _) => match a.state() {
                State::CookieWait => "SCTP_COOKIE_WAIT",
                State::CookieEchoed => "SCTP_COOKIE_ECHOED",
                State::Established => "SCTP_ESTABLISHED",
                State::ShutdownPending => "SCTP_SHUTDOWN_PENDING",
                State::ShutdownSent => "SCTP_SHUTDOWN_SENT",
                State::ShutdownReceived => "SCTP_SHUTDOWN_RECEIVED",
                State::ShutdownAckSent => "SCTP_SHUTDOWN_ACK_SENT",
                State::Closed => "SCTP_CLOSED",
            },
            (None, _) => "SCTP_CLOSED",
        };
        for (k, v) in &fields {
            if matches!(v, Value::Any) {
                continue;
            }
            let actual: String = match k.as_str() {
                "sstat_state" => state.to_string(),
                "sstat_outstrms" => a.map_or(0, |a| a.outbound_streams()).to_string(),
                "sstat_instrms" => a.map_or(0, |a| a.inbound_streams()).to_string(),
                other => {
                    return Err(self.unsupported(format!("SCTP_STATUS field {other} (use ...)")));
                }
            };
            let wanted = v.describe();
            let same = match (self.eval_int(v), actual.parse::<i64>()) {
                (Some(x), Ok(y)) => x == y,
                _ => wanted == actual,
            };
            if !same {
                return Err(self
                    .fail(
                        FailureKind::SyscallResult,
                        format!("SCTP_STATUS {k} is {actual}, expected {wanted}"),
                    )
                    .expected(wanted)
                    .actual(actual));
            }
        }
        Ok(Outcome::Ok(0))
    }
}
