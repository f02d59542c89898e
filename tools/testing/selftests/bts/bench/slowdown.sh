#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, in the guest: what recording costs. Two workloads
# (progs/workload.c): system calls (kernel branches) and a user loop (user
# branches), each with bts off, armed (kernel branches) and armed with
# bts_user, best of 5 runs, interleaved. On the BTS QEMU "armed" is the
# emulated BTS (an emulation cost, not silicon's); on Debian's QEMU the
# software source. Prints "bench: slowdown ..." lines; the "off" times go
# to the share for bench.sh's comparison of the QEMUs.
T=/sys/kernel/tracing
B=$T/bts
SYS=20000
USER=2000000
ratio() { echo "$1 $2" | awk '{ printf "%.2f", $1 / $2 }'; }
# run MODE N STATE: one timed run with bts in STATE (off, armed, user)
run() {
	case $3 in
	off) echo nop > $T/current_tracer ;;
	armed) echo 0 > $T/options/bts_user; echo bts > $T/current_tracer ;;
	user) echo 1 > $T/options/bts_user; echo bts > $T/current_tracer ;;
	esac
	taskset 1 /tests/bin/workload $1 $2
}
echo 0 > $T/options/bts_user
echo bts > $T/current_tracer
active=$(sed -n 's/^active: //p' $B/source)
echo nop > $T/current_tracer
for mode in sys user; do
	[ $mode = sys ] && n=$SYS || n=$USER
	off= armed= user=
	for r in 1 2 3 4 5; do
		for st in off armed user; do
			t=$(run $mode $n $st)
			eval "b=\$$st"
			[ -z "$b" ] || [ "$t" -lt "$b" ] && eval "$st=$t"
		done
	done
	echo nop > $T/current_tracer
	echo 0 > $T/options/bts_user
	echo "bench: slowdown: $mode workload ($n), best of 5, source $active: off $off ns," \
		"armed x$(ratio $armed $off), armed with bts_user x$(ratio $user $off)"
	echo "$off" > /host/slowdown-$mode-off.ns
done
