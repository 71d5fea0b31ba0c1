#!/usr/bin/env bash
# Compiles the ns-3 reference programs of this directory into a directory
# given as the first argument (default: ./build). Needs Debian's ns-3 3.37
# (`apt-get install ns3 libns3-dev`, packages `libns3-dev` and `ns3`).
# Debian's ns-3 pkg-config files are broken: they carry a stray `-I/usr;`
# include and link flags naming libgsl*.so files that do not exist; both are
# stripped here.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/build}"
mkdir -p "$out"
modules="ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications ns3-traffic-control"
raw="$(pkg-config --cflags --libs $modules)"
flags=""
for f in $raw; do
    case "$f" in
        '-I/usr\;' | '-I/usr;' | */libgsl*.so) ;;
        *) flags="$flags $f" ;;
    esac
done
for src in "$here"/*.cc; do
    prog="$(basename "$src" .cc)"
    echo "building $out/$prog" >&2
    # shellcheck disable=SC2086
    g++ -O2 -std=c++17 -Wall -o "$out/$prog" "$src" $flags
done
