#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, in the guest: what set_ftrace_pid saves a task bts is not
# asked to record. A chosen task (progs/pidload.c, system calls in rounds)
# and the timed workload (progs/workload.c, system calls) share CPU 1; the
# workload is not chosen. Its time with bts off, armed without a filter,
# and armed with the chosen task in set_ftrace_pid, best of 5 runs,
# interleaved; the ratios are against off in the same run. With the
# filter the workload's own branches are not recorded; what is left is
# the sched_switch probe and the source stopping and starting at each
# switch between the two. On the BTS QEMU the Intel source on emulated
# BTS (an emulation cost, not silicon's); on Debian's QEMU the software
# source. Prints a "bench: pid filter ..." line.
T=/sys/kernel/tracing
B=$T/bts
N=20000
ratio() { echo "$1 $2" | awk '{ printf "%.2f", $1 / $2 }'; }
taskset 2 /tests/bin/pidload chosen 0 > /dev/null &
chosen=$!
# run STATE: one timed run of the workload with bts in STATE
run() {
	echo nop > $T/current_tracer
	case $1 in
	off) ;;
	armed) echo > $T/set_ftrace_pid; echo bts > $T/current_tracer ;;
	filtered) echo $chosen > $T/set_ftrace_pid; echo bts > $T/current_tracer ;;
	esac
	taskset 2 /tests/bin/workload sys $N
}
echo bts > $T/current_tracer
active=$(sed -n 's/^active: //p' $B/source)
off= armed= filtered=
for r in 1 2 3 4 5; do
	for st in off armed filtered; do
		t=$(run $st)
		eval "b=\$$st"
		[ -z "$b" ] || [ "$t" -lt "$b" ] && eval "$st=$t"
	done
done
echo nop > $T/current_tracer
echo > $T/set_ftrace_pid
kill $chosen
echo "bench: pid filter: an unchosen workload ($N system calls) beside a chosen task on its CPU," \
	"best of 5, source $active: off $off ns, armed x$(ratio $armed $off)," \
	"armed with set_ftrace_pid x$(ratio $filtered $off) (x$(ratio $filtered $armed) of armed)"
