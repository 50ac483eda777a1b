#!/usr/bin/env bash
# Builds a bzImage of Debian's linux-source-6.12 (6.12.117) from
# config.fragment, with or without a patch series applied.
#
#   build-kernel.sh --series DIR|none --out DIR [--jobs N] [--label NAME]
#
# The source tree is extracted once per label into
# target/ringlab/kernel-vm/src/linux-<version>-<label> (a git repo, commit
# "linux <version>", tag "base") and kept for incremental rebuilds; its path
# is written to OUT/src-path. The label defaults to "baseline" for
# `--series none` and to the series directory's name otherwise.
#
# Cache: OUT/key holds sha256(script version, source version, label, fragment,
# every patch); when it matches and OUT/bzImage exists nothing is built.
set -euo pipefail

SCRIPT_VERSION="build-kernel 1"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
FRAGMENT="$HERE/config.fragment"
TARBALL="${RINGLAB_LINUX_TARBALL:-/usr/src/linux-source-6.12.tar.xz}"
CACHE="${RINGLAB_KERNEL_VM_DIR:-$ROOT/target/ringlab/kernel-vm}/src"

TAG=build-kernel
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

t0="$(now)"
series="" out="" jobs="$(nproc)" label=""
while [ $# -gt 0 ]; do
    case "$1" in
        --series) series="${2:?--series needs DIR or none}"; shift 2 ;;
        --out) out="${2:?--out needs DIR}"; shift 2 ;;
        --jobs) jobs="${2:?--jobs needs N}"; shift 2 ;;
        --label) label="${2:?--label needs NAME}"; shift 2 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) die "unknown argument '$1' (usage: --series DIR|none --out DIR [--jobs N] [--label NAME])" ;;
    esac
done
[ -n "$series" ] || die "--series DIR|none is required"
[ -n "$out" ] || die "--out DIR is required"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "--jobs must be a positive integer, not '$jobs'"
[ -f "$FRAGMENT" ] || die "config fragment $FRAGMENT is missing"
[ -f "$TARBALL" ] || die "kernel source tarball $TARBALL is missing (install linux-source-6.12: kernel/vm/deps.sh)"

patches=()
if [ "$series" != none ]; then
    [ -d "$series" ] || die "series directory '$series' does not exist"
    series="$(cd "$series" && pwd)"
    while IFS= read -r p; do
        case "$(basename "$p")" in 0000-*) continue ;; esac
        patches+=("$p")
    done < <(find "$series" -maxdepth 1 -type f -name '*.patch' | LC_ALL=C sort)
    [ ${#patches[@]} -gt 0 ] || die "series directory $series has no *.patch files (other than a 0000- cover letter)"
    : "${label:=$(basename "$series")}"
else
    : "${label:=baseline}"
fi
[[ "$label" =~ ^[A-Za-z0-9._-]+$ ]] || die "label '$label' must be letters, digits, '.', '_' or '-'"

# The source version: Debian's package version without its revision.
version="$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || true)"
version="${version%%-*}"
: "${version:=6.12.117}"
[ "$version" = 6.12.117 ] || echo "build-kernel: note: linux-source-6.12 is $version, not the 6.12.117 the patches were written for" >&2

key="$( {
    echo "$SCRIPT_VERSION"; echo "linux $version"; echo "label $label"
    echo "== fragment"; cat "$FRAGMENT"
    for p in ${patches[@]+"${patches[@]}"}; do echo "== patch $(basename "$p")"; cat "$p"; done
} | sha256sum | cut -d' ' -f1)"

mkdir -p "$out"
out="$(cd "$out" && pwd)"
exit_if_cached() {
    if [ -f "$out/bzImage" ] && [ -f "$out/key" ] && [ "$(cat "$out/key")" = "$key" ]; then
        echo "build-kernel: $label cached (key ${key:0:12}, $(since "$t0") s): $out/bzImage"
        exit 0
    fi
}
exit_if_cached

mkdir -p "$CACHE"
tree="$CACHE/linux-$version-$label"
exec 9>"$tree.lock"
flock 9 || die "cannot lock $tree.lock"
# Another build of this label may have finished while this one waited.
exit_if_cached

git_() { git -C "$tree" -c user.name=ringlab -c user.email=ringlab@localhost -c gc.auto=0 "$@"; }

# Extract into a temporary directory and rename it, so a tree that exists is
# complete.
if [ ! -f "$tree/.ringlab-base" ]; then
    rm -rf "$tree" "$tree.tmp"
    mkdir -p "$tree.tmp"
    tar -xJf "$TARBALL" -C "$tree.tmp" --strip-components=1 \
        || die "could not extract $TARBALL into $tree.tmp"
    [ -f "$tree.tmp/Makefile" ] || die "$TARBALL did not hold a kernel tree (no Makefile at its top level)"
    # Debian's top-level .gitignore ignores everything at the top level: -f.
    (
        cd "$tree.tmp"
        git init -q
        git add -f -A .
        git -c user.name=ringlab -c user.email=ringlab@localhost commit -q -m "linux $version"
        git tag base
    ) || die "could not make a git repository of $tree.tmp"
    echo "$version" > "$tree.tmp/.ringlab-base"
    mv "$tree.tmp" "$tree"
    echo "build-kernel: extracted linux $version into $tree ($(since "$t0") s)"
fi

# Apply the series onto the base commit, unless the tree already holds it.
# Build products are untracked and survive the reset (incremental builds).
series_key="$( for p in ${patches[@]+"${patches[@]}"}; do basename "$p"; cat "$p"; done | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$tree/.ringlab-series" 2>/dev/null || true)" != "$series_key" ]; then
    rm -f "$tree/.ringlab-series"
    git_ am --abort >/dev/null 2>&1 || true
    git_ reset -q --hard base
    for p in ${patches[@]+"${patches[@]}"}; do
        if ! msg="$(git_ am -q "$p" 2>&1)"; then
            git_ am --abort >/dev/null 2>&1 || true
            git_ reset -q --hard base
            msg="$(grep -vE '^hint:|^When you have resolved|^If you prefer to skip|^To restore the original' <<< "$msg")"
            die "patch $(basename "$p") does not apply to linux $version (series $series):
$msg"
        fi
    done
    echo "$series_key" > "$tree/.ringlab-series"
    [ ${#patches[@]} -eq 0 ] || echo "build-kernel: applied ${#patches[@]} patches of $series"
fi

# Configure: tinyconfig, the fragment merged over it, olddefconfig; then check
# that every line of the fragment survived.
mk() { make -C "$tree" -s ARCH=x86_64 LOCALVERSION="-$label" "$@"; }
log="$out/build.log"
: > "$log"
{
    mk tinyconfig
    (cd "$tree" && scripts/kconfig/merge_config.sh -m .config "$FRAGMENT")
    mk olddefconfig
} >>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "configuring failed (log: $log)"; }

dropped=()
while IFS= read -r line; do
    case "$line" in
        CONFIG_*=*)
            grep -qxF -- "$line" "$tree/.config" || {
                sym="${line%%=*}"
                have="$(grep -E "^$sym=|^# $sym is not set" "$tree/.config" || echo "absent")"
                dropped+=("$line (got: $have)")
            } ;;
        "# CONFIG_"*" is not set")
            sym="${line#\# }"; sym="${sym%% *}"
            if grep -q "^$sym=" "$tree/.config"; then dropped+=("$line (got: $(grep "^$sym=" "$tree/.config"))"); fi ;;
    esac
done < "$FRAGMENT"
if [ ${#dropped[@]} -gt 0 ]; then
    printf '  %s\n' "${dropped[@]}" >&2
    die "${#dropped[@]} options of $FRAGMENT did not survive olddefconfig (unmet dependencies?): see above"
fi

if ! mk -j"$jobs" bzImage >>"$log" 2>&1; then
    grep -E 'error|Error|\*\*\*' "$log" | head -n 40 >&2 || tail -n 40 "$log" >&2
    die "make bzImage failed for $label (log: $log)"
fi

release="$(mk kernelrelease)"
cp "$tree/arch/x86/boot/bzImage" "$out/bzImage.tmp"
mv "$out/bzImage.tmp" "$out/bzImage"
cp "$tree/.config" "$out/config"
echo "$tree" > "$out/src-path"
echo "$release" > "$out/kernel-release"
secs="$(since "$t0")"
echo "$secs" > "$out/build-seconds"
echo "$key" > "$out/key"
echo "build-kernel: $label ($release) built in $secs s: $out/bzImage (source tree: $tree)"
