#!/bin/sh
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
# With 3 or more CPUs the last one is taken offline before the panic: the
# crash dump holds a history for each online CPU and none for it.
# bts-boot: own
# bts-expect: panic
# bts-machines: sw hw hw-nopti-4
# bts-share: kernel
# bts-cmdline: crashkernel=256M
# bts-timeout: 600
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
	fi
	cp /host/$NAME.sh.tap /host/$NAME.before.tap
	sync
	echo "BTS-GUEST: panic now" > /dev/kmsg
	sh -c "echo PANIC > $DIRECT"
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
if [ "$MODE" = panic ]; then
	check "the history ends in the call from lkdtm_PANIC into panic" \
		sh -c "grep '<== FAULT' /tmp/v.txt | grep 'lkdtm_PANIC' | grep -q ' panic'"
else
	check "the history is the oops's: lkdtm_EXCEPTION shortly before its fault" \
		sh -c "sed '/<== FAULT/q' /tmp/v.txt | tail -40 | grep -q 'lkdtm_EXCEPTION'"
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
