#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# trace-cmd start -p bts, a workload, a dump, trace-cmd stop, extract -k:
# the trace.dat goes to the host, where 40-trace-cmd.host checks that
# `trace-cmd report` symbolizes every bts record.
. ./lib.sh
command -v trace-cmd > /dev/null || skip_all "trace-cmd is not installed"
cd /tmp
check "trace-cmd start -p bts" trace-cmd start -p bts
taskset 2 sh -c 'i=0; while [ $i -lt 10 ]; do echo x > /dev/null; i=$((i+1)); done; echo 1 > /sys/kernel/tracing/bts/dump'
check "trace-cmd stop" trace-cmd stop
n=$(bts_entries $T/trace | wc -l)
[ "$n" -gt 0 ] && ok "the dump is in the ring buffer ($n records)" || not_ok "the dump is in the ring buffer"
check "trace-cmd extract -k" trace-cmd extract -k -o /tmp/trace.dat
trace-cmd report /tmp/trace.dat > /tmp/report.txt 2>/dev/null
is "trace-cmd report in the guest shows every record" \
	"$(grep -c ' cpu=[0-9]* [0-9]*/[0-9]* ' /tmp/report.txt)" "$n"
cp /tmp/trace.dat $SHARE/trace.dat && echo "$n" > $SHARE/trace.dat.count
cat $B/per_cpu/cpu1/records > $SHARE/records.bin
check "trace.dat copied to the host" test -s $SHARE/trace.dat
echo nop > $T/current_tracer
done_testing
