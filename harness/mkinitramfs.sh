#!/bin/bash
# Build the guest initramfs: busybox-static, the host's trace-cmd and the
# libraries ldd lists for it, tools/bts-dump, the guest tests and /init.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$1
root=$(mktemp -d)
chmod 755 "$root"
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,root,host,usr/bin,usr/sbin}
cp /bin/busybox "$root/bin/busybox"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
for app in $("$root/bin/busybox" --list); do
	[ -e "$root/bin/$app" ] || ln -s busybox "$root/bin/$app"
done

# Copy a program and the shared libraries it needs, at the same paths.
copy_prog() {
	local prog=$1 dest=$2 lib
	cp "$prog" "$root/$dest"
	for lib in $(ldd "$prog" 2>/dev/null | grep -o '/[^ ]*' | sort -u); do
		mkdir -p "$root/$(dirname "$lib")"
		cp -L "$lib" "$root/$lib"
	done
}
copy_prog "$(command -v trace-cmd)" usr/bin/trace-cmd
bd=$top/tools/bts-dump/bts-dump
if [ -x "$bd" ]; then
	copy_prog "$bd" usr/bin/bts-dump
fi
# libtraceevent plugins are dlopen'ed by trace-cmd report
for d in /usr/lib/x86_64-linux-gnu/traceevent/plugins; do
	[ -d "$d" ] && mkdir -p "$root/$d" && cp "$d"/*.so "$root/$d/" 2>/dev/null || true
done

# upstream perf (Debian's linux-perf), the reference the hardware scenarios
# check the emulated BTS against (71-hw-perf.sh)
if command -v perf >/dev/null; then
	copy_prog "$(command -v perf)" usr/bin/perf
fi
# kexec-tools, for kexec into the same kernel with bts armed (80-hw-kexec)
[ -x /sbin/kexec ] && copy_prog /sbin/kexec sbin/kexec
# makedumpfile, for the crash kernel's dump of the crashed one (63-kdump)
md=$(command -v makedumpfile || true)
[ -n "$md" ] && copy_prog "$md" usr/sbin/makedumpfile

cp -r "$top/tools/testing/selftests/bts" "$root/tests"
# test programs with known branches: static, no PIE, no CET (see branchy.c).
# Linked at 256 MiB, away from busybox-static's text at 4 MiB: a checker
# that reads a program's text by address (bts-vs-exec's --user-elf) must
# never take busybox's code on the same CPU for the program's.
mkdir -p "$root/tests/bin"
for c in "$top"/tools/testing/selftests/bts/progs/*.c; do
	gcc -O1 -static -fno-pie -no-pie -fcf-protection=none -Wall -Werror \
		-Wl,-Ttext-segment=0x10000000 \
		-o "$root/tests/bin/$(basename "$c" .c)" "$c"
done
# kselftest's runner stops a test at its time limit with
# /usr/bin/timeout: one that kills what the test started too
cp "$top/harness/guest/timeout" "$root/usr/bin/timeout"
cp "$top/harness/guest/init" "$root/init"
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out.tmp"
mv "$out.tmp" "$out"
