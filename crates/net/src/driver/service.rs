//! The service pass: engine events, sends waiting for room, receives,
//! shutdowns and released handles of the associations with something to do.

use super::*;

impl Driver {
    /// Engine events, pending sends and receives, shutdowns.
    pub(super) fn service(&mut self) {
        let now = self.now();
        self.ep.flush_events();
        while let Some((id, ev)) = self.ep.poll_event() {
            self.event(now, id, ev);
        }
        for id in std::mem::take(&mut self.busy) {
            self.check_released(now, id);
            self.service_assoc(now, id);
            if self.still_busy(id) {
                self.busy.insert(id);
            }
        }
        // Forget associations the application can no longer reach.
        let before = self.assocs.len();
        let ended: Vec<AssocId> = self.ended.iter().copied().collect();
        for id in ended {
            let gone = self.assocs.get(&id).is_none_or(|a| {
                let released = a.shared.released.load(std::sync::atomic::Ordering::Acquire);
                a.closed.is_some()
                    && (released
                        || (a.events.is_closed()
                            && a.events_rx.is_none()
                            && a.recv.is_none()
                            && a.stash.is_empty()))
            });
            if gone {
                self.assocs.remove(&id);
                self.ended.remove(&id);
            }
        }
        self.forget_released();
        if self.assocs.len() != before {
            let (assocs, ep) = (&self.assocs, &self.ep);
            self.ports
                .retain(|id| assocs.contains_key(&id) || ep.association(id).is_some());
        }
        self.ep.flush_events();
        while let Some((id, ev)) = self.ep.poll_event() {
            self.event(now, id, ev);
        }
    }

    /// Whether `id` needs `service` again without a new command or event.
    pub(super) fn still_busy(&self, id: AssocId) -> bool {
        self.assocs.get(&id).is_some_and(|a| {
            a.mobility.is_some()
                || !a.sends.is_empty()
                // A released handle's shutdown has a deadline to watch.
                || (a.closed.is_none()
                    && a.shared.released.load(std::sync::atomic::Ordering::Acquire))
                || (a.shutdown_wanted && !a.shutdown_started)
                || (a.recv.is_some() && self.ep.association(id).is_none_or(|x| x.readable()))
        })
    }

    pub(super) fn service_assoc(&mut self, now: Time, id: AssocId) {
        let Some(a) = self.assocs.get_mut(&id) else {
            return;
        };
        // A move held until a returning link's path answers (mobility).
        if let (Some(m), Some(x)) = (a.mobility.as_mut(), self.ep.association_mut(id)) {
            let hs = m.poll(now, x, &self.ifaces);
            report_handovers(&mut self.stats, &mut self.unreported, &a.events, None, hs);
        }
        let x = self.ep.association_mut(id);
        // Sends waiting for room.
        match x {
            Some(x) if a.closed.is_none() => {
                // Credit given back once for the whole pass.
                let mut credit = 0usize;
                while let Some(p) = a.sends.front() {
                    if x.state() == msctp_proto::association::State::Established
                        && x.send_capacity() >= p.data.len()
                    {
                        // Room: the message moves into the engine.
                        let Some(p) = a.sends.pop_front() else { break };
                        credit += p.credit as usize;
                        let r = x.send_with(p.queued_at, p.stream, p.ppid, p.data, &p.opts);
                        PendingSend::answer(p.reply, &a.shared, r.map_err(NetError::from));
                        continue;
                    }
                    match x.send_with(p.queued_at, p.stream, p.ppid, p.data.clone(), &p.opts) {
                        Err(SendError::BufferFull) => break,
                        Err(SendError::NotConnected) if !x.state().is_established() => break,
                        r => {
                            if let Some(p) = a.sends.pop_front() {
                                credit += p.credit as usize;
                                PendingSend::answer(p.reply, &a.shared, r.map_err(NetError::from));
                            }
                        }
                    }
                }
                if credit > 0 {
                    a.shared.credit.add_permits(credit);
                }
                if a.shutdown_wanted && !a.shutdown_started && a.sends.is_empty() {
                    a.shutdown_started = true;
                    x.shutdown(now);
                }
                if let Some((max, _)) = &a.recv
                    && x.readable()
                {
                    let max = *max;
                    let mut msgs = Vec::new();
                    while msgs.len() < max
                        && let Some(m) = x.recv()
                    {
                        msgs.push(m);
                    }
                    if let Some((_, reply)) = a.recv.take()
                        && let Err(Ok(back)) = reply.send(Ok(msgs))
                    {
                        a.stash = back;
                    }
                }
            }
            x => {
                // Closed (or forgotten by the endpoint): fail what waits.
                let why = a
                    .closed
                    .as_ref()
                    .map(describe_close)
                    .unwrap_or_else(|| "the association has ended".into());
                for p in a.sends.drain(..) {
                    p.done(&a.shared, Err(NetError::Closed(why.clone())));
                }
                if a.closed.is_some() {
                    a.shared.credit.close();
                }
                if a.recv.is_some() {
                    let mut msgs = std::mem::take(&mut a.stash);
                    if let Some(x) = x {
                        let max = a.recv.as_ref().map_or(1, |r| r.0);
                        while msgs.len() < max
                            && let Some(m) = x.recv()
                        {
                            msgs.push(m);
                        }
                    }
                    // An empty batch is the end of the stream.
                    if let Some((_, reply)) = a.recv.take()
                        && let Err(Ok(back)) = reply.send(Ok(msgs))
                    {
                        a.stash = back;
                    }
                }
                if a.closed.is_none() && a.connect_reply.is_none() {
                    a.closed = Some(CloseReason::Aborted);
                    self.ended.insert(id);
                }
            }
        }
    }
}
