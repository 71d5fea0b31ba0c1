#!/usr/bin/env bash
# A live handover demonstration with the msctp command (needs root): two
# network namespaces joined by two veth links shaped with tbf (the topology
# of crates/net/tests/netns_handover.rs), `msctp perf --server` in the
# correspondent, `msctp perf --monitor` in the mobile host, and link 1 going
# down and up twice during the run. Everything is torn down on exit.
#
# Usage: scripts/net-demo.sh [path/to/msctp] [--json]
set -euo pipefail
msctp=${1:-target/release/msctp}
json=${2:-}
[[ $(id -u) -eq 0 ]] || { echo "needs root (network namespaces)" >&2; exit 1; }
[[ -x $msctp ]] || { echo "build it first: cargo build --release -p msctp" >&2; exit 1; }
mn="msctp-demo-mn-$$"
cn="msctp-demo-cn-$$"
cleanup() {
    [[ -n "${srv:-}" ]] && kill "$srv" 2>/dev/null || true
    ip netns del "$mn" 2>/dev/null || true
    ip netns del "$cn" 2>/dev/null || true
}
trap cleanup EXIT
ip netns add "$mn"
ip netns add "$cn"
ip -n "$mn" link set lo up
ip -n "$cn" link set lo up
# Distinct interface indexes on the two ends of each veth, so that the
# kernel reports carrier changes at once (see crates/net/README.md).
ip -n "$cn" link add pad0 type veth peer name pad1
for k in 1 2; do
    rate=$([[ $k == 1 ]] && echo 20mbit || echo 10mbit)
    ip link add "mn$k" netns "$mn" type veth peer name "cn$k" netns "$cn"
    ip -n "$mn" addr add "10.$k.0.2/24" dev "mn$k"
    ip -n "$cn" addr add "10.$k.0.1/24" dev "cn$k"
    ip -n "$mn" link set "mn$k" up
    ip -n "$cn" link set "cn$k" up
    ip netns exec "$mn" tc qdisc add dev "mn$k" root tbf rate "$rate" burst 32kbit latency 20ms
    ip netns exec "$cn" tc qdisc add dev "cn$k" root tbf rate "$rate" burst 32kbit latency 20ms
done
ip netns exec "$cn" "$msctp" perf --server --bind 10.1.0.1 --bind 10.2.0.1 --lan $json &
srv=$!
sleep 0.5
(
    sleep 2; ip -n "$cn" link set cn1 down
    sleep 1; ip -n "$cn" link set cn1 up
    sleep 2; ip -n "$cn" link set cn1 down
    sleep 1; ip -n "$cn" link set cn1 up
) &
flaps=$!
ip netns exec "$mn" "$msctp" perf --to 10.1.0.1 --to 10.2.0.1 --port 5002 \
    --bind 10.1.0.2 --bind 10.2.0.2 --monitor --iface mn1 --iface mn2 \
    --rate mn1=20000000 --rate mn2=10000000 --lan -t 8 $json
wait "$flaps"
sleep 1
