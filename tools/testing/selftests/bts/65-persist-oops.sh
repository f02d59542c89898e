#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 61-persist with an oops under panic_on_oops=1: the panic that follows the
# oops reboots the machine, and the capture kept across it is the oops's
# (reason oops, the fault in lkdtm_EXCEPTION), not the panic's. Two boots.
# bts-boot: own
# bts-reboot: yes
# bts-expect: oops,panic
# bts-cmdline: memmap=1M$0x30000000 bts.persist=0x30000000:1M
# bts-timeout: 600
# bts-live: no, oopses, panics the machine and reboots
PERSIST_TEST=65-persist-oops
PERSIST_MODE=oops
. ./61-persist.sh
