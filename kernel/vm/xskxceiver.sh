#!/usr/bin/env bash
# Builds the kernel's own AF_XDP selftest, xskxceiver, from a Linux tree
# (tools/testing/selftests/bpf), for the VM payload:
#
#   kernel/vm/xskxceiver.sh --src TREE --out DIR [--force] [--jobs N]
#
# TREE is a kernel source tree (linux-source-6.12: 6.12.117). Nothing is
# written into it. DIR receives
#   xskxceiver            the test binary (static when the host has libelf.a
#                         and libz.a; the BPF object is embedded in it through
#                         its bpftool skeleton, so nothing else is loaded)
#   xskxceiver-run.sh     the guest runner (guest/xskxceiver-run.sh)
#   BUILD-INFO            tree, flags and tool versions
#   .build-stamp          hash of every input; a rebuild is skipped when it
#                         matches
#
# Steps, as the selftests Makefile does them but without its test_progs
# machinery: libbpf.a from TREE/tools/lib/bpf (and its headers installed next
# to it), progs/xsk_xdp_progs.c with clang -target bpf against the tree's
# tools/include/uapi, the skeleton with bpftool gen object + gen skeleton,
# then xskxceiver.c, xsk.c, network_helpers.c (it only needs libc; xskxceiver
# uses its get/set_hw_ring_size) and tools/lib/find_bit.c linked with
# libbpf.a -lelf -lz -lpthread.
#
# The patches in kernel/vm/xskxceiver-fixes/ (fixes to the test program
# itself, not to the kernel) are applied to a copy of xskxceiver.c in the
# build directory, in name order; BUILD-INFO lists them. Without 0001 the 9K
# cases fail whenever the receiver falls a batch behind the sender, which
# under emulation is often (see the patch).
#
# User-space code is built with -O0, the selftests Makefile's default
# (OPT_FLAGS without RELEASE=1), libbpf included. XSK_OPT_FLAGS overrides it;
# with -O2 the 6.12 xskxceiver fails BIDIRECTIONAL and XDP_PROG_CLEANUP on
# every run (its threads share plain variables), so keep -O0.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
run_script="$here/guest/xskxceiver-run.sh"
fixes_dir="$here/xskxceiver-fixes"

usage() {
    echo "usage: $0 --src KERNEL_TREE --out DIR [--force] [--jobs N]" >&2
    exit 2
}
die() { echo "xskxceiver.sh: $*" >&2; exit 1; }

src="" out="" force=0 jobs=$(nproc 2>/dev/null || echo 2)
while [ $# -gt 0 ]; do
    case "$1" in
        --src) [ $# -ge 2 ] || usage; src=$2; shift 2 ;;
        --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
        --force) force=1; shift ;;
        --jobs|-j) [ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
        -h|--help) usage ;;
        *) echo "xskxceiver.sh: unknown argument: $1" >&2; usage ;;
    esac
done
[ -n "$src" ] && [ -n "$out" ] || usage
[ -d "$src" ] || die "--src $src is not a directory"
src=$(cd "$src" && pwd)
[ -f "$run_script" ] || die "missing $run_script"

sel="$src/tools/testing/selftests/bpf"
for f in "$sel/xskxceiver.c" "$sel/xskxceiver.h" "$sel/xsk.c" "$sel/xsk.h" \
         "$sel/xsk_xdp_common.h" "$sel/progs/xsk_xdp_progs.c" \
         "$sel/network_helpers.c" "$sel/network_helpers.h" \
         "$src/tools/testing/selftests/kselftest.h" "$src/tools/lib/find_bit.c" \
         "$src/tools/lib/bpf/Makefile" "$src/tools/include/uapi/linux/bpf.h" \
         "$src/tools/include/uapi/linux/if_xdp.h"; do
    [ -f "$f" ] || die "$src does not look like a kernel tree with the AF_XDP selftest: missing ${f#"$src"/}"
done

CC=${CC:-gcc}
OPT_FLAGS=${XSK_OPT_FLAGS:--O0}
CLANG=${CLANG:-clang}
BPFTOOL=${BPFTOOL:-bpftool}
fixes=()
for p in "$fixes_dir"/*.patch; do
    [ -f "$p" ] && fixes+=("$p")
done
for t in make "$CC" "$CLANG" "$BPFTOOL" sha256sum git; do
    command -v "$t" >/dev/null 2>&1 || die "'$t' not found in PATH (needs make, gcc, clang with the bpf target, bpftool, git)"
done

case "$(uname -m)" in
    x86_64) srcarch=x86 ;;
    aarch64) srcarch=arm64 ;;
    *) srcarch=$(uname -m) ;;
esac

# The hash covers every file of the tree the build reads, this script, the
# runner, and the tools' versions.
input_hash() {
    {
        (cd "$src" && find tools/lib/bpf tools/include tools/arch/"$srcarch"/include \
                tools/scripts tools/build tools/lib/find_bit.c \
                tools/testing/selftests/kselftest.h \
                tools/testing/selftests/bpf/xskxceiver.c tools/testing/selftests/bpf/xskxceiver.h \
                tools/testing/selftests/bpf/xsk.c tools/testing/selftests/bpf/xsk.h \
                tools/testing/selftests/bpf/xsk_xdp_common.h \
                tools/testing/selftests/bpf/progs/xsk_xdp_progs.c \
                tools/testing/selftests/bpf/network_helpers.c \
                tools/testing/selftests/bpf/network_helpers.h \
                tools/testing/selftests/bpf/bpf_util.h \
                tools/testing/selftests/bpf/test_progs.h \
                -type f 2>/dev/null | LC_ALL=C sort | xargs -d '\n' sha256sum)
        sha256sum "${BASH_SOURCE[0]}" "$run_script" ${fixes[@]+"${fixes[@]}"} | sed 's|  .*/|  |'
        "$CC" --version | head -1
        "$CLANG" --version | head -1
        "$BPFTOOL" version 2>/dev/null | head -1
        echo "opt: $OPT_FLAGS"
    } | sha256sum | cut -d' ' -f1
}

t0=$(date +%s.%N)
elapsed() { awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

hash=$(input_hash)
stamp="$out/.build-stamp"
if [ "$force" = 0 ] && [ -f "$stamp" ] && [ -x "$out/xskxceiver" ] && \
   [ -f "$out/xskxceiver-run.sh" ] && [ "$(cat "$stamp")" = "$hash" ]; then
    echo "xskxceiver: cached in $out (inputs ${hash:0:12}), $(elapsed) s"
    exit 0
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
build=$(mktemp -d "${TMPDIR:-/tmp}/xskxceiver-build.XXXXXX")
trap 'rm -rf "$build"' EXIT
log="$build/log"

# step NAME CMD...: runs CMD with its output in the log, shown on failure.
step() {
    local name=$1; shift
    if ! "$@" >>"$log" 2>&1; then
        echo "xskxceiver.sh: $name failed; last lines of its output:" >&2
        tail -n 40 "$log" >&2
        exit 1
    fi
}

echo "xskxceiver: building from $src into $out"

# 1. libbpf.a and its headers, from the same tree. CFLAGS/LDFLAGS of the
#    caller's environment are not passed on.
mkdir -p "$build/libbpf"
step "libbpf (make -C tools/lib/bpf)" env -u CFLAGS -u LDFLAGS -u EXTRA_CFLAGS \
    make -C "$src/tools/lib/bpf" -j"$jobs" OUTPUT="$build/libbpf/" CC="$CC" \
    EXTRA_CFLAGS="-g $OPT_FLAGS" "$build/libbpf/libbpf.a"
step "libbpf headers (make install_headers)" env -u CFLAGS -u LDFLAGS \
    make -C "$src/tools/lib/bpf" OUTPUT="$build/libbpf/" DESTDIR="$build/inst" \
    prefix= install_headers
[ -f "$build/libbpf/libbpf.a" ] && [ -f "$build/inst/include/bpf/libbpf.h" ] ||
    die "libbpf build produced no libbpf.a or headers"

# 2. The XDP programs and their skeleton. clang's own system include dirs are
#    added with -idirafter, as the selftests Makefile does (asm/types.h).
sysinc=$("$CLANG" -v -E - </dev/null 2>&1 |
    sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')
# shellcheck disable=SC2086
step "clang -target bpf progs/xsk_xdp_progs.c" \
    "$CLANG" -g -O2 --target=bpf -mcpu=v3 -Wall -Werror -D__TARGET_ARCH_"$srcarch" \
    -I"$build/inst/include" -I"$sel" -I"$src/tools/include/uapi" \
    -Wno-compare-distinct-pointer-types $sysinc \
    -c "$sel/progs/xsk_xdp_progs.c" -o "$build/xsk_xdp_progs.bpf.o"
step "bpftool gen object" "$BPFTOOL" gen object "$build/xsk_xdp_progs.linked.o" "$build/xsk_xdp_progs.bpf.o"
if ! "$BPFTOOL" gen skeleton "$build/xsk_xdp_progs.linked.o" name xsk_xdp_progs \
        >"$build/xsk_xdp_progs.skel.h" 2>>"$log"; then
    tail -n 20 "$log" >&2
    die "bpftool gen skeleton failed"
fi

# 3. The user-space program, xskxceiver.c with the fixes applied.
patched="$build/src/tools/testing/selftests/bpf"
mkdir -p "$patched"
cp "$sel/xskxceiver.c" "$patched/xskxceiver.c"
for p in ${fixes[@]+"${fixes[@]}"}; do
    if ! (cd "$build/src" && git apply "$p") >>"$log" 2>&1; then
        tail -n 20 "$log" >&2
        die "$p does not apply to $sel/xskxceiver.c"
    fi
done
# shellcheck disable=SC2206
cflags=(-g $OPT_FLAGS -Wall -fno-omit-frame-pointer
        -I"$build" -I"$sel" -I"$build/inst/include" -I"$src/tools/lib"
        -I"$src/tools/include" -I"$src/tools/arch/$srcarch/include"
        -I"$src/tools/include/uapi")
objs=()
for c in "$patched/xskxceiver.c" "$sel/xsk.c" "$sel/network_helpers.c" "$src/tools/lib/find_bit.c"; do
    o="$build/$(basename "${c%.c}").o"
    name=${c#"$build"/src/}
    step "$CC -c ${name#"$src"/}" "$CC" "${cflags[@]}" -c "$c" -o "$o"
    objs+=("$o")
done
libs=("$build/libbpf/libbpf.a" -lelf -lz -lpthread)
if "$CC" -static -o "$build/xskxceiver" "${objs[@]}" "${libs[@]}" >>"$log" 2>&1; then
    linkage=static
else
    echo "xskxceiver: static link failed (no libelf.a/libz.a/libc.a?), linking dynamically" >&2
    step "link" "$CC" -o "$build/xskxceiver" "${objs[@]}" "${libs[@]}"
    linkage=dynamic
fi
"$build/xskxceiver" -l >"$build/list" 2>&1 || true
grep -q '^0: SEND_RECEIVE$' "$build/list" || {
    cat "$build/list" >&2
    die "the built xskxceiver does not list its tests"
}

# 4. Install.
install -m 0755 "$build/xskxceiver" "$out/xskxceiver"
install -m 0755 "$run_script" "$out/xskxceiver-run.sh"
{
    echo "tree: $src"
    if git -C "$src" rev-parse HEAD >/dev/null 2>&1; then
        echo "tree commit: $(git -C "$src" log -1 --format='%H %s')"
    fi
    [ -f "$src/Makefile" ] && echo "tree version: $(awk -F' = ' '$1 == "VERSION" { v = $2 }
        $1 == "PATCHLEVEL" { p = $2 } $1 == "SUBLEVEL" { s = $2 }
        END { print v "." p "." s }' "$src/Makefile")"
    for p in ${fixes[@]+"${fixes[@]}"}; do
        echo "fix: $(basename "$p")"
    done
    echo "inputs: $hash"
    echo "linkage: $linkage"
    echo "cflags: -g $OPT_FLAGS -Wall -fno-omit-frame-pointer (libbpf: its own plus -g $OPT_FLAGS)"
    echo "cc: $("$CC" --version | head -1)"
    echo "clang: $("$CLANG" --version | head -1)"
    echo "bpftool: $("$BPFTOOL" version 2>/dev/null | head -1)"
    echo "tests: $(grep -c '^[0-9]*: ' "$build/list")"
} >"$out/BUILD-INFO"
echo "$hash" >"$stamp"
echo "xskxceiver: built $out/xskxceiver ($linkage, $(grep -c '^[0-9]*: ' "$build/list") tests) in $(elapsed) s"
