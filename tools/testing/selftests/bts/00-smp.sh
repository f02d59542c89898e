#!/bin/sh
# The test VM really has two CPUs (the harness boots it with -smp 2; a
# guest that came up with one would make every per-CPU test meaningless).
. ./lib.sh

is "two CPUs online" "$(cat /sys/devices/system/cpu/online)" "0-1"
is "nproc says 2" "$(nproc)" 2
check "tracefs is mounted" test -f $T/available_tracers
done_testing
