//! What the scenario tests of Budzisz et al.'s set-ups share.

/// The wired part of a dual-homed mobile's scenario: the correspondent
/// `cn` behind a `core` router with two access routers `ar1` and `ar2`
/// (100 Mbit/s links, 1 ms default delay), for cells on `ar1` and `ar2`
/// (10.1.0.0/24 and 10.2.0.0/24 in the tests).
pub const WIRED: &str = r#"[[nodes]]
name = "cn"
[[nodes]]
name = "core"
kind = "router"
[[nodes]]
name = "ar1"
kind = "router"
[[nodes]]
name = "ar2"
kind = "router"
[[links]]
name = "cn-core"
a = "cn"
a_addr = "10.0.0.1/24"
b = "core"
b_addr = "10.0.0.254/24"
rate_bps = 100000000
[[links]]
name = "core-ar1"
a = "core"
a_addr = "10.0.1.1/30"
b = "ar1"
b_addr = "10.0.1.2/30"
rate_bps = 100000000
[[links]]
name = "core-ar2"
a = "core"
a_addr = "10.0.2.1/30"
b = "ar2"
b_addr = "10.0.2.2/30"
rate_bps = 100000000
"#;
