#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# An oops while another CPU dumps and reads the records in a loop (its
# snapshot IPIs and the capture NMIs cross): the capture is whole, the
# dumps go on working, and the log holds nothing but the oops.
# bts-boot: own
# bts-expect: oops
# bts-cmdline: panic_on_oops=0
# bts-live: no, oopses the kernel on purpose
. ./lib-oops.sh
arm
rm -f /tmp/load.stop
taskset -c 1 sh -c "while [ ! -e /tmp/load.stop ]; do echo 1 > $B/dump; cat $B/per_cpu/cpu*/records > /dev/null; done" \
	> /dev/null 2>&1 &
load=$!
sleep 1
provoke "taskset -c 0 sh -c 'echo EXCEPTION > $DIRECT'"
sleep 1
touch /tmp/load.stop
wait $load
# (with KASAN's inline checks the NULL write is a #GP: see lib-oops.sh)
cat $B/capture | grep -qxE "(oops|GPF) on cpu 0, later faults not kept: 0" &&
	ok "the oops was captured: $(cat $B/capture)" ||
	not_ok "the oops was captured (got '$(cat $B/capture)')"
cat $B/per_cpu/cpu0/capture > /tmp/k.bin
[ "$(u32 /tmp/k.bin 36)" != 4294967295 ] && ok "the fault is marked in the capture" ||
	not_ok "the fault is marked in the capture"
cat $B/per_cpu/cpu1/capture > /tmp/o.bin
[ "$(u32 /tmp/o.bin 20)" -gt 0 ] && ok "the dumping CPU's history was captured by NMI ($(u32 /tmp/o.bin 20) records)" ||
	not_ok "the dumping CPU's history was captured by NMI"
# oops_enter() turned tracing off
echo 1 > $T/tracing_on
echo > $T/trace
check "dumps still work afterwards" sh -c "echo 1 > $B/dump"
check "... and write CPU 1's history" grep -q ' cpu=1 ' $T/trace
done_testing
