#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Upstream perf's intel_bts PMU on the BTS CPU, as a reference we did not
# write: it decodes a known program's branches (71-hw-perf.host checks them
# against the program's disassembly), takes its PMIs (BTINT), and shares
# the hardware with the bts tracer by exclusion, -EBUSY both ways.
# perf's intel_bts refuses KPTI, hence nopti.
# bts-machines: hw-nopti-4 hw-nopti-ss hw-nopti-cpl-target
. ./lib.sh
command -v perf > /dev/null || skip_all "perf is not installed"
grep -qw pti /proc/cpuinfo &&
	skip_all "perf's intel_bts refuses a kernel with KPTI on (boot with nopti)"
cd /tmp
# A BTS threshold PMI is an NMI (the PMI line counts counter overflows).
nmis() { awk '/^ *NMI:/ { s = 0; for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) s += $i; print s }' /proc/interrupts; }
echo 1 > $T/tracing_on

check "upstream perf's intel_bts PMU is registered" test -d /sys/bus/event_source/devices/intel_bts
cp $BIN/branchy $SHARE/branchy
# 100000 iterations are 300,000 user branches, 7 MB of records: more than
# one threshold's worth, so perf drains its buffer on BTS PMIs. Its AUX
# buffer (-m ,16M) holds the whole run, so that nothing is lost however
# late the perf tool, on another vCPU, gets to read it.
nmi0=$(nmis)
RUNS="1000 100000"
# (the host half reads the runs from this file)
echo "$RUNS" > $SHARE/perf-runs
for n in $RUNS; do
	nmi1=$(nmis)
	perf record -q -m ,16M -e intel_bts//u --per-thread -o /tmp/p$n.data \
		$BIN/branchy $n > /tmp/perf-record.out 2>&1
	check "perf record -e intel_bts//u branchy $n" test -s /tmp/p$n.data
	perf script -i /tmp/p$n.data -F ip,addr --itrace=b > $SHARE/perf-$n.txt 2> $SHARE/perf-$n.err
	check "perf script decodes the $n-iteration run" test -s $SHARE/perf-$n.txt
	diag "branchy $n: $(wc -l < $SHARE/perf-$n.txt) branches, $(($(nmis) - nmi1)) PMIs"
done
[ "$(($(nmis) - nmi0))" -gt 0 ] &&
	ok "perf's intel_bts took PMIs on the BTS threshold ($(($(nmis) - nmi0)))" ||
	not_ok "perf's intel_bts took PMIs on the BTS threshold"

# perf first: the tracer cannot have the hardware; auto falls back to sw.
# perf holds intel_bts while its workload waits for /tmp/stop; bts/source
# says when perf has the hardware (from perf's exclusivity counts).
rm -f /tmp/stop
perf record -q -e intel_bts//u --per-thread -o /tmp/hold.data -- \
	sh -c 'while [ ! -e /tmp/stop ]; do sleep 0.2; done' > /dev/null 2>&1 &
i=0
while ! grep -q '^hw: .*unavailable: BTS taken by perf' $B/source && [ $i -lt 300 ]; do
	sleep 0.2
	i=$((i + 1))
done
echo bts > $T/current_tracer
is "with perf's intel_bts running, auto arms the software source" "$(sed -n 2p $B/source)" "active: sw"
grep -q '^hw: .*unavailable: BTS taken by perf' $B/source && ok "source says perf has BTS" ||
	not_ok "source says perf has BTS (got: $(grep '^hw:' $B/source))"
write_fails "source hw fails with EBUSY while perf has BTS" $B/source hw "Device or resource busy"
is "the tracer kept the software source" "$(sed -n 2p $B/source)" "active: sw"
echo nop > $T/current_tracer
touch /tmp/stop
wait
echo bts > $T/current_tracer
is "once perf is done the tracer gets the Intel source" "$(sed -n 2p $B/source)" "active: intel_bts"
# bts first: perf cannot have it
perf record -q -e intel_bts//u --per-thread -o /tmp/busy.data $BIN/branchy 10 > /tmp/busy.out 2>&1
grep -q 'Device or resource busy' /tmp/busy.out && ok "perf's intel_bts gets EBUSY while bts is armed" ||
	not_ok "perf's intel_bts gets EBUSY while bts is armed (got: $(head -2 /tmp/busy.out))"
echo nop > $T/current_tracer
check "perf's intel_bts works again after the tracer let go" \
	perf record -q -e intel_bts//u --per-thread -o /tmp/again.data $BIN/branchy 10
done_testing
