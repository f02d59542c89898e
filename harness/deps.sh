#!/bin/bash
# Install, with apt, what building and testing bts needs. Quiet and quick
# when everything is present.
set -euo pipefail
pkgs=(
	linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
	cpio xz-utils rsync ccache python3 dwarves kmod
	qemu-system-x86 busybox-static trace-cmd
	pkg-config libdw-dev libcapstone-dev libtraceevent-dev libtracecmd-dev libtracefs-dev
	clang llvm
)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
