#!/bin/sh
# Guest half of bts-vs-exec.sh (appended to the test initramfs as
# /tests/bts-vs-exec.sh, run by /init through bts.tests=bts-vs-exec.sh).
# Arms bts on the Intel source, kernel branches only, then WINDOWS times
# (/host/windows): `sync` (the host's gdb starts QEMU's exec log at
# ksys_sync), then in odd windows a read of CPU 0's records, whose snapshot
# freezes BTS, and in even ones an oops (lkdtm EXCEPTION, a kernel page
# fault), whose capture freezes it; either way the log stops at
# intel_bts_read_this_cpu. One vCPU: everything runs on CPU 0.
T=/sys/kernel/tracing
B=$T/bts
con() { echo "BTS-VALIDATE: $*" > /dev/console; }
echo bts > $T/current_tracer
if ! grep -q '^active: intel_bts$' $B/source; then
	con "error: the Intel source is not armed: $(cat $B/source)"
	exit 1
fi
n=$(cat /host/windows)
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
