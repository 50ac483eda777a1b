#!/usr/bin/env bash
# Installs the Debian packages the VM pipeline needs (kernel build, initramfs,
# qemu), and nothing when they are already there.
set -euo pipefail

APT_PKGS=(qemu-system-x86 busybox-static cpio flex bison bc libelf-dev libssl-dev
          dwarves linux-source-6.12 iproute2 make gcc git xz-utils dash bash)

missing=()
for p in "${APT_PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "vm-deps: missing Debian packages: ${missing[*]} (run as root, or install them)" >&2
        exit 1
    fi
    echo "vm-deps: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ! -f /usr/src/linux-source-6.12.tar.xz ]; then
    echo "vm-deps: /usr/src/linux-source-6.12.tar.xz is missing although linux-source-6.12 is installed" >&2
    exit 1
fi
exit 0
