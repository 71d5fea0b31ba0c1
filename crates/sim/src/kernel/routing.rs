//! Static routing with longest-prefix match (RFC 1812 section 5.2.4.3).
//!
//! A table is a list of routes kept sorted by prefix length (longest
//! first), then metric (lowest first), then insertion order, so the first
//! usable match is the answer. Most tables are small (a few routes per
//! node), where a sorted scan is fastest. An access point serving many
//! stations holds a host route per station, so above [`SCAN_ROUTES`]
//! routes a lookup goes through an index instead: for each prefix length
//! present, longest first, the routes to exactly the destination masked
//! to that length (two routes of one length that both contain an address
//! have the same destination), in table order. Same answer, in a few hash
//! probes instead of a scan of every station's route. Agents change routes
//! at run time (a foreign agent adds a host route for a visiting mobile, a
//! mobile node replaces its default route after a move).

use std::net::IpAddr;

use ipnet::IpNet;
use rustc_hash::FxHashMap;

use crate::kernel::ids::IfaceId;

/// Default bound on the number of routes of one table.
pub const DEFAULT_MAX_ROUTES: usize = 4096;

/// One route: packets to `dest` leave by `iface`, to `gateway` if given,
/// else directly to the destination (on-link).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    pub dest: IpNet,
    pub iface: IfaceId,
    pub gateway: Option<IpAddr>,
    pub metric: u32,
}

impl Route {
    /// An on-link route.
    pub fn direct(dest: IpNet, iface: IfaceId) -> Route {
        Route {
            dest: dest.trunc(),
            iface,
            gateway: None,
            metric: 0,
        }
    }

    /// A route through a gateway.
    pub fn via(dest: IpNet, iface: IfaceId, gateway: IpAddr) -> Route {
        Route {
            dest: dest.trunc(),
            iface,
            gateway: Some(gateway),
            metric: 0,
        }
    }

    pub fn with_metric(mut self, metric: u32) -> Route {
        self.metric = metric;
        self
    }

    /// The address the packet is handed to on the link.
    pub fn next_hop(&self, dst: IpAddr) -> IpAddr {
        self.gateway.unwrap_or(dst)
    }
}

/// Why a route was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RouteError {
    #[error("gateway {gateway} is not of the family of {dest}")]
    FamilyMismatch { dest: IpNet, gateway: IpAddr },
    #[error("routing table full ({0} routes)")]
    TableFull(usize),
}

/// Tables with at most this many routes are scanned; larger ones looked
/// up through their index.
pub const SCAN_ROUTES: usize = 16;

/// A destination prefix as integers, for a match in two instructions:
/// `addr & mask == net` (IPv4 in the low 32 bits), and the family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Prefix {
    v4: bool,
    net: u128,
    mask: u128,
}

impl Prefix {
    fn of(n: &IpNet) -> Prefix {
        let (v4, mask) = match n {
            IpNet::V4(p) => (true, u128::from(p.netmask().to_bits())),
            IpNet::V6(p) => (false, p.netmask().to_bits()),
        };
        Prefix {
            v4,
            net: bits(n.addr()) & mask,
            mask,
        }
    }

    #[inline]
    fn contains(&self, v4: bool, addr: u128) -> bool {
        self.v4 == v4 && addr & self.mask == self.net
    }
}

/// An address as an integer (IPv4 in the low 32 bits).
#[inline]
fn bits(a: IpAddr) -> u128 {
    match a {
        IpAddr::V4(a) => u128::from(a.to_bits()),
        IpAddr::V6(a) => a.to_bits(),
    }
}

/// A node's routing table.
#[derive(Debug, Clone)]
pub struct RoutingTable {
    routes: Vec<Route>,
    /// Each route's destination as integers, in table order (what a scan
    /// compares; `IpNet::contains` costs several times more).
    prefixes: Vec<Prefix>,
    max_routes: usize,
    /// The routes of each destination, in table order (a fast unkeyed
    /// hash: destinations come from the scenario; never iterated).
    by_dest: FxHashMap<IpNet, Vec<Route>>,
    /// (IPv4?, prefix length, destinations of that length), longest
    /// first.
    lens: Vec<(bool, u8, usize)>,
}

impl Default for RoutingTable {
    fn default() -> Self {
        RoutingTable::new(DEFAULT_MAX_ROUTES)
    }
}

impl RoutingTable {
    pub fn new(max_routes: usize) -> Self {
        RoutingTable {
            routes: Vec::new(),
            prefixes: Vec::new(),
            max_routes,
            by_dest: FxHashMap::default(),
            lens: Vec::new(),
        }
    }

    /// Brings the index entry of `dest` up to date with the table.
    fn reindex(&mut self, dest: IpNet) {
        let list: Vec<Route> = self
            .routes
            .iter()
            .filter(|r| r.dest == dest)
            .copied()
            .collect();
        let len_key = (dest.addr().is_ipv4(), dest.prefix_len());
        let had = if list.is_empty() {
            self.by_dest.remove(&dest).is_some()
        } else {
            self.by_dest.insert(dest, list).is_some()
        };
        let has = self.by_dest.contains_key(&dest);
        let at = self.lens.iter().position(|(v4, l, _)| (*v4, *l) == len_key);
        match (had, has, at) {
            (false, true, Some(i)) => self.lens[i].2 += 1,
            (false, true, None) => {
                let at = self.lens.partition_point(|(_, l, _)| *l >= len_key.1);
                self.lens.insert(at, (len_key.0, len_key.1, 1));
            }
            (true, false, Some(i)) => {
                self.lens[i].2 -= 1;
                if self.lens[i].2 == 0 {
                    self.lens.remove(i);
                }
            }
            _ => {}
        }
    }

    /// Recomputes the scan's prefixes after routes were removed.
    fn sync_prefixes(&mut self) {
        if self.prefixes.len() != self.routes.len() {
            self.prefixes.clear();
            self.prefixes
                .extend(self.routes.iter().map(|r| Prefix::of(&r.dest)));
        }
    }

    /// Rebuilds the whole index.
    fn reindex_all(&mut self) {
        self.by_dest.clear();
        self.lens.clear();
        let dests: Vec<IpNet> = self.routes.iter().map(|r| r.dest).collect();
        for d in dests {
            if !self.by_dest.contains_key(&d) {
                self.reindex(d);
            }
        }
    }

    /// Adds a route; a route with the same destination and interface is
    /// replaced (its gateway and metric updated).
    pub fn add(&mut self, route: Route) -> Result<(), RouteError> {
        let route = Route {
            dest: route.dest.trunc(),
            ..route
        };
        if let Some(gw) = route.gateway
            && gw.is_ipv4() != route.dest.addr().is_ipv4()
        {
            return Err(RouteError::FamilyMismatch {
                dest: route.dest,
                gateway: gw,
            });
        }
        if let Some(pos) = self
            .routes
            .iter()
            .position(|r| r.dest == route.dest && r.iface == route.iface)
        {
            self.routes.remove(pos);
            self.prefixes.remove(pos);
        } else if self.routes.len() >= self.max_routes {
            return Err(RouteError::TableFull(self.max_routes));
        }
        // Insert after every route that sorts before or equal (stable).
        let key = |r: &Route| (std::cmp::Reverse(r.dest.prefix_len()), r.metric);
        let at = self.routes.partition_point(|r| key(r) <= key(&route));
        self.routes.insert(at, route);
        self.prefixes.insert(at, Prefix::of(&route.dest));
        self.reindex(route.dest);
        Ok(())
    }

    /// Removes routes to exactly `dest` (on `iface` if given). Returns how
    /// many were removed.
    pub fn remove(&mut self, dest: IpNet, iface: Option<IfaceId>) -> usize {
        let dest = dest.trunc();
        let before = self.routes.len();
        self.routes
            .retain(|r| !(r.dest == dest && iface.is_none_or(|i| i == r.iface)));
        self.sync_prefixes();
        self.reindex(dest);
        before - self.routes.len()
    }

    /// Removes every route through `iface`.
    pub fn remove_iface(&mut self, iface: IfaceId) -> usize {
        let before = self.routes.len();
        self.routes.retain(|r| r.iface != iface);
        self.sync_prefixes();
        let removed = before - self.routes.len();
        if removed > 0 {
            self.reindex_all();
        }
        removed
    }

    /// Longest-prefix match among the routes whose interface satisfies
    /// `usable`.
    pub fn lookup(&self, dst: IpAddr, usable: impl Fn(IfaceId) -> bool) -> Option<&Route> {
        if self.routes.len() <= SCAN_ROUTES {
            let (v4, addr) = (dst.is_ipv4(), bits(dst));
            return self
                .prefixes
                .iter()
                .zip(&self.routes)
                .find(|(p, r)| p.contains(v4, addr) && usable(r.iface))
                .map(|(_, r)| r);
        }
        let v4 = dst.is_ipv4();
        self.lens
            .iter()
            .filter(|(f, _, _)| *f == v4)
            .find_map(|&(_, len, _)| {
                let net = IpNet::new(dst, len).ok()?.trunc();
                self.by_dest.get(&net)?.iter().find(|r| usable(r.iface))
            })
    }

    /// Longest-prefix match restricted to one interface.
    pub fn lookup_on(&self, dst: IpAddr, iface: IfaceId) -> Option<&Route> {
        self.lookup(dst, |i| i == iface)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Route> {
        self.routes.iter()
    }

    pub fn len(&self) -> usize {
        self.routes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.routes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(s: &str) -> IpNet {
        s.parse().unwrap()
    }
    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn longest_prefix_wins_regardless_of_insertion_order() {
        let mut t = RoutingTable::default();
        t.add(Route::via(net("0.0.0.0/0"), IfaceId(0), ip("10.0.0.1")))
            .unwrap();
        t.add(Route::direct(net("10.1.0.0/16"), IfaceId(1)))
            .unwrap();
        t.add(Route::direct(net("10.1.2.0/24"), IfaceId(2)))
            .unwrap();
        t.add(Route::direct(net("10.1.2.3/32"), IfaceId(3)))
            .unwrap();
        t.add(Route::direct(net("10.0.0.0/8"), IfaceId(4))).unwrap();
        let hit = |a: &str| t.lookup(ip(a), |_| true).map(|r| r.iface.0);
        assert_eq!(hit("10.1.2.3"), Some(3));
        assert_eq!(hit("10.1.2.4"), Some(2));
        assert_eq!(hit("10.1.3.4"), Some(1));
        assert_eq!(hit("10.200.0.1"), Some(4));
        assert_eq!(hit("192.0.2.1"), Some(0));
        assert_eq!(hit("2001:db8::1"), None);
        // unusable interfaces are skipped, falling back to shorter prefixes
        assert_eq!(
            t.lookup(ip("10.1.2.3"), |i| i.0 != 3).map(|r| r.iface.0),
            Some(2)
        );
        assert_eq!(
            t.lookup_on(ip("10.1.2.3"), IfaceId(0))
                .map(|r| r.next_hop(ip("10.1.2.3"))),
            Some(ip("10.0.0.1"))
        );
    }

    #[test]
    fn metric_breaks_ties_and_replace_and_remove() {
        let mut t = RoutingTable::default();
        t.add(Route::via(net("0.0.0.0/0"), IfaceId(0), ip("10.0.0.1")).with_metric(10))
            .unwrap();
        t.add(Route::via(net("0.0.0.0/0"), IfaceId(1), ip("10.0.1.1")).with_metric(5))
            .unwrap();
        assert_eq!(t.lookup(ip("8.8.8.8"), |_| true).unwrap().iface, IfaceId(1));
        // replace: same dest and iface
        t.add(Route::via(net("0.0.0.0/0"), IfaceId(1), ip("10.0.1.1")).with_metric(20))
            .unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t.lookup(ip("8.8.8.8"), |_| true).unwrap().iface, IfaceId(0));
        // host bits in the destination are masked
        t.add(Route::direct(net("10.9.9.9/16"), IfaceId(2)))
            .unwrap();
        assert_eq!(t.remove(net("10.9.0.0/16"), None), 1);
        assert_eq!(t.remove_iface(IfaceId(0)), 1);
        assert_eq!(t.len(), 1);
    }

    /// The index answers as the scan would, on a table too large to scan:
    /// host routes of many stations beside shorter prefixes, metrics,
    /// unusable interfaces, both families, removals.
    #[test]
    fn a_large_table_answers_like_a_scan() {
        let mut t = RoutingTable::default();
        let scan = |t: &RoutingTable, a: IpAddr, usable: &dyn Fn(IfaceId) -> bool| {
            t.iter()
                .find(|r| r.dest.contains(&a) && usable(r.iface))
                .copied()
        };
        t.add(Route::via(net("0.0.0.0/0"), IfaceId(0), ip("10.0.0.1")).with_metric(5))
            .unwrap();
        t.add(Route::via(net("0.0.0.0/0"), IfaceId(1), ip("10.0.1.1")).with_metric(5))
            .unwrap();
        t.add(Route::direct(net("10.1.0.0/16"), IfaceId(1)))
            .unwrap();
        t.add(Route::direct(net("2001:db8::/32"), IfaceId(2)))
            .unwrap();
        for k in 0..200u32 {
            let host = format!("10.1.{}.{}/32", k / 250, k % 250 + 1);
            t.add(Route::direct(net(&host), IfaceId(k % 4))).unwrap();
            if k % 7 == 0 {
                t.add(Route::direct(net(&host), IfaceId(k % 4 + 1)).with_metric(3))
                    .unwrap();
            }
        }
        assert!(t.len() > SCAN_ROUTES);
        let check = |t: &RoutingTable| {
            let addrs = (0..260u32)
                .map(|k| IpAddr::from([10, 1, (k / 250) as u8, (k % 250 + 1) as u8]))
                .chain(["10.2.0.1", "192.0.2.1", "2001:db8::7", "2001:db9::1"].map(ip));
            for a in addrs {
                let all: &dyn Fn(IfaceId) -> bool = &|_| true;
                let not_low: &dyn Fn(IfaceId) -> bool = &|i| i.0 >= 2;
                let not_one: &dyn Fn(IfaceId) -> bool = &|i| i.0 != 1;
                for u in [all, not_low, not_one] {
                    assert_eq!(t.lookup(a, u).copied(), scan(t, a, u), "{a}");
                }
            }
        };
        check(&t);
        for k in (0..200u32).step_by(3) {
            let host = format!("10.1.{}.{}/32", k / 250, k % 250 + 1);
            t.remove(net(&host), None);
        }
        t.remove(net("0.0.0.0/0"), Some(IfaceId(0)));
        check(&t);
        t.remove_iface(IfaceId(2));
        check(&t);
    }

    #[test]
    fn v6_and_errors() {
        let mut t = RoutingTable::new(2);
        t.add(Route::direct(net("2001:db8::/32"), IfaceId(0)))
            .unwrap();
        t.add(Route::direct(net("2001:db8:1::/48"), IfaceId(1)))
            .unwrap();
        assert_eq!(
            t.lookup(ip("2001:db8:1::5"), |_| true).unwrap().iface,
            IfaceId(1)
        );
        assert_eq!(
            t.add(Route::direct(net("::/0"), IfaceId(0))),
            Err(RouteError::TableFull(2))
        );
        assert!(matches!(
            t.add(Route::via(net("::/0"), IfaceId(0), ip("10.0.0.1"))),
            Err(RouteError::FamilyMismatch { .. })
        ));
    }

    /// The integer prefixes of a scanned table match exactly what
    /// `IpNet::contains` matches, for every prefix length of both
    /// families, through additions, replacements and removals.
    #[test]
    fn integer_prefixes_agree_with_ipnet_contains() {
        let mut t = RoutingTable::default();
        let addrs: Vec<IpAddr> = [
            "10.1.2.3",
            "10.1.2.200",
            "10.255.0.1",
            "11.0.0.0",
            "0.0.0.0",
            "255.255.255.255",
            "2001:db8::1",
            "2001:db8:ffff::1",
            "::",
            "fe80::1",
        ]
        .iter()
        .map(|a| ip(a))
        .collect();
        let reference =
            |t: &RoutingTable, a: IpAddr| t.iter().find(|r| r.dest.contains(&a)).copied();
        for (k, len) in [0u8, 1, 8, 15, 16, 24, 31, 32].into_iter().enumerate() {
            let base = addrs[k % 4];
            t.add(Route::direct(
                IpNet::new(base, len).unwrap(),
                IfaceId(k as u32),
            ))
            .unwrap();
            for a in &addrs {
                assert_eq!(t.lookup(*a, |_| true).copied(), reference(&t, *a), "{a}");
            }
        }
        for (k, len) in [0u8, 1, 32, 64, 127, 128].into_iter().enumerate() {
            let base = addrs[6 + k % 4];
            t.add(Route::direct(
                IpNet::new(base, len).unwrap(),
                IfaceId(k as u32),
            ))
            .unwrap();
        }
        assert!(t.len() <= SCAN_ROUTES);
        for a in &addrs {
            assert_eq!(t.lookup(*a, |_| true).copied(), reference(&t, *a), "{a}");
        }
        t.remove(net("10.1.2.0/24"), None);
        t.remove_iface(IfaceId(1));
        for a in &addrs {
            assert_eq!(t.lookup(*a, |_| true).copied(), reference(&t, *a), "{a}");
        }
    }
}
