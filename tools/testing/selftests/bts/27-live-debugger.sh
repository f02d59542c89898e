#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The current histories through a debugger on the running kernel: the
# host's drgn (its /usr shared read-only as 9p tag hostusr, entered with
# chroot) runs here on /proc/kcore with tools/bts-dump/drgn/bts.py -l,
# which reads where each CPU's source records (the table the symbol
# bts_live points to, include/uapi/linux/bts.h), while tracing_on 0 holds
# every CPU paused. It must read what bts/per_cpu/cpuN/records copies at
# the same moment, record for record: the host half (27-live-debugger.host)
# compares its JSON with bts-dump's reading of the records files. In ring
# mode and in stream mode: the software source's counted ring, the Intel
# source's circular buffer and its stream buffer.
# bts-boot: own
# bts-machines: sw hw
# bts-share: debugger
# bts-timeout: 1200
# bts-live: no, runs the host's drgn from the project VM's 9p share of the host's /usr
. ./lib.sh
host_root || exit 0
run_drgn() {
	chroot $R /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp \
		PYTHONDONTWRITEBYTECODE=1 /usr/bin/drgn "$@"
}
if ! run_drgn --version > /tmp/drgn.version 2>&1; then
	not_ok "the host's drgn runs here ($(head -c 300 /tmp/drgn.version))"
	done_testing
	exit 0
fi
ok "the host's drgn runs here ($(cat /tmp/drgn.version))"

cpus=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)
echo 2730 > $B/nr_records
for mode in ring stream; do
	out=/host/live-$mode
	mkdir -p $out
	echo $mode > $B/mode
	check "$mode: bts arms" sh -c "echo bts > $T/current_tracer"
	# branches of both kinds: system calls, and a wrap of every buffer
	for i in 1 2 3; do ls -R /sys/kernel/tracing/events > /dev/null; done
	echo 0 > $T/tracing_on
	records_save $out
	t0=$(date +%s)
	# raw: drgn names symbols in Python, over every kernel symbol, which
	# takes minutes under TCG; its names are checked on the host, on the
	# kdump scenarios' dumps (63-kdump.host)
	run_drgn -q -s /host/vmlinux /host/bts.py -l -j -r > $out/drgn.json 2> $out/drgn.err
	rc=$?
	is "$mode: drgn's bts.py -l reads the live kernel (exit status; $(head -c 200 $out/drgn.err))" $rc 0
	diag "$mode: drgn took $(($(date +%s) - t0)) s"
	is "$mode: ... a history for each CPU" \
		"$(grep -c '"type":"dump"' $out/drgn.json)" $cpus
	run_drgn -q -s /host/vmlinux /host/bts.py -l -r > $out/drgn.txt 2>> $out/drgn.err
	check "$mode: ... its text says what it is" grep -q '^bts live: the current histories' $out/drgn.txt
	# nothing moved while drgn read: the CPUs were paused
	is "$mode: the records files are as they were before drgn ran" "$(records_unchanged $out)" $cpus
	echo 1 > $T/tracing_on
	echo nop > $T/current_tracer
done
echo ring > $B/mode
host_root_leave
done_testing
