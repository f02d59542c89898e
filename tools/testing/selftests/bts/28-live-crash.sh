#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# crash on the running kernel: the host's crash (its /usr shared read-only,
# entered with chroot, as 27-live-debugger does for drgn) opens
# /proc/kcore with the full-DWARF vmlinux it needs, loads the bts
# extension and runs bts -l while tracing_on 0 holds every CPU paused: it
# must read what the records files hold at the same moment, record for
# record (28-live-crash.host). Then bts, the kept capture: on a running
# kernel the crash dump's table was never filled, and it says so.
# bts-boot: own
# bts-machines: hw
# bts-share: debugger
# bts-cmdline: crashkernel=256M
# bts-timeout: 900
# bts-live: no, runs the host's crash from the project VM's 9p share of the host's /usr
. ./lib.sh
host_root || exit 0
check "the crash extension is in the share" test -s /host/bts.so
run_crash() {	# output file, then crash's commands, one per argument
	co=$1
	shift
	: > $R/tmp/cmds
	for c in "$@"; do echo "$c" >> $R/tmp/cmds; done
	echo q >> $R/tmp/cmds
	chroot $R /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp TERM=dumb \
		/usr/bin/crash -s --minimal --kaslr auto /host/vmlinux /proc/kcore \
		-i /tmp/cmds > $co 2>&1 < /dev/null
}
cpus=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)
echo 2730 > $B/nr_records
check "bts arms" sh -c "echo bts > $T/current_tracer"
for i in 1 2 3; do ls -R /sys/kernel/tracing/events > /dev/null; done
echo 0 > $T/tracing_on
out=/host/live-crash
mkdir -p $out
records_save $out
t0=$(date +%s)
run_crash $out/crash.out "extend /host/bts.so" "bts -l -j -r" "bts"
diag "crash took $(($(date +%s) - t0)) s"
is "crash's bts -l reads the live kernel: a history for each CPU ($(grep -m1 -iE 'error|cannot|bts:' $out/crash.out))" \
	"$(grep -c '"type":"dump"' $out/crash.out)" $cpus
check "bts without -l says the crash dump's table was never filled" \
	grep -q 'bts: bts table never filled' $out/crash.out
is "the records files are as they were before crash ran" "$(records_unchanged $out)" $cpus
echo 1 > $T/tracing_on
echo nop > $T/current_tracer
host_root_leave
done_testing
