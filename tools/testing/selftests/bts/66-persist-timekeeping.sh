#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 61-persist with a panic from inside a timekeeping update (test_fault
# "panic-timekeeping": the timekeeper's seqcount is odd on the panicking
# CPU). The panic path must not read the timekeeper through its seqcount
# (it would spin forever: no persisted capture, no reboot): boot 1
# panics, boot 2 finds the panic's capture.
# bts-boot: own
# bts-reboot: yes
# bts-expect: panic,tk-panic
# bts-cmdline: memmap=1M$0x30000000 bts.persist=0x30000000:1M
# bts-timeout: 300
# bts-live: no, panics the machine and reboots
PERSIST_TEST=66-persist-timekeeping
PERSIST_MODE=timekeeping
. ./61-persist.sh
