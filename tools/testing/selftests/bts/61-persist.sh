#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A panic's capture kept across a warm reboot (bts.persist=). Four boots
# of one QEMU process, which keeps guest RAM over a reset:
#  1. arm bts and panic (lkdtm PANIC); panic=-1 reboots at once;
#  2. bts/last_boot holds the capture, ending in the call into panic(),
#     and bts-dump decodes it with this boot's kallsyms (KASLR moved the
#     kernel: the dump's header says where it was); then a clean reboot;
#  3. after the clean reboot there is no last boot to show; the next
#     panic's kept data is damaged after its checksum (test_fault), panic;
#  4. the damaged data is rejected with a message, and nothing is shown.
# Which boot this is, and the TAP of the boots before, are kept in the
# share (the host's directory). The region here is a range the firmware
# map reserves (memmap=), which stays put under KASLR; 62-persist-reserve-mem
# runs the same with reserve_mem.
# bts-boot: own
# bts-reboot: yes
# bts-expect: panic
# bts-cmdline: memmap=1M$0x30000000 bts.persist=0x30000000:1M
# bts-timeout: 600
# bts-live: no, panics the machine and reboots
. ./lib-oops.sh
NAME=${PERSIST_TEST:-61-persist}
REGION=${PERSIST_REGION:-0x30000000:1M}
# PERSIST_MODE=oops (65-persist-oops): boot 1 oopses with panic_on_oops=1,
# boot 2 checks that the capture kept is the oops's, and that is all;
# PERSIST_MODE=timekeeping (66-persist-timekeeping): boot 1 panics from
# inside a timekeeping update (test_fault), boot 2 checks the capture
MODE=${PERSIST_MODE:-panic}
STATE=/host/$NAME.state
LB=$B/last_boot
boot=$(cat $STATE 2>/dev/null || echo 1)
echo $((boot + 1)) > $STATE
sync

# carry: the TAP lines of the boots before this one, numbered on
carry() {
	[ -f /host/$NAME.before.tap ] || return 0
	cat /host/$NAME.before.tap
	_n=$(grep -cE '^(not )?ok ' /host/$NAME.before.tap)
}
# keep: this boot's lines for the next boot, before it reboots
keep() { cp /host/$NAME.sh.tap /host/$NAME.before.tap; sync; }
panic_now() {
	echo "BTS-GUEST: panic now" > /dev/kmsg
	sh -c "echo PANIC > $DIRECT"
	not_ok "the guest survived lkdtm PANIC"
	done_testing
}

carry
case $boot in
1)
	diag "boot 1: arm and $MODE"
	check "no last boot is shown before any panic" test ! -e $LB
	check "the boot log names the region" sh -c "dmesg | grep -q \"persist: a panic's capture goes to region '$REGION'\""
	case $REGION in
	0x*) check "the region is claimed in /proc/iomem" grep -q '^ *30000000-300fffff : bts persist$' /proc/iomem ;;
	esac
	echo bts > $T/current_tracer
	keep
	if [ "$MODE" = oops ]; then
		echo 1 > /proc/sys/kernel/panic_on_oops
		echo "BTS-GUEST: oops now, panic_on_oops=1" > /dev/kmsg
		sh -c "echo EXCEPTION > $DIRECT"
		not_ok "the guest survived an oops with panic_on_oops=1"
		done_testing
	fi
	if [ "$MODE" = timekeeping ]; then
		echo "BTS-GUEST: panic now, at the next timekeeping update" > /dev/kmsg
		echo panic-timekeeping > $B/test_fault
		# The next tick panics: keep the CPUs busy until then (the
		# limit only bounds the case where no panic comes).
		timeout 120 sh -c 'while :; do :; done'
		not_ok "the guest panicked at the next timekeeping update"
		done_testing
		exit 0
	fi
	panic_now
	;;
2)
	diag "boot 2: the capture kept at the $MODE, from the last boot"
	check "bts/last_boot/info exists" test -f $LB/info
	diag "$(tr '\t' ' ' < $LB/info | tr '\n' ';')"
	info() { sed -n "s/^$1:\t//p" $LB/info; }
	if [ "$MODE" = oops ]; then
		reason=oops fn=lkdtm_EXCEPTION num=1
		kasan_null_is_gpf && reason=GPF num=4
	elif [ "$MODE" = timekeeping ]; then
		reason=panic fn=bts_test_tk_notify num=3
	else
		reason=panic fn=lkdtm_PANIC num=3
	fi
	is "the reason is $reason" "$(info reason)" $reason
	is "the release is this kernel's" "$(info release)" "$(uname -r)"
	is "every CPU's history was kept" "$(info histories)" "$(nproc)"
	cpu=$(info cpu)
	f=$LB/per_cpu/cpu$cpu/capture
	check "the faulting CPU's capture is there" test -f $f
	cat $f > /tmp/lb.bin
	is "it is in the dump format" "$(head -c 7 /tmp/lb.bin)" BTSDUMP
	flags=$(u32 /tmp/lb.bin 28) count=$(u32 /tmp/lb.bin 20)
	is "it is flagged as a capture, reason $reason" "$(( ${flags:-0} & 2 )):$(u32 /tmp/lb.bin 32)" 2:$num
	[ "${count:-0}" -gt 0 ] && ok "it holds $count records" || not_ok "it holds records"
	is "its size is the header and its records" "$(wc -c < /tmp/lb.bin)" \
		$((192 + ${count:-0} * 24))
	bts-dump -s /proc/kallsyms /tmp/lb.bin > /tmp/lb.txt 2>&1
	diag "$(grep -m1 '<== FAULT' /tmp/lb.txt)"
	if [ "$MODE" = oops ]; then
		# the history up to the fault: the newest call into lkdtm_*
		# enters lkdtm_EXCEPTION (see lib-oops.sh)
		oops_history /tmp/lb.txt &&
			ok "bts-dump decodes it: the newest call into lkdtm_* before the fault enters lkdtm_EXCEPTION" ||
			not_ok "bts-dump decodes it: the newest call into lkdtm_* before the fault enters lkdtm_EXCEPTION"
	else
		check "bts-dump decodes it: the fault is the call from $fn into panic" \
			sh -c "grep '<== FAULT' /tmp/lb.txt | grep '$fn' | grep -q ' panic'"
	fi
	check "the boot log says the capture was found" \
		sh -c "dmesg | grep -q 'persist: the last boot.s $reason capture'"
	check "bts/last_boot is root only" sh -c "! su -s /bin/sh nobody -c 'cat $f' 2>/dev/null"
	# for trace and trace-cmd: into the ring buffer, moved to this boot's
	# addresses (bts is not the tracer now: the top level's buffer)
	write_fails "to_trace takes only 1" $LB/to_trace 2 "Invalid argument"
	echo > $T/trace
	check "to_trace takes 1" sh -c "echo 1 > $LB/to_trace"
	cat $T/trace > /tmp/lbt.txt
	is "trace holds the panicking CPU's whole history" \
		"$(grep -c " cpu=$cpu [0-9]*/$count " /tmp/lbt.txt)" "$count"
	diag "$(grep -m1 '\[fault\]' /tmp/lbt.txt)"
	diag "trace: $(wc -l < /tmp/lbt.txt) lines, $(entries_per_cpu /tmp/lbt.txt), buffer_size_kb $(cat $T/buffer_size_kb), tracing_on $(cat $T/tracing_on)"
	grep -v '^#' /tmp/lbt.txt | head -3 | while read -r l; do diag "  $l"; done
	if [ "$MODE" = oops ]; then
		check "... and the newest call into lkdtm_* before its fault record enters lkdtm_EXCEPTION, named for this boot" \
			sh -c "grep ' cpu=$cpu ' /tmp/lbt.txt | sed '/\[fault\]/q' | grep -- '-> lkdtm_' | tail -1 | grep -q -- '-> lkdtm_EXCEPTION+0x0/'"
		done_testing
		exit 0
	fi
	check "... its fault record the call into panic(), named for this boot" \
		sh -c "grep '\[fault\]' /tmp/lbt.txt | grep -q -- '$fn+0x[0-9a-f]*/0x[0-9a-f]* -> panic+0x0/'"
	if [ "$MODE" = timekeeping ]; then
		# the time it was written, read on the panic path
		t=$(info time)
		[ "${t%%.*}" -gt 1000000000 ] 2>/dev/null &&
			ok "the time it was written is a real time ($t)" ||
			not_ok "the time it was written is a real time (got '$t')"
		done_testing
		exit 0
	fi
	keep
	echo "BTS-GUEST: clean reboot" > /dev/kmsg
	reboot -f
	;;
3)
	diag "boot 3: after a clean reboot"
	check "a clean reboot leaves no last boot to show" test ! -e $LB
	echo bts > $T/current_tracer
	check "test_fault takes persist-corrupt" sh -c "echo persist-corrupt > $B/test_fault"
	keep
	panic_now
	;;
*)
	diag "boot 4: the last boot's data was damaged after its checksum"
	check "the boot log says it was rejected, and why" \
		sh -c "dmesg | grep -q \"persist: discarding the last boot's data in '$REGION': checksum mismatch\""
	check "nothing of it is shown" test ! -e $LB
	done_testing
	;;
esac
