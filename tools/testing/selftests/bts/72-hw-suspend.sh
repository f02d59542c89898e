#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Suspend to RAM (ACPI S3) while the Intel source records. Resume starts
# the CPUs afresh, with DEBUGCTL clear, as on silicon; the source's
# syscore resume callback must re-arm the boot CPU (keeping its buffer)
# and its hotplug callback the others. QEMU wakes the guest on an RTC
# alarm. The 9p share does not survive the suspend (its virtio transport
# has no resume), so the TAP goes to the console.
# bts-boot: own
# bts-machines: hw
# bts-timeout: 300
# bts-tap: console
# bts-live: no, suspends the machine to RAM
TAP_CONSOLE=1
. ./lib.sh
echo 1 > $T/tracing_on
echo bts > $T/current_tracer
is "the Intel source is armed" "$(sed -n 2p $B/source)" "active: intel_bts"

check "CPU 0 records before the suspend" cpu_records_now 0
check "CPU 1 records before the suspend" cpu_records_now 1

if ! grep -qw mem /sys/power/state || ! [ -w /sys/class/rtc/rtc0/wakealarm ]; then
	skip "suspend to RAM" "no mem in /sys/power/state or no RTC wake alarm"
	done_testing
	exit 0
fi
echo deep > /sys/power/mem_sleep 2>/dev/null
echo 0 > /sys/class/rtc/rtc0/wakealarm
echo +3 > /sys/class/rtc/rtc0/wakealarm
log_mark
echo mem > /sys/power/state
rc=$?
is "echo mem > /sys/power/state returned after the wake-up" "$rc" 0
log_since | grep -q 'ACPI: PM: Waking up from system sleep state S3' &&
	ok "the guest went to S3 and woke up" ||
	not_ok "the guest went to S3 and woke up ($(log_since | grep -m1 -i 'suspend\|sleep'))"
is "the Intel source is still armed" "$(sed -n 2p $B/source)" "active: intel_bts"
check "CPU 0 records from the resume on (the syscore resume hook re-armed it)" cpu_records_now 0
check "CPU 1 records from its return on (the online callback re-armed it)" cpu_records_now 1
echo nop > $T/current_tracer
done_testing
# /init would now close this test's files on the share, which hangs after
# the suspend: end the boot here.
echo "BTS-GUEST: done" > /dev/console
reboot -f
