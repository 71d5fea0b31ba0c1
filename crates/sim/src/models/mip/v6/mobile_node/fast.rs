//! The mobile side of fast handovers (FMIPv6, RFC 5568): a beacon of
//! another cell asks the current router for a proxy advertisement, whose
//! answer gives the new care-of address and a Fast Binding Update; an
//! attachment in the prepared cell uses that address at once.

use super::*;

impl MobileNode6 {
    pub(super) fn on_beacon(&mut self, ctx: &mut Ctx<'_>, iface: IfaceId, cell: CellId) {
        if !self.cfg.fast_handovers {
            return;
        }
        let Some(c) = self.current else {
            return;
        };
        if !c.ready || c.at_home || Self::cell_of(ctx, c.iface) == Some(cell) {
            return;
        }
        if self.prepared.is_some_and(|p| p.cell == cell) {
            return;
        }
        let _ = iface;
        let identifier = (self.generation as u16)
            .wrapping_mul(31)
            .wrapping_add(cell.0 as u16);
        self.prepared = Some(Prepared {
            cell,
            identifier,
            par: c.router,
            previous_coa: c.care_of,
            nar: None,
            prefix: None,
            new_coa: None,
            fbu_sequence: 0,
            fback: false,
        });
        self.fast_record = FastRecord {
            rtsolpr_at: Some(ctx.now()),
            ..Default::default()
        };
        let msg = wire::rtsolpr(c.care_of, c.router, identifier, wire::ap_id(cell));
        self.send_icmp(ctx, c.iface, c.care_of, c.router, &msg);
        self.fmip_trace(ctx.now(), FmipMessage::RtSolPr, true, c.router);
    }

    pub(super) fn on_proxy_advertisement(&mut self, ctx: &mut Ctx<'_>, adv: ProxyAdvertisement) {
        let Some(mut p) = self.prepared else {
            return;
        };
        if adv.identifier != p.identifier || adv.code != 0 {
            return;
        }
        let (Some(nar), Some(prefix)) = (adv.nar_address, adv.nar_prefix) else {
            return;
        };
        let now = ctx.now();
        self.fmip_trace(now, FmipMessage::PrRtAdv, false, p.par);
        self.fast_record.prrtadv_at = Some(now);
        p.nar = Some(nar);
        p.prefix = Some(prefix);
        let ncoa = self.form_address(prefix);
        p.new_coa = Some(ncoa);
        p.fbu_sequence = self.next_sequence();
        self.prepared = Some(p);
        // Predictive mode: the Fast Binding Update from the current link.
        let Some(c) = self.current else {
            return;
        };
        if Self::cell_of(ctx, c.iface) == Some(p.cell) {
            return;
        }
        let fbu = MhMessage::FastBindingUpdate(BindingUpdate {
            sequence: p.fbu_sequence,
            ack: true,
            home: false,
            lifetime_units: self.cfg.lifetime_units,
            alternate_coa: Some(ncoa),
            addresses: Vec::new(),
        });
        if let Ok(pkt) = wire::mh_packet(p.previous_coa, p.par, &fbu, DEFAULT_TTL) {
            self.fast_record.fbu_at = Some(now);
            self.fmip_trace(now, FmipMessage::FBU, true, p.par);
            let _ = ctx.send(pkt);
        }
    }

    /// The interface came up in the cell a fast handover was prepared for.
    pub(super) fn fast_attach(&mut self, ctx: &mut Ctx<'_>, iface: IfaceId, p: Prepared) {
        let (Some(nar), Some(prefix), Some(ncoa)) = (p.nar, p.prefix, p.new_coa) else {
            return;
        };
        let now = ctx.now();
        self.fast_record.attached_at = Some(now);
        self.generation += 1;
        self.stats.handovers += 1;
        self.trace.push(
            now,
            MipTraceEvent::MovementDetected {
                from: self.current.map(|c| IpAddr::V6(c.router)),
                to: IpAddr::V6(nar),
                iface,
            },
        );
        self.current = Some(Current6 {
            iface,
            router: nar,
            prefix,
            at_home: false,
            care_of: ncoa,
            ready: false,
            fast: true,
        });
        self.handovers.push(Handover6Record {
            detected_at: now,
            ready_at: None,
            home_bu_sent_at: None,
            home_acked_at: None,
            correspondents_acked_at: None,
            router: nar,
            at_home: false,
            fast: true,
        });
        if let Some(s) = self.slot_of(iface) {
            self.known[s] = Some(KnownRouter {
                router: nar,
                prefix,
                home: false,
                expires_at: now + Duration::from_secs(3),
            });
        }
        // Uplink through the previous router until the home agent knows
        // the new address.
        self.par_tunnel = Some((p.par, p.previous_coa));
        // Announce ourselves to the new router (UNA) so it delivers what
        // it buffered.
        let una = wire::unsolicited_na(ncoa, ALL_NODES, ncoa, wire::ap_id(p.cell));
        self.send_icmp(ctx, iface, ncoa, ALL_NODES, &una);
        self.fast_record.una_at = Some(now);
        self.fmip_trace(now, FmipMessage::UNA, true, nar);
        self.configure(ctx);
        if !p.fback {
            // Reactive mode: the Fast Binding Update from the new link,
            // with the previous care-of address in a Home Address option.
            self.fast_record.reactive = true;
            let fbu = MhMessage::FastBindingUpdate(BindingUpdate {
                sequence: p.fbu_sequence,
                ack: true,
                home: false,
                lifetime_units: self.cfg.lifetime_units,
                alternate_coa: Some(ncoa),
                addresses: Vec::new(),
            });
            if let Ok(pkt) = wire::mh_packet(p.previous_coa, p.par, &fbu, DEFAULT_TTL)
                && let Ok(out) = wire::insert_home_address(&pkt, ncoa)
            {
                self.fast_record.fbu_at.get_or_insert(now);
                self.fmip_trace(now, FmipMessage::FBU, true, p.par);
                let _ = ctx.send(out);
            }
        }
        self.prepared = None;
    }
}
