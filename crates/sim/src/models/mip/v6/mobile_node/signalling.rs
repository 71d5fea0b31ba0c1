//! The mobile node's binding signalling (RFC 6275 sections 11.7 and
//! 11.7.2): Binding Updates to the home agent and, once it has
//! acknowledged, to each correspondent; retransmission with exponential
//! back-off until acknowledged (section 11.8); Binding Acknowledgements.

use super::*;

impl MobileNode6 {
    pub(super) fn next_sequence(&mut self) -> u16 {
        self.sequence = self.sequence.wrapping_add(1);
        self.sequence
    }

    /// A Binding Update for the current care-of address (lifetime 0 at
    /// home, RFC 6275 section 11.5.4), to the home agent (`home`) or a
    /// correspondent, with the binding state that waits for its
    /// acknowledgement (`tries` transmissions so far).
    fn binding_update(
        &mut self,
        c: &Current6,
        tries: u32,
        home: bool,
    ) -> (BindingState, MhMessage) {
        let lifetime = if c.at_home {
            0
        } else {
            self.cfg.lifetime_units
        };
        let sequence = self.next_sequence();
        let state = BindingState {
            care_of: c.care_of,
            sequence,
            acked: false,
            tries,
            lifetime_units: lifetime,
        };
        let bu = MhMessage::BindingUpdate(BindingUpdate {
            sequence,
            ack: true,
            home,
            lifetime_units: lifetime,
            ..Default::default()
        });
        (state, bu)
    }

    pub(super) fn send_home_update(&mut self, ctx: &mut Ctx<'_>) {
        let Some(c) = self.current else {
            return;
        };
        let tries = self.home.map_or(0, |h| {
            if h.care_of == c.care_of && !h.acked {
                h.tries
            } else {
                0
            }
        });
        let (state, bu) = self.binding_update(&c, tries, true);
        self.home = Some(state);
        self.send_bu(ctx, self.cfg.home_agent, &bu, c);
        if let Some(h) = self.handovers.last_mut() {
            h.home_bu_sent_at.get_or_insert(ctx.now());
        }
        self.arm_retry(ctx, 0, tries);
    }

    pub(super) fn send_correspondent_update(&mut self, ctx: &mut Ctx<'_>, i: usize) {
        let Some(c) = self.current else {
            return;
        };
        let Some(cn) = self.cns.get(i).copied() else {
            return;
        };
        let tries = cn
            .pending
            .map_or(0, |p| if p.care_of == c.care_of { p.tries } else { 0 });
        let (state, bu) = self.binding_update(&c, tries, false);
        self.cns[i].pending = Some(state);
        self.send_bu(ctx, cn.address, &bu, c);
        self.arm_retry(ctx, i + 1, tries);
    }

    /// Sends a Binding Update: from the care-of address with a Home
    /// Address option, or from the home address at home.
    pub(super) fn send_bu(
        &mut self,
        ctx: &mut Ctx<'_>,
        dst: Ipv6Addr,
        bu: &MhMessage,
        c: Current6,
    ) {
        let Ok(p) = wire::mh_packet(self.cfg.home_address, dst, bu, DEFAULT_TTL) else {
            return;
        };
        let out = if c.at_home {
            Ok(p)
        } else {
            wire::insert_home_address(&p, c.care_of)
        };
        if let Ok(out) = out {
            self.stats.binding_updates += 1;
            let _ = ctx.send(out);
            if let MhMessage::BindingUpdate(u) = bu {
                self.trace.push(
                    ctx.now(),
                    MipTraceEvent::RegistrationSent {
                        identification: u64::from(u.sequence),
                        agent: IpAddr::V6(dst),
                        care_of: IpAddr::V6(c.care_of),
                        lifetime_s: u.lifetime_units.saturating_mul(LIFETIME_UNIT_S as u16),
                    },
                );
            }
        }
    }

    pub(super) fn arm_retry(&mut self, ctx: &mut Ctx<'_>, index: usize, tries: u32) {
        let t = self
            .cfg
            .binding_timeout
            .saturating_mul(1u32 << tries.min(16));
        ctx.set_timer_in(t, token(TOKEN_RETRY, index as u64, self.generation));
    }

    pub(super) fn on_retry(&mut self, ctx: &mut Ctx<'_>, index: usize, generation: u64) {
        if generation != self.generation {
            return;
        }
        if index == 0 {
            if let Some(h) = self.home.as_mut()
                && !h.acked
            {
                h.tries += 1;
                if h.tries > self.cfg.max_retries {
                    return;
                }
                self.stats.retransmissions += 1;
                self.send_home_update(ctx);
            }
        } else if let Some(cn) = self.cns.get_mut(index - 1)
            && let Some(p) = cn.pending.as_mut()
            && !p.acked
        {
            p.tries += 1;
            if p.tries > self.cfg.max_retries {
                return;
            }
            self.stats.retransmissions += 1;
            self.send_correspondent_update(ctx, index - 1);
        }
    }

    pub(super) fn on_binding_ack(
        &mut self,
        ctx: &mut Ctx<'_>,
        from: Ipv6Addr,
        ba: wire::BindingAck,
    ) {
        let now = ctx.now();
        self.stats.binding_acks += 1;
        let accepted = ba.status < 128;
        if from == self.cfg.home_agent {
            let Some(h) = self.home.as_mut() else {
                return;
            };
            if h.sequence != ba.sequence || !accepted {
                return;
            }
            h.acked = true;
            let at_home = self.current.is_some_and(|c| c.at_home);
            self.trace.push(
                now,
                MipTraceEvent::RegistrationAccepted {
                    identification: u64::from(ba.sequence),
                    lifetime_s: ba.lifetime_units.saturating_mul(LIFETIME_UNIT_S as u16),
                },
            );
            if let Some(r) = self.handovers.last_mut() {
                r.home_acked_at.get_or_insert(now);
            }
            // The home agent now tunnels to the new address: the path
            // through the previous router is no longer needed.
            self.par_tunnel = None;
            if self.cfg.route_optimisation || at_home {
                for i in 0..self.cns.len() {
                    self.send_correspondent_update(ctx, i);
                }
            }
            return;
        }
        let Some(i) = self.cns.iter().position(|c| c.address == from) else {
            return;
        };
        let Some(p) = self.cns[i].pending else {
            return;
        };
        if p.sequence != ba.sequence || !accepted {
            return;
        }
        self.cns[i].pending = None;
        self.cns[i].acked_coa = if p.lifetime_units == 0 {
            None
        } else {
            Some(p.care_of)
        };
        if self.cns.iter().all(|c| c.pending.is_none())
            && let Some(r) = self.handovers.last_mut()
        {
            r.correspondents_acked_at.get_or_insert(now);
        }
    }
}
