#!/usr/bin/env bash
# Boots a kernel with an initramfs from initramfs.sh in qemu and brings the
# guest's /results back.
#
#   boot.sh --kernel BZIMAGE --initramfs FILE --out DIR [--timeout S] [--mem MIB] [--smp N]
#
# OUT/console.log   the console (ttyS0)
# OUT/serial1.log   what the guest wrote to ttyS1: the results, base64
# OUT/results/      the guest's /results
#
# Exit 0 with results; 3 when the guest's kernel crashed (a line of
# crash-patterns.txt on the console: the message names the plan step and
# the line); 1 on any other failure (timeout, qemu, no or corrupt results).
set -euo pipefail

TAG=boot
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

kernel="" initramfs="" out="" timeout=600 mem=1024 smp=2
while [ $# -gt 0 ]; do
    case "$1" in
        --kernel) kernel="${2:?--kernel needs BZIMAGE}"; shift 2 ;;
        --initramfs) initramfs="${2:?--initramfs needs FILE}"; shift 2 ;;
        --out) out="${2:?--out needs DIR}"; shift 2 ;;
        --timeout) timeout="${2:?--timeout needs seconds}"; shift 2 ;;
        --mem) mem="${2:?--mem needs MiB}"; shift 2 ;;
        --smp) smp="${2:?--smp needs N}"; shift 2 ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        *) die "unknown argument '$1' (usage: --kernel BZIMAGE --initramfs FILE --out DIR [--timeout S] [--mem MIB] [--smp N])" ;;
    esac
done
[ -n "$kernel" ] || die "--kernel BZIMAGE is required"
[ -n "$initramfs" ] || die "--initramfs FILE is required"
[ -n "$out" ] || die "--out DIR is required"
[ -f "$kernel" ] || die "kernel '$kernel' does not exist"
[ -f "$initramfs" ] || die "initramfs '$initramfs' does not exist"
for v in timeout mem smp; do
    [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || die "--$v must be a positive integer, not '${!v}'"
done
command -v qemu-system-x86_64 >/dev/null || die "no qemu-system-x86_64 (install qemu-system-x86: kernel/vm/deps.sh)"

mkdir -p "$out"
console="$out/console.log" serial1="$out/serial1.log"
rm -rf "$out/results" "$console" "$serial1"

# The kernel's own crash detectors panic, and the panic powers the VM
# off (panic=-1, -no-reboot): see config.fragment.
cmdline="console=ttyS0 panic=-1 reboot=t oops=panic softlockup_panic=1 nmi_watchdog=panic"
cmdline+=" hung_task_panic=1 sysctl.kernel.panic_on_rcu_stall=1"
# TCG on a busy host runs a vCPU in fits: soft lockups after 60 s and RCU
# stalls after 60 s, not the defaults' 20 and 21, so only a real one panics.
cmdline+=" watchdog_thresh=30 rcupdate.rcu_cpu_stall_timeout=60"

# The console lines that mean the guest's kernel is broken, without the
# printk timestamp; the first, with the plan step that was running.
patterns="$(mktemp)"; clean="$(mktemp)"; tgz="$(mktemp)"
trap 'rm -f "$patterns" "$clean" "$tgz"' EXIT
grep -v -e '^#' -e '^$' "$(dirname "${BASH_SOURCE[0]}")/crash-patterns.txt" > "$patterns"
crash_line() {
    local -; set +o pipefail  # grep -m1 may close the pipe early
    [ -f "$console" ] || return 1
    tr -d '\r' < "$console" | sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' | grep -m1 -E -f "$patterns"
}
crash_step() {
    local -; set +o pipefail
    tr -d '\r' < "$console" | sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' | awk -v pf="$patterns" '
        BEGIN { while ((getline p < pf) > 0) pat[++n] = p }
        /^ringlab-vm: step [^ ]+ start$/ { step = $3 }
        { for (i = 1; i <= n; i++) if ($0 ~ pat[i]) { print (step == "" ? "(boot)" : step); exit } }'
}

# TCG only: -enable-kvm hangs on the machines this runs on.
# ttyS0 (console) and ttyS1 (results) are files; no display, no NIC.
# RINGLAB_QEMU_PLUGIN: a TCG plugin (insn-count/insn_count.c) writing to
# OUT/plugin.out; one TCG thread for every vCPU, so its counter is exact.
# RINGLAB_QEMU_PLUGIN_ARGS: more of its arguments, comma-separated
# (profile=1).
accel=(-accel tcg)
if [ -n "${RINGLAB_QEMU_PLUGIN:-}" ]; then
    [ -f "$RINGLAB_QEMU_PLUGIN" ] || die "RINGLAB_QEMU_PLUGIN: no file $RINGLAB_QEMU_PLUGIN"
    plugin="file=$RINGLAB_QEMU_PLUGIN,out=$out/plugin.out"
    [ -z "${RINGLAB_QEMU_PLUGIN_ARGS:-}" ] || plugin+=",$RINGLAB_QEMU_PLUGIN_ARGS"
    accel=(-accel tcg,thread=single -plugin "$plugin")
fi
t0="$(now)"
timeout --kill-after=5 "$timeout" qemu-system-x86_64 \
    "${accel[@]}" -cpu max -m "$mem" -smp "$smp" \
    -nographic -nodefaults -no-reboot -monitor none \
    -serial "file:$console" -serial "file:$serial1" \
    -kernel "$kernel" -initrd "$initramfs" \
    -append "$cmdline" \
    </dev/null >"$out/qemu.log" 2>&1 &
qemu=$!
# SIGTERM or SIGINT: the VM goes too (timeout passes the signal to qemu).
trap 'echo "boot: interrupted; stopping the VM" >&2; kill -TERM "$qemu" 2>/dev/null; wait "$qemu" 2>/dev/null; exit 143' TERM
trap 'echo "boot: interrupted; stopping the VM" >&2; kill -TERM "$qemu" 2>/dev/null; wait "$qemu" 2>/dev/null; exit 130' INT
# The last resort, should the guest not power off after a crash (a
# report that does not panic, or a kernel whose panic hangs): the VM is
# stopped GRACE seconds after the first crash line on its console.
grace="${RINGLAB_VM_CRASH_GRACE:-10}"
crashed_at=""
while kill -0 "$qemu" 2>/dev/null; do
    sleep 1
    if [ -z "$crashed_at" ]; then
        crash_line >/dev/null && crashed_at="$(now)"
    elif awk -v s="$(since "$crashed_at")" -v g="$grace" 'BEGIN { exit !(s >= g) }'; then
        echo "boot: the guest did not power off ${grace} s after a kernel crash; stopping it" >&2
        kill -TERM "$qemu" 2>/dev/null || true
        break
    fi
done
set +e
wait "$qemu"
rc=$?
set -e
secs="$(since "$t0")"
echo "$secs" > "$out/boot-seconds"
# A crash is the answer, whatever qemu's exit: the step, the first line
# and where the rest is (ringlab kernel-test reads the same console).
if first="$(crash_line)"; then
    echo "boot: the guest kernel crashed in plan step $(crash_step): $first (console: $console)" >&2
    exit 3
fi
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    die "VM timed out after $timeout s: see $console"
fi
[ $rc -eq 0 ] || die "qemu failed (exit $rc): $(head -c 2000 "$out/qemu.log") (console: $console)"

# Decode: the lines between the markers, base64 of a gzip'd tar whose sha256
# and length the end marker carries.
no_results() { die "the VM did not return results: see $console${1:+ ($1)}"; }
[ -s "$serial1" ] || no_results "nothing on ttyS1"
tr -d '\r' < "$serial1" > "$clean"
grep -qx 'RINGLAB-RESULTS-BEGIN' "$clean" || no_results "no begin marker on ttyS1"
end="$(grep -E '^RINGLAB-RESULTS-END [0-9a-f]{64} [0-9]+$' "$clean" | tail -n 1 || true)"
[ -n "$end" ] || no_results "no end marker on ttyS1: the output was cut short"
read -r _ want_sum want_size <<< "$end"
# The last complete block, should a plan command have written a marker too.
awk '/^RINGLAB-RESULTS-BEGIN$/ { buf = ""; on = 1; next }
     /^RINGLAB-RESULTS-END / { if (on) last = buf; on = 0; next }
     on { buf = buf $0 "\n" }
     END { printf "%s", last }' "$clean" \
    | base64 -d > "$tgz" 2>/dev/null || no_results "the results on ttyS1 are not valid base64"
have_size="$(wc -c < "$tgz")"
have_sum="$(sha256sum "$tgz" | cut -d' ' -f1)"
if [ "$have_size" != "$want_size" ] || [ "$have_sum" != "$want_sum" ]; then
    no_results "the results on ttyS1 are corrupt: $have_size bytes, sha256 $have_sum; expected $want_size bytes, $want_sum"
fi
tar -xzf "$tgz" -C "$out" || no_results "could not unpack the results tar"
[ -d "$out/results" ] || no_results "the results tar had no results/ directory"

echo "boot: VM ran in $secs s ($(wc -l < "$out/results/summary" 2>/dev/null || echo 0) plan commands): $out/results"
