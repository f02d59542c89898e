#!/bin/bash
# make bench: the project's benchmarks. Each compares against a baseline
# measured in the same run and prints its figures; none asserts a time.
# All guest figures are of emulated CPUs (QEMU TCG), not of silicon.
#  1. in the test VM, on both machines (Debian's QEMU: software source;
#     the BTS QEMU: the Intel source on emulated BTS): dumping one CPU's
#     history into the ring buffer vs a memcpy of the same bytes
#     (bts/bench), what recording costs a workload (armed / off), and
#     what set_ftrace_pid saves a workload bts is not asked to record
#     (armed with the filter / off, beside a chosen task on its CPU);
#  2. the BTS QEMU with BTS off against Debian's QEMU with the same CPU
#     model on the same workloads: what the emulation costs while off;
#  3. on the host: bts-dump symbolizing a 10-million-record dump, and
#     trace-cmd report vs bts-dump on the same bts records.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
: "${BUILD:=$top/build}"
for m in sw hw same-cpu; do
	share=$BUILD/bench/$m
	rm -rf "$share"
	mkdir -p "$share"
	case $m in
	sw) echo "== Debian's QEMU, -cpu max: the software source"
	    hw=0 tests=bench/dump.sh,bench/slowdown.sh,bench/stream.sh,bench/pidfilter.sh ;;
	hw) echo "== the BTS QEMU (Skylake-Client with the Debug Store): the Intel source on emulated BTS"
	    hw=1 tests=bench/dump.sh,bench/slowdown.sh,bench/stream.sh,bench/pidfilter.sh ;;
	same-cpu) echo "== Debian's QEMU with the same Skylake-Client, no Debug Store (the baseline for BTS off)"
	    hw=same-cpu tests=bench/slowdown.sh ;;
	esac
	BTS_HW=$hw "$top/harness/run-vm.sh" --share "$share" \
		--log "$share/console.log" --timeout 1200 \
		--append "bts.tests=$tests kunit.enable=0" || true
	cat "$share"/*.sh.tap 2>/dev/null | sed -n 's/^bench: /  /p'
done
for mode in sys user; do
	base=$(cat "$BUILD/bench/same-cpu/slowdown-$mode-off.ns" 2>/dev/null || echo 0)
	hw=$(cat "$BUILD/bench/hw/slowdown-$mode-off.ns" 2>/dev/null || echo 0)
	if [ "$base" -gt 0 ] && [ "$hw" -gt 0 ]; then
		echo "== BTS off, $mode workload: the BTS QEMU ${hw} ns against Debian's QEMU" \
			"with the same CPU ${base} ns: x$(echo "$hw $base" | awk '{ printf "%.2f", $1 / $2 }')"
	fi
done
dat=$BUILD/bench/sw/trace.dat
if [ ! -s "$dat" ]; then
	echo "bench: the VM produced no trace.dat (see $BUILD/bench/sw/console.log)" >&2
	exit 1
fi
make -s -C "$top/tools/bts-dump" bench TRACE_DAT="$dat" \
	SYSTEM_MAP="$BUILD/obj-test/System.map"
