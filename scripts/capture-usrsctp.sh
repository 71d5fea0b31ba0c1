#!/usr/bin/env bash
# Re-makes the usrsctp captures under crates/proto/testdata/usrsctp/ (see
# the README there): builds crates/net/interop/usrsctp_peer.c (the one usrsctp
# program of the tests) against libusrsctp, runs its capture-server and
# capture-client modes over UDP encapsulation (RFC 6951,
# ports 9899 and 9900) in a private network namespace whose loopback holds
# 127.0.0.1 and 127.0.0.2, records the loopback with dumpcap, and extracts
# the SCTP packets (UDP payloads) as hex with tshark.
#
# Needs root (network namespace), gcc, pkg-config, libusrsctp-dev, tshark,
# iproute2 and capsh. Usage: scripts/capture-usrsctp.sh [--install]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
data="$root/crates/proto/testdata/usrsctp"

if [[ "${1:-}" == "--install" ]]; then
    apt-get update
    echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
    DEBIAN_FRONTEND=noninteractive apt-get install -y gcc pkg-config libusrsctp-dev tshark iproute2 libcap2-bin
fi
for tool in gcc pkg-config dumpcap tshark ip capsh; do
    command -v "$tool" >/dev/null || { echo "missing: $tool (try --install)" >&2; exit 1; }
done

work=$(mktemp -d)
ns="msctp-cap-$$"
cleanup() {
    [[ -n "${cap_pid:-}" ]] && kill "$cap_pid" 2>/dev/null || true
    [[ -n "${srv_pid:-}" ]] && kill "$srv_pid" 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# shellcheck disable=SC2046
gcc -O2 -Wall -o "$work/usrsctp_peer" "$root/crates/net/interop/usrsctp_peer.c" \
    $(pkg-config --cflags --libs usrsctp) -lpthread

ip netns add "$ns"
ip -n "$ns" link set lo up
ip -n "$ns" addr add 127.0.0.2/8 dev lo

ip netns exec "$ns" dumpcap -q -i lo -P -w "$work/capture.pcap" \
    -f 'udp port 9899 or udp port 9900' &
cap_pid=$!
sleep 2

# Without CAP_NET_RAW usrsctp cannot open raw SCTP sockets and sends
# everything over UDP (see scripts/install-deps.sh).
run() { ip netns exec "$ns" capsh --drop=cap_net_raw -- -c "exec $work/usrsctp_peer capture-$1"; }
run server >"$work/server.log" 2>&1 &
srv_pid=$!
sleep 1
timeout 60 bash -c "$(declare -f run); ns=$ns work=$work; run client" >"$work/client.log" 2>&1 \
    || { echo "client failed:" >&2; tail -20 "$work/client.log" >&2; exit 1; }
timeout 20 tail --pid="$srv_pid" -f /dev/null || true
srv_pid=
sleep 1
kill -INT "$cap_pid"
wait "$cap_pid" || true
cap_pid=

cp "$work/capture.pcap" "$data/capture.pcap"
chmod 644 "$data/capture.pcap"
{
    echo "# SCTP packets (UDP payloads) of capture.pcap, one per line:"
    echo "# frame number, tab, hex bytes. Made by scripts/capture-usrsctp.sh."
    tshark -r "$data/capture.pcap" -T fields -e frame.number -e udp.payload
} >"$data/packets.hex"
tshark -r "$data/capture.pcap" -o sctp.checksum:CRC-32C -O sctp >"$data/capture.tshark.txt"
tshark -r "$data/capture.pcap" -o sctp.checksum:CRC-32C \
    -Y 'sctp.checksum.status!=1 || _ws.malformed || _ws.expert.severity>="warning"' \
    >"$work/bad.txt"
if [[ -s "$work/bad.txt" ]]; then
    echo "warning: tshark flags packets of the capture:" >&2
    cat "$work/bad.txt" >&2
fi
echo "wrote $data/capture.pcap ($(grep -vc '^#' "$data/packets.hex") packets)"
tshark -r "$data/capture.pcap" -o sctp.checksum:CRC-32C
