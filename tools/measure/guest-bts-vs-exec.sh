#!/bin/sh
# Guest half of bts-vs-exec.sh (appended to the test initramfs as
# /tests/bts-vs-exec.sh, run by /init through bts.tests=bts-vs-exec.sh).
# /host/mode says which configuration; /host/windows how many windows.
#
# ring: one vCPU. Arms bts on the Intel source, kernel branches only,
# then WINDOWS times `sync` (the host's gdb starts QEMU's exec log at
# ksys_sync), then in odd windows a read of CPU 0's records, whose
# snapshot freezes BTS, and in even ones an oops (lkdtm EXCEPTION, a
# kernel page fault), whose capture freezes it; either way the log stops
# at intel_bts_read_this_cpu.
#
# stream: two vCPUs, the tests' stream mode: BTINT, the BTS interrupt
# (a PMI) every 682 records, drains in an irq_work, user branches on.
# CPU 1 makes system calls all the time (tests/bin/workload sys, the
# same static program as the window's: the host decodes that one
# program's user code). Each window is that program on CPU 0 between
# two sync() calls (gdb starts the log at the first ksys_sync and stops
# it at the second) with 20 system calls between them: short, since
# every branch streamed costs a ring-buffer entry and the log holds all
# of it. Then the stream, as ftrace's raw text, goes to the share.
T=/sys/kernel/tracing
B=$T/bts
con() { echo "BTS-VALIDATE: $*" > /dev/console; }
mode=$(cat /host/mode 2> /dev/null || echo ring)
n=$(cat /host/windows)
if [ "$mode" = stream ]; then
	# room for every record of a window and what comes before it
	echo 16384 > $T/buffer_size_kb
	# no pause for the CPU-time budget: every record is streamed
	echo 100 > $B/stream_budget
	echo stream > $B/mode
	echo 1 > $T/options/bts_user
fi
echo bts > $T/current_tracer
if ! grep -q '^active: intel_bts$' $B/source; then
	con "error: the Intel source is not armed: $(cat $B/source)"
	exit 1
fi
if [ "$mode" = stream ]; then
	taskset 2 /tests/bin/workload sys 2000000000 > /dev/null &
	load=$!
	i=1
	while [ "$i" -le "$n" ]; do
		echo > $T/trace
		taskset 1 /tests/bin/workload sync 20 > /dev/null
		echo 0 > $T/tracing_on
		echo 1 > $T/options/raw
		cat $T/trace > /host/stream-$i.txt
		echo 0 > $T/options/raw
		grep "^[0-9]" $B/stream > /host/stream-$i.counts
		echo 1 > $T/tracing_on
		i=$((i + 1))
	done
	kill $load
	# the reboot crawled while every branch was streamed
	echo nop > $T/current_tracer
	con "done"
	exit 0
fi
i=1
while [ "$i" -le "$n" ]; do
	if [ $((i % 2)) = 1 ]; then
		sh -c "sync; dd if=$B/per_cpu/cpu0/records of=/host/records-$i.bin bs=65536 2>/dev/null"
	else
		sh -c 'sync; echo EXCEPTION > /sys/kernel/debug/provoke-crash/DIRECT' 2>/dev/null
		cat $B/per_cpu/cpu0/capture > /host/records-$i.bin
		echo 0 > $B/capture
	fi
	i=$((i + 1))
done
con "done"
