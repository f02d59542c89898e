#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kexec while a bts_dump trigger fires on the kexec path itself (at every
# printk, "Starting new kernel" among them, after the Intel source's
# shutdown stopped BTS): the stop is for good, no dump's thaw starts BTS
# again before the jump into the new kernel (issue 22, defect 6). The
# new kernel finds BTS stopped; the host half (80-hw-kexec.host) checks
# that QEMU dropped no record for want of a mapped DS area. See
# 80-hw-kexec.sh.
# bts-boot: own
# bts-machines: hw
# bts-share: kernel
# bts-tap: console
# bts-timeout: 300
# bts-live: no, kexecs into another kernel
KEXEC_TEST=81-hw-kexec-trigger KEXEC_TRIGGER=printk . ./80-hw-kexec.sh
