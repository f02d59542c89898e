#!/bin/bash
# Measure, on the test kernel, the taken branches between the faulting
# instruction and the bts freeze for each hook (DESIGN.md section 5).
#
#   tools/measure/branches-to-freeze.sh [OUTDIR]       (default build/measure)
#
# Environment: OBJ (default build/obj-test), INITRAMFS (build/initramfs.cpio.gz),
# SCENARIOS (default "pf gpf bug panic"), REUSE=1 to keep the kernel copies
# already in OUTDIR instead of copying OBJ again.
# Needs: qemu-system-x86_64 (7.2), gdb, cpio, gzip, /usr/bin/python3 with
# python3-capstone (Debian). See tools/measure/README.md for the method.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
OBJ=${OBJ:-$top/build/obj-test}
INITRAMFS=${INITRAMFS:-$top/build/initramfs.cpio.gz}
SCENARIOS=${SCENARIOS:-pf gpf bug panic}
out=$(mkdir -p "${1:-$top/build/measure}" && cd "${1:-$top/build/measure}" && pwd)
py=/usr/bin/python3

for t in qemu-system-x86_64 gdb cpio gzip; do
	command -v $t > /dev/null || { echo "branches-to-freeze: needs $t" >&2; exit 1; }
done
$py -c 'import capstone' 2> /dev/null ||
	{ echo "branches-to-freeze: needs python3-capstone (apt-get install python3-capstone)" >&2; exit 1; }

# The kernel is rebuilt by others: work on copies.
if [ "${REUSE:-0}" != 1 ] || [ ! -f "$out/bzImage" ]; then
	cp "$OBJ/arch/x86/boot/bzImage" "$OBJ/vmlinux" "$OBJ/System.map" "$out/"
	cp "$INITRAMFS" "$out/initramfs.cpio.gz"
fi
{ echo "kernel: $(strings "$out/vmlinux" | grep -m1 '^Linux version')"
  (cd "$out" && sha256sum bzImage System.map); } | tee "$out/kernel.txt"

# The test initramfs plus /tests/measure.sh, as a second concatenated cpio.
rm -rf "$out/extra" && mkdir -p "$out/extra/tests"
install -m 755 "$here/guest-measure.sh" "$out/extra/tests/measure.sh"
(cd "$out/extra" && echo tests/measure.sh | cpio -o -H newc -R 0:0 2> /dev/null | gzip) > "$out/extra.cpio.gz"
cat "$out/initramfs.cpio.gz" "$out/extra.cpio.gz" > "$out/initramfs-measure.cpio.gz"

# One boot per scenario; they are independent (one single-threaded QEMU each).
pids=()
for s in $SCENARIOS; do
	$py "$here/measure.py" run "$s" --bzimage "$out/bzImage" \
		--initrd "$out/initramfs-measure.cpio.gz" --system-map "$out/System.map" \
		--out "$out/runs/$s" > "$out/runs-$s.out" 2>&1 &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
[ $rc = 0 ] || { echo "branches-to-freeze: a run failed, see $out/runs-*.out" >&2; tail -n 3 "$out"/runs-*.out >&2; }

$py "$here/measure.py" analyze --system-map "$out/System.map" --dir "$out/runs" $SCENARIOS |
	tee "$out/table.md"
echo "per-branch listings: $out/runs/*/branches.txt; numbers: $out/runs/results.json"
