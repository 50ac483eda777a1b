#!/usr/bin/env bash
# Builds a bzImage of Debian's linux-source-6.12 (6.12.117) from
# config.fragment, with the test-only patches of patches/ and with or
# without a patch series applied.
#
#   build-kernel.sh --series DIR|none --out DIR [--jobs N] [--label NAME]
#                   [--seed LABEL]
#
# The source tree is extracted once per label into
# target/ringlab/kernel-vm/src/linux-<version>-<label> (a git repo, commit
# "linux <version>", tag "base") and kept for incremental rebuilds; its path
# is written to OUT/src-path. The label defaults to "baseline" for
# `--series none` and to the series directory's name otherwise.
#
# --seed LABEL: a label without a tree yet starts as a copy of LABEL's built
# tree (sources, objects, mtimes) instead of the tarball, so a kernel that
# differs from it by a few patches rebuilds only what they touch: the
# patched kernel seeded from the released one, a mutant from the patched.
# Patches the tree already holds as a prefix of the series are kept; only
# the rest is applied (.ringlab-applied lists one sha256 per patch).
#
# Cache: OUT/key holds sha256(script version, source version, label, fragment,
# every patch); when it matches and OUT/bzImage exists nothing is built.
set -euo pipefail

SCRIPT_VERSION="build-kernel 2"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
FRAGMENT="$HERE/config.fragment"
TARBALL="${RINGLAB_LINUX_TARBALL:-/usr/src/linux-source-6.12.tar.xz}"
CACHE="${RINGLAB_KERNEL_VM_DIR:-$ROOT/target/ringlab/kernel-vm}/src"

TAG=build-kernel
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

t0="$(now)"
series="" out="" jobs="$(nproc)" label="" seed=""
while [ $# -gt 0 ]; do
    case "$1" in
        --series) series="${2:?--series needs DIR or none}"; shift 2 ;;
        --out) out="${2:?--out needs DIR}"; shift 2 ;;
        --jobs) jobs="${2:?--jobs needs N}"; shift 2 ;;
        --label) label="${2:?--label needs NAME}"; shift 2 ;;
        --seed) seed="${2:?--seed needs LABEL}"; shift 2 ;;
        -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
        *) die "unknown argument '$1' (usage: --series DIR|none --out DIR [--jobs N] [--label NAME] [--seed LABEL])" ;;
    esac
done
[ -n "$series" ] || die "--series DIR|none is required"
[ -n "$out" ] || die "--out DIR is required"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "--jobs must be a positive integer, not '$jobs'"
[ -f "$FRAGMENT" ] || die "config fragment $FRAGMENT is missing"
[ -f "$TARBALL" ] || die "kernel source tarball $TARBALL is missing (install linux-source-6.12: kernel/vm/deps.sh)"

# Every kernel, the released one too, first gets the VM's own test-only
# patches (patches/: netdevsim as a devmem-capable device), so a series is
# compared with a baseline that differs from it by the series alone.
patches=()
while IFS= read -r p; do
    patches+=("$p")
done < <(find "$HERE/patches" -maxdepth 1 -type f -name '*.patch' 2>/dev/null | LC_ALL=C sort)
tested=${#patches[@]}
if [ "$series" != none ]; then
    [ -d "$series" ] || die "series directory '$series' does not exist"
    series="$(cd "$series" && pwd)"
    while IFS= read -r p; do
        case "$(basename "$p")" in 0000-*) continue ;; esac
        patches+=("$p")
    done < <(find "$series" -maxdepth 1 -type f -name '*.patch' | LC_ALL=C sort)
    [ ${#patches[@]} -gt "$tested" ] || die "series directory $series has no *.patch files (other than a 0000- cover letter)"
    : "${label:=$(basename "$series")}"
else
    : "${label:=baseline}"
fi
[[ "$label" =~ ^[A-Za-z0-9._-]+$ ]] || die "label '$label' must be letters, digits, '.', '_' or '-'"
[ -z "$seed" ] || [[ "$seed" =~ ^[A-Za-z0-9._-]+$ ]] || die "--seed '$seed' must be letters, digits, '.', '_' or '-'"
[ "$seed" != "$label" ] || seed=""

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

# A new tree copied from the seed's, under the seed's lock (not while it
# builds), into a temporary directory renamed when complete.
seed_tree="$CACHE/linux-$version-$seed"
if [ ! -f "$tree/.ringlab-base" ] && [ -n "$seed" ] && [ -f "$seed_tree/.ringlab-base" ] \
    && [ -f "$seed_tree/arch/x86/boot/bzImage" ]; then
    rm -rf "$tree" "$tree.tmp"
    (
        flock 8 || exit 1
        cp -a "$seed_tree" "$tree.tmp"
    ) 8>"$seed_tree.lock" || die "could not copy the $seed tree $seed_tree into $tree.tmp"
    # tools/ (objtool) records absolute paths in its .cmd files: moved to
    # the new tree, or objtool is rebuilt and with it every object.
    grep -rlZ --include='.*.cmd' --include='*.d' -F "$seed_tree/" "$tree.tmp" \
        | xargs -0 -r sed -i "s#$seed_tree/#$tree/#g" \
        || die "could not move the $seed tree's recorded paths to $tree"
    mv "$tree.tmp" "$tree"
    echo "build-kernel: seeded $label from the built $seed tree ($(since "$t0") s)"
fi

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

# Apply the series onto the base commit. Patches the tree already holds as a
# prefix of the series stay (a seeded tree keeps its seed's); the rest are
# applied with git am, or, when the tree holds anything else, it is reset to
# base first. Build products are untracked and survive (incremental builds).
wanted=()
for p in ${patches[@]+"${patches[@]}"}; do wanted+=("$(sha256sum < "$p" | cut -d' ' -f1)"); done
have=()
[ -f "$tree/.ringlab-applied" ] && mapfile -t have < "$tree/.ringlab-applied"
keep=${#have[@]}
[ "$keep" -le ${#wanted[@]} ] || keep=-1
for ((i = 0; keep > 0 && i < keep; i++)); do
    [ "${have[$i]}" = "${wanted[$i]}" ] || keep=-1
done
if [ "$keep" -lt 0 ] || [ -n "$(git_ status --porcelain --untracked-files=no)" ]; then
    git_ am --abort >/dev/null 2>&1 || true
    git_ reset -q --hard base
    keep=0
fi
if [ "$keep" -lt ${#wanted[@]} ]; then
    rm -f "$tree/.ringlab-applied"
    git_ am --abort >/dev/null 2>&1 || true
    [ "$keep" -gt 0 ] || git_ reset -q --hard base
    for ((i = keep; i < ${#patches[@]}; i++)); do
        p="${patches[$i]}"
        if ! msg="$(git_ am -q "$p" 2>&1)"; then
            git_ am --abort >/dev/null 2>&1 || true
            git_ reset -q --hard base
            msg="$(grep -vE '^hint:|^When you have resolved|^If you prefer to skip|^To restore the original' <<< "$msg")"
            die "patch $(basename "$p") does not apply to linux $version (series $series):
$msg"
        fi
    done
    echo "build-kernel: applied $(( ${#patches[@]} - keep )) patches ($tested test-only of $HERE/patches, then series $series; $keep already in the tree)"
fi
if [ ${#wanted[@]} -gt 0 ]; then printf '%s\n' "${wanted[@]}"; fi > "$tree/.ringlab-applied"

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
