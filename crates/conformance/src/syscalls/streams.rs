//! The socket options of user message interleaving and stream
//! reconfiguration: SCTP_FRAGMENT_INTERLEAVE (RFC 6458 section 8.1.20),
//! SCTP_INTERLEAVING_SUPPORTED (RFC 8260 section 4.3.1),
//! SCTP_ENABLE_STREAM_RESET, SCTP_RESET_STREAMS, SCTP_RESET_ASSOC and
//! SCTP_ADD_STREAMS (RFC 6525 sections 6.3.1 to 6.3.4), mapped to the
//! engine's `interleaving` and `stream_reconfig` options and its
//! reconfiguration requests. What the engine cannot do is an
//! `Unsupported` failure naming it.

use msctp_proto::association::ReconfigError;

use super::Outcome;
use crate::error::Failure;
use crate::runner::Run;
use crate::script::SyscallSpec;
use crate::value::Value;

/// The constants of these options (the same on FreeBSD and Linux).
pub(super) fn api_constant(name: &str) -> Option<i64> {
    Some(match name {
        "SCTP_ENABLE_RESET_STREAM_REQ" => 0x1,
        "SCTP_ENABLE_RESET_ASSOC_REQ" => 0x2,
        "SCTP_ENABLE_CHANGE_ASSOC_REQ" => 0x4,
        "SCTP_STREAM_RESET_INCOMING" => 0x1,
        "SCTP_STREAM_RESET_OUTGOING" => 0x2,
        _ => return None,
    })
}

/// The errno a kernel gives for a refused reconfiguration request
/// (FreeBSD's `sctp_setopt`: ENOENT without the extension, EALREADY
/// with a request outstanding, EINVAL for a bad stream list).
fn reconfig_errno(e: &ReconfigError) -> &'static str {
    match e {
        ReconfigError::NotSupported => "ENOENT",
        ReconfigError::NotEstablished => "ENOTCONN",
        ReconfigError::InProgress => "EALREADY",
        ReconfigError::InvalidStream(_) | ReconfigError::TooMany => "EINVAL",
    }
}

const OPTIONS: &[&str] = &[
    "SCTP_FRAGMENT_INTERLEAVE",
    "SCTP_INTERLEAVING_SUPPORTED",
    "SCTP_ENABLE_STREAM_RESET",
    "SCTP_RESET_STREAMS",
    "SCTP_RESET_ASSOC",
    "SCTP_ADD_STREAMS",
];

impl Run<'_> {
    /// A member of the option's `{...}` as a number; absent or `...` is 0.
    fn option_member(&self, s: &SyscallSpec, name: &str, member: &str) -> Result<i64, Failure> {
        let fields = match self.arg(s, 3)? {
            Value::Struct(f) => f.clone(),
            _ => Vec::new(),
        };
        match fields.iter().find(|(k, _)| k == member).map(|(_, v)| v) {
            None | Some(Value::Any) => Ok(0),
            Some(v) => self
                .eval_int(v)
                .filter(|n| *n >= 0)
                .ok_or_else(|| self.unsupported(format!("{name}: {member} is not a number"))),
        }
    }

    /// A `[N]` argument.
    fn option_int(&self, s: &SyscallSpec, name: &str) -> Result<i64, Failure> {
        match self.arg(s, 3)? {
            Value::List(v) if v.len() == 1 => self.eval_int(&v[0]),
            v => self.eval_int(v),
        }
        .ok_or_else(|| self.unsupported(format!("setsockopt {name}: expected [N]")))
    }

    /// setsockopt of the options above; `None` for any other option.
    pub(super) fn stream_setsockopt(
        &mut self,
        s: &SyscallSpec,
        name: &str,
    ) -> Result<Option<Outcome>, Failure> {
        if !OPTIONS.contains(&name) {
            return Ok(None);
        }
        let fd = self.fd_arg(s)?;
        let Some(sock) = self.sockets.get(fd) else {
            return Ok(Some(Outcome::Err("EBADF")));
        };
        let assoc = sock.assoc();
        let frag = sock.fragment_interleave;
        let out = match name {
            "SCTP_FRAGMENT_INTERLEAVE" => {
                let level = self.option_int(s, name)?;
                if !(0..=2).contains(&level) {
                    Outcome::Err("EINVAL")
                } else {
                    if let Some(sock) = self.sockets.get_mut(fd) {
                        sock.fragment_interleave = level;
                    }
                    Outcome::Ok(0)
                }
            }
            "SCTP_INTERLEAVING_SUPPORTED" => {
                // RFC 8260 section 4.3.1: for future associations, and
                // only with SCTP_FRAGMENT_INTERLEAVE at level 2.
                let on = self.option_member(s, name, "assoc_value")? != 0;
                if assoc.is_some() || (on && frag != 2) {
                    Outcome::Err("EINVAL")
                } else {
                    self.set_listener_option(fd, |c| c.interleaving = on)?;
                    Outcome::Ok(0)
                }
            }
            "SCTP_ENABLE_STREAM_RESET" => {
                // RFC 6525 section 6.3.1. The engine has one switch: any
                // request kind enabled turns RE-CONFIG on (the peer's
                // requests of every kind are then answered).
                let mask = self.option_member(s, name, "assoc_value")?;
                if mask & !0x7 != 0 {
                    Outcome::Err("EINVAL")
                } else if let Some(id) = assoc {
                    let negotiated = self
                        .ep
                        .as_ref()
                        .and_then(|e| e.association(id))
                        .is_some_and(|a| a.stream_reconfig());
                    if negotiated != (mask != 0) {
                        return Err(self.unsupported(format!(
                            "{name} on an association: the engine decides RE-CONFIG at set-up"
                        )));
                    }
                    Outcome::Ok(0)
                } else {
                    if let Some(sock) = self.sockets.get_mut(fd) {
                        sock.reset_mask = mask;
                    }
                    self.set_listener_option(fd, |c| c.stream_reconfig = mask != 0)?;
                    Outcome::Ok(0)
                }
            }
            _ => self.reconfig_request(s, fd, name)?,
        };
        Ok(Some(out))
    }

    /// Changes the socket's association options (and a listening
    /// socket's defaults for the associations it accepts).
    fn set_listener_option(
        &mut self,
        fd: i64,
        f: impl FnOnce(&mut msctp_proto::AssociationConfig),
    ) -> Result<(), Failure> {
        let Some(sock) = self.sockets.get_mut(fd) else {
            return Ok(());
        };
        f(&mut sock.cfg);
        self.apply_listener_defaults(fd)
    }

    /// SCTP_RESET_STREAMS `{srs_flags, srs_number_streams,
    /// srs_stream_list=[...]}`, SCTP_RESET_ASSOC `[id]` and
    /// SCTP_ADD_STREAMS `{sas_instrms, sas_outstrms}` (RFC 6525 sections
    /// 6.3.2 to 6.3.4): requests of the association.
    fn reconfig_request(
        &mut self,
        s: &SyscallSpec,
        fd: i64,
        name: &str,
    ) -> Result<Outcome, Failure> {
        let streams: Vec<u16> = match (name, self.arg(s, 3)?) {
            ("SCTP_RESET_STREAMS", Value::Struct(f)) => {
                match f
                    .iter()
                    .find(|(k, _)| k == "srs_stream_list")
                    .map(|(_, v)| v)
                {
                    None | Some(Value::Any) => Vec::new(),
                    Some(Value::List(items)) => items
                        .iter()
                        .map(|v| self.eval_int(v).and_then(|n| u16::try_from(n).ok()))
                        .collect::<Option<_>>()
                        .ok_or_else(|| {
                            self.unsupported(format!("{name}: a stream is not a number"))
                        })?,
                    Some(other) => {
                        return Err(self.unsupported(format!(
                            "{name}: srs_stream_list should be [...], found {}",
                            other.describe()
                        )));
                    }
                }
            }
            _ => Vec::new(),
        };
        let (flags, count) = if name == "SCTP_RESET_STREAMS" {
            (
                self.option_member(s, name, "srs_flags")?,
                self.option_member(s, name, "srs_number_streams")?,
            )
        } else {
            (0, 0)
        };
        let (ins, outs) = if name == "SCTP_ADD_STREAMS" {
            (
                self.option_member(s, name, "sas_instrms")?,
                self.option_member(s, name, "sas_outstrms")?,
            )
        } else {
            (0, 0)
        };
        let Some(id) = self.sockets.get(fd).and_then(|x| x.assoc()) else {
            return Ok(Outcome::Err("ENOTCONN"));
        };
        let Some(a) = self.ep.as_mut().and_then(|e| e.association_mut(id)) else {
            return Ok(Outcome::Err("ENOTCONN"));
        };
        let r = match name {
            "SCTP_RESET_STREAMS" => {
                if usize::try_from(count).ok() != Some(streams.len())
                    || flags & !0x3 != 0
                    || flags == 0
                {
                    return Ok(Outcome::Err("EINVAL"));
                }
                if flags == 0x3 {
                    return Err(self.unsupported(
                        "SCTP_RESET_STREAMS both ways in one call (the engine has one request outstanding)",
                    ));
                }
                if flags == 0x2 {
                    a.reset_streams(&streams)
                } else {
                    a.request_incoming_reset(&streams)
                }
            }
            "SCTP_RESET_ASSOC" => a.reset_association(),
            _ => {
                let n = |v: i64| u16::try_from(v).map_err(|_| ReconfigError::TooMany);
                match (n(ins), n(outs)) {
                    (Ok(0), Ok(0)) => return Ok(Outcome::Err("EINVAL")),
                    (Ok(0), Ok(o)) => a.add_outgoing_streams(o),
                    (Ok(i), Ok(0)) => a.add_incoming_streams(i),
                    (Ok(_), Ok(_)) => {
                        return Err(self.unsupported(
                            "SCTP_ADD_STREAMS both ways in one call (the engine has one request outstanding)",
                        ));
                    }
                    (Err(e), _) | (_, Err(e)) => Err(e),
                }
            }
        };
        Ok(match r {
            Ok(()) => Outcome::Ok(0),
            Err(e) => Outcome::Err(reconfig_errno(&e)),
        })
    }

    /// getsockopt SCTP_INTERLEAVING_SUPPORTED (negotiated on the
    /// association, or to be offered before it exists),
    /// SCTP_FRAGMENT_INTERLEAVE and SCTP_ENABLE_STREAM_RESET.
    pub(super) fn stream_getsockopt(
        &mut self,
        s: &SyscallSpec,
        fd: i64,
        name: &str,
    ) -> Result<Outcome, Failure> {
        let Some(sock) = self.sockets.get(fd) else {
            return Ok(Outcome::Err("EBADF"));
        };
        let (member, got) = match name {
            "SCTP_FRAGMENT_INTERLEAVE" => ("", sock.fragment_interleave),
            "SCTP_INTERLEAVING_SUPPORTED" => {
                let on = match self.assoc_of(fd) {
                    Some(a) => a.interleaving(),
                    None => sock.cfg.interleaving,
                };
                ("assoc_value", i64::from(on))
            }
            _ => ("assoc_value", sock.reset_mask),
        };
        let want = match self.arg(s, 3)? {
            Value::Any => None,
            Value::List(v) if v.len() == 1 && member.is_empty() => Some(&v[0]),
            Value::Struct(f) if !member.is_empty() => {
                f.iter().find(|(k, _)| k == member).map(|(_, v)| v)
            }
            other => {
                return Err(self.unsupported(format!(
                    "getsockopt {name}: unexpected {}",
                    other.describe()
                )));
            }
        };
        if let Some(v) = want.filter(|v| !matches!(v, Value::Any)) {
            self.expect_value(name, v, got)?;
        }
        Ok(Outcome::Ok(0))
    }
}
