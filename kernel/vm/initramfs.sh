#!/usr/bin/env bash
# Makes the VM's initramfs (gzip'd newc cpio):
#   /init                 kernel/vm/guest/init
#   /plan                 the plan (see guest/init)
#   busybox-static (applets linked at boot), dash as /bin/sh, bash,
#   iproute2's ip; the shared libraries of every ELF file, found with ldd
#   /ringlab/             each payload: a directory's files, or a file
#
#   initramfs.sh --out FILE --plan FILE [--payload DIR|FILE]...
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
INIT="$HERE/guest/init"

TAG=initramfs
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

out="" plan="" payloads=()
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="${2:?--out needs FILE}"; shift 2 ;;
        --plan) plan="${2:?--plan needs FILE}"; shift 2 ;;
        --payload) payloads+=("${2:?--payload needs DIR or FILE}"); shift 2 ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        *) die "unknown argument '$1' (usage: --out FILE --plan FILE [--payload DIR|FILE]...)" ;;
    esac
done
[ -n "$out" ] || die "--out FILE is required"
[ -n "$plan" ] || die "--plan FILE is required"
[ -f "$plan" ] || die "plan file '$plan' does not exist"
[ -f "$INIT" ] || die "$INIT is missing"
for p in ${payloads[@]+"${payloads[@]}"}; do
    [ -e "$p" ] || die "payload '$p' does not exist"
done
BUSYBOX="$(command -v busybox || true)"
[ -n "$BUSYBOX" ] || die "no busybox on PATH (install busybox-static: kernel/vm/deps.sh)"
ldd "$BUSYBOX" >/dev/null 2>&1 && die "$BUSYBOX is dynamically linked; the VM needs busybox-static"
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
plan="$(abs "$plan")"
mkdir -p "$(dirname "$out")"
out="$(abs "$out")"
for i in ${payloads[@]+"${!payloads[@]}"}; do payloads[i]="$(abs "${payloads[$i]}")"; done
DASH="$(command -v dash || true)"
[ -n "$DASH" ] || die "no dash on PATH (install dash)"
BASH_BIN="$(command -v bash)"
IP="$(PATH="/usr/sbin:/usr/bin:/sbin:/bin:$PATH" command -v ip || true)"
[ -n "$IP" ] || die "no ip command (install iproute2)"

t0="$(now)"
stage="$(mktemp -d "${TMPDIR:-/tmp}/ringlab-initramfs.XXXXXX")"
trap 'rm -rf "$stage"' EXIT

# Merged-/usr layout, as on Debian 12: ldd's paths (/lib64/ld-linux...,
# /lib/x86_64-linux-gnu/...) and busybox's applet paths all land in usr/.
cd "$stage"
mkdir -p usr/bin usr/sbin usr/lib usr/lib64 proc sys dev tmp run root results ringlab etc
ln -s usr/bin bin; ln -s usr/sbin sbin; ln -s usr/lib lib; ln -s usr/lib64 lib64
mkdir -p var; ln -s ../run var/run
# /dev/console: the kernel's built-in initramfs has one too; mknod needs root.
mknod -m 600 dev/console c 5 1 2>/dev/null || true

# The applets' links are made at boot (guest/init: busybox --install -s).
# /bin/sh is dash: busybox's ash runs its own applets before any command on
# PATH, so `ip` in a plan line would be busybox's, not iproute2's.
cp "$BUSYBOX" bin/busybox
cp -L "$DASH" bin/dash
ln -s dash bin/sh
cp -L "$BASH_BIN" bin/bash
cp -L "$IP" sbin/ip
ln -sf /sbin/ip bin/ip
cp "$INIT" init
chmod 755 init
cp "$plan" plan
echo 'root:x:0:0:root:/root:/bin/sh' > etc/passwd
echo 'root:x:0:' > etc/group

for p in ${payloads[@]+"${payloads[@]}"}; do
    if [ -d "$p" ]; then
        cp -a "$p/." ringlab/
    else
        cp -a "$p" ringlab/
    fi
done

# The shared libraries (and loader) of every ELF file, under the path ldd
# names.
is_elf() { [ -f "$1" ] && [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }
libs_of() {
    ldd "$1" 2>/dev/null | awk '
        /=> not found/ { print "MISSING " $1; next }
        $2 == "=>" && $3 ~ /^\// { print $3; next }
        $1 ~ /^\// { print $1 }'
}
missing=()
declare -A seen=()
queue=()
while IFS= read -r -d '' f; do
    is_elf "$f" && queue+=("$f")
done < <(find bin/dash bin/bash sbin/ip ringlab -type f -print0)
while [ ${#queue[@]} -gt 0 ]; do
    f="${queue[0]}"; queue=("${queue[@]:1}")
    while IFS= read -r lib; do
        case "$lib" in MISSING*) missing+=("${lib#MISSING } (needed by ${f#./})"); continue ;; esac
        [ -n "${seen[$lib]+x}" ] && continue
        seen[$lib]=1
        mkdir -p "$stage$(dirname "$lib")"
        [ -e "$stage$lib" ] || cp -L "$lib" "$stage$lib"
        queue+=("$lib")
    done < <(libs_of "$f")
done
[ ${#missing[@]} -eq 0 ] || die "shared libraries not found on this host: ${missing[*]}"

find . -mindepth 1 -print0 | LC_ALL=C sort -z \
    | cpio --null -o -H newc -R 0:0 --quiet | gzip -6 > "$out.tmp"
mv "$out.tmp" "$out"
size="$(du -k "$out" | cut -f1)"
echo "initramfs: $out (${size} KiB, $(find ringlab -type f | wc -l) payload files) in $(since "$t0") s"
