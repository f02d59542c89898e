#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, in the guest: time a dump of nr_records = capacity records
# (snapshot + ring buffer) against a memcpy of the same bytes (bts/bench),
# and record a trace.dat of bts entries for the bts-dump benchmark.
T=/sys/kernel/tracing
B=$T/bts
echo 8192 > $T/buffer_size_kb
echo bts > $T/current_tracer
echo 2730 > $B/nr_records
sleep 1
echo "bench: kernel dump of one CPU's history"
taskset 1 cat $B/bench | sed 's/^/bench: /'
echo > $T/trace
cd /tmp
trace-cmd start -p bts > /dev/null
for i in 1 2 3 4 5 6 7 8; do echo 1 > $B/dump; done
trace-cmd stop > /dev/null
n=$(grep -c ' cpu=[0-9]* [0-9]*/' $T/trace)
trace-cmd extract -k -o /tmp/trace.dat > /dev/null 2>&1
cp /tmp/trace.dat /host/trace.dat
echo "bench: trace.dat with $n bts records"
echo nop > $T/current_tracer
