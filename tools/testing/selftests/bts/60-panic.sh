#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lkdtm PANIC with ftrace_dump_on_oops: the console (judged on the host by
# 60-panic.host) shows the captured history ending in the call to panic().
# bts-boot: own
# bts-expect: panic
# bts-cmdline: ftrace_dump_on_oops
# bts-live: no, panics the machine
. ./lib-oops.sh
echo bts > $T/current_tracer
echo 1000 > $B/nr_records
echo "BTS-GUEST: panic now" > /dev/kmsg
ok "armed; panicking"
sh -c "echo PANIC > $DIRECT"
not_ok "the guest survived lkdtm PANIC"
