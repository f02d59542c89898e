#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The Intel source on the project's BTS CPU: found at boot, recording on
# every CPU, no PMI in circular mode, user branches only with bts_user.
# bts-machines: hw hw-nopti-4 hw-cpl-target
. ./lib.sh

dmesg | grep -q 'bts: intel_bts: BTS available: 2730 records per CPU' &&
	ok "the Intel source found BTS at boot" ||
	not_ok "the Intel source found BTS at boot (got: $(dmesg | grep 'intel_bts:'))"
if grep -q 'nopti' /proc/cmdline; then
	check "KPTI is off (nopti)" sh -c '! grep -qw pti /proc/cpuinfo'
else
	check "KPTI is on: records go to the cpu_entry_area buffer" grep -qw pti /proc/cpuinfo
fi

# nmis: the NMIs every CPU took so far. A BTS threshold PMI is an NMI;
# the PMI line of /proc/interrupts counts only counter overflows.
nmis() { awk '/^ *NMI:/ { s = 0; for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) s += $i; print s }' /proc/interrupts; }
echo 1 > $T/tracing_on
# user_records FILE: records whose branch instruction is in user space
# (0x0 is a user half bts cleared)
user_records() { bts_entries "$1" | grep -E ' [0-9]+/[0-9]+ 0x[0-9a-f]{1,12} -> ' | grep -vc ' 0x0 -> '; }

is "bts_user is off by default" "$(cat $T/options/bts_user)" 0
echo bts > $T/current_tracer
is "the Intel source is armed" "$(sed -n 2p $B/source)" "active: intel_bts"
nmi0=$(nmis)
ncpu=$(nproc)
c=0
while [ $c -lt "$ncpu" ]; do
	taskset -c $c sh -c 'i=0; while [ $i -lt 20 ]; do echo x > /dev/null; i=$((i+1)); done'
	dd if=$B/per_cpu/cpu$c/records of=/tmp/r.bin bs=4096 2>/dev/null
	n=$(od -An -t u4 -j 20 -N 4 /tmp/r.bin | tr -d ' ')
	[ "$n" -gt 0 ] && ok "CPU $c records branches ($n)" || not_ok "CPU $c records branches"
	c=$((c + 1))
done
# The workload branches through the kernel and its user shell; with
# BTS_OFF_USR set the shell's branches are filtered by the CPU.
echo > $T/trace
taskset 2 sh -c '$BIN/branchy 200; echo 1 > /sys/kernel/tracing/bts/dump'
bts_entries $T/trace | grep ' cpu=1 ' > /tmp/kernel-only.txt
[ -s /tmp/kernel-only.txt ] && is "with bts_user 0 no record starts in user mode" \
	"$(user_records /tmp/kernel-only.txt)" 0 || not_ok "the workload's CPU dumped records"
# Nor ends there. A branch between user and kernel mode is a kernel
# branch at one end: the CPU records the return to user mode (sysret,
# iret) with its user-space target when it filters on the branch
# instruction's CPL, the entry from user mode with its user-space source
# when it filters on the target's (the SDM does not say which; the
# hw-cpl-target machine is the other choice). bts clears that half (0x0
# in the text, flag bit 61 in the record).
n=$(grep -cE ' -> 0x[0-9a-f]*[1-9a-f][0-9a-f]*( |$)' /tmp/kernel-only.txt)
is "with bts_user 0 no record ends in user mode" "$n" 0
c=$(grep -cE ' 0x0 -> | -> 0x0( |$)' /tmp/kernel-only.txt)
diag "branches between user and kernel mode with the user half cleared: $c" \
	"(from user mode: $(grep -c ' 0x0 -> ' /tmp/kernel-only.txt)," \
	"to user mode: $(grep -cE ' -> 0x0( |$)' /tmp/kernel-only.txt))"
[ "$c" -gt 0 ] && ok "branches between user and kernel mode are kept, their user half cleared ($c)" ||
	not_ok "branches between user and kernel mode are kept, their user half cleared"
is "no PMI (no NMI at all) in circular mode" "$(nmis)" "$nmi0"

echo 1 > $T/options/bts_user
is "bts_user 1 re-armed the Intel source" "$(sed -n 2p $B/source)" "active: intel_bts"
echo > $T/trace
taskset 2 sh -c '$BIN/branchy 200; echo 1 > /sys/kernel/tracing/bts/dump'
bts_entries $T/trace | grep ' cpu=1 ' > /tmp/with-user.txt
n=$(user_records /tmp/with-user.txt)
[ "$n" -gt 0 ] && ok "with bts_user 1 user branches are recorded ($n)" ||
	not_ok "with bts_user 1 user branches are recorded"
dd if=$B/per_cpu/cpu1/records of=/tmp/u.bin bs=4096 2>/dev/null
is "the dump header says user branches are in" $(( $(od -An -t u4 -j 28 -N 4 /tmp/u.bin | tr -d ' ') & 4 )) 4
echo 0 > $T/options/bts_user
is "still no PMI" "$(nmis)" "$nmi0"
echo nop > $T/current_tracer
done_testing
