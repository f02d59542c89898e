#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The next boot shows a kept history under per_cpu/cpuN only when N is a
# CPU of this kernel and no other kept history has it: the region's cpu
# fields are data from the last boot. Three boots of one QEMU process
# (see 61-persist); each panic is on CPU 0, and test_fault "persist-cpu N"
# makes the panic keep its second history (CPU 1's) as CPU N:
#  1. N = 0, the faulting CPU's own number; panic;
#  2. the duplicate is skipped with a warning, no file outside per_cpu/,
#     every other CPU's history shown; N = 4096 (beyond nr_cpu_ids); panic;
#  3. that one is skipped with a warning, the others shown.
# Any number of CPUs from two (the debug kernel runs it on four).
# bts-boot: own
# bts-reboot: yes
# bts-expect: panic
# bts-machines: sw
# bts-cmdline: memmap=1M$0x30000000 bts.persist=0x30000000:1M
# bts-timeout: 600
# bts-live: no, panics the machine and reboots
. ./lib-oops.sh
NAME=67-persist-bad-cpu
STATE=/host/$NAME.state
LB=$B/last_boot
boot=$(cat $STATE 2>/dev/null || echo 1)
echo $((boot + 1)) > $STATE
sync
carry() {
	[ -f /host/$NAME.before.tap ] || return 0
	cat /host/$NAME.before.tap
	_n=$(grep -cE '^(not )?ok ' /host/$NAME.before.tap)
}
keep() { cp /host/$NAME.sh.tap /host/$NAME.before.tap; sync; }
# panic_as N: the next panic keeps CPU 1's history as CPU N; panic on CPU 0
panic_as() {
	echo bts > $T/current_tracer
	check "test_fault takes persist-cpu $1" sh -c "echo 'persist-cpu $1' > $B/test_fault"
	keep
	echo "BTS-GUEST: panic now" > /dev/kmsg
	taskset -c 0 sh -c "echo PANIC > $DIRECT"
	not_ok "the guest survived lkdtm PANIC"
	done_testing
	exit 0
}
# every CPU but CPU 1, as ls lists them: the histories boots 2 and 3 show
others() {
	local c=0 n=$(nproc)
	while [ $c -lt $n ]; do [ $c = 1 ] || echo cpu$c; c=$((c + 1)); done |
		sort | tr '\n' ' '
}
# shown WHY: what boot 2 and 3 check
shown() {
	check "the boot log warns that a history's cpu $1" \
		sh -c "dmesg | grep -q 'persist: .*cpu.* $1'"
	is "every CPU's history but CPU 1's is shown" \
		"$(ls $LB/per_cpu 2>&1 | tr '\n' ' ')" "$(others)"
	check "no file is put outside last_boot/per_cpu/cpuN/" \
		sh -c "[ ! -e $T/capture ] && [ ! -e $LB/capture ] && [ ! -e $LB/per_cpu/capture ]"
	is "CPU 0's capture is the panic's" "$(head -c 7 $LB/per_cpu/cpu0/capture)" BTSDUMP
	is "info counts the histories shown" "$(sed -n 's/^histories:\t//p' $LB/info)" \
		$(($(nproc) - 1))
}

carry
case $boot in
1)
	diag "boot 1: CPU 1's history kept as CPU 0's"
	check "two CPUs or more" [ "$(nproc)" -ge 2 ]
	panic_as 0
	;;
2)
	diag "boot 2: two histories named CPU 0"
	shown "is a duplicate"
	panic_as 4096
	;;
*)
	diag "boot 3: a history named CPU 4096"
	shown "is out of range"
	done_testing
	;;
esac
