#!/usr/bin/env bash
# The whole VM pipeline: Debian packages, kernel (cached), initramfs, boot.
#
#   run.sh --label NAME --series DIR|none --plan FILE --out DIR [--payload DIR|FILE]...
#          [--jobs N] [--timeout S] [--mem MIB] [--smp N]
#
# The kernel goes to target/ringlab/kernel-vm/kernels/NAME (kept: a rerun
# with the same fragment and patches does not rebuild); OUT gets
# initramfs.cpio.gz, build-kernel.txt, console.log, results/ and times.json.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
KERNELS="${RINGLAB_KERNEL_VM_DIR:-$ROOT/target/ringlab/kernel-vm}/kernels"

TAG=run
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

label="" series="" plan="" out="" payload_args=() build_args=() boot_args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --label) label="${2:?--label needs NAME}"; shift 2 ;;
        --series) series="${2:?--series needs DIR or none}"; shift 2 ;;
        --plan) plan="${2:?--plan needs FILE}"; shift 2 ;;
        --out) out="${2:?--out needs DIR}"; shift 2 ;;
        --payload) payload_args+=(--payload "${2:?--payload needs DIR or FILE}"); shift 2 ;;
        --jobs) build_args+=(--jobs "${2:?--jobs needs N}"); shift 2 ;;
        --timeout|--mem|--smp) boot_args+=("$1" "${2:?$1 needs a value}"); shift 2 ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        *) die "unknown argument '$1' (usage: --label NAME --series DIR|none --plan FILE --out DIR [--payload DIR|FILE]...)" ;;
    esac
done
[ -n "$label" ] || die "--label NAME is required"
[ -n "$series" ] || die "--series DIR|none is required"
[ -n "$plan" ] || die "--plan FILE is required"
[ -n "$out" ] || die "--out DIR is required"
[[ "$label" =~ ^[A-Za-z0-9._-]+$ ]] || die "label '$label' must be letters, digits, '.', '_' or '-'"
[ -f "$plan" ] || die "plan file '$plan' does not exist"

t0="$(now)"
bash "$HERE/deps.sh"
echo "run: deps ok ($(since "$t0") s)"

mkdir -p "$out"
kdir="$KERNELS/$label"
t0="$(now)"
bash "$HERE/build-kernel.sh" --series "$series" --out "$kdir" --label "$label" ${build_args[@]+"${build_args[@]}"} \
    | tee "$out/build-kernel.txt" || die "building the $label kernel failed"
build_s="$(since "$t0")"
cached=false
grep -q '^build-kernel: .* cached' "$out/build-kernel.txt" && cached=true

t0="$(now)"
bash "$HERE/initramfs.sh" --out "$out/initramfs.cpio.gz" --plan "$plan" ${payload_args[@]+"${payload_args[@]}"}
initramfs_s="$(since "$t0")"

t0="$(now)"
boot_rc=0
bash "$HERE/boot.sh" --kernel "$kdir/bzImage" --initramfs "$out/initramfs.cpio.gz" --out "$out" \
    ${boot_args[@]+"${boot_args[@]}"} || boot_rc=$?
boot_s="$(since "$t0")"

printf '{"label":"%s","build_s":%s,"cached":%s,"initramfs_s":%s,"boot_s":%s,"kernel":"%s","source_tree":"%s"}\n' \
    "$label" "$build_s" "$cached" "$initramfs_s" "$boot_s" "$kdir/bzImage" "$(cat "$kdir/src-path")" > "$out/times.json"
[ "$boot_rc" -eq 0 ] || exit "$boot_rc"
echo "run: $label results in $out/results"
