//! HMAC-SHA-256 (RFC 2104) of a label and the key proof's two nonces:
//! the key proof's messages ([`super::auth`]) and the association's key
//! for stream opens ([`super::open::OpenKey`]) are both made with it.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// HMAC-SHA-256 under `key` of `label`, `c` and `n`.
pub(super) fn mac(key: &[u8], label: &[u8], c: &[u8], n: &[u8]) -> Hmac<Sha256> {
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key length");
    m.update(label);
    m.update(c);
    m.update(n);
    m
}
