#!/bin/bash
# make demo: boot the test VM on the BTS QEMU (harness/qemu: an Intel CPU
# whose Branch Trace Store QEMU emulates, KPTI on), arm bts, provoke an oops
# (lkdtm EXCEPTION) and show the captured branch history: in the guest from
# bts/capture, bts-dump and the ring buffer, then on the host decoded by
# bts-dump with the kernel's vmlinux (branch kinds from the instructions,
# file:line). Without the BTS QEMU (BTS_HW=0) it runs on Debian's QEMU,
# where bts records with its software source.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
: "${BUILD:=$top/build}" "${KVARIANT:=test}" "${BTS_HW:=1}"
export BTS_HW
share=$BUILD/demo
rm -rf "$share"
mkdir -p "$share"
cat > "$share/demo.sh" <<'GUEST'
#!/bin/sh
T=/sys/kernel/tracing
B=$T/bts
echo "demo: echo bts > current_tracer"
echo bts > $T/current_tracer
head -3 $B/source
echo "demo: provoking an oops: echo EXCEPTION > /sys/kernel/debug/provoke-crash/DIRECT"
sh -c 'echo EXCEPTION > /sys/kernel/debug/provoke-crash/DIRECT' 2>/dev/null
sleep 1
echo "demo: bts/capture: $(cat $B/capture)"
cpu=$(sed -n 's/.* on cpu \([0-9]*\),.*/\1/p' $B/capture)
cp $B/per_cpu/cpu$cpu/capture /host/capture.bin
echo "demo: the last 30 branches up to the fault, decoded in the guest by bts-dump"
echo "demo: (symbols from /proc/kallsyms; '?' kinds are guessed: the guest has no vmlinux)"
bts-dump -s /proc/kallsyms --until-fault -n 30 $B/per_cpu/cpu$cpu/capture 2>&1 |
	tail -34 || echo "demo: bts-dump failed"
echo "demo: the same history in the ring buffer (/sys/kernel/tracing/trace), up to the fault:"
grep " cpu=$cpu " $T/trace | grep -B12 -m1 '\[fault\]' | sed 's/^ *//'
GUEST
cp "$share/demo.sh" "$share/demo.sh.keep"
if [ "$BTS_HW" = 1 ]; then
	machine="the BTS QEMU (emulated Intel Branch Trace Store, KPTI on)"
else
	machine="Debian's QEMU (no BTS: the software source)"
fi
echo "== booting the test VM on $machine, 2 CPUs"
if [ -t 0 ]; then
	echo "== the demo runs, then you get a shell ('reboot -f' to leave)"
	"$top/harness/run-vm.sh" --interactive --share "$share" --append "panic_on_oops=0" || true
else
	# Not a terminal: run the demo and stop.
	printf '#!/bin/sh\nsh /host/demo.sh.keep; reboot -f\n' > "$share/demo.sh"
	"$top/harness/run-vm.sh" --share "$share" --log "$share/console.log" --timeout 300 \
		--append "panic_on_oops=0 bts.tests=shell" || true
	sed -n '/^demo: echo bts/,$p' "$share/console.log" | tr -d '\r' | grep -v '^\[' |
		grep -v '^BTS-GUEST'
fi
if [ -s "$share/capture.bin" ]; then
	echo
	echo "== on the host: the same capture, decoded by bts-dump with the kernel's vmlinux"
	echo "== (tools/bts-dump/bts-dump -k $BUILD/obj-$KVARIANT/vmlinux --until-fault -n 30 capture.bin)"
	"$top/tools/bts-dump/bts-dump" -k "$BUILD/obj-$KVARIANT/vmlinux" --until-fault -n 30 \
		"$share/capture.bin" || echo "demo: bts-dump failed"
else
	echo "demo: the guest left no capture in $share (see $share/console.log)" >&2
	exit 1
fi
