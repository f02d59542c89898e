#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A #GP with an interrupt waiting behind it (bts/test_fault "gpf-irq",
# test kernels only): STI and the faulting read back to back, so the
# interrupt (an irq_work of some 10,000 branches) runs as soon as the #GP
# handler turns IRQs on. The capture is taken at the #GP's entry, before
# that: the fault is still in the history. A capture from the DIE_GPF die
# notifier, after IRQs are on, lost it.
# bts-boot: own
# bts-expect: oops
# bts-cmdline: panic_on_oops=0
# bts-live: no, oopses the kernel on purpose
. ./lib-oops.sh
arm
provoke "echo gpf-irq > $B/test_fault"
check_capture GPF 4 bts_test_gpf_irq asm_exc_general_protection
done_testing
