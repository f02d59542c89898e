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
# With the Intel source, the NMI time of each BTS interrupt and the share
# of CPU 0 that NMIs and irq_works took (the drain runs in an irq_work).
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
# The Intel source's CPU-time budget off: it measures what streaming
# every branch costs, not how the budget cuts it (under TCG the drains
# take most of a CPU, and the default 25% would pause it)
SB=$B/stream_budget
budget0=$(cat $SB 2> /dev/null)
if [ -n "$budget0" ]; then
	echo 100 > $SB
	trap 'echo "$budget0" > $SB' EXIT
	echo "bench: stream: bts/stream_budget 100 for the bench (default $budget0)"
fi
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
		"(a drain per 682 to 2730 records, one or two NMIs each)"
fi
[ "$active" = intel_bts ] || exit 0
# Where the Intel source's drain runs, and what it costs: the same run
# again with nmi:nmi_handler (each NMI handler's time) and the irq_work
# vector's entry and exit traced on CPU 0, into an instance of their own.
# perf's handler (perf_event_nmi_handler) reports the BTS interrupt as
# handled; its time is what perf counts against its sample rate. The
# baseline is the fastest such NMI of the run: one that only queued the
# drain; those over ten times as long drained in the NMI (a late drain),
# or were preempted by the emulator. The shares are of the workload's
# time on CPU 0.
I=$T/instances/bench-nmi
mkdir $I
echo 1 > $I/events/nmi/nmi_handler/enable
for e in irq_work_entry irq_work_exit; do
	[ -e $I/events/irq_vectors/$e/enable ] && echo 1 > $I/events/irq_vectors/$e/enable
done
echo 16384 > $I/buffer_size_kb
echo stream > $B/mode
echo bts > $T/current_tracer
t=$(taskset 1 /tests/bin/workload sys $N)
echo 0 > $I/tracing_on
echo nop > $T/current_tracer
echo ring > $B/mode
awk -v t="$t" '
/\[000\]/ && / nmi_handler: / {
	for (i = 1; i <= NF; i++) {
		if ($i == "delta_ns:") d = $(i + 1)
		if ($i == "handled:") h = $(i + 1)
		if ($i ~ /^[a-z_]+\(\)$/) f = $i
	}
	if (f == "perf_event_nmi_handler()" && h > 0) {
		ds[n++] = d; sum += d
		if (d > max) max = d
		if (min == "" || d < min) min = d
	}
	all += d
}
/\[000\]/ && / irq_work_(entry|exit): / {
	for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) ts = substr($i, 1, length($i) - 1)
	if ($0 ~ /irq_work_entry/) t0 = ts
	else if (t0 != "") { wn++; wns += (ts - t0) * 1e9; t0 = "" }
}
END {
	if (!n) { print "bench: stream nmi: no NMI of perf handled the BTS interrupt on CPU 0"; exit }
	for (i = 0; i < n; i++) if (ds[i] > 10 * min) { ln++; lns += ds[i] }
	printf "bench: stream nmi: %d BTS interrupts on CPU 0; perf_event_nmi_handler %.1f us each on average, fastest %.1f us, longest %.1f us (x%.1f the fastest)\n", n, sum / n / 1e3, min / 1e3, max / 1e3, max / min
	printf "bench: stream nmi: %d of them (%.1f%%) over ten times the fastest (a late drain, or the emulator), %.1f us each on average\n", ln, ln * 100 / n, ln ? lns / ln / 1e3 : 0
	printf "bench: stream nmi: NMI handlers took %.1f%% of CPU 0 over the workload", all / t * 100
	if (wn) printf ", irq_works %.1f%% (%d runs, %.1f us each)", wns / t * 100, wn, wns / wn / 1e3
	printf "\n"
}' $I/trace
rmdir $I
