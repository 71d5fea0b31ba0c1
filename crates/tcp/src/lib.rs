//! msctp-tcp: a sans-I/O TCP NewReno model.
pub mod config;
pub mod reassembly;
pub mod rtt;
pub mod send_buffer;
pub mod seq;
pub mod wire;
