//! Chunk authentication (RFC 4895): what we announced, the keys agreed
//! with the peer, which chunks must be authenticated in each direction
//! (section 6.2 and RFC 5061 section 4.1.1 for ASCONF), and the check of
//! a received AUTH chunk (section 6.3). The HMAC computation itself is
//! [`crate::auth`].

use bytes::Bytes;

use super::Association;
use super::handshake::PeerInit;
use crate::auth::{AuthParams, AuthState};
use crate::config::AssociationConfig;
use crate::wire::AuthChunk;
use crate::wire::chunk::chunk_type;

/// The association's AUTH state.
#[derive(Debug, Clone, Default)]
pub(super) struct Auth {
    /// The Random, Chunk List and HMAC Algorithm parameters we announced
    /// in our INIT or INIT ACK (RFC 4895 section 3); `None` with AUTH off.
    pub(super) local: Option<AuthParams>,
    /// The association's key and algorithms, once both sides announced
    /// AUTH (section 6.1); `None`: no chunk is authenticated.
    pub(super) state: Option<AuthState>,
}

impl Auth {
    /// Agrees on the keys from our parameters and the peer's INIT or INIT
    /// ACK (section 6.1); AUTH is off unless both sides announced it.
    pub(super) fn negotiate(
        &mut self,
        cfg: &AssociationConfig,
        peer: &PeerInit,
    ) -> Result<(), &'static str> {
        self.state = match (&self.local, &peer.auth) {
            (Some(local), Some(remote)) if cfg.auth => Some(
                AuthState::new(&cfg.shared_key, local, remote)
                    .map_err(|_| "invalid AUTH parameters")?,
            ),
            _ => None,
        };
        Ok(())
    }
}

/// Why an AUTH chunk did not authenticate what follows.
pub(super) enum AuthFailure {
    /// Silently discard the rest of the packet.
    Discard,
    /// Discard and report an unsupported HMAC identifier.
    UnsupportedHmac(u16),
}

impl Association {
    /// AUTH is in use.
    pub fn auth_enabled(&self) -> bool {
        self.auth.state.is_some()
    }

    /// Must this received chunk type have been authenticated?
    pub(super) fn requires_auth(&self, ty: u8) -> bool {
        match &self.auth.state {
            Some(a) => {
                a.requires_authentication(ty)
                    || (self.cfg.asconf
                        && matches!(ty, chunk_type::ASCONF | chunk_type::ASCONF_ACK))
            }
            // Without AUTH, ASCONF is never accepted (RFC 5061 section 4.1.1).
            None => matches!(ty, chunk_type::ASCONF | chunk_type::ASCONF_ACK) && self.cfg.asconf,
        }
    }

    /// RFC 4895 section 6.3.
    pub(super) fn verify_auth(
        &self,
        packet: &Bytes,
        start: usize,
        a: &AuthChunk,
    ) -> Result<(), AuthFailure> {
        let Some(st) = &self.auth.state else {
            return Err(AuthFailure::Discard);
        };
        let Some(alg) = st.accepts(a.hmac_id) else {
            return Err(AuthFailure::UnsupportedHmac(a.hmac_id));
        };
        if a.shared_key_id != 0 || a.hmac.len() != alg.mac_len() {
            return Err(AuthFailure::Discard);
        }
        let auth = packet.get(start..).unwrap_or_default();
        if st.verify_auth_chunk(alg, auth, &a.hmac) {
            Ok(())
        } else {
            Err(AuthFailure::Discard)
        }
    }

    /// Must a chunk of this type that we send be authenticated?
    pub(super) fn must_authenticate(&self, ty: u8) -> bool {
        match &self.auth.state {
            Some(a) => {
                a.must_authenticate(ty)
                    || matches!(
                        ty,
                        chunk_type::ASCONF | chunk_type::ASCONF_ACK | chunk_type::RECONFIG
                    )
            }
            None => false,
        }
    }

    /// Bytes an AUTH chunk adds to a packet (0 with AUTH off).
    pub(super) fn auth_overhead(&self) -> usize {
        self.auth
            .state
            .as_ref()
            .map_or(0, |a| (8 + a.send_algorithm.mac_len()).next_multiple_of(4))
    }
}
