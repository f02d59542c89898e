#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lkdtm EXCEPTION (a write to NULL in process context, panic_on_oops=0):
# the capture keeps the history that led to the page fault. A second
# oops on the same CPU is counted, not kept; after clearing, the next one
# is captured.
# bts-boot: own
# bts-expect: oops
# bts-cmdline: panic_on_oops=0
# bts-machines: sw hw hw-nopti-4 hw-cpl-target
# bts-live: no, oopses the kernel on purpose
. ./lib-oops.sh
arm
provoke "echo EXCEPTION > $DIRECT"
check_capture oops 1 lkdtm_EXCEPTION asm_exc_page_fault
tail -c +193 $B/per_cpu/cpu$(capture_cpu)/capture > /tmp/first.bin
provoke "taskset -c $(capture_cpu) sh -c 'echo ACCESS_NULL > $DIRECT'"
case "$(cat $B/capture)" in
*"later faults not kept: 1") ok "a second oops on that CPU is counted once, not kept" ;;
*) not_ok "a second oops is counted (got '$(cat $B/capture)')" ;;
esac
cat $B/per_cpu/cpu$(capture_cpu)/capture > /tmp/second.bin
tail -c +193 /tmp/second.bin > /tmp/second.rec
check "the first capture's records are unchanged" cmp -s /tmp/first.bin /tmp/second.rec
is "its header counts the fault not kept" "$(od -An -t u8 -j 64 -N 8 /tmp/second.bin | tr -d ' ')" 1
again_with_dump_on_oops "echo EXCEPTION > $DIRECT" oops
done_testing
