#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Hibernation while the Intel source records: the image is written to
# swap and restored at once (test_resume). The restore runs on temporary
# page tables that do not map the cpu_entry_area, where the DS area and
# the BTS buffer are: with BTS left on there, the first branch stores
# through an unmapped DS area (the emulated CPU stops the machine, "BTS:
# fatal"; on silicon a fault in the middle of the restore). The source's
# syscore suspend callback must stop BTS on the boot CPU before it, its
# resume callback start it again, and the other CPUs come back through
# the online callback. Only the Intel source: the software one keeps
# nothing in the CPU, and CPU hotplug has its own test (36-hotplug).
# The 9p share does not survive the restore (its virtio transport has no
# freeze or restore), so the TAP goes to the console.
# bts-boot: own
# bts-machines: hw
# bts-timeout: 300
# bts-tap: console
# bts-disk: 512
# bts-live: no, hibernates the machine (needs a swap device it may overwrite)
# 74-hw-hibernate.host checks on the console that the image was written,
# loaded and restored.
TAP_CONSOLE=1
. ./lib.sh
echo 1 > $T/tracing_on
echo bts > $T/current_tracer
is "the Intel source is armed" "$(sed -n 2p $B/source)" "active: intel_bts"

check "CPU 0 records before the hibernation" cpu_records_now 0
check "CPU 1 records before the hibernation" cpu_records_now 1

if ! grep -qw disk /sys/power/state || ! [ -b /dev/vda ]; then
	skip "hibernation" "no disk in /sys/power/state or no /dev/vda"
	done_testing
	exit 0
fi
check "a swap device on /dev/vda" sh -c 'mkswap /dev/vda >/dev/null && swapon /dev/vda'
echo test_resume > /sys/power/disk
is "the hibernation mode is test_resume" \
	"$(grep -o '\[[a-z_]*\]' /sys/power/disk)" "[test_resume]"
# That the image was written, loaded and restored only the console
# shows: the kernel that loads it and its log are replaced by the image's
# (74-hw-hibernate.host reads it).
echo "BTS-GUEST: hibernating" > /dev/console
echo disk > /sys/power/state
rc=$?
echo "BTS-GUEST: back from hibernation" > /dev/console
is "echo disk > /sys/power/state returned after the restore" "$rc" 0
is "the Intel source is still armed" "$(sed -n 2p $B/source)" "active: intel_bts"
check "CPU 0 records from the resume on (the syscore resume hook started it)" cpu_records_now 0
check "CPU 1 records from its return on (the online callback re-armed it)" cpu_records_now 1
echo nop > $T/current_tracer
swapoff /dev/vda
done_testing
# /init would now close this test's files on the share, which hangs after
# the restore: end the boot here.
echo "BTS-GUEST: done" > /dev/console
reboot -f
