//! Application commands: connect, listen, send, receive, the
//! per-association operations and the local address set.

use super::*;

impl Driver {
    // Long because: the dispatch of the application's commands, one short arm each.
    pub(super) fn command(&mut self, c: Command) {
        if let Command::Send { id, .. }
        | Command::Recv { id, .. }
        | Command::Shutdown { id, .. }
        | Command::Release { id, .. } = &c
        {
            self.busy.insert(*id);
        }
        let now = self.now();
        // A handle of a session that has ended (the peer restarted).
        let Some(c) = self.stale_command(c) else {
            return;
        };
        match c {
            Command::Connect {
                peers,
                port,
                udp_port,
                reply,
            } => {
                if let Some(p) = peers.iter().find(|p| {
                    !self
                        .socks
                        .socks
                        .iter()
                        .any(|s| s.addr.is_ipv4() == p.is_ipv4())
                }) {
                    let _ = reply.send(Err(NetError::NoAddressFamily { peer: *p }));
                    return;
                }
                match self.ep.connect(now, &peers, port) {
                    Ok(id) => {
                        let udp = udp_port.unwrap_or(self.cfg.remote_udp_port);
                        let a = self.new_assoc(id, udp, port);
                        a.connect_reply = Some(reply);
                        a.connect_peer = peers.first().map(|p| (*p, port));
                    }
                    Err(e) => {
                        let _ = reply.send(Err(e.into()));
                    }
                }
            }
            Command::Accept { reply } => {
                while let Some(id) = self.accept_queue.pop_front() {
                    if let Some(p) = self.parts(id) {
                        let _ = reply.send(Ok(p));
                        return;
                    }
                }
                self.accept_waiters.push_back(reply);
            }
            Command::Send {
                id,
                session: _,
                stream,
                ppid,
                opts,
                data,
                credit,
                reply,
            } => {
                let max = self.cfg.max_pending_sends;
                let p = PendingSend {
                    stream,
                    ppid,
                    opts,
                    queued_at: now,
                    data,
                    credit,
                    reply,
                };
                match self.assocs.get_mut(&id) {
                    None => {
                        // Nobody holds credit for an unknown association.
                        if let Some(r) = p.reply {
                            let _ = r.send(Err(NetError::Closed("unknown association".into())));
                        }
                    }
                    Some(a) if a.sends.len() >= max => {
                        let sh = a.shared.clone();
                        p.done(&sh, Err(NetError::Busy(max)));
                    }
                    Some(a) if a.shutdown_wanted => {
                        let sh = a.shared.clone();
                        p.done(&sh, Err(SendError::ShuttingDown.into()));
                    }
                    Some(a) => a.sends.push_back(p),
                }
            }
            Command::Recv { id, max, reply, .. } => match self.assocs.get_mut(&id) {
                None => {
                    let _ = reply.send(Ok(Vec::new()));
                }
                Some(a) => {
                    if a.recv.as_ref().is_some_and(|(_, r)| !r.is_closed()) {
                        let _ = reply.send(Err(NetError::Busy(1)));
                    } else if !a.stash.is_empty() {
                        let msgs = std::mem::take(&mut a.stash);
                        if let Err(Ok(back)) = reply.send(Ok(msgs)) {
                            a.stash = back;
                        }
                    } else {
                        a.recv = Some((max.max(1), reply));
                    }
                }
            },
            Command::Status { id, reply, .. } => {
                let r = match self.ep.association(id) {
                    Some(x) => Ok(AssocStatus::of(x)),
                    None => Err(NetError::Closed(
                        self.assocs
                            .get(&id)
                            .and_then(|a| a.closed.as_ref())
                            .map(describe_close)
                            .unwrap_or_else(|| "unknown association".into()),
                    )),
                };
                let _ = reply.send(r);
            }
            Command::Op { id, op, reply, .. } => {
                let r = self.assoc_op(id, op);
                let _ = reply.send(r);
            }
            Command::Shutdown { id, reply, .. } => match self.assocs.get_mut(&id) {
                Some(a) if a.closed.is_none() => {
                    a.shutdown_wanted = true;
                    a.shutdown_replies.push(reply);
                }
                Some(a) => {
                    let r = match &a.closed {
                        Some(CloseReason::Shutdown) => Ok(()),
                        Some(r) => Err(NetError::Closed(describe_close(r))),
                        None => Ok(()),
                    };
                    let _ = reply.send(r);
                }
                None => {
                    let _ = reply.send(Ok(()));
                }
            },
            Command::AddLocal { addr, reply } => {
                let r = self.add_local(addr, true);
                let _ = reply.send(r);
            }
            Command::RemoveLocal { addr, reply } => {
                let r = self.remove_local(addr);
                let _ = reply.send(r);
            }
            Command::Release { id, .. } => self.release(now, id),
            Command::LocalAddrs { reply } => {
                let _ = reply.send(Ok(self.socks.addrs()));
            }
            Command::Stats { reply } => {
                let mut s = self.stats;
                s.endpoint = self.ep.stats();
                s.sockets = self.socks.socks.len();
                s.impaired = self.impair.as_ref().map(|i| i.stats).unwrap_or_default();
                let _ = reply.send(Ok(s));
            }
        }
    }

    pub(super) fn assoc_op(&mut self, id: AssocId, op: AssocOp) -> Result<(), NetError> {
        if let AssocOp::AddLocal(addr) = op
            && !self.socks.contains(addr)
        {
            self.bind_socket(addr)?;
        }
        if matches!(
            op,
            AssocOp::ResetStreams(_) | AssocOp::RequestIncomingReset(_) | AssocOp::AddStreams(_)
        ) {
            // The messages sent before the request belong before it (RFC
            // 6525 section 5.1.2 names the last TSN sent): they move into
            // the engine first.
            self.service_assoc(now_of(self.start), id);
            if let Some(n) = self.assocs.get(&id).map(|a| a.sends.len())
                && n > 0
            {
                return Err(NetError::SendsWaiting(n));
            }
        }
        let a = self
            .ep
            .association_mut(id)
            .ok_or_else(|| NetError::Closed("the association has ended".into()))?;
        match op {
            AssocOp::SetPrimary(p) => a.set_primary(p)?,
            AssocOp::RequestPeerPrimary(l) => {
                a.request_peer_primary(l)?;
                a.set_local_primary(Some(l))?;
            }
            AssocOp::ProbeCapacity(p) => a.probe_capacity(now_of(self.start), p)?,
            AssocOp::AddLocal(l) => a.add_local_address(l)?,
            AssocOp::RemoveLocal(l) => a.remove_local_address(l)?,
            AssocOp::ResetStreams(s) => a.reset_streams(&s)?,
            AssocOp::RequestIncomingReset(s) => a.request_incoming_reset(&s)?,
            AssocOp::AddStreams(n) => a.add_outgoing_streams(n)?,
            AssocOp::Abort => a.abort(None),
        }
        self.ep.flush_events();
        Ok(())
    }

    pub(super) fn bind_socket(&mut self, addr: IpAddr) -> Result<(), NetError> {
        let s = encap::bind(addr, self.cfg.udp_port, self.cfg.socket_options())?;
        self.socks.socks.push(s);
        Ok(())
    }

    /// Adds a local address to the stack (a socket) and, if `to_assocs`,
    /// to every established association (ASCONF Add IP).
    pub(super) fn add_local(&mut self, addr: IpAddr, to_assocs: bool) -> Result<(), NetError> {
        self.sources.invalidate();
        if !self.socks.contains(addr) {
            self.bind_socket(addr)?;
        }
        let addrs = self.socks.addrs();
        self.ep.set_local_addresses(&addrs);
        if to_assocs {
            for id in self.ep.associations() {
                if let Some(a) = self.ep.association_mut(id)
                    && a.state().is_established()
                    && !a.local_addresses().iter().any(|l| l.addr == addr)
                {
                    a.add_local_address(addr)?;
                }
            }
        }
        Ok(())
    }

    pub(super) fn remove_local(&mut self, addr: IpAddr) -> Result<(), NetError> {
        self.sources.invalidate();
        for id in self.ep.associations() {
            if let Some(a) = self.ep.association_mut(id)
                && a.state().is_established()
                && a.local_addresses().iter().any(|l| l.addr == addr)
            {
                a.remove_local_address(addr)?;
            }
        }
        // The socket stays until the address is really gone (the peer may
        // still send to it until it acknowledges the deletion).
        let addrs: Vec<IpAddr> = self
            .socks
            .addrs()
            .into_iter()
            .filter(|a| *a != addr)
            .collect();
        self.ep.set_local_addresses(&addrs);
        Ok(())
    }
}
