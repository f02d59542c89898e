#!/bin/bash
# Check the emulated BTS record for record against QEMU's own execution
# trace of the same run (bts-vs-exec.py has the method).
#
#   tools/measure/bts-vs-exec.sh [OUTDIR]       (default build/bts-vs-exec)
#   MODE=stream tools/measure/bts-vs-exec.sh [OUTDIR]
#                                  (default build/bts-vs-exec-stream)
#
# MODE=ring (the default): one vCPU, circular mode, the snapshot and the
# oops capture. MODE=stream: the tests' configuration, two vCPUs, stream
# mode with its BTS interrupts, user branches on, each CPU's stream
# against that CPU's execution.
#
# Environment: OBJ (default build/obj-test), INITRAMFS
# (build/initramfs.cpio.gz), QEMU (build/qemu/qemu-system-x86_64, make qemu),
# WINDOWS (default 4: 4 x 2730 = 10,920 records).
# Needs gdb, cpio, gzip and /usr/bin/python3 with python3-capstone.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
OBJ=${OBJ:-$top/build/obj-test}
INITRAMFS=${INITRAMFS:-$top/build/initramfs.cpio.gz}
QEMU=${QEMU:-$top/build/qemu/qemu-system-x86_64}
MODE=${MODE:-ring}
WINDOWS=${WINDOWS:-4}
case $MODE in
ring) def=$top/build/bts-vs-exec ;;
stream) def=$top/build/bts-vs-exec-stream ;;
*) echo "bts-vs-exec: MODE is ring or stream" >&2; exit 1 ;;
esac
out=$(mkdir -p "${1:-$def}" && cd "${1:-$def}" && pwd)
py=/usr/bin/python3

for t in gdb cpio gzip "$QEMU"; do
	command -v "$t" > /dev/null || { echo "bts-vs-exec: needs $t" >&2; exit 1; }
done
$py -c 'import capstone' 2> /dev/null ||
	{ echo "bts-vs-exec: needs python3-capstone (make deps)" >&2; exit 1; }

# The kernel is rebuilt by others: work on copies.
cp "$OBJ/arch/x86/boot/bzImage" "$OBJ/System.map" "$out/"
rm -rf "$out/extra" && mkdir -p "$out/extra/tests"
install -m 755 "$here/guest-bts-vs-exec.sh" "$out/extra/tests/bts-vs-exec.sh"
(cd "$out/extra" && echo tests/bts-vs-exec.sh | cpio -o -H newc -R 0:0 2> /dev/null | gzip) \
	> "$out/extra.cpio.gz"
cat "$INITRAMFS" "$out/extra.cpio.gz" > "$out/initramfs.cpio.gz"
# the one user program of the stream windows, as the guest runs it
(cd "$out" && gzip -dc "$INITRAMFS" | cpio -i --quiet --to-stdout tests/bin/workload) \
	> "$out/workload"

$py "$here/bts-vs-exec.py" run --qemu "$QEMU" --bzimage "$out/bzImage" \
	--initrd "$out/initramfs.cpio.gz" --system-map "$out/System.map" \
	--out "$out" --windows "$WINDOWS" --mode "$MODE"
$py "$here/bts-vs-exec.py" compare --system-map "$out/System.map" --dir "$out" \
	--windows "$WINDOWS" --mode "$MODE" --user-elf "$out/workload"
