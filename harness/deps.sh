#!/bin/bash
# Install, with apt, what building and testing bts needs, and the deb-src
# entry that `apt-get source qemu` (make qemu) needs. Quiet and quick when
# everything is present.
set -euo pipefail
pkgs=(
	linux-source-6.12 build-essential bc bison flex libelf-dev libssl-dev
	cpio xz-utils rsync ccache python3 dwarves kmod
	qemu-system-x86 busybox-static trace-cmd
	pkg-config libdw-dev libcapstone-dev libtraceevent-dev libtracecmd-dev libtracefs-dev
	clang llvm
	# make qemu: Debian's qemu 7.2 source and what its build needs
	dpkg-dev meson ninja-build libglib2.0-dev libpixman-1-dev libfdt-dev
	libcap-ng-dev libattr1-dev zlib1g-dev
	# hardware scenarios: upstream perf's intel_bts as a reference,
	# gdb and capstone for the execution-trace validation
	linux-perf gdb python3-capstone kexec-tools
	# kdump scenarios: makedumpfile in the guest (63-kdump); drgn on the
	# host reads the crash dump with tools/bts-dump/drgn/bts.py, crash with
	# tools/bts-dump/crash/bts.so (its defs.h is in the crash package)
	makedumpfile python3-drgn crash
	# make lint: the documentation is checked with docutils
	python3-docutils
)
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

# A deb-src twin of every deb entry of the system's sources, once.
src=/etc/apt/sources.list.d/bts-deb-src.sources
update=0
if [ ! -f "$src" ] && ! grep -rqs '^\(Types:.*deb-src\|deb-src \)' /etc/apt/sources.list \
		/etc/apt/sources.list.d/; then
	tmp=$(mktemp)
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		# Debian's own entries only (deb822 stanzas whose URIs are Debian's).
		awk 'BEGIN { RS = ""; ORS = "\n\n" }
			/URIs:[^\n]*debian\.org/ && /Types:[^\n]*deb/ {
				sub(/Types:[^\n]*/, "Types: deb-src"); print }' "$f" >> "$tmp"
	done
	if [ -f /etc/apt/sources.list ]; then
		sed -n 's/^deb \(.*debian\.org.*\)/deb-src \1/p' /etc/apt/sources.list >> "$tmp"
	fi
	if [ -s "$tmp" ]; then
		echo "deps: adding deb-src entries ($src)"
		$SUDO cp "$tmp" "$src"
		$SUDO chmod 644 "$src"
		update=1
	else
		echo "deps: warning: no Debian apt source found to add a deb-src entry for" >&2
	fi
	rm -f "$tmp"
fi

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ] || [ $update -eq 1 ]; then
	$SUDO apt-get update -qq
fi
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}"
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
