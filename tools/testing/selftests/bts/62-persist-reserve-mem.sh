#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 61-persist with the region from reserve_mem, the way the documentation
# puts first. nokaslr: physical KASLR moves the kernel, and with it where
# reserve_mem finds room, so the region can be elsewhere in the next boot
# (measured: 1 boot in 3 here); the next boot then finds nothing, which
# 61-persist's memmap= region avoids.
# bts-boot: own
# bts-reboot: yes
# bts-expect: panic
# bts-cmdline: nokaslr reserve_mem=1M:4096:btspanic bts.persist=btspanic
# bts-timeout: 600
# bts-live: no, panics the machine and reboots
PERSIST_TEST=62-persist-reserve-mem
PERSIST_REGION=btspanic
. ./61-persist.sh
