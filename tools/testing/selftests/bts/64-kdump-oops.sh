#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kdump after an oops was captured: the crash dump holds the kept capture
# (the oops's), and bts-dump prints from it what it prints from the
# capture files read before the panic (64-kdump-oops.host). See 63-kdump.sh.
# bts-boot: own
# bts-expect: oops,panic
# bts-share: kernel
# bts-cmdline: crashkernel=256M
# bts-machines: sw
# bts-timeout: 600
# bts-live: no, oopses and panics the machine into a crash kernel
KDUMP_TEST=64-kdump-oops KDUMP_MODE=oops . ./63-kdump.sh
