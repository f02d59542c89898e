#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bts.persist=START:SIZE over a range it does not own is refused, and
# nothing is written there: here the range the firmware (SeaBIOS, QEMU
# with 1 GiB, which bts-mem asks for the debug kernel too) reserves at
# the top of RAM, where the ACPI tables are (the FACS and the DSDT at its
# start). An accepted range is claimed in
# /proc/iomem as "bts persist" (61-persist checks that).
# bts-boot: own
# bts-machines: sw
# bts-cmdline: bts.persist=0x3ffe0000:128K
# bts-mem: 1024
# bts-live: no, needs a bts.persist= region on the kernel command line
. ./lib.sh
R=0x3ffe0000:128K
diag "$(dmesg | grep -m1 -i 'e820.*3ffe0000')"
diag "$(dmesg | grep -m1 'ACPI: DSDT')"
# covers: a BIOS-e820 reserved entry holds 0x3ffe0000-0x3fffffff
covers() {
	dmesg | sed -n 's/.*BIOS-e820: \[mem \(0x[0-9a-f]*\)-\(0x[0-9a-f]*\)\] reserved$/\1 \2/p' |
		while read -r a b; do
			[ $((a)) -le $((0x3ffe0000)) ] && [ $((b)) -ge $((0x3fffffff)) ] && echo yes
		done | grep -q yes
}
check "the firmware map reserves 0x3ffe0000-0x3fffffff" covers
check "the boot log says the range is refused, and why" \
	sh -c "dmesg | grep -q \"persist: refusing '$R'\""
check "... not that a panic's capture goes there" \
	sh -c "! dmesg | grep -q \"persist: a panic's capture goes to region\""
check "it is not claimed in /proc/iomem" sh -c "! grep -q 'bts persist' /proc/iomem"
check "no last boot is shown" test ! -e $B/last_boot
# the ACPI tables there are intact: signature and checksum (bytes sum to
# 0 mod 256), read from the memory itself
sum() { od -An -v -t u1 "$1" | awk '{ for (i = 1; i <= NF; i++) s += $i } END { print s % 256 }'; }
for t in DSDT FACP; do
	f=/sys/firmware/acpi/tables/$t
	is "the $t table is intact: its signature" "$(head -c 4 $f)" $t
	is "... and its checksum" "$(sum $f)" 0
done
is "the FACS is intact: its signature" "$(head -c 4 /sys/firmware/acpi/tables/FACS)" FACS
done_testing
