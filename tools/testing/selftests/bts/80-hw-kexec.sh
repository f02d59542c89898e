#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kexec into the same kernel with bts armed on the Intel source. kexec
# resets no CPU: unless the old kernel stops BTS on every CPU first
# (the Intel source's syscore shutdown), the CPU that runs the new
# kernel goes on storing records through the old DS area, into memory
# the new kernel owns. The new kernel must find BTS stopped and bts
# must work there. The host half (80-hw-kexec.host) checks that QEMU
# dropped no record for want of a mapped DS area.
# With KEXEC_TRIGGER=printk (81-hw-kexec-trigger.sh) a bts_dump function
# command fires at every printk, "Starting new kernel" among them, after
# the stop: each dump freezes and thaws CPU 0, and the stop must hold.
# bts-boot: own
# bts-machines: hw
# bts-share: kernel
# bts-tap: console
# bts-timeout: 300
# bts-live: no, kexecs into another kernel
TAP_CONSOLE=1
. ./lib.sh
stage=1
for a in $(cat /proc/cmdline); do
	case $a in bts.kexec_stage=*) stage=${a#*=} ;; esac
done

NAME=${KEXEC_TEST:-80-hw-kexec}
if [ "$stage" = 1 ]; then
	echo bts > $T/current_tracer
	is "the Intel source is armed" "$(sed -n 2p $B/source)" "active: intel_bts"
	echo 1 > $B/dump
	check "it dumps" grep -q ' cpu=0 ' $T/trace
	if [ "${KEXEC_TRIGGER:-}" = printk ]; then
		echo 'vprintk_emit:bts_dump' > $T/set_ftrace_filter
		echo > $T/trace
		# pinned to CPU 0, the CPU kexec runs on
		taskset 1 sh -c 'echo "BTS-GUEST: a printk fires the trigger" > /dev/kmsg'
		n=$(bts_entries $T/trace | grep -c ' cpu=0 ')
		[ "$n" -gt 0 ] && ok "a printk on CPU 0 fires bts_dump ($n entries)" ||
			not_ok "a printk on CPU 0 fires bts_dump"
	fi
	if ! command -v kexec > /dev/null; then
		not_ok "kexec-tools in the guest"
		done_testing
		exit 0
	fi
	kexec -l /host/bzImage --initrd=/host/initramfs.cpio.gz \
		--command-line="$(cat /proc/cmdline) bts.kexec_stage=2" 2> /tmp/kexec.err &&
		ok "kexec -l the same kernel" ||
		not_ok "kexec -l the same kernel ($(cat /tmp/kexec.err))"
	echo "$_n" > /host/$NAME-stage1.n
	sync
	echo "BTS-GUEST: kexec -e with bts armed" > /dev/console
	kexec -e
	not_ok "kexec -e returned"
	done_testing
	exit 0
fi

# stage 2: the new kernel
_n=$(cat /host/$NAME-stage1.n)
ok "the new kernel runs (kexec -e with bts armed)"
dmesg | grep -q 'BTS was left on by the previous kernel' &&
	not_ok "the previous kernel stopped BTS before kexec ($(dmesg | grep -m1 'left on'))" ||
	ok "the previous kernel stopped BTS before kexec"
dmesg | grep -q 'bts: intel_bts: BTS available' && ok "the Intel source found BTS again" ||
	not_ok "the Intel source found BTS again ($(dmesg | grep 'intel_bts:'))"
echo bts > $T/current_tracer
is "the Intel source arms in the new kernel" "$(sed -n 2p $B/source)" "active: intel_bts"
echo > $T/trace
echo 1 > $B/dump
n=$(bts_entries $T/trace | grep -c ' cpu=0 ')
[ "$n" -gt 0 ] && ok "and dumps CPU 0's branches ($n)" || not_ok "and dumps CPU 0's branches"
echo nop > $T/current_tracer
done_testing
