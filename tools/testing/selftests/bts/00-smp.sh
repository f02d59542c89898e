#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The test VM really has the CPUs the harness booted it with (bts.cpus=,
# -smp): a guest that came up with fewer would make every per-CPU test
# meaningless.
# bts-live: no, checks that the project's VM has the CPUs the harness booted it with
. ./lib.sh
want=2
for a in $(cat /proc/cmdline); do
	case $a in bts.cpus=*) want=${a#*=} ;; esac
done
is "$want CPUs online" "$(cat /sys/devices/system/cpu/online)" "0-$((want - 1))"
is "nproc says $want" "$(nproc)" "$want"
check "tracefs is mounted" test -f $T/available_tracers
done_testing
