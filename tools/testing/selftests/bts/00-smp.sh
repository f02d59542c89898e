#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The machine really has the CPUs it was booted with (bts.cpus= on the
# kernel command line, which a harness that boots the tests in a VM sets
# beside -smp): a guest that came up with fewer would make every per-CPU
# test meaningless. Without bts.cpus= there is nothing to compare: skips.
. ./lib.sh
want=
for a in $(cat /proc/cmdline); do
	case $a in bts.cpus=*) want=${a#*=} ;; esac
done
[ -n "$want" ] || skip_all "no bts.cpus= on the kernel command line: nothing to compare the CPUs with"
is "$want CPUs online" "$(cat /sys/devices/system/cpu/online)" "0-$((want - 1))"
is "nproc says $want" "$(nproc)" "$want"
check "tracefs is mounted" test -f $T/available_tracers
done_testing
