#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kdump with bts armed: a panic reaches the crash kernel (on the Intel
# source the crash path must stop BTS on every CPU first, patches/0007),
# and the kept capture is recoverable from /proc/vmcore through the table
# VMCOREINFO names (BTS_TABLE=). Two kernels in one boot of QEMU:
#  1. crashkernel= reserved; load this kernel as the crash kernel with
#     kexec -p, arm bts, panic (lkdtm PANIC);
#  2. the crash kernel: /proc/vmcore exists; bts-dump --vmcore decodes it
#     here with the crash kernel's kallsyms (another KASLR offset: the
#     slots' headers say where the crashed kernel was) and the history
#     ends in the call from lkdtm_PANIC into panic(); makedumpfile -E
#     writes a filtered ELF dump into the share, which the host half
#     (63-kdump.host) decodes with vmlinux.
# With KDUMP_MODE=oops (64-kdump-oops.sh) an oops is captured first and its
# capture files are copied into the share: the capture the crash dump
# holds is that one (a capture is kept until cleared), and the host half
# checks that bts-dump prints the same from the dump as from the files.
# With KDUMP_MODE=storm (69-kdump-storm.sh) CPU 1 WARNs in a loop (its
# first WARN is the kept capture), CPU 2 oopses (an oops wins over a
# WARN: it becomes the kept capture, CPU 1 keeps its WARN) and CPU 0
# panics while the WARNs go on: no capture blocks another, the crash dump
# holds the panic's history first and CPU 2's oops. In oops mode the
# panic runs on the oopsing CPU, whose kept oops then is the panic's
# history.
# With 3 or more CPUs the last one is taken offline before the panic: the
# crash dump holds a history for each online CPU and none for it.
# bts-boot: own
# bts-expect: panic
# bts-machines: sw hw hw-nopti-4
# bts-share: kernel
# bts-cmdline: crashkernel=256M
# bts-timeout: 600
# bts-live: no, panics the machine into a crash kernel
. ./lib-oops.sh
NAME=${KDUMP_TEST:-63-kdump}
MODE=${KDUMP_MODE:-panic}

if [ ! -e /proc/vmcore ]; then
	diag "the first kernel: load a crash kernel, arm, $MODE, panic"
	check "the boot log says a crash dump will index the capture" \
		sh -c "dmesg | grep -q 'kdump: a crash dump indexes the kept capture'"
	# the crash kernel: this kernel and initramfs, one CPU, no reservation
	args=$(sed 's/crashkernel=[^ ]*//' /proc/cmdline)
	kexec -p /host/bzImage --initrd=/host/initramfs.cpio.gz \
		--append="$args irqpoll nr_cpus=1 reset_devices" 2> /tmp/kexec.err &&
		ok "kexec -p loads the crash kernel" ||
		not_ok "kexec -p loads the crash kernel ($(cat /tmp/kexec.err))"
	is "a crash kernel is loaded" "$(cat /sys/kernel/kexec_crash_loaded)" 1
	off=
	last=$(($(nproc) - 1))
	if [ "$last" -ge 2 ]; then
		echo 0 > /sys/devices/system/cpu/cpu$last/online && off=$last
		is "CPU $last is offline" "$(cat /sys/devices/system/cpu/cpu$last/online)" 0
	fi
	echo "$(nproc) $off" > /host/$NAME.cpus
	echo bts > $T/current_tracer
	if [ "$MODE" = oops ]; then
		provoke "echo EXCEPTION > $DIRECT"
		cpu=$(capture_cpu)
		case "$(cat $B/capture)" in
		"oops on cpu "*) ok "an oops was captured: $(cat $B/capture)" ;;
		*) not_ok "an oops was captured (got '$(cat $B/capture)')" ;;
		esac
		mkdir -p /host/capture
		rm -f /host/capture/*
		# the faulting CPU's first, as the crash dump orders them
		i=0
		for c in $cpu $(ls $B/per_cpu | sed 's/cpu//' | grep -vx "$cpu"); do
			cat $B/per_cpu/cpu$c/capture > /host/capture/$i-cpu$c
			i=$((i + 1))
		done
		diag "capture files: $(ls /host/capture | tr '\n' ' ')"
		pin="taskset -c $cpu"
	elif [ "$MODE" = storm ]; then
		echo 1 > $T/options/bts_capture_warn
		taskset -c 1 sh -c "while :; do echo WARNING > $DIRECT; done" \
			> /dev/null 2>&1 &
		# read until the first WARN is kept; the limit only bounds a hang
		i=0
		while ! grep -q '^WARN on cpu 1,' $B/capture && [ $i -lt 600 ]; do
			sleep 0.2
			i=$((i + 1))
		done
		check "CPU 1's first WARN is the kept capture" grep -q '^WARN on cpu 1,' $B/capture
		provoke "taskset -c 2 sh -c 'echo EXCEPTION > $DIRECT'"
		w=oops
		kasan_null_is_gpf && w=GPF
		# an oops wins over a WARN: it becomes the kept capture, and
		# CPU 1 still shows its own first WARN
		check "CPU 2's oops, in the middle of CPU 1's WARNs, is the kept capture" \
			sh -c "head -1 $B/capture | grep -q '^$w on cpu 2, '"
		check "CPU 1's first WARN is still kept on CPU 1" \
			grep -qx "cpu 1: WARN, kept in per_cpu/cpu1/capture" $B/capture
		diag "bts/capture: $(tr '\n' ' ' < $B/capture)"
		[ "$(u32 $B/per_cpu/cpu2/capture 36)" != 4294967295 ] &&
			ok "CPU 2's capture has its fault marked" ||
			not_ok "CPU 2's capture has its fault marked"
		pin="taskset -c 0"
	fi
	cp /host/$NAME.sh.tap /host/$NAME.before.tap
	sync
	echo "BTS-GUEST: panic now" > /dev/kmsg
	$pin sh -c "echo PANIC > $DIRECT"
	not_ok "the guest survived lkdtm PANIC"
	done_testing
	exit 0
fi

# the crash kernel
cat /host/$NAME.before.tap
_n=$(grep -cE '^(not )?ok ' /host/$NAME.before.tap)
ok "the crash kernel runs"
bts-dump --vmcore /proc/vmcore -s /proc/kallsyms > /tmp/v.txt 2> /tmp/v.err
rc=$?
is "bts-dump --vmcore /proc/vmcore succeeds" "$rc: $(head -c 300 /tmp/v.err)" "0: "
diag "$(grep -m1 '<== FAULT' /tmp/v.txt)"
read online off < /host/$NAME.cpus
is "a history for each CPU that was online" "$(grep -cE '^CPU [0-9]+: ' /tmp/v.txt)" "$online"
[ -n "$off" ] && check "none for CPU $off, which was offline" sh -c "! grep -q '^CPU $off: ' /tmp/v.txt"
# section CPU: the lines of that CPU's history in bts-dump's output
section() { awk -v c="CPU $1: " 'index($0, c) == 1 {p = 1; print; next} /^CPU [0-9]+: / {p = 0} p' /tmp/v.txt; }
if [ "$MODE" = panic ]; then
	check "the history ends in the call from lkdtm_PANIC into panic" \
		sh -c "grep '<== FAULT' /tmp/v.txt | grep 'lkdtm_PANIC' | grep -q ' panic'"
elif [ "$MODE" = storm ]; then
	diag "$(grep -E '^CPU [0-9]+: ' /tmp/v.txt)"
	check "the first history is CPU 0's, captured at the panic" \
		sh -c "grep -m1 -E '^CPU [0-9]+: ' /tmp/v.txt | grep -q '^CPU 0: .*captured at panic, fault at'"
	check "it ends in the call from lkdtm_PANIC into panic" \
		sh -c "grep -m1 '<== FAULT' /tmp/v.txt | grep 'lkdtm_PANIC' | grep -q ' panic'"
	section 2 > /tmp/c2.txt
	head -1 /tmp/c2.txt | grep -qE 'captured at (oops|GPF), fault at' &&
		oops_history /tmp/c2.txt &&
		ok "CPU 2's history is its oops's: its newest call into lkdtm_* before the fault enters lkdtm_EXCEPTION" ||
		not_ok "CPU 2's history is its oops's: its newest call into lkdtm_* before the fault enters lkdtm_EXCEPTION ($(head -1 /tmp/c2.txt))"
	section 1 > /tmp/c1.txt
	check "CPU 1's history is its first WARN's" \
		sh -c "head -1 /tmp/c1.txt | grep -q 'captured at WARN, fault at'"
else
	oops_history /tmp/v.txt &&
		ok "the history is the oops's: its newest call into lkdtm_* before the fault enters lkdtm_EXCEPTION" ||
		not_ok "the history is the oops's: its newest call into lkdtm_* before the fault enters lkdtm_EXCEPTION"
fi
if command -v makedumpfile > /dev/null; then
	makedumpfile -E -d 31 /proc/vmcore /host/vmcore > /tmp/md.out 2>&1 &&
		ok "makedumpfile -E -d 31 writes the dump ($(wc -c < /host/vmcore) bytes)" ||
		not_ok "makedumpfile -E -d 31 writes the dump ($(tail -3 /tmp/md.out | tr '\n' ' '))"
	bts-dump --vmcore /host/vmcore -s /proc/kallsyms > /tmp/m.txt 2>&1
	check "bts-dump prints the same from makedumpfile's filtered dump" cmp -s /tmp/v.txt /tmp/m.txt
else
	not_ok "makedumpfile in the guest"
fi
sync
done_testing
