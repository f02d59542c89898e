#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, in the guest: what stream mode costs, against the function
# tracer on the same workload (both write one ring-buffer entry per
# traced call), and what it sustains. The system-call workload
# (progs/workload.c sys) pinned to CPU 0: off, function tracer, bts in
# ring mode, bts in stream mode, best of 5, interleaved. Then one run in
# stream mode reports records/s streamed on that CPU and what was lost,
# and with the Intel source how many BTS interrupts (NMIs) that took.
# The software source streams each traced call; the Intel source every
# kernel branch, so their figures are not comparable with each other.
# Prints "bench: stream ..." lines. Emulated CPUs (QEMU TCG), not silicon.
T=/sys/kernel/tracing
B=$T/bts
N=20000
ratio() { echo "$1 $2" | awk '{ printf "%.2f", $1 / $2 }'; }
run() {
	echo nop > $T/current_tracer
	case $1 in
	function) echo function > $T/current_tracer ;;
	ring) echo ring > $B/mode; echo bts > $T/current_tracer ;;
	stream) echo stream > $B/mode; echo bts > $T/current_tracer ;;
	esac
	taskset 1 /tests/bin/workload sys $N
}
echo bts > $T/current_tracer
active=$(sed -n 's/^active: //p' $B/source)
echo nop > $T/current_tracer
if ! echo stream > $B/mode; then
	echo "bench: stream: skipped, source $active cannot stream"
	exit 0
fi
echo ring > $B/mode
# (QEMU TCG: see 16-stream.sh; the kernel's NMI timing message, printed
# in NMI context, would overflow the BTS buffer before its interrupt)
echo 10000000000 > /sys/kernel/debug/x86/nmi_longest_ns 2> /dev/null
nmis() { awk '$1 == "NMI:" { print $2 }' /proc/interrupts; }
echo 4096 > $T/buffer_size_kb
off= function= ring= stream=
for r in 1 2 3 4 5; do
	for st in off function ring stream; do
		t=$(run $st)
		eval "b=\$$st"
		[ -z "$b" ] || [ "$t" -lt "$b" ] && eval "$st=$t"
	done
done
echo nop > $T/current_tracer
echo "bench: stream: sys workload ($N), best of 5: off $off ns, function tracer x$(ratio $function $off)," \
	"bts ring x$(ratio $ring $off), bts stream x$(ratio $stream $off);" \
	"stream/function x$(ratio $stream $function)"
# sustained: CPU 0's records written and lost during one stream run
echo stream > $B/mode
echo bts > $T/current_tracer
set -- $(grep '^0 ' $B/stream)
w0=$3 l0=$4
i0=$(nmis)
t=$(taskset 1 /tests/bin/workload sys $N)
i1=$(nmis)
set -- $(grep '^0 ' $B/stream)
echo nop > $T/current_tracer
echo ring > $B/mode
echo "bench: stream ($active): CPU 0 wrote $(($3 - w0)) records in the workload's $t ns" \
	"(and what else ran on it meanwhile):" \
	"$(echo "$(($3 - w0)) $t" | awk '{ printf "%.0f", $1 / ($2 / 1e9) }') records/s," \
	"$(($4 - l0)) lost (4 MiB per-CPU buffer, overwrite on)"
if [ "$active" = intel_bts ]; then
	echo "bench: stream ($active): $((i1 - i0)) NMIs on CPU 0 meanwhile," \
		"one per $(ratio $(($3 - w0)) $((i1 - i0))) records," \
		"$(echo "$((i1 - i0)) $t" | awk '{ printf "%.0f", $1 / ($2 / 1e9) }') per second" \
		"(the BTS interrupt comes once per 1365 to 2730 records)"
fi
