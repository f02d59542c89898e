#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lkdtm BUG: captured in handle_bug() before report_bug(), emitted from
# oops_begin().
# bts-boot: own
# bts-expect: bug
# bts-cmdline: panic_on_oops=0
# bts-live: no, hits BUG() on purpose
. ./lib-oops.sh
arm
provoke "echo BUG > $DIRECT"
check_capture BUG 2 lkdtm_BUG asm_exc_invalid_op
again_with_dump_on_oops "echo BUG > $DIRECT" BUG
done_testing
