#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A general protection fault from a non-canonical read (bts/test_fault,
# test kernels only): captured at exc_general_protection()'s entry, before
# IRQs are on (see 55-oops-gpf-irq.sh).
# bts-boot: own
# bts-expect: oops
# bts-cmdline: panic_on_oops=0
# bts-machines: sw hw hw-ss
# bts-live: no, oopses the kernel on purpose
. ./lib-oops.sh
arm
provoke "echo gpf > $B/test_fault"
check_capture GPF 4 bts_test_gpf asm_exc_general_protection
again_with_dump_on_oops "echo gpf > $B/test_fault" GPF
done_testing
