//! HMAC-SHA-256 (RFC 2104) of a label and the key proof's two nonces:
//! the key proof's messages ([`super::auth`]) and the association's key
//! for stream opens ([`super::open::OpenKey`]) are both made with it,
//! and the stream opens' seals with [`hmac`] under that key.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// HMAC-SHA-256 under `key`, to be fed.
pub(super) fn hmac(key: &[u8]) -> Hmac<Sha256> {
    <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key length")
}

/// HMAC-SHA-256 under `key` of `label`, `c` and `n`.
pub(super) fn mac(key: &[u8], label: &[u8], c: &[u8], n: &[u8]) -> Hmac<Sha256> {
    let mut m = hmac(key);
    m.update(label);
    m.update(c);
    m.update(n);
    m
}
