#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Two CPUs oops at once: neither waits for nor blocks the other. The
# first is the kept capture, the other is kept on its own CPU, both with
# their faults marked, and the kernel log holds nothing but the two
# oopses.
# bts-boot: own
# bts-expect: oops
# bts-cmdline: panic_on_oops=0
# bts-live: no, oopses the kernel on purpose
. ./lib-oops.sh
arm
rm -f /tmp/go
for c in 0 1; do
	taskset -c $c sh -c "while [ ! -e /tmp/go ]; do :; done; echo EXCEPTION > $DIRECT" \
		> /dev/null 2>&1 &
done
sleep 0.5
touch /tmp/go
wait
sleep 0.5
is "two oopses" "$(dmesg | grep -c 'Oops: ')" 2
# (with KASAN's inline checks the NULL write is a #GP: see lib-oops.sh)
cat $B/capture | head -1 | grep -qxE "(oops|GPF) on cpu [01], later faults not kept: 0" &&
	ok "one oops is the kept capture, none lost: $(head -1 $B/capture)" ||
	not_ok "one oops is the kept capture, none lost (got '$(cat $B/capture)')"
cpu=$(capture_cpu)
other=$((1 - ${cpu:-0}))
cat $B/capture | grep -qxE "cpu $other: (oops|GPF), kept in per_cpu/cpu$other/capture" &&
	ok "the other oops is kept on its own CPU: $(tail -1 $B/capture)" ||
	not_ok "the other oops is kept on its own CPU (got '$(cat $B/capture)')"
for c in $cpu $other; do
	cat $B/per_cpu/cpu$c/capture > /tmp/k.bin
	if [ "$(u32 /tmp/k.bin 36)" != 4294967295 ]; then
		ok "CPU $c's history has its fault marked ($(u32 /tmp/k.bin 20) records)"
	elif hw && dmesg | grep -q 'KernelAddressSanitizer initialized'; then
		# measured on the debug kernel on the BTS machine: with the other
		# CPU oopsing at the same time, the path from the fault to the
		# freeze took more branches than the buffer holds
		skip "CPU $c's history has its fault marked" \
			"KASAN kernel on BTS: more than $(u32 /tmp/k.bin 20) branches from the fault to the freeze"
	else
		not_ok "CPU $c's history has its fault marked"
	fi
done
echo 0 > $B/capture
provoke "echo EXCEPTION > $DIRECT"
echo 1 > $T/tracing_on
check "cleared, the next oops is kept" sh -c "cat $B/capture | grep -qE '^(oops|GPF) on cpu'"
done_testing
