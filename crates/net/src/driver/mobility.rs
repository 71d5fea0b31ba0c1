//! Interface changes and handovers: the monitor's changes go to each
//! association's handover manager (`crate::mobility`), whose moves are
//! reported to the application after the next send.

use super::*;

/// Counts handovers and keeps them for the report after the next send.
pub(super) fn report_handovers(
    stats: &mut DriverStats,
    out: &mut Unreported,
    events: &mpsc::Sender<NetEvent>,
    link_event_ns: Option<u64>,
    hs: Vec<Handover>,
) {
    for mut h in hs {
        stats.handovers += 1;
        h.link_event_ns = link_event_ns;
        out.push((events.clone(), h));
    }
}

impl Driver {
    pub(super) fn iface_changes(&mut self, changes: &[IfaceChange]) {
        // Routes follow links and addresses: every source is looked up again.
        self.sources.invalidate();
        let now = self.now();
        let mut events: Vec<LinkEvent> = Vec::new();
        for c in changes {
            events.extend(self.ifaces.apply(c));
        }
        if events.is_empty() {
            return;
        }
        self.stats.link_events += events.len() as u64;
        // New addresses need a socket before a policy may add them.
        let mut usable = Vec::new();
        for ev in events {
            if let LinkEvent::AddressObtained { addr, .. } = ev
                && !self.socket_for_new_address(addr)
            {
                continue;
            }
            usable.push(ev);
        }
        let ids: Vec<AssocId> = self.assocs.keys().copied().collect();
        for id in ids {
            let Some(a) = self.assocs.get_mut(&id) else {
                continue;
            };
            let (Some(m), Some(x)) = (a.mobility.as_mut(), self.ep.association_mut(id)) else {
                continue;
            };
            if !x.state().is_established() {
                continue;
            }
            let hs = m.on_link_events(now, &usable, x, &self.ifaces);
            report_handovers(
                &mut self.stats,
                &mut self.unreported,
                &a.events,
                Some(now.as_nanos()),
                hs,
            );
        }
        for ev in &usable {
            if let LinkEvent::AddressLost { addr, .. } = ev {
                // The host no longer has it: nothing can arrive there or
                // leave from there.
                self.socks.remove(*addr);
                let addrs = self.socks.addrs();
                self.ep.set_local_addresses(&addrs);
            }
        }
        self.ep.flush_events();
    }

    /// Binds a socket for an address a followed interface has (unless
    /// one exists): whether the address can be used.
    fn socket_for_new_address(&mut self, addr: IpAddr) -> bool {
        if self.socks.contains(addr) {
            return true;
        }
        match self.bind_socket(addr) {
            Ok(()) => {
                let addrs = self.socks.addrs();
                self.ep.set_local_addresses(&addrs);
                true
            }
            Err(e) => {
                tracing::warn!("cannot use new address {addr}: {e}");
                false
            }
        }
    }

    /// The association is established (or established again after a
    /// restart): the policy starts, a waiting `connect` or `accept` gets
    /// its handle.
    pub(super) fn established(&mut self, now: Time, id: AssocId) {
        let mut m = None;
        let follows = self.cfg.monitor || self.cfg.policy.needs_no_monitor();
        if follows && self.cfg.monitor {
            // The policy starts from every address of the followed
            // interfaces (it may add them): each needs a socket, as an
            // address obtained later gets one (a stack bound to fewer
            // addresses than its interfaces hold).
            for addr in self.ifaces.addresses() {
                self.socket_for_new_address(addr);
            }
        }
        if follows && let Some(x) = self.ep.association_mut(id) {
            let mut mob = Mobility::new(
                &self.cfg.policy,
                &self.ifaces,
                self.cfg.move_data_on_link_down,
            );
            let hs = mob.start(now, x, &self.ifaces);
            self.stats.handovers += hs.len() as u64;
            m = Some((mob, hs));
        } else if let Some(x) = self.ep.association_mut(id) {
            pair_paths(x, &self.ifaces);
        }
        let parts_needed = self
            .assocs
            .get(&id)
            .is_some_and(|a| a.connect_reply.is_some());
        let parts = if parts_needed { self.parts(id) } else { None };
        if let Some(a) = self.assocs.get_mut(&id) {
            a.connected = true;
            if let Some((mob, hs)) = m {
                a.mobility = Some(mob);
                for h in hs {
                    let _ = a.events.try_send(NetEvent::Handover(h));
                }
            }
            if let (Some(r), Some(p)) = (a.connect_reply.take(), parts) {
                let _ = r.send(Ok(p));
            }
        }
        // Hand it to a waiting `accept`.
        while let Some(w) = self.accept_waiters.pop_front() {
            let Some(qid) = self.accept_queue.pop_front() else {
                self.accept_waiters.push_front(w);
                break;
            };
            match self.parts(qid) {
                Some(p) => {
                    let _ = w.send(Ok(p));
                }
                None => self.accept_waiters.push_front(w),
            }
        }
    }
}
