#!/bin/sh
# make bench, in the guest: what recording costs the guest. The same
# workload (progs/workload.c: system calls and a user loop) with bts off,
# armed (kernel branches), and armed with bts_user; each the best of 3.
# On the BTS QEMU "armed" is the emulated BTS; on Debian's QEMU it is the
# software source. Prints "bench: slowdown ..." lines with the ratios.
T=/sys/kernel/tracing
N=20000
best() {
	b=
	for r in 1 2 3; do
		t=$(taskset 1 /tests/bin/workload $N)
		[ -z "$b" ] || [ "$t" -lt "$b" ] && b=$t
	done
	echo "$b"
}
src=$(grep -o 'hw: [a-z_]*' $T/bts/source | head -1)
echo 0 > $T/options/bts_user
off=$(best)
echo bts > $T/current_tracer
active=$(sed -n 's/^active: //p' $T/bts/source)
on=$(best)
echo 1 > $T/options/bts_user
user=$(best)
echo 0 > $T/options/bts_user
echo nop > $T/current_tracer
ratio() { echo "$1 $2" | awk '{ printf "%.2f", $1 / $2 }'; }
echo "bench: slowdown: workload $N iterations, best of 3, source $active"
echo "bench: slowdown: off ${off} ns, armed ${on} ns (x$(ratio $on $off)), armed+user ${user} ns (x$(ratio $user $off))"
echo "$off" > /host/slowdown-off.ns
