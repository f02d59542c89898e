#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Captures never block each other, up to the crash dump: CPU 1 WARNs in a
# loop with bts_capture_warn on, CPU 2 oopses in the middle of it, CPU 0
# panics while the WARNs go on, into a crash kernel. CPU 2's oops becomes
# the kept capture (not only counted), CPU 1 keeps its first WARN, and the
# crash dump holds the panic's history first, then CPU 2's oops and CPU 1's
# first WARN. See 63-kdump.sh.
# bts-boot: own
# bts-expect: oops,panic,warn
# bts-share: kernel
# bts-cmdline: crashkernel=256M panic_on_oops=0
# bts-smp: 4
# bts-machines: sw hw
# bts-timeout: 900
# bts-live: no, WARNs, oopses and panics the machine into a crash kernel
KDUMP_TEST=69-kdump-storm KDUMP_MODE=storm . ./63-kdump.sh
