#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lkdtm ACCESS_NULL: a read of NULL, page fault, oops.
# bts-boot: own
# bts-expect: oops
# bts-cmdline: panic_on_oops=0
# bts-live: no, oopses the kernel on purpose
. ./lib-oops.sh
arm
provoke "echo ACCESS_NULL > $DIRECT"
check_capture oops 1 lkdtm_ACCESS_NULL asm_exc_page_fault
again_with_dump_on_oops "echo ACCESS_NULL > $DIRECT" oops
done_testing
