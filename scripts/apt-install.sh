#!/usr/bin/env bash
# apt-install.sh TAG PACKAGE...: installs the Debian packages of the list
# that are missing (as root), and does nothing when all are there. TAG
# prefixes its messages.
set -euo pipefail

tag="${1:?usage: apt-install.sh TAG PACKAGE...}"
shift
missing=()
for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "$tag: missing Debian packages: ${missing[*]} (run as root, or install them)" >&2
    exit 1
fi
echo "$tag: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
