#!/usr/bin/env bash
# Installs the Debian packages the VM pipeline needs (kernel build, initramfs,
# qemu), and nothing when they are already there.
set -euo pipefail

APT_PKGS=(qemu-system-x86 busybox-static cpio flex bison bc libelf-dev libssl-dev
          dwarves linux-source-6.12 iproute2 make gcc git xz-utils dash bash
          bpftool clang llvm)

bash "$(dirname "${BASH_SOURCE[0]}")/../../scripts/apt-install.sh" vm-deps "${APT_PKGS[@]}"
if [ ! -f /usr/src/linux-source-6.12.tar.xz ]; then
    echo "vm-deps: /usr/src/linux-source-6.12.tar.xz is missing although linux-source-6.12 is installed" >&2
    exit 1
fi
exit 0
