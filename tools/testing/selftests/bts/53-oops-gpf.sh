#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A general protection fault from a non-canonical read (bts/test_fault,
# test kernels only): captured at exc_general_protection()'s entry, before
# IRQs are on (see 55-oops-gpf-irq.sh).
# bts-boot: own
# bts-expect: oops
# bts-cmdline: panic_on_oops=0
# bts-machines: sw hw hw-ss
# bts-live: test-kernel, oopses the kernel on purpose
. ./lib-oops.sh
# as a kselftest: the capture only, then the tracer as it was for the
# tests that come after (the oops turned tracing off; the capture is kept
# until cleared)
nr0=$(cat $B/nr_records) dump0=$(cat /proc/sys/kernel/ftrace_dump_on_oops)
arm
provoke "echo gpf > $B/test_fault"
check_capture GPF 4 bts_test_gpf asm_exc_general_protection
if [ -n "${BTS_HARNESS:-}" ]; then
	again_with_dump_on_oops "echo gpf > $B/test_fault" GPF
else
	echo 0 > $B/capture
	is "after clearing, bts/capture says none" "$(head -1 $B/capture)" none
	echo 1 > $T/tracing_on
	echo nop > $T/current_tracer
	echo "$nr0" > $B/nr_records
	echo "$dump0" > /proc/sys/kernel/ftrace_dump_on_oops
fi
done_testing
