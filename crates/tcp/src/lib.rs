//! msctp-tcp: a sans-I/O TCP NewReno model.
pub mod seq;
pub mod wire;
