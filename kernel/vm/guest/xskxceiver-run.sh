#!/bin/sh
# Runs the kernel's AF_XDP selftest xskxceiver in SKB (copy) mode on a veth
# pair, as tools/testing/selftests/bpf/test_xsk.sh does (veth pair with 4 TX
# and 4 RX queues, IPv6 off, MTU 1500, both ends up), with busybox and
# iproute2's ip only. Installed next to ./xskxceiver by kernel/vm/xskxceiver.sh.
#
#   sh xskxceiver-run.sh [--netns] [--busy-poll] [--tests "N N.."]
#                        [--timeout SECS] [--retries N] [--budget SECS]
#                        [--hugepages N] [--exclude FILE] [--verbose]
#
# Each case runs in its own xskxceiver process (-m skb -t N), so a case that
# aborts the program (exit_with_error) or hangs costs only itself. Between
# cases the script detaches XDP programs (generic and native) and sets the
# MTU back to 1500: an xskxceiver process leaves its generic XDP program
# attached when it exits, and a 9K case leaves the MTU at 9000, either of
# which changes what the next process sees.
#
#   --netns       run in a new network (and mount) namespace, so nothing is
#                 left on the host; /proc/sys/net/core/max_skb_frags is then
#                 absent and TOO_MANY_FRAGS falls back to 17 (it says so)
#   --busy-poll   also run every case a second time with -b, like test_xsk.sh
#                 (napi_defer_hard_irqs 2, gro_flush_timeout 200000); those
#                 cases are named NAME/busy-poll
#   --tests       only these case numbers (xskxceiver -l); default all
#   --timeout     per-process watchdog (default 300 s). xskxceiver's own
#                 limits are compiled in (THREAD_TMOUT 3 s for a receive or
#                 transmit loop, POLL_TMOUT 1 s) and have no option or
#                 environment variable
#   --retries     run a failed case again up to N times (default 2); a case
#                 that passes on a retry counts as passed and is listed as
#                 XSKXCEIVER-FLAKY. (The 6.12 xskxceiver's 9K cases failed
#                 whenever a receive batch ended inside a packet; the build
#                 applies xskxceiver-fixes/0001 for that, so a FLAKY line is
#                 news)
#   --budget      stop starting cases after SECS seconds (default 0: no
#                 limit); cases not run count as failed. Give it a little
#                 less than the plan's timeout so the summary is printed
#   --exclude     FILE lines `CASE_NAME reason...`: those cases are not run
#                 and count as skipped, with the reason
#   --hugepages   make at least N 2 MiB huge pages available for the
#                 unaligned-mode cases (default 16; 0 leaves the setting
#                 alone); the previous value is restored at the end
#
# The same settings can come from the environment: XSK_NETNS=1,
# XSK_BUSY_POLL=1, XSK_TESTS, XSK_TEST_TIMEOUT, XSK_RETRIES, XSK_BUDGET,
# XSK_HUGEPAGES, XSK_VERBOSE=1; XSK_IP names iproute2's ip.
#
# Output: xskxceiver's TAP lines (numbered over the whole run; its other
# lines as "# " comments), then
#   XSKXCEIVER pass=P fail=F skip=S
#   XSKXCEIVER-SKIP <case>: <xskxceiver's reason>     one per skipped case
#   XSKXCEIVER-FAIL <case>: <first error line>        one per failed case
#   XSKXCEIVER-FLAKY <case>: <what the failed attempt said>
#   XSKXCEIVER-TIME total=<s> cases=<s>
# On SIGTERM/SIGINT (the plan's timeout) the cases not finished count as
# failed and the summary is still printed. Exit status 0 iff no case failed
# and at least one passed.

netns=${XSK_NETNS:-0}
busy_poll=${XSK_BUSY_POLL:-0}
tests=${XSK_TESTS:-}
tmo=${XSK_TEST_TIMEOUT:-300}
retries=${XSK_RETRIES:-2}
budget=${XSK_BUDGET:-0}
hugepages=${XSK_HUGEPAGES:-16}
verbose=${XSK_VERBOSE:-0}
exclude=${XSK_EXCLUDE:-}

usage() {
    sed -n '7,9p' "$0" >&2
    exit 2
}

parse_args() {
    while [ $# -gt 0 ]; do
        case "$1" in
            --netns) netns=1 ;;
            --busy-poll) busy_poll=1 ;;
            --tests) [ $# -ge 2 ] || usage; tests=$2; shift ;;
            --timeout) [ $# -ge 2 ] || usage; tmo=$2; shift ;;
            --retries) [ $# -ge 2 ] || usage; retries=$2; shift ;;
            --budget) [ $# -ge 2 ] || usage; budget=$2; shift ;;
            --hugepages) [ $# -ge 2 ] || usage; hugepages=$2; shift ;;
            --exclude) [ $# -ge 2 ] || usage; exclude=$2; shift ;;
            -v|--verbose) verbose=1 ;;
            -h|--help) usage ;;
            *) echo "xskxceiver-run: unknown argument: $1" >&2; usage ;;
        esac
        shift
    done
}
parse_args "$@"

for v in "$tmo" "$retries" "$budget" "$hugepages"; do
    case "$v" in
        ''|*[!0-9]*) echo "xskxceiver-run: not a number: '$v'" >&2; exit 2 ;;
    esac
done

die() { echo "xskxceiver-run: $*" >&2; echo "XSKXCEIVER pass=0 fail=1 skip=0"; echo "XSKXCEIVER-FAIL setup: $*"; exit 1; }

if [ "$netns" = 1 ] && [ "${XSK_IN_NETNS:-0}" != 1 ]; then
    command -v unshare >/dev/null 2>&1 || die "--netns needs unshare"
    XSK_IN_NETNS=1 exec unshare -n -m --propagation private sh "$0" "$@"
fi

script_dir=$(cd "$(dirname "$0")" && pwd) || exit 1
cd "$script_dir" || exit 1
XSK=./xskxceiver
[ -x "$XSK" ] || die "no executable $script_dir/xskxceiver"
[ "$(id -u)" = 0 ] || die "must run as root (CAP_NET_ADMIN, CAP_SYS_ADMIN for BPF)"
# iproute2's ip by its path: busybox sh runs its own applets before looking at
# PATH, and busybox's ip cannot create a veth pair or detach XDP.
IP=""
for c in ${XSK_IP:-} $(echo "$PATH" | tr ':' '\n' | sed 's|$|/ip|') \
         /usr/sbin/ip /sbin/ip /usr/bin/ip /bin/ip /usr/local/sbin/ip; do
    case "$c" in /*) ;; *) continue ;; esac
    if [ -x "$c" ] && "$c" -V 2>&1 | grep -q iproute2; then
        IP=$c
        break
    fi
done
[ -n "$IP" ] || die "iproute2's ip not found (busybox's ip applet cannot create veth pairs)"
command -v timeout >/dev/null 2>&1 || die "'timeout' not found"

if [ "${XSK_IN_NETNS:-0}" = 1 ]; then
    # A sysfs of this namespace, for /sys/class/net of the new pair.
    mount -t sysfs sysfs /sys 2>/dev/null || true
    "$IP" link set lo up 2>/dev/null || true
fi

now() { cut -d' ' -f1 /proc/uptime; }
secs_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
t_start=$(now)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/xskxceiver.XXXXXX" 2>/dev/null) ||
    tmp=$(mktemp -d "$script_dir/.run.XXXXXX") || die "cannot create a temporary directory"

rand4() { tr -dc '0-9' </dev/urandom 2>/dev/null | head -c 4; }
VETH0=ve$(rand4)
VETH1=ve$(rand4)
while [ "$VETH1" = "$VETH0" ]; do VETH1=ve$(rand4); done
MTU=1500

hp_file=/proc/sys/vm/nr_hugepages
hp_old=""

: >"$tmp/skips"
: >"$tmp/fails"
: >"$tmp/flaky"
: >"$tmp/order"
npass=0 nfail=0 nskip=0 k=0 total=0
t_cases=0

summary() {
    echo "XSKXCEIVER pass=$npass fail=$nfail skip=$nskip"
    sed 's/^/XSKXCEIVER-SKIP /' "$tmp/skips"
    sed 's/^/XSKXCEIVER-FAIL /' "$tmp/fails"
    sed 's/^/XSKXCEIVER-FLAKY /' "$tmp/flaky"
    echo "XSKXCEIVER-TIME total=$(secs_since "$t_start") cases=$t_cases"
}

# interrupted SIG RC: the cases not yet counted fail, the summary is printed.
interrupted() {
    trap '' INT TERM
    done_n=$((npass + nfail + nskip))
    if [ -s "$tmp/order" ] && [ "$done_n" -lt "$total" ]; then
        sed -n "$((done_n + 1)),\$p" "$tmp/order" | while read -r c; do
            echo "$c: not finished, the run was interrupted (SIG$1)"
        done >>"$tmp/fails"
        nfail=$((nfail + total - done_n))
    elif [ "$total" = 0 ]; then
        echo "setup: interrupted (SIG$1) before the first case" >>"$tmp/fails"
        nfail=$((nfail + 1))
    fi
    echo "# interrupted by SIG$1"
    summary
    exit "$2"
}

cleanup() {
    "$IP" link del "$VETH0" >/dev/null 2>&1
    if [ -n "$hp_old" ]; then
        echo "$hp_old" >"$hp_file" 2>/dev/null
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
# A signal (the plan's timeout) still prints the summary: see interrupted().
trap 'interrupted INT 130' INT
trap 'interrupted TERM 143' TERM

echo "# xskxceiver $(cat BUILD-INFO 2>/dev/null | sed -n 's/^tree version: //p') on $(uname -r), SKB mode, veth $VETH0/$VETH1"
echo "# ip: $IP ($("$IP" -V 2>&1))"

# Huge pages for the unaligned-mode cases (otherwise they SKIP).
if [ "$hugepages" -gt 0 ]; then
    if [ -w "$hp_file" ]; then
        cur=$(cat "$hp_file")
        if [ "$cur" -lt "$hugepages" ]; then
            hp_old=$cur
            echo "$hugepages" >"$hp_file" 2>/dev/null
            echo "# nr_hugepages $cur -> $(cat "$hp_file") (asked $hugepages; restored at the end)"
        fi
    else
        echo "# no $hp_file (CONFIG_HUGETLBFS off?): unaligned-mode cases will skip"
    fi
fi

# The veth pair, as test_xsk.sh's setup_vethPairs.
setup_veth() {
    "$IP" link add "$VETH0" numtxqueues 4 numrxqueues 4 type veth \
        peer name "$VETH1" numtxqueues 4 numrxqueues 4 || return 1
    for v in "$VETH0" "$VETH1"; do
        [ -f /proc/sys/net/ipv6/conf/$v/disable_ipv6 ] &&
            echo 1 >/proc/sys/net/ipv6/conf/$v/disable_ipv6
    done
    "$IP" link set "$VETH1" mtu $MTU && "$IP" link set "$VETH0" mtu $MTU &&
        "$IP" link set "$VETH1" up && "$IP" link set "$VETH0" up
}
setup_veth >"$tmp/setup" 2>&1 || {
    cat "$tmp/setup" >&2
    die "could not create the veth pair with 4 queues (CONFIG_VETH? iproute2 ip?)"
}

# Busy polling, as test_xsk.sh's second pass.
set_busy_poll() {
    for v in "$VETH0" "$VETH1"; do
        echo "$1" >/sys/class/net/$v/napi_defer_hard_irqs 2>/dev/null || return 1
        echo "$2" >/sys/class/net/$v/gro_flush_timeout 2>/dev/null || return 1
    done
}

# Between cases: what a case may leave behind.
reset_ifaces() {
    for v in "$VETH0" "$VETH1"; do
        "$IP" link set dev "$v" xdpgeneric off >/dev/null 2>&1
        "$IP" link set dev "$v" xdpdrv off >/dev/null 2>&1
    done
    "$IP" link set "$VETH1" mtu $MTU >/dev/null 2>&1
    "$IP" link set "$VETH0" mtu $MTU >/dev/null 2>&1
}

"$XSK" -l >"$tmp/list" 2>&1
sed -n 's/^\([0-9][0-9]*\): \(.*\)$/\1 \2/p' "$tmp/list" >"$tmp/cases"
[ -s "$tmp/cases" ] || { cat "$tmp/list" >&2; die "xskxceiver -l listed no cases"; }
[ -n "$tests" ] || tests=$(cut -d' ' -f1 "$tmp/cases")
for n in $tests; do
    grep -q "^$n " "$tmp/cases" || die "no case $n (xskxceiver -l: 0..$(tail -n1 "$tmp/cases" | cut -d' ' -f1))"
done
if [ -n "$exclude" ]; then
    [ -r "$exclude" ] || die "--exclude: cannot read $exclude"
    kept=""
    for n in $tests; do
        name=$(sed -n "s/^$n //p" "$tmp/cases")
        why=$(awk -v c="$name" '$1 == c { $1 = ""; sub(/^ /, ""); print; exit }' "$exclude")
        if [ -n "$why" ]; then
            nskip=$((nskip + 1))
            echo "$name: not run: $why" >>"$tmp/skips"
        else
            kept="$kept $n"
        fi
    done
    tests=$kept
    # A name in the file that xskxceiver does not list is a stale entry.
    awk '!/^#/ && NF { print $1 }' "$exclude" | while read -r c; do
        grep -q " $c\$" "$tmp/cases" || echo "# --exclude: no case named $c"
    done
fi

passes=0
[ "$busy_poll" = 1 ] && passes="0 1"
total=0
for p in $passes; do for n in $tests; do total=$((total + 1)); done; done
echo "1..$total"

# The cases in run order, one name a line, for interrupted().
for p in $passes; do
    for n in $tests; do
        name=$(sed -n "s/^$n //p" "$tmp/cases")
        [ "$p" = 1 ] && name="$name/busy-poll"
        echo "$name"
    done
done >"$tmp/order"

# classify FILE: sets res (pass|fail|skip|none) and why.
classify() {
    res=none why=""
    if grep -q '^not ok ' "$1"; then
        res=fail
        why=$(sed -n 's/^not ok [0-9]* //p' "$1" | head -n1)
        case "$why" in
            FAIL:*)
                # "FAIL: SKB NAME" says nothing: take xskxceiver's first
                # diagnostic and the last one before the verdict.
                diag() {
                    grep '^# ' "$1" | grep -v -e '^# Totals' -e '^# Planned' \
                        -e '^# Last completion' -e '^# DEBUG' -e '^# \.\.\.\.' \
                        -e '^# ---' -e 'max_skb_frags' -e 'MAX_SKB_FRAGS' -e '^# [0-9]*:[0-9]* '
                }
                first=$(diag "$1" | head -n1 | sed 's/^# //')
                sed '/^not ok /q' "$1" >"$1.head"
                last=$(diag "$1.head" | tail -n1 | sed 's/^# //')
                if [ -n "$first" ]; then
                    why=$first
                    [ -n "$last" ] && [ "$last" != "$first" ] && why="$first ... $last"
                fi ;;
        esac
        why=$(echo "$why" | sed 's|\[[^]:]*/\([^/]*\.c\):|[\1:|')
    elif grep -q '^ok [0-9]* # SKIP' "$1"; then
        res=skip
        why=$(sed -n 's/^ok [0-9]* # SKIP *//p' "$1" | head -n1)
    elif grep -q '^ok [0-9]* ' "$1"; then
        res=pass
    fi
}

# emit FILE K PREFIX: xskxceiver's output as TAP numbered K.
emit() {
    sed -e '/^1\.\.[0-9]*$/d' -e '/^# Totals: /d' -e '/^# Planned tests /d' \
        -e "s/^ok [0-9]* /ok $2 /" -e "s/^not ok [0-9]* /not ok $2 /" \
        -e '/^ok \|^not ok \|^#/!s/^/# /' -e "s/^/$3/" "$1"
}

budget_left() {
    [ "$budget" = 0 ] && return 0
    awk -v a="$t_start" -v b="$(now)" -v l="$budget" 'BEGIN { exit !(b - a < l) }'
}

for p in $passes; do
    args="-i $VETH0 -i $VETH1 -m skb"
    [ "$verbose" = 1 ] && args="$args -v"
    if [ "$p" = 1 ]; then
        args="$args -b"
        if ! set_busy_poll 2 200000; then
            echo "# cannot set napi_defer_hard_irqs/gro_flush_timeout; busy-poll pass without them"
        fi
    fi
    for n in $tests; do
        k=$((k + 1))
        name=$(sed -n "${k}p" "$tmp/order")
        if ! budget_left; then
            echo "not ok $k FAIL: SKB $name not run: budget of ${budget}s used up"
            nfail=$((nfail + 1))
            echo "$name: not run, budget of ${budget}s used up" >>"$tmp/fails"
            continue
        fi
        attempt=0
        first_why=""
        while :; do
            attempt=$((attempt + 1))
            reset_ifaces
            label=""
            [ "$attempt" -gt 1 ] && label=" (attempt $attempt)"
            echo "# case $n $name: xskxceiver $args -t $n$label"
            t0=$(now)
            timeout -k 10 "$tmo" "$XSK" $args -t "$n" >"$tmp/out" 2>&1
            rc=$?
            dt=$(secs_since "$t0")
            t_cases=$(awk -v a="$t_cases" -v b="$dt" 'BEGIN { printf "%.1f", a + b }')
            classify "$tmp/out"
            if [ "$res" = none ]; then
                case $rc in
                    124|137|143) why="no result: killed by the ${tmo}s watchdog (rc $rc)" ;;
                    *) why="no result line (rc $rc)" ;;
                esac
                res=fail
                echo "not ok 1 FAIL: SKB $name: $why" >>"$tmp/out"
            fi
            if [ "$res" = fail ] && [ "$attempt" -le "$retries" ] && budget_left; then
                emit "$tmp/out" "$k" "# [attempt $attempt] "
                echo "# case $n $name: failed in ${dt}s, retrying"
                [ -n "$first_why" ] || first_why=$why
                continue
            fi
            emit "$tmp/out" "$k" ""
            echo "# case $n $name: $res in ${dt}s"
            break
        done
        case $res in
            pass)
                npass=$((npass + 1))
                if [ "$attempt" -gt 1 ]; then
                    echo "$name: failed $((attempt - 1)) time(s) before passing: $first_why" >>"$tmp/flaky"
                fi ;;
            skip)
                nskip=$((nskip + 1))
                echo "$name: $why" >>"$tmp/skips" ;;
            *)
                nfail=$((nfail + 1))
                echo "$name: $why" >>"$tmp/fails" ;;
        esac
    done
    [ "$p" = 1 ] && set_busy_poll 0 0
done

summary
[ "$nfail" = 0 ] && [ "$npass" -gt 0 ]
