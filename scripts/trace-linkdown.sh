#!/bin/sh
# Times the kernel's steps between `ip link set cn1 down` and the
# RTM_NEWLINK message the mobile's driver reads, during the namespace
# handover test (crates/net/tests/netns_handover.rs; crates/net/README.md
# "Where the gap went"). Root; tracefs tracepoints only (no kprobes).
#
#   scripts/trace-linkdown.sh TEST_BINARY [CHRT_PRIORITY]
#
# runs the test binary (`cargo test --profile ci -p msctp-net --test
# netns_handover --no-run` prints it) with kernel tracing on, then prints,
# for each link failure, in ms after the `ip` command started (the test
# prints that instant on CLOCK_MONOTONIC, the trace's clock): ip's
# RTM_NEWLINK request, cn1 going down (its notifier chain), cn1's queue
# deactivated (after dev_deactivate's RCU grace period and its wait for a
# busy qdisc, one jiffy), linkwatch queued for mn1 (its carrier went off),
# the linkwatch work running, mn1 deactivated, the RTM_NEWLINK for mn1,
# the mobile's thread woken; then the test's own columns.
set -eu
BIN=$1
PRIO=${2:-}
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T
OUT=$(mktemp -d)
WAS_ON=$(cat $T/tracing_on)
restore() {
    echo 0 > $T/events/enable
    echo "$WAS_ON" > $T/tracing_on
    for e in syscalls/sys_enter_sendmsg sched/sched_switch sched/sched_wakeup; do
        echo 0 > $T/events/$e/filter
    done
    echo local > $T/trace_clock
    echo 1410 > $T/buffer_size_kb
    rm -rf "$OUT"
}
trap restore EXIT
echo 0 > $T/tracing_on
echo mono > $T/trace_clock
echo 16384 > $T/buffer_size_kb
echo > $T/trace
for e in workqueue/workqueue_queue_work workqueue/workqueue_execute_start \
         qdisc/qdisc_reset notifier/notifier_run; do
    echo 1 > $T/events/$e/enable
done
echo 'comm == "ip"' > $T/events/syscalls/sys_enter_sendmsg/filter
echo 1 > $T/events/syscalls/sys_enter_sendmsg/enable
echo 'prev_comm == "ip" || prev_comm ~ "kworker*"' > $T/events/sched/sched_switch/filter
echo 1 > $T/events/sched/sched_switch/enable
echo 'comm ~ "link_flaps*" || comm ~ "netns_hand*"' > $T/events/sched/sched_wakeup/filter
echo 1 > $T/events/sched/sched_wakeup/enable
echo 1 > $T/tracing_on
uptime
if [ -n "$PRIO" ]; then
    chrt -f "$PRIO" "$BIN" --nocapture > "$OUT/log" 2>&1 || true
else
    "$BIN" --nocapture > "$OUT/log" 2>&1 || true
fi
echo 0 > $T/tracing_on
cat $T/trace > "$OUT/trace"
uptime
grep -E "msctp gaps|^\| |test result" "$OUT/log" || true
python3 - "$OUT/trace" "$OUT/log" <<'PY'
import re, sys
trace, log = sys.argv[1], open(sys.argv[2]).read()
fails = [(float(m.group(1)), m.group(2))
         for m in re.finditer(r'failure \d \[(\d+\.\d+) s\]: (.*)', log)]
rx = re.compile(r'^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+(\d+\.\d+): (\S+): (.*)$')
ev = []
for line in open(trace):
    m = rx.match(line)
    if m:
        ev.append((float(m.group(4)), m.group(1), m.group(5), m.group(6).strip()))
print("ip request | cn1 going down | cn1 deactivated | linkwatch queued | linkwatch runs"
      " | mn1 deactivated | RTM_NEWLINK mn1 | mobile woken || the test's columns")
for t0, rest in fails:
    w = [e for e in ev if t0 <= e[0] <= t0 + 0.05]
    def at(pred, after=None):
        for e in w:
            if (after is None or e[0] >= after) and pred(e):
                return e[0]
        return None
    ms = lambda t: "-" if t is None else "%.2f" % ((t - t0) * 1e3)
    req = at(lambda e: e[1] == 'ip' and e[2].startswith('sys_sendmsg'))
    down = at(lambda e: e[1] == 'ip' and e[2] == 'notifier_run' and e[3] == 'rtnetlink_event')
    cn1 = at(lambda e: e[2] == 'qdisc_reset' and 'dev=cn1' in e[3])
    lwq = at(lambda e: e[2] == 'workqueue_queue_work' and 'linkwatch' in e[3])
    lws = at(lambda e: e[2] == 'workqueue_execute_start' and 'linkwatch' in e[3])
    mn1 = at(lambda e: e[2] == 'qdisc_reset' and 'dev=mn1' in e[3])
    nl = at(lambda e: e[1].startswith('kworker') and e[2] == 'notifier_run'
            and e[3] == 'rtnetlink_event')
    woke = at(lambda e: e[2] == 'sched_wakeup', nl) if nl else None
    print(" | ".join(ms(t) for t in (req, down, cn1, lwq, lws, mn1, nl, woke)) + " || " + rest)
PY
