#!/bin/sh
# kmemleak in the guest (CONFIG_DEBUG_KMEMLEAK, no scan thread).
#   kmemleak.sh clear: before the campaigns, every object unreferenced
#     since boot reported, then forgotten (`clear` forgets only reported ones).
#   kmemleak.sh scan: after them, two scans, then the report:
#     `KMEMLEAK scans=2` and /sys/kernel/debug/kmemleak's text.
#   kmemleak.sh off: for good (kmemleak cannot be turned on again), so
#     that what follows runs without its cost on every allocation.
# A kernel without kmemleak, or whose kmemleak turned itself off, prints
# `KMEMLEAK-SKIP why` instead.
#
# The console's loglevel is lowered to warnings during a scan: kmemleak
# prints "N new suspected memory leaks" at info level, a line the host's
# crash detector would take for a crash and stop the VM before the
# results are shipped. The report read here names the leaks instead.

f=/sys/kernel/debug/kmemleak

skip() {
    echo "KMEMLEAK-SKIP $*"
    exit 0
}

[ -e "$f" ] || skip "no $f (kernel without CONFIG_DEBUG_KMEMLEAK, or no debugfs)"

# kmemleak reports no object younger than 5 s (MSECS_MIN_AGE).
settle() {
    while awk '{ exit !($1 < 6) }' /proc/uptime; do sleep 1; done
    sleep "$1"
}

scan() {
    old=$(cut -f1 /proc/sys/kernel/printk)
    echo 5 >/proc/sys/kernel/printk
    rc=0
    for _ in $(seq "$1"); do
        echo scan >"$f" || rc=1
    done
    echo "$old" >/proc/sys/kernel/printk
    [ "$rc" = 0 ] || skip "writing scan to $f failed (kmemleak off: $(dmesg | grep 'kmemleak:' | tail -1))"
}

case "$1" in
clear)
    settle 0
    scan 1
    echo clear >"$f" || skip "writing clear to $f failed"
    echo "KMEMLEAK cleared"
    ;;
scan)
    settle 6
    scan 2
    report=$(cat "$f") || skip "reading $f failed (kmemleak off: $(dmesg | grep 'kmemleak:' | tail -1))"
    echo "KMEMLEAK scans=2"
    [ -z "$report" ] || printf '%s\n' "$report"
    ;;
off)
    echo off >"$f" || skip "writing off to $f failed"
    echo "KMEMLEAK off"
    ;;
*)
    echo "usage: kmemleak.sh clear|scan|off" >&2
    exit 2
    ;;
esac
