#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 63-kdump on the test kernel built with full DWARF (bts-kernel: dwarf), so
# that the host half can open its crash dump with crash too: the crash
# extension's bts command (tools/bts-dump/crash) against bts-dump --vmcore,
# and its bts -l against drgn's bts.py -l on the same dump
# (63-kdump-crash.host). See 63-kdump.sh.
# bts-boot: own
# bts-expect: panic
# bts-machines: hw
# bts-kernel: dwarf
# bts-share: kernel
# bts-cmdline: crashkernel=256M
# bts-timeout: 600
# bts-live: no, panics the machine into a crash kernel
KDUMP_TEST=63-kdump-crash . ./63-kdump.sh
