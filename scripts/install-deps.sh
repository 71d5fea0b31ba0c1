#!/usr/bin/env bash
# Installs the system packages the test suite needs, if missing: usrsctp
# (interoperability peer, the server benchmark's third contender), tshark (independent wire-format check), ns-3
# (TCP reference), iperf3, iproute2, capsh, nftables and conntrack
# (network-namespace tests), chromium (the run viewer's page), ns2
# (setdest movement files), sumo (FCD traces),
# python3-venv (the Python package's tests).
set -euo pipefail
need=()
dpkg -s libusrsctp-dev >/dev/null 2>&1 || need+=(libusrsctp-dev)
dpkg -s libusrsctp-examples >/dev/null 2>&1 || need+=(libusrsctp-examples)
dpkg -s tshark >/dev/null 2>&1 || need+=(tshark)
dpkg -s libns3-dev >/dev/null 2>&1 || need+=(ns3 libns3-dev)
dpkg -s iperf3 >/dev/null 2>&1 || need+=(iperf3)
dpkg -s iproute2 >/dev/null 2>&1 || need+=(iproute2)
dpkg -s libcap2-bin >/dev/null 2>&1 || need+=(libcap2-bin)
# nftables NAT and filter rules and conntrack in the namespace tests
# (netns_nat, netns_quick_failover).
dpkg -s nftables >/dev/null 2>&1 || need+=(nftables)
dpkg -s conntrack >/dev/null 2>&1 || need+=(conntrack)
dpkg -s pkg-config >/dev/null 2>&1 || need+=(pkg-config)
# `msctp tunnel` with real programs (crates/net/tests/netns_tunnel.rs):
# nginx serves the file, curl fetches it through the SOCKS tunnel,
# mptcpize runs both over MPTCP for comparison.
dpkg -s nginx-light >/dev/null 2>&1 || dpkg -s nginx >/dev/null 2>&1 || need+=(nginx-light)
dpkg -s curl >/dev/null 2>&1 || need+=(curl)
dpkg -s mptcpize >/dev/null 2>&1 || need+=(mptcpize)
# ... and an ssh session through it (sshd in the namespace, nc -X 5 as
# ssh's SOCKS ProxyCommand).
dpkg -s openssh-server >/dev/null 2>&1 || need+=(openssh-server)
dpkg -s netcat-openbsd >/dev/null 2>&1 || need+=(netcat-openbsd)
# The run viewer's test opens its page in headless Chromium
# (crates/view/tests/headless.rs).
dpkg -s chromium >/dev/null 2>&1 || need+=(chromium)
# ns-2's setdest makes the movement file the mobility import test reads
# (crates/sim/tests/mobility_import.rs).
dpkg -s ns2 >/dev/null 2>&1 || need+=(ns2)
# SUMO's netgenerate and sumo make the FCD trace the same test imports.
dpkg -s sumo >/dev/null 2>&1 || need+=(sumo)
# The Python package's tests run in a virtual environment.
python3 -c "import ensurepip, venv" >/dev/null 2>&1 || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    echo "installing: ${need[*]}"
    $SUDO apt-get update -q
    echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${need[@]}"
fi
