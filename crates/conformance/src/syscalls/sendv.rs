//! The socket API of partial reliability and per-message options: the
//! calls `sctp_sendv` (RFC 6458 section 9.12), `sctp_sendmsg` (section
//! 9.7) and `sctp_recvv` (section 9.13), and the socket options
//! SCTP_PR_SUPPORTED (RFC 7496 section 4.5), SCTP_DEFAULT_PRINFO (section
//! 4.3), SCTP_RECVRCVINFO and SCTP_RECVNXTINFO (RFC 6458 sections 8.1.22,
//! 8.1.23). A message's `struct sctp_prinfo` (RFC 7496 section 4.1)
//! becomes the engine's [`PrPolicy`], its `snd_flags` the unordered and
//! SACK-IMMEDIATELY (RFC 7053 section 4.1) options of [`SendOptions`].
//!
//! The constants are the platform's (FreeBSD's `<netinet/sctp_uio.h>`,
//! Linux's `<linux/sctp.h>`): scripts write them by name and the values
//! differ. What the engine cannot do is an `Unsupported` failure naming
//! it, never a silent success.

use std::time::Duration;

use msctp_proto::association::{PrPolicy, SendOptions};

use super::{Outcome, Received};
use crate::error::{Failure, FailureKind};
use crate::runner::Run;
use crate::script::SyscallSpec;
use crate::sockets::PrInfo;
use crate::value::Value;

/// The named constants of this API on `platform`.
pub(super) fn api_constant(name: &str, platform: &str) -> Option<i64> {
    let linux = platform == "Linux";
    Some(match name {
        "NULL" => 0,
        "SCTP_PR_SCTP_NONE" => 0,
        "SCTP_PR_SCTP_TTL" => pick(linux, 0x10, 0x1),
        "SCTP_PR_SCTP_RTX" => pick(linux, 0x20, 0x3),
        "SCTP_PR_SCTP_PRIO" | "SCTP_PR_SCTP_BUF" => pick(linux, 0x30, 0x2),
        "SCTP_UNORDERED" => pick(linux, 0x1, 0x0400),
        "SCTP_ADDR_OVER" => pick(linux, 0x2, 0x0800),
        "SCTP_ABORT" => pick(linux, 0x4, 0x0200),
        "SCTP_SACK_IMMEDIATELY" => pick(linux, 0x8, 0x4000),
        "SCTP_SENDALL" => pick(linux, 0x40, 0x1000),
        "SCTP_EOF" => pick(linux, 0x200, 0x0100),
        "SCTP_EOR" => pick(linux, 0x80, 0x2000),
        "SCTP_SENDV_NOINFO" => 0,
        "SCTP_SENDV_SNDINFO" => 1,
        "SCTP_SENDV_PRINFO" => 2,
        "SCTP_SENDV_AUTHINFO" => 3,
        "SCTP_SENDV_SPA" => 4,
        "SCTP_SEND_SNDINFO_VALID" => 1,
        "SCTP_SEND_PRINFO_VALID" => 2,
        "SCTP_SEND_AUTHINFO_VALID" => 4,
        "SCTP_RECVV_NOINFO" => 0,
        "SCTP_RECVV_RCVINFO" => 1,
        "SCTP_RECVV_NXTINFO" => 2,
        "SCTP_RECVV_RN" => 3,
        "MSG_EOR" => pick(linux, 0x80, 0x8),
        "MSG_NOTIFICATION" => pick(linux, 0x8000, 0x2000),
        _ => return None,
    })
}

fn pick(linux: bool, on_linux: i64, on_freebsd: i64) -> i64 {
    if linux { on_linux } else { on_freebsd }
}

/// The flags of `snd_flags` / `sinfo_flags` the engine has no use for.
const FLAGS_UNSUPPORTED: &[&str] = &[
    "SCTP_EOF",
    "SCTP_ABORT",
    "SCTP_EOR",
    "SCTP_ADDR_OVER",
    "SCTP_SENDALL",
];

/// A member of a `{...}` argument by name (`...` and absent alike).
fn member<'v>(fields: &'v [(String, Value)], name: &str) -> Option<&'v Value> {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
        .filter(|v| !matches!(v, Value::Any))
}

/// The message options of a send call before they become
/// [`SendOptions`]: stream, PPID, flags and policy.
#[derive(Debug, Clone, Copy, Default)]
struct SendInfo {
    sid: u16,
    ppid: u32,
    flags: i64,
    prinfo: Option<PrInfo>,
}

impl Run<'_> {
    /// A number in a struct member; absent or `...` is 0.
    fn member_int(
        &self,
        fields: &[(String, Value)],
        name: &str,
        call: &str,
    ) -> Result<i64, Failure> {
        match member(fields, name) {
            None => Ok(0),
            Some(v) => self
                .eval_int(v)
                .ok_or_else(|| self.unsupported(format!("{call}: {name} is not a number"))),
        }
    }

    fn member_u32(
        &self,
        fields: &[(String, Value)],
        name: &str,
        call: &str,
    ) -> Result<u32, Failure> {
        let n = self.member_int(fields, name, call)?;
        u32::try_from(n).map_err(|_| self.unsupported(format!("{call}: {name}={n} out of range")))
    }

    /// The engine's policy for a `struct sctp_prinfo`; `None` for a
    /// policy number the platform does not define (EINVAL). A lifetime
    /// of 0 is no lifetime, as RFC 6458 section 9.7 says of
    /// `timetolive` and FreeBSD applies to `pr_value`.
    pub(super) fn pr_policy(&self, p: PrInfo) -> Option<PrPolicy> {
        let platform = &self.cfg.platform;
        let is = |name| api_constant(name, platform) == Some(p.policy);
        if p.policy == 0 {
            Some(PrPolicy::Reliable)
        } else if is("SCTP_PR_SCTP_TTL") {
            Some(if p.value == 0 {
                PrPolicy::Reliable
            } else {
                PrPolicy::Lifetime(Duration::from_millis(u64::from(p.value)))
            })
        } else if is("SCTP_PR_SCTP_RTX") {
            Some(PrPolicy::MaxRetransmissions(p.value))
        } else if is("SCTP_PR_SCTP_PRIO") {
            u16::try_from(p.value).ok().map(PrPolicy::Priority)
        } else {
            None
        }
    }

    fn prinfo_of(&self, fields: &[(String, Value)], call: &str) -> Result<PrInfo, Failure> {
        Ok(PrInfo {
            policy: self.member_int(fields, "pr_policy", call)?,
            value: self.member_u32(fields, "pr_value", call)?,
        })
    }

    fn sndinfo_of(&self, fields: &[(String, Value)], info: &mut SendInfo) -> Result<(), Failure> {
        let sid = self.member_int(fields, "snd_sid", "sctp_sendv")?;
        info.sid = u16::try_from(sid)
            .map_err(|_| self.unsupported(format!("sctp_sendv: snd_sid={sid} out of range")))?;
        info.flags = self.member_int(fields, "snd_flags", "sctp_sendv")?;
        info.ppid = self.member_u32(fields, "snd_ppid", "sctp_sendv")?;
        Ok(())
    }

    /// An authentication key number other than the one key the engine
    /// has cannot be honoured when AUTH is in use; without AUTH it has no
    /// effect (FreeBSD sends the DATA unauthenticated, as nplab's
    /// `sctp_sendv.pkt` expects).
    fn authinfo_of(&self, fd: i64, fields: &[(String, Value)]) -> Result<(), Failure> {
        let key = self.member_int(fields, "auth_keynumber", "sctp_sendv")?;
        let auth = self.assoc_of(fd).is_some_and(|a| a.config().auth);
        if auth && key != 0 {
            return Err(self.unsupported(format!(
                "sctp_sendv: auth_keynumber={key} (the engine has one shared key, number 0)"
            )));
        }
        Ok(())
    }

    /// `sctp_sendv(fd, iov, iovcnt, addrs, addrcnt, info, infolen,
    /// infotype, flags)`: one message of the iovecs' total length. The
    /// addresses are not used: a one-to-one socket has one association.
    pub(super) fn sys_sendv(&mut self, s: &SyscallSpec) -> Result<Outcome, Failure> {
        let fd = self.fd_arg(s)?;
        let len = self.iov_len(s, 1, 2)?;
        let infotype = self.int_arg(s, 7)?;
        let flags = self.int_arg(s, 8)?;
        if flags != 0 {
            return Err(self.unsupported(format!("sctp_sendv: flags {flags} (only 0)")));
        }
        let info_arg = self.arg(s, 5)?;
        let fields: Vec<(String, Value)> = match info_arg {
            Value::Struct(f) => f.clone(),
            Value::Word(w) if w == "NULL" => Vec::new(),
            Value::Any => Vec::new(),
            other => {
                return Err(self.unsupported(format!(
                    "sctp_sendv: info should be {{...}} or NULL, found {}",
                    other.describe()
                )));
            }
        };
        let mut info = SendInfo::default();
        match infotype {
            0 => {}
            1 => self.sndinfo_of(&fields, &mut info)?,
            2 => info.prinfo = Some(self.prinfo_of(&fields, "sctp_sendv")?),
            3 => self.authinfo_of(fd, &fields)?,
            4 => {
                let valid = self.member_int(&fields, "sendv_flags", "sctp_sendv")?;
                let nested = |name: &str| match member(&fields, name) {
                    Some(Value::Struct(f)) => Ok(f.clone()),
                    None => Ok(Vec::new()),
                    Some(other) => Err(self.unsupported(format!(
                        "sctp_sendv: {name} should be {{...}}, found {}",
                        other.describe()
                    ))),
                };
                if valid & 1 != 0 {
                    self.sndinfo_of(&nested("sendv_sndinfo")?, &mut info)?;
                }
                if valid & 2 != 0 {
                    info.prinfo = Some(self.prinfo_of(&nested("sendv_prinfo")?, "sctp_sendv")?);
                }
                if valid & 4 != 0 {
                    self.authinfo_of(fd, &nested("sendv_authinfo")?)?;
                }
            }
            _ => return Ok(Outcome::Err("EINVAL")),
        }
        self.send_with_info(fd, len, info)
    }

    /// `sctp_sendmsg(fd, msg, len, to, tolen, ppid, flags, stream,
    /// timetolive, context)`: the policy is in the low bits of `flags`
    /// (FreeBSD's PR_SCTP_POLICY, Linux's SCTP_PR_SCTP_MASK) with
    /// `timetolive` as its value; a positive `timetolive` without a
    /// policy is a lifetime (RFC 6458 section 9.7; FreeBSD).
    pub(super) fn sys_sendmsg(&mut self, s: &SyscallSpec) -> Result<Outcome, Failure> {
        let fd = self.fd_arg(s)?;
        let len = self.int_arg(s, 2)?;
        let ppid = self.int_arg(s, 5)?;
        let flags = self.int_arg(s, 6)?;
        let sid = self.int_arg(s, 7)?;
        let ttl = self.int_arg(s, 8)?;
        let linux = self.cfg.platform == "Linux";
        let mask = if linux { 0x30 } else { 0x0f };
        let mut policy = flags & mask;
        if policy == 0 && ttl > 0 {
            policy = api_constant("SCTP_PR_SCTP_TTL", &self.cfg.platform).unwrap_or(0);
        }
        let range =
            |what: &str, n: i64| self.unsupported(format!("sctp_sendmsg: {what} {n} out of range"));
        let info = SendInfo {
            sid: u16::try_from(sid).map_err(|_| range("stream", sid))?,
            ppid: u32::try_from(ppid).map_err(|_| range("ppid", ppid))?,
            flags: flags & !mask,
            prinfo: Some(PrInfo {
                policy,
                value: u32::try_from(ttl).map_err(|_| range("timetolive", ttl))?,
            }),
        };
        self.send_with_info(fd, len, info)
    }

    fn send_with_info(&mut self, fd: i64, len: i64, info: SendInfo) -> Result<Outcome, Failure> {
        let platform = self.cfg.platform.clone();
        let flag = |name| api_constant(name, &platform).unwrap_or(0);
        for name in FLAGS_UNSUPPORTED {
            if info.flags & flag(name) != 0 {
                return Err(self.unsupported(format!("send flag {name}")));
            }
        }
        let known = flag("SCTP_UNORDERED") | flag("SCTP_SACK_IMMEDIATELY");
        if info.flags & !known != 0 {
            return Ok(Outcome::Err("EINVAL"));
        }
        let Some(sock) = self.sockets.get(fd) else {
            return Ok(Outcome::Err("EBADF"));
        };
        let prinfo = info.prinfo.unwrap_or(sock.default_prinfo);
        let Some(policy) = self.pr_policy(prinfo) else {
            return Ok(Outcome::Err("EINVAL"));
        };
        let opts = SendOptions {
            unordered: info.flags & flag("SCTP_UNORDERED") != 0,
            policy,
            sack_immediately: info.flags & flag("SCTP_SACK_IMMEDIATELY") != 0,
        };
        self.send_message(fd, len, info.sid, info.ppid, &opts)
    }

    /// The total length of an iovec list `[{iov_base=..., iov_len=N}, ...]`
    /// (or `{..., N}`), checked against its count.
    fn iov_len(&self, s: &SyscallSpec, k: usize, count: usize) -> Result<i64, Failure> {
        let Value::List(items) = self.arg(s, k)? else {
            return Err(self.unsupported(format!("{}: expected a list of iovecs", s.name)));
        };
        let n = self.int_arg(s, count)?;
        if usize::try_from(n).ok() != Some(items.len()) {
            return Err(self.unsupported(format!(
                "{}: iovec count {n} but {} iovecs",
                s.name,
                items.len()
            )));
        }
        let mut total = 0i64;
        for it in items {
            let len = match it {
                Value::Struct(f) => f
                    .iter()
                    .find(|(name, _)| name == "iov_len")
                    .or_else(|| f.get(1).filter(|(name, _)| name.is_empty()))
                    .and_then(|(_, v)| self.eval_int(v)),
                _ => None,
            };
            let len = len.filter(|l| *l >= 0).ok_or_else(|| {
                self.unsupported(format!(
                    "{}: an iovec without a length: {}",
                    s.name,
                    it.describe()
                ))
            })?;
            total = total.saturating_add(len);
        }
        Ok(total)
    }

    /// `sctp_recvv(fd, iov, iovlen, from, fromlen, info, [infolen],
    /// [infotype], [flags])`: reads like `read`; with SCTP_RECVRCVINFO on,
    /// the info is a `struct sctp_rcvinfo` of which the engine reports the
    /// stream, PPID and unordered flag (the others must be `...`).
    pub(super) fn sys_recvv(&mut self, s: &SyscallSpec) -> Result<Outcome, Failure> {
        let fd = self.fd_arg(s)?;
        let want = self.iov_len(s, 1, 2)?;
        let Some(sock) = self.sockets.get(fd) else {
            return Ok(Outcome::Err("EBADF"));
        };
        if sock.recv_nxtinfo {
            return Err(self.unsupported(
                "sctp_recvv with SCTP_RECVNXTINFO (the engine does not expose the next message)",
            ));
        }
        let rcvinfo = sock.recv_rcvinfo;
        let got = self.receive(fd, usize::try_from(want).unwrap_or(0))?;
        if let Outcome::Ok(_) = got.outcome {
            self.check_recvv_info(s, rcvinfo, &got)?;
        }
        Ok(got.outcome)
    }

    fn check_recvv_info(
        &self,
        s: &SyscallSpec,
        rcvinfo: bool,
        got: &Received,
    ) -> Result<(), Failure> {
        let one = |k: usize| -> Result<Option<i64>, Failure> {
            match self.arg(s, k)? {
                Value::Any => Ok(None),
                Value::List(v) if v.len() == 1 => match &v[0] {
                    Value::Any => Ok(None),
                    x => self.eval_int(x).map(Some).ok_or_else(|| {
                        self.unsupported(format!("sctp_recvv: argument {} is not a number", k + 1))
                    }),
                },
                other => Err(self.unsupported(format!(
                    "sctp_recvv: argument {} should be [N], found {}",
                    k + 1,
                    other.describe()
                ))),
            }
        };
        let platform = &self.cfg.platform;
        let c = |name| api_constant(name, platform).unwrap_or(0);
        let with_info = rcvinfo && got.meta.is_some();
        let eor = if got.complete { c("MSG_EOR") } else { 0 };
        let mut checks = vec![
            (
                "infotype",
                one(7)?,
                if with_info {
                    c("SCTP_RECVV_RCVINFO")
                } else {
                    0
                },
            ),
            ("flags", one(8)?, eor),
        ];
        if let (true, Some((sid, ppid, unordered)), Value::Struct(f)) =
            (with_info, got.meta, self.arg(s, 5)?)
        {
            for (k, v) in f {
                if matches!(v, Value::Any) {
                    continue;
                }
                let actual = match k.as_str() {
                    "rcv_sid" => i64::from(sid),
                    "rcv_ppid" => i64::from(ppid),
                    "rcv_flags" => {
                        if unordered {
                            c("SCTP_UNORDERED")
                        } else {
                            0
                        }
                    }
                    other => {
                        return Err(self.unsupported(format!(
                            "sctp_recvv: {other} is not reported by the engine (use ...)"
                        )));
                    }
                };
                let want = self.eval_int(v);
                checks.push((k.as_str(), want, actual));
            }
        }
        for (what, want, actual) in checks {
            if let Some(w) = want
                && w != actual
            {
                return Err(self
                    .fail(
                        FailureKind::SyscallResult,
                        format!("sctp_recvv {what} is {actual}, expected {w}"),
                    )
                    .expected(w.to_string())
                    .actual(actual.to_string()));
            }
        }
        Ok(())
    }

    /// setsockopt of the options above; `None` for any other option.
    pub(super) fn pr_setsockopt(
        &mut self,
        s: &SyscallSpec,
        name: &str,
    ) -> Result<Option<Outcome>, Failure> {
        if !matches!(
            name,
            "SCTP_PR_SUPPORTED" | "SCTP_DEFAULT_PRINFO" | "SCTP_RECVRCVINFO" | "SCTP_RECVNXTINFO"
        ) {
            return Ok(None);
        }
        let fd = self.fd_arg(s)?;
        let Some(sock) = self.sockets.get(fd) else {
            return Ok(Some(Outcome::Err("EBADF")));
        };
        let connected = sock.assoc().is_some();
        let arg = self.arg(s, 3)?.clone();
        let fields = match &arg {
            Value::Struct(f) => f.clone(),
            _ => Vec::new(),
        };
        let flag = match &arg {
            Value::List(v) if v.len() == 1 => self.eval_int(&v[0]).map(|n| n != 0),
            _ => None,
        };
        let out = match name {
            "SCTP_PR_SUPPORTED" => {
                // RFC 7496 section 4.5: enables or disables the negotiation
                // for future associations only.
                if connected {
                    Outcome::Err("EINVAL")
                } else {
                    let on = self.member_int(&fields, "assoc_value", name)? != 0;
                    if let Some(sock) = self.sockets.get_mut(fd) {
                        sock.cfg.pr_sctp = on;
                    }
                    self.apply_listener_defaults(fd)?;
                    Outcome::Ok(0)
                }
            }
            "SCTP_DEFAULT_PRINFO" => {
                let p = self.prinfo_of(&fields, name)?;
                if self.pr_policy(p).is_none() {
                    Outcome::Err("EINVAL")
                } else {
                    if let Some(sock) = self.sockets.get_mut(fd) {
                        sock.default_prinfo = p;
                    }
                    Outcome::Ok(0)
                }
            }
            _ => {
                let on = flag.ok_or_else(|| {
                    self.unsupported(format!("setsockopt {name}: expected [0] or [1]"))
                })?;
                if let Some(sock) = self.sockets.get_mut(fd) {
                    if name == "SCTP_RECVRCVINFO" {
                        sock.recv_rcvinfo = on;
                    } else {
                        sock.recv_nxtinfo = on;
                    }
                }
                Outcome::Ok(0)
            }
        };
        Ok(Some(out))
    }

    /// A listening socket's options become the defaults of the
    /// associations it accepts.
    pub(super) fn apply_listener_defaults(&mut self, fd: i64) -> Result<(), Failure> {
        let Some(sock) = self.sockets.get(fd) else {
            return Ok(());
        };
        if sock.state != crate::sockets::SockState::Listening {
            return Ok(());
        }
        let cfg = sock.cfg.clone();
        let line = self.line;
        if let Some(ep) = self.ep.as_mut() {
            ep.set_association_defaults(cfg)
                .map_err(|e| Failure::new(line, FailureKind::Unsupported, e.to_string()))?;
        }
        Ok(())
    }

    /// getsockopt SCTP_PR_SUPPORTED (whether PR-SCTP was negotiated on
    /// the association, or will be offered before it exists) and
    /// SCTP_DEFAULT_PRINFO, checked against the script's `{...}`.
    pub(super) fn pr_getsockopt(
        &mut self,
        s: &SyscallSpec,
        fd: i64,
        name: &str,
    ) -> Result<Outcome, Failure> {
        let fields = self.struct_fields(s, 3)?.to_vec();
        let Some(sock) = self.sockets.get(fd) else {
            return Ok(Outcome::Err("EBADF"));
        };
        let actual: Vec<(&str, i64)> = if name == "SCTP_PR_SUPPORTED" {
            let on = match self.assoc_of(fd) {
                Some(a) => a.pr_sctp(),
                None => sock.cfg.pr_sctp,
            };
            vec![("assoc_value", i64::from(on))]
        } else {
            let p = sock.default_prinfo;
            vec![("pr_policy", p.policy), ("pr_value", i64::from(p.value))]
        };
        for (k, v) in &fields {
            if matches!(v, Value::Any) || k.ends_with("assoc_id") {
                continue;
            }
            let Some(&(_, got)) = actual.iter().find(|(n, _)| n == k) else {
                return Err(self.unsupported(format!("{name} field {k}")));
            };
            self.expect_value(&format!("{name} {k}"), v, got)?;
        }
        Ok(Outcome::Ok(0))
    }
}
