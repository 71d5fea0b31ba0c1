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

/// E5's WLAN (11 Mbit/s, 15 ms) as cell `net1` on `ar1` and UMTS (384
/// kbit/s, 80 ms) as cell `net2` on `ar2`, dedicated channels, 1 km radius,
/// for a mobile placed inside both.
#[allow(dead_code)] // not every test binary that shares this module uses it
pub const WLAN_UMTS_CELLS: &str = r#"[[cells]]
name = "net1"
router = "ar1"
ap_addr = "10.1.0.254/24"
radius_m = 1000.0
rate_bps = 11000000
delay_ms = 15.0
sharing = "dedicated"
[[cells]]
name = "net2"
router = "ar2"
ap_addr = "10.2.0.254/24"
radius_m = 1000.0
rate_bps = 384000
delay_ms = 80.0
sharing = "dedicated"
"#;
