//! One module per command family.

pub mod bench;
pub mod bench_compare;
pub mod conformance;
pub mod lab;
pub mod net;
pub mod robustness;
pub mod soak;
pub mod tunnel;
pub mod view;
