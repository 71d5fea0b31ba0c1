//! The association's start: what an INIT or INIT ACK tells us about the
//! peer (RFC 9260 sections 3.3.2, 3.3.3 and 5.1; RFC 5061 section 4.2.7;
//! RFC 4895 section 3), and the INIT / INIT ACK we send.

use std::net::IpAddr;

use bytes::Bytes;

use crate::auth::{AuthParamError, AuthParams, RANDOM_LEN};
use crate::config::AssociationConfig;
use crate::wire::chunk::chunk_type;
use crate::wire::param::UnknownParamAction;
use crate::wire::{InitChunk, Param};

/// What the peer announced in its INIT or INIT ACK.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerInit {
    pub initiate_tag: u32,
    pub a_rwnd: u32,
    pub outbound_streams: u16,
    pub inbound_streams: u16,
    pub initial_tsn: u32,
    /// Addresses listed (the packet's source is added by the caller).
    pub addresses: Vec<IpAddr>,
    /// Supported Address Types, if sent.
    pub address_types: Option<Vec<u16>>,
    pub cookie: Option<Bytes>,
    pub cookie_preservative: Option<u32>,
    /// RANDOM / CHUNKS / HMAC-ALGO, when RANDOM and HMAC-ALGO were both sent.
    pub auth: Option<AuthParams>,
    /// Supported Extensions lists ASCONF and ASCONF-ACK.
    pub supports_asconf: bool,
    /// Supported Extensions lists PROBE and PROBE-ECHO (msctp's capacity
    /// probes).
    pub supports_probes: bool,
    /// The peer sent Forward-TSN-Supported (RFC 3758 section 3.3.1) or
    /// listed FORWARD TSN in Supported Extensions (as usrsctp does).
    pub supports_pr_sctp: bool,
    /// Supported Extensions lists I-DATA (RFC 8260 section 2.2).
    pub supports_idata: bool,
    /// Supported Extensions lists RE-CONFIG (RFC 6525 section 3.1).
    pub supports_reconfig: bool,
    pub adaptation: Option<u32>,
    /// Unrecognized parameters to report (raw TLVs).
    pub unrecognized: Vec<Bytes>,
    /// A Host Name Address was present (deprecated: refused).
    pub host_name: bool,
}

/// Why an INIT or INIT ACK is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InitError {
    #[error("initiate tag is zero")]
    ZeroTag,
    #[error("zero outbound or inbound stream count")]
    ZeroStreams,
    #[error("AUTH parameters: {0}")]
    Auth(AuthParamError),
    #[error("state cookie missing from INIT ACK")]
    MissingCookie,
    #[error("host name address is not supported")]
    HostName,
    #[error("{listed} address parameters, more than the {max} accepted")]
    TooManyAddresses { listed: usize, max: usize },
}

/// Refuses an INIT or INIT ACK that lists more than `max` addresses
/// (`Limits::max_init_addresses`), before anything else reads them.
pub fn check_address_count(init: &InitChunk, max: usize) -> Result<(), InitError> {
    let listed = init
        .params
        .iter()
        .filter(|p| matches!(p, Param::Ipv4Address(_) | Param::Ipv6Address(_)))
        .count();
    if listed > max {
        return Err(InitError::TooManyAddresses { listed, max });
    }
    Ok(())
}

/// Chunk types a CHUNKS parameter can list (RFC 4895 section 3.2).
const MAX_CHUNK_TYPES: usize = 256;

fn tlv(ty: u16, value: &[u8]) -> Bytes {
    let mut v = Vec::with_capacity(4 + value.len());
    v.extend_from_slice(&ty.to_be_bytes());
    v.extend_from_slice(&((value.len() + 4) as u16).to_be_bytes());
    v.extend_from_slice(value);
    Bytes::from(v)
}

/// The peer's AUTH parameters from the RANDOM, CHUNKS and HMAC-ALGO
/// parameters of its INIT or INIT ACK: AUTH is in use only when the peer
/// sent RANDOM and HMAC-ALGO (RFC 4895 section 6.1); malformed sets are a
/// protocol violation.
fn peer_auth_params(
    randoms: Vec<Bytes>,
    mut chunks: Vec<Vec<u8>>,
    mut hmacs: Vec<Vec<u16>>,
) -> Result<Option<AuthParams>, InitError> {
    if randoms.is_empty() && hmacs.is_empty() && chunks.is_empty() {
        return Ok(None);
    }
    if randoms.len() != 1 {
        return Err(InitError::Auth(AuthParamError::RandomCount));
    }
    if hmacs.len() != 1 {
        return Err(InitError::Auth(AuthParamError::HmacAlgoCount));
    }
    // At most one CHUNKS, of at most 256 chunk types (260 bytes
    // with its header, RFC 4895 section 3.2).
    if chunks.len() > 1 || chunks.first().is_some_and(|c| c.len() > MAX_CHUNK_TYPES) {
        return Err(InitError::Auth(AuthParamError::BadChunks));
    }
    if randoms[0].len() != RANDOM_LEN {
        return Err(InitError::Auth(AuthParamError::RandomLength(
            randoms[0].len(),
        )));
    }
    if !hmacs[0].contains(&1) {
        return Err(InitError::Auth(AuthParamError::NoSha1));
    }
    Ok(Some(AuthParams {
        random: randoms[0].to_vec(),
        chunks: chunks.pop(),
        hmac_ids: hmacs.remove(0),
    }))
}

impl PeerInit {
    /// Reads the fixed part and the parameters of an INIT or INIT ACK,
    /// handling unknown parameters by their high bits (RFC 9260 section
    /// 3.2.1). Structural errors were caught by the wire parser; this
    /// checks the protocol rules.
    pub fn from_chunk(init: &InitChunk, is_ack: bool) -> Result<PeerInit, InitError> {
        if init.initiate_tag == 0 {
            return Err(InitError::ZeroTag);
        }
        if init.outbound_streams == 0 || init.inbound_streams == 0 {
            return Err(InitError::ZeroStreams);
        }
        let mut p = PeerInit {
            initiate_tag: init.initiate_tag,
            a_rwnd: init.a_rwnd,
            outbound_streams: init.outbound_streams,
            inbound_streams: init.inbound_streams,
            initial_tsn: init.initial_tsn,
            addresses: Vec::new(),
            address_types: None,
            cookie: None,
            cookie_preservative: None,
            auth: None,
            supports_asconf: false,
            supports_probes: false,
            supports_pr_sctp: false,
            supports_idata: false,
            supports_reconfig: false,
            adaptation: None,
            unrecognized: Vec::new(),
            host_name: false,
        };
        // Each address once, in linear time (a 64 KiB INIT lists 8 185).
        let mut seen = std::collections::HashSet::new();
        let mut push_unique = |v: &mut Vec<IpAddr>, a: IpAddr| {
            if seen.insert(a) {
                v.push(a);
            }
        };
        // AUTH's parameters, checked together after the loop.
        let mut randoms: Vec<Bytes> = Vec::new();
        let mut chunks: Vec<Vec<u8>> = Vec::new();
        let mut hmacs: Vec<Vec<u16>> = Vec::new();
        for param in &init.params {
            match param {
                Param::Ipv4Address(a) => push_unique(&mut p.addresses, IpAddr::V4(*a)),
                Param::Ipv6Address(a) => push_unique(&mut p.addresses, IpAddr::V6(*a)),
                Param::StateCookie(c) if is_ack => p.cookie = Some(c.clone()),
                Param::CookiePreservative(ms) if !is_ack => p.cookie_preservative = Some(*ms),
                Param::HostNameAddress(_) => p.host_name = true,
                Param::SupportedAddressTypes(t) if !is_ack => p.address_types = Some(t.clone()),
                Param::SupportedExtensions(list) => {
                    p.supports_asconf = list.contains(&chunk_type::ASCONF)
                        && list.contains(&chunk_type::ASCONF_ACK);
                    p.supports_probes =
                        list.contains(&chunk_type::PROBE) && list.contains(&chunk_type::PROBE_ECHO);
                    p.supports_pr_sctp |= list.contains(&chunk_type::FORWARD_TSN);
                    p.supports_idata = list.contains(&chunk_type::I_DATA);
                    p.supports_reconfig = list.contains(&chunk_type::RECONFIG);
                }
                Param::ForwardTsnSupported => p.supports_pr_sctp = true,
                Param::Random(r) => randoms.push(r.clone()),
                Param::Chunks(c) => chunks.push(c.clone()),
                Param::HmacAlgo(h) => hmacs.push(h.clone()),
                Param::AdaptationLayerIndication(v) => p.adaptation = Some(*v),
                // Known parameters that carry nothing we act on.
                Param::EcnCapable | Param::UnrecognizedParameter(_) => {}
                Param::Unknown { param_type, value } => {
                    let raw = tlv(*param_type, value);
                    match UnknownParamAction::from_type(*param_type) {
                        UnknownParamAction::Stop => break,
                        UnknownParamAction::StopAndReport => {
                            p.unrecognized.push(raw);
                            break;
                        }
                        UnknownParamAction::Skip => {}
                        UnknownParamAction::SkipAndReport => p.unrecognized.push(raw),
                    }
                }
                // Parameters that do not belong in an INIT / INIT ACK are
                // ignored (e.g. a cookie in an INIT).
                _ => {}
            }
        }
        if is_ack && p.cookie.is_none() {
            return Err(InitError::MissingCookie);
        }
        if p.host_name {
            return Err(InitError::HostName);
        }
        p.auth = peer_auth_params(randoms, chunks, hmacs)?;
        Ok(p)
    }

    /// Does the peer accept addresses of this family (Supported Address
    /// Types, RFC 9260 section 3.3.2.1.4; absent means both).
    pub fn accepts_family(&self, addr: &IpAddr) -> bool {
        match &self.address_types {
            None => true,
            Some(t) => t.contains(if addr.is_ipv4() { &5 } else { &6 }),
        }
    }
}

/// Our AUTH parameters for an INIT / INIT ACK.
pub fn local_auth_params(cfg: &AssociationConfig, random: &[u8; RANDOM_LEN]) -> AuthParams {
    let mut chunks = cfg.auth_chunks.clone();
    let mut required = Vec::new();
    if cfg.asconf {
        required.extend([chunk_type::ASCONF, chunk_type::ASCONF_ACK]);
    }
    // A forged echo would steer the handover policy; a forged probe would
    // falsify the echo: both must be authenticated (docs/DESIGN.md).
    if cfg.estimators.enabled {
        required.extend([chunk_type::PROBE, chunk_type::PROBE_ECHO]);
    }
    // RFC 6525 section 3.1: RE-CONFIG is sent authenticated.
    if cfg.stream_reconfig {
        required.push(chunk_type::RECONFIG);
    }
    for c in required {
        if !chunks.contains(&c) {
            chunks.push(c);
        }
    }
    let mut hmac_ids: Vec<u16> = Vec::new();
    for a in &cfg.hmac_algorithms {
        if !hmac_ids.contains(&a.id()) {
            hmac_ids.push(a.id());
        }
    }
    if !hmac_ids.contains(&1) {
        hmac_ids.push(1);
    }
    AuthParams {
        random: random.to_vec(),
        chunks: if chunks.is_empty() {
            None
        } else {
            Some(chunks)
        },
        hmac_ids,
    }
}

/// The optional parameters we put in an INIT or INIT ACK (before the
/// cookie, which the caller adds to an INIT ACK).
pub fn local_params(
    cfg: &AssociationConfig,
    local_addrs: &[IpAddr],
    auth: Option<&AuthParams>,
    is_ack: bool,
) -> Vec<Param> {
    let mut params = Vec::new();
    // Addresses are listed when there is more than one (with a single
    // address the packet's source says it all, RFC 9260 section 3.3.2.1).
    if local_addrs.len() > 1 {
        for a in local_addrs {
            params.push(match a {
                IpAddr::V4(v4) => Param::Ipv4Address(*v4),
                IpAddr::V6(v6) => Param::Ipv6Address(*v6),
            });
        }
    }
    if !is_ack && !local_addrs.is_empty() {
        let mut types = Vec::new();
        if local_addrs.iter().any(|a| a.is_ipv4()) {
            types.push(5);
        }
        if local_addrs.iter().any(|a| a.is_ipv6()) {
            types.push(6);
        }
        params.push(Param::SupportedAddressTypes(types));
    }
    let mut ext = Vec::new();
    if cfg.asconf {
        ext.extend([chunk_type::ASCONF, chunk_type::ASCONF_ACK]);
    }
    if cfg.auth {
        ext.push(chunk_type::AUTH);
    }
    if cfg.estimators.enabled {
        ext.extend([chunk_type::PROBE, chunk_type::PROBE_ECHO]);
    }
    if cfg.pr_sctp {
        ext.push(chunk_type::FORWARD_TSN);
    }
    if cfg.interleaving {
        ext.push(chunk_type::I_DATA);
        if cfg.pr_sctp {
            ext.push(chunk_type::I_FORWARD_TSN);
        }
    }
    if cfg.stream_reconfig {
        ext.push(chunk_type::RECONFIG);
    }
    if !ext.is_empty() {
        params.push(Param::SupportedExtensions(ext));
    }
    // RFC 3758 section 3.3.1.
    if cfg.pr_sctp {
        params.push(Param::ForwardTsnSupported);
    }
    if let Some(a) = auth {
        params.push(Param::Random(Bytes::from(a.random.clone())));
        if let Some(c) = &a.chunks {
            params.push(Param::Chunks(c.clone()));
        }
        params.push(Param::HmacAlgo(a.hmac_ids.clone()));
    }
    if let Some(ind) = cfg.adaptation_indication {
        params.push(Param::AdaptationLayerIndication(ind));
    }
    params
}

/// Everything an INIT ACK needs (RFC 9260 section 5.1 step B, and the
/// collision cases of section 5.2 with their tie-tags).
pub struct InitAckSpec<'a> {
    pub cfg: &'a AssociationConfig,
    pub local_addrs: &'a [IpAddr],
    pub secret: &'a [u8],
    pub now: crate::Time,
    /// The peer's INIT chunk, whole.
    pub peer_init_raw: Bytes,
    pub peer: &'a PeerInit,
    pub src: IpAddr,
    pub dst: IpAddr,
    pub local_port: u16,
    pub peer_port: u16,
    pub local_tag: u32,
    pub local_initial_tsn: u32,
    pub local_tie_tag: u32,
    pub peer_tie_tag: u32,
    pub local_random: Option<[u8; RANDOM_LEN]>,
}

/// The copy of the peer's INIT the State Cookie carries (to rebuild the
/// association from the COOKIE ECHO, RFC 9260 section 5.1.3), without the
/// parameters the INIT's processing did not use: unrecognized parameters
/// to skip are left out, and the list ends at the first one that stops
/// processing (section 3.2.1). The INIT ACK then does not grow with the
/// unknown parameters of the INIT (reflection).
fn cookie_init(raw: Bytes) -> Bytes {
    let Ok(crate::wire::Chunk::Init(mut init)) = crate::wire::Chunk::parse(&raw) else {
        return raw;
    };
    let unknown = |p: &Param| matches!(p, Param::Unknown { .. });
    if !init.params.iter().any(unknown) {
        return raw;
    }
    let stop = init.params.iter().position(|p| match p {
        Param::Unknown { param_type, .. } => matches!(
            UnknownParamAction::from_type(*param_type),
            UnknownParamAction::Stop | UnknownParamAction::StopAndReport
        ),
        _ => false,
    });
    if let Some(i) = stop {
        init.params.truncate(i);
    }
    init.params.retain(|p| !unknown(p));
    let mut out = Vec::new();
    crate::wire::Chunk::Init(init).emit(&mut out);
    Bytes::from(out)
}

/// Builds the INIT ACK with its signed State Cookie.
pub fn build_init_ack(spec: InitAckSpec<'_>) -> crate::wire::Chunk {
    let cfg = spec.cfg;
    let mut lifespan = cfg.valid_cookie_life;
    // Cookie Preservative (section 5.2.6): honour a bounded increment.
    if let Some(ms) = spec.peer.cookie_preservative {
        lifespan += std::time::Duration::from_millis(ms.min(60_000) as u64);
    }
    let cookie = crate::cookie::CookieState {
        created: spec.now,
        lifespan,
        local_tag: spec.local_tag,
        peer_tag: spec.peer.initiate_tag,
        local_initial_tsn: spec.local_initial_tsn,
        local_tie_tag: spec.local_tie_tag,
        peer_tie_tag: spec.peer_tie_tag,
        local_port: spec.local_port,
        peer_port: spec.peer_port,
        init_src: spec.src,
        init_dst: spec.dst,
        local_random: spec.local_random,
        peer_init: cookie_init(spec.peer_init_raw),
    }
    .seal(spec.secret);
    let auth = spec.local_random.map(|r| local_auth_params(cfg, &r));
    let mut params = vec![Param::StateCookie(cookie)];
    params.extend(local_params(cfg, spec.local_addrs, auth.as_ref(), true));
    // The reports are bounded (`limits.max_reflected_unrecognized`): the
    // first ones that fit are sent, the others left out.
    let mut budget = cfg.limits.max_reflected_unrecognized;
    for raw in &spec.peer.unrecognized {
        let p = Param::UnrecognizedParameter(raw.clone());
        let Some(left) = budget.checked_sub(p.padded_len()) else {
            break;
        };
        budget = left;
        params.push(p);
    }
    crate::wire::Chunk::InitAck(InitChunk {
        initiate_tag: spec.local_tag,
        a_rwnd: cfg.receive_window,
        // No more outbound streams than the INIT allows inbound (section
        // 5.1.1): the INIT ACK announces the number actually usable.
        outbound_streams: cfg.outbound_streams.min(spec.peer.inbound_streams),
        inbound_streams: cfg.max_inbound_streams,
        initial_tsn: spec.local_initial_tsn,
        params,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn init(params: Vec<Param>) -> InitChunk {
        InitChunk {
            initiate_tag: 7,
            a_rwnd: 1500,
            outbound_streams: 1,
            inbound_streams: 1,
            initial_tsn: 3,
            params,
        }
    }

    #[test]
    fn estimators_are_announced_and_authenticated() {
        let mut cfg = AssociationConfig::default();
        let plain = local_params(&cfg, &[], None, false);
        assert!(plain.contains(&Param::SupportedExtensions(vec![0xc1, 0x80, 0x0f, 0xc0])));
        cfg.estimators.enabled = true;
        let params = local_params(&cfg, &[], None, false);
        assert!(params.contains(&Param::SupportedExtensions(vec![
            0xc1, 0x80, 0x0f, 0xb0, 0xb1, 0xc0
        ])));
        let auth = local_auth_params(&cfg, &[0; RANDOM_LEN]);
        assert_eq!(auth.chunks, Some(vec![0xc1, 0x80, 0xb0, 0xb1]));
        let init = InitChunk {
            initiate_tag: 1,
            a_rwnd: 1500,
            outbound_streams: 1,
            inbound_streams: 1,
            initial_tsn: 0,
            params,
        };
        assert!(PeerInit::from_chunk(&init, false).unwrap().supports_probes);
    }

    #[test]
    fn reads_addresses_extensions_and_auth() {
        let p = PeerInit::from_chunk(
            &init(vec![
                Param::Ipv4Address("10.0.0.1".parse().unwrap()),
                Param::Ipv4Address("10.0.0.1".parse().unwrap()),
                Param::Ipv6Address("2001:db8::1".parse().unwrap()),
                Param::SupportedExtensions(vec![0xc1, 0x80]),
                Param::Random(Bytes::from(vec![5u8; 32])),
                Param::HmacAlgo(vec![3, 1]),
            ]),
            false,
        )
        .unwrap();
        assert_eq!(p.addresses.len(), 2);
        assert!(p.supports_asconf);
        let a = p.auth.unwrap();
        assert_eq!(a.hmac_ids, vec![3, 1]);
        assert_eq!(a.chunks, None);
    }

    #[test]
    fn unknown_parameters_follow_their_high_bits() {
        let unk = |t: u16| Param::Unknown {
            param_type: t,
            value: Bytes::from_static(b"abcd"),
        };
        let addr = Param::Ipv4Address("10.0.0.9".parse().unwrap());
        // 10: skip; 11: skip and report.
        let p = PeerInit::from_chunk(&init(vec![unk(0x8123), unk(0xC123), addr.clone()]), false)
            .unwrap();
        assert_eq!(p.unrecognized.len(), 1);
        assert_eq!(&p.unrecognized[0][..4], &[0xC1, 0x23, 0, 8]);
        assert_eq!(p.addresses.len(), 1);
        // 00: stop; 01: stop and report — later parameters are not read.
        let p = PeerInit::from_chunk(&init(vec![unk(0x0123), addr.clone()]), false).unwrap();
        assert!(p.addresses.is_empty() && p.unrecognized.is_empty());
        let p = PeerInit::from_chunk(&init(vec![unk(0x4123), addr]), false).unwrap();
        assert!(p.addresses.is_empty());
        assert_eq!(p.unrecognized.len(), 1);
    }

    #[test]
    fn protocol_rules_are_enforced() {
        let mut i = init(vec![]);
        i.initiate_tag = 0;
        assert_eq!(PeerInit::from_chunk(&i, false), Err(InitError::ZeroTag));
        let mut i = init(vec![]);
        i.inbound_streams = 0;
        assert_eq!(PeerInit::from_chunk(&i, false), Err(InitError::ZeroStreams));
        assert_eq!(
            PeerInit::from_chunk(&init(vec![]), true),
            Err(InitError::MissingCookie)
        );
        let bad_random = init(vec![
            Param::Random(Bytes::from(vec![1u8; 16])),
            Param::HmacAlgo(vec![1]),
        ]);
        assert_eq!(
            PeerInit::from_chunk(&bad_random, false),
            Err(InitError::Auth(AuthParamError::RandomLength(16)))
        );
        let no_sha1 = init(vec![
            Param::Random(Bytes::from(vec![1u8; 32])),
            Param::HmacAlgo(vec![3]),
        ]);
        assert_eq!(
            PeerInit::from_chunk(&no_sha1, false),
            Err(InitError::Auth(AuthParamError::NoSha1))
        );
        let long_chunks = init(vec![
            Param::Random(Bytes::from(vec![1u8; 32])),
            Param::Chunks(vec![0u8; 257]),
            Param::HmacAlgo(vec![1]),
        ]);
        assert_eq!(
            PeerInit::from_chunk(&long_chunks, false),
            Err(InitError::Auth(AuthParamError::BadChunks)),
            "auth/chunks-list-too-long.pkt: more than 256 chunk types"
        );
        let no_hmac = init(vec![Param::Random(Bytes::from(vec![1u8; 32]))]);
        assert_eq!(
            PeerInit::from_chunk(&no_hmac, false),
            Err(InitError::Auth(AuthParamError::HmacAlgoCount))
        );
        let host = init(vec![Param::HostNameAddress(Bytes::from_static(
            b"example.org\0",
        ))]);
        assert_eq!(PeerInit::from_chunk(&host, false), Err(InitError::HostName));
    }

    /// sctp-as-v-1-7-1: an INIT whose MIS is below our OS gets an INIT ACK
    /// announcing only MIS outbound streams.
    #[test]
    fn init_ack_announces_at_most_the_peers_inbound_streams() {
        let cfg = AssociationConfig {
            outbound_streams: 2,
            asconf: false,
            auth: false,
            ..Default::default()
        };
        let peer_init = init(vec![]);
        let peer = PeerInit::from_chunk(&peer_init, false).unwrap();
        let mut raw = Vec::new();
        crate::wire::Chunk::Init(peer_init).emit(&mut raw);
        let ack = build_init_ack(InitAckSpec {
            cfg: &cfg,
            local_addrs: &[],
            secret: &[1; 32],
            now: crate::Time::ZERO,
            peer_init_raw: Bytes::from(raw),
            peer: &peer,
            src: "10.0.0.2".parse().unwrap(),
            dst: "10.0.0.1".parse().unwrap(),
            local_port: 1,
            peer_port: 2,
            local_tag: 5,
            local_initial_tsn: 6,
            local_tie_tag: 0,
            peer_tie_tag: 0,
            local_random: None,
        });
        match ack {
            crate::wire::Chunk::InitAck(i) => assert_eq!(i.outbound_streams, 1),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn local_parameters_announce_extensions() {
        let cfg = AssociationConfig::default();
        let a = local_auth_params(&cfg, &[9; 32]);
        assert_eq!(a.chunks, Some(vec![0xc1, 0x80]));
        assert_eq!(a.hmac_ids, vec![3, 1]);
        let addrs: Vec<IpAddr> = vec!["10.0.0.1".parse().unwrap(), "10.1.0.1".parse().unwrap()];
        let params = local_params(&cfg, &addrs, Some(&a), false);
        assert!(params.contains(&Param::SupportedExtensions(vec![0xc1, 0x80, 0x0f, 0xc0])));
        assert!(params.contains(&Param::ForwardTsnSupported));
        assert!(params.contains(&Param::SupportedAddressTypes(vec![5])));
        assert_eq!(
            params
                .iter()
                .filter(|p| matches!(p, Param::Ipv4Address(_)))
                .count(),
            2
        );
        let off = AssociationConfig {
            asconf: false,
            auth: false,
            pr_sctp: false,
            ..Default::default()
        };
        assert!(local_params(&off, &addrs[..1], None, true).is_empty());
    }
}
