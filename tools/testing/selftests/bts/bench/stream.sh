#!/bin/sh
# make bench, in the guest: what stream mode costs, against the function
# tracer on the same workload (both write one ring-buffer entry per
# traced call), and what it sustains. The system-call workload
# (progs/workload.c sys) pinned to CPU 0: off, function tracer, bts in
# ring mode, bts in stream mode, best of 5, interleaved. Then one run in
# stream mode reports records/s streamed on that CPU and what was lost.
# Software source only: the Intel source does not stream yet. Prints
# "bench: stream ..." lines. Emulated CPUs (QEMU TCG), not silicon.
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
if [ "$active" != sw ]; then
	echo "bench: stream: skipped, source $active cannot stream yet"
	exit 0
fi
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
t=$(taskset 1 /tests/bin/workload sys $N)
set -- $(grep '^0 ' $B/stream)
echo nop > $T/current_tracer
echo ring > $B/mode
echo "bench: stream: CPU 0 wrote $(($3 - w0)) records in the workload's $t ns" \
	"(and what else ran on it meanwhile):" \
	"$(echo "$(($3 - w0)) $t" | awk '{ printf "%.0f", $1 / ($2 / 1e9) }') records/s," \
	"$(($4 - l0)) lost (4 MiB per-CPU buffer, overwrite on)"
