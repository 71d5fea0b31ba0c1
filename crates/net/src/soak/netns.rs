//! The soak's network: three namespaces made with `ip` and `tc`, deleted
//! when dropped (also on error or panic), and the chaos actions on them.
//!
//! ```text
//!            d1 10.51.1.2 ==== tbf 20 Mbit/s ==== c1 10.51.1.1
//!   DH (dual-homed)                                               CN
//!            d2 10.51.2.2 ==== tbf 10 Mbit/s ==== c2 10.51.2.1
//!
//!   SR (single radio) s0 10.52.K.H ==== tbf 16 Mbit/s ==== c3 10.52.100.1,
//!                                                      gateways 10.52.1-4.1
//! ```
//!
//! A link cut sets the correspondent's end down (the mobile sees its
//! carrier drop, as when a radio loses its access point); an address
//! change deletes the single-radio mobile's address and, a moment later,
//! adds one in another subnet with that subnet's gateway (as DHCP hands
//! out both). Interface names carry the process id, so that runs do not
//! meet.

use std::fs::File;
use std::io;
use std::net::{IpAddr, Ipv4Addr};
use std::os::fd::AsRawFd;
use std::process::Command;

/// The correspondent's addresses towards the dual-homed mobile.
pub const CN_DH: [Ipv4Addr; 2] = [Ipv4Addr::new(10, 51, 1, 1), Ipv4Addr::new(10, 51, 2, 1)];
/// The correspondent's address towards the single-radio mobile.
pub const CN_SR: Ipv4Addr = Ipv4Addr::new(10, 52, 100, 1);
/// Subnets 10.52.K.0/24 (K in 1..=SR_SUBNETS) the single-radio mobile
/// moves between.
pub const SR_SUBNETS: u8 = 4;

/// Runs a command; its standard error in the error if it fails.
pub fn sh(args: &[&str]) -> io::Result<()> {
    let out = Command::new(args[0])
        .args(&args[1..])
        .output()
        .map_err(|e| io::Error::new(e.kind(), format!("cannot run `{}`: {e}", args[0])))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "`{}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

/// A named network namespace, deleted on drop.
#[derive(Debug)]
pub struct Netns {
    pub name: String,
}

impl Netns {
    pub fn new(name: String) -> io::Result<Netns> {
        let _ = sh(&["ip", "netns", "del", &name]);
        sh(&["ip", "netns", "add", &name])?;
        let ns = Netns { name };
        ns.ip(&["link", "set", "lo", "up"])?;
        Ok(ns)
    }

    /// `ip -n NAME ...`
    pub fn ip(&self, args: &[&str]) -> io::Result<()> {
        let mut v = vec!["ip", "-n", &self.name];
        v.extend_from_slice(args);
        sh(&v)
    }

    /// `ip netns exec NAME ...`
    pub fn exec(&self, args: &[&str]) -> io::Result<()> {
        let mut v = vec!["ip", "netns", "exec", &self.name];
        v.extend_from_slice(args);
        sh(&v)
    }
}

/// Moves the calling thread into namespace `name`: every socket it opens
/// afterwards (and every thread it starts) lives there.
pub fn enter(name: &str) -> io::Result<()> {
    let f = File::open(format!("/var/run/netns/{name}"))?;
    // SAFETY: a valid namespace file descriptor and flag; only the
    // calling thread changes namespace.
    if unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = sh(&["ip", "netns", "del", &self.name]);
    }
}

/// The three namespaces and the names of their interfaces.
#[derive(Debug)]
pub struct Topology {
    pub dh: Netns,
    pub sr: Netns,
    pub cn: Netns,
    /// The dual-homed mobile's interfaces (links 1 and 2) and the
    /// correspondent's ends of them.
    pub dh_ifaces: [String; 2],
    pub cn_ifaces: [String; 2],
    /// The single-radio mobile's interface.
    pub sr_iface: String,
    /// Its current address.
    pub sr_addr: Ipv4Addr,
}

fn veth(a: &Netns, an: &str, b: &Netns, bn: &str) -> io::Result<()> {
    sh(&[
        "ip", "link", "add", an, "netns", &a.name, "type", "veth", "peer", "name", bn, "netns",
        &b.name,
    ])
}

fn shape(ns: &Netns, dev: &str, rate: &str) -> io::Result<()> {
    ns.exec(&[
        "tc", "qdisc", "add", "dev", dev, "root", "tbf", "rate", rate, "burst", "32kbit",
        "latency", "20ms",
    ])
}

impl Topology {
    pub fn new() -> io::Result<Topology> {
        // Unique per run, also for runs in parallel in one process.
        static RUNS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % 100;
        let pid = format!("{}{run}", std::process::id());
        let ns = |t: &str| Netns::new(format!("msctp-soak-{t}-{pid}"));
        let (dh, sr, cn) = (ns("dh")?, ns("sr")?, ns("cn")?);
        let n = |t: &str| format!("k{pid}{t}");
        // A pad pair first: the kernel reports a veth's carrier change at
        // once only if its peer has another interface index than itself
        // (linkwatch's urgent events); fresh namespaces would give both
        // ends the same index.
        cn.ip(&[
            "link",
            "add",
            &n("p0"),
            "type",
            "veth",
            "peer",
            "name",
            &n("p1"),
        ])?;
        let dh_ifaces = [n("d1"), n("d2")];
        let cn_ifaces = [n("c1"), n("c2")];
        for (k, rate) in [(0usize, "20mbit"), (1, "10mbit")] {
            veth(&dh, &dh_ifaces[k], &cn, &cn_ifaces[k])?;
            dh.ip(&[
                "addr",
                "add",
                &format!("10.51.{}.2/24", k + 1),
                "dev",
                &dh_ifaces[k],
            ])?;
            cn.ip(&[
                "addr",
                "add",
                &format!("{}/24", CN_DH[k]),
                "dev",
                &cn_ifaces[k],
            ])?;
            for (ns, dev) in [(&dh, &dh_ifaces[k]), (&cn, &cn_ifaces[k])] {
                ns.ip(&["link", "set", dev, "up"])?;
                shape(ns, dev, rate)?;
            }
        }
        let (s0, c3) = (n("s0"), n("c3"));
        veth(&sr, &s0, &cn, &c3)?;
        cn.ip(&["addr", "add", &format!("{CN_SR}/24"), "dev", &c3])?;
        for k in 1..=SR_SUBNETS {
            cn.ip(&["addr", "add", &format!("10.52.{k}.1/24"), "dev", &c3])?;
        }
        let sr_addr = Ipv4Addr::new(10, 52, 1, 2);
        sr.ip(&["addr", "add", &format!("{sr_addr}/24"), "dev", &s0])?;
        for (ns, dev) in [(&sr, &s0), (&cn, &c3)] {
            ns.ip(&["link", "set", dev, "up"])?;
            shape(ns, dev, "16mbit")?;
        }
        sr.ip(&["route", "add", "default", "via", "10.52.1.1", "dev", &s0])?;
        Ok(Topology {
            dh,
            sr,
            cn,
            dh_ifaces,
            cn_ifaces,
            sr_iface: s0,
            sr_addr,
        })
    }

    /// Link `k` (0 or 1) of the dual-homed mobile up or down (at the
    /// correspondent's end).
    pub fn set_link(&self, k: usize, up: bool) -> io::Result<()> {
        let state = if up { "up" } else { "down" };
        self.cn.ip(&["link", "set", &self.cn_ifaces[k], state])
    }

    /// The single-radio mobile loses its address.
    pub fn drop_sr_address(&self) -> io::Result<()> {
        let old = format!("{}/24", self.sr_addr);
        self.sr.ip(&["addr", "del", &old, "dev", &self.sr_iface])
    }

    /// The single-radio mobile obtains `new` (10.52.K.H) and its subnet's
    /// gateway.
    pub fn obtain_sr_address(&mut self, new: Ipv4Addr) -> io::Result<()> {
        let dev = self.sr_iface.clone();
        self.sr
            .ip(&["addr", "add", &format!("{new}/24"), "dev", &dev, "nodad"])?;
        let o = new.octets();
        let gw = format!("10.52.{}.1", o[2]);
        self.sr
            .ip(&["route", "replace", "default", "via", &gw, "dev", &dev])?;
        self.sr_addr = new;
        Ok(())
    }
}

/// The addresses of a list, as `IpAddr`.
pub fn ips(a: &[Ipv4Addr]) -> Vec<IpAddr> {
    a.iter().map(|a| IpAddr::V4(*a)).collect()
}
