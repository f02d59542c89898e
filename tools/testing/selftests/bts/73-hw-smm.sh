#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# System Management Interrupts while the Intel source records. Linux sets
# DEBUGCTL.FREEZE_WHILE_SMM on every CPU (perf's freeze_on_smi, default
# 1), and bts's DEBUGCTL writes must keep it: then the CPU stores nothing
# while in SMM, and the history of the interrupted code goes on as if
# the SMI had not come. The emulated CPU stops the machine on a BTS
# store in SMM without that bit (the SDM does not say what silicon does:
# the DS area's address is a linear address, SMM runs without paging).
# The SMIs come from the APM control port, which QEMU's PIIX4 turns into
# an SMI of CPU 0 that SeaBIOS's handler takes and returns from (RSM).
# bts-boot: own
# bts-machines: hw hw-nopti-4
# bts-live: no, raises SMIs through the APM port
. ./lib.sh

FS=/sys/devices/cpu/freeze_on_smi
is "perf freezes BTS in SMM on every CPU (freeze_on_smi)" "$(cat $FS)" 1
N=200
echo 1 > $T/tracing_on
echo 1 > $T/options/bts_user
echo bts > $T/current_tracer
is "the Intel source is armed, user branches included" \
	"$(sed -n 2p $B/source) $(cat $T/options/bts_user)" "active: intel_bts 1"
echo > $T/trace
# the program dumps when its loop is done: CPU 0's history ends with it
taskset 1 $BIN/smi $N $B/dump > /tmp/smi.out 2>&1
rc=$?
diag "smi: $(cat /tmp/smi.out)"
set -- $(cat /tmp/smi.out)
is "smi ran on CPU 0 and dumped" "$rc $1 $3" "0 raise_smi smi_count"
fn=$2 before=$4 after=$5
[ $((after - before)) -ge $N ] 2> /dev/null &&
	ok "CPU 0 took the SMIs (MSR_SMI_COUNT $before -> $after)" ||
	not_ok "CPU 0 took the SMIs (MSR_SMI_COUNT '$before' -> '$after', want $N more)"
echo 0 > $T/tracing_on
bts_entries $T/trace | grep ' cpu=0 ' > /tmp/smm.txt
echo 1 > $T/tracing_on
echo 0 > $T/options/bts_user
echo nop > $T/current_tracer
diag "CPU 0: $(wc -l < /tmp/smm.txt) records"
# raise_smi() is mov, out, ret: its ret is at fn + 7. Each call into it
# (from the loop: a user address) is followed by its return before the
# next call, whatever interrupts came between (an SMI leaves no record;
# an interrupt taken at raise_smi's first instruction returns there from
# the kernel, which is no call). The history holds the newest
# 2730 records: the loop's 600 and the dump's way in, fewer of the loop
# when timer interrupts came during the SMIs (on a slow host, many: the
# guest clock runs while the firmware's handler is emulated).
ret=$(printf '0x%x' $((fn + 7)))
awk -v fn="$fn" -v ret="$ret" '
	$0 ~ (" 0x[0-9a-f]{1,12} -> " fn "( |$)") { if (open) bad++; open = 1; calls++; next }
	index($0, " " ret " -> 0x") { if (!open) orphan++; open = 0; rets++ }
	END { print calls + 0, rets + 0, bad + 0, orphan + 0, open + 0 }' /tmp/smm.txt > /tmp/smm.pairs
read calls rets bad orphan open < /tmp/smm.pairs
diag "in CPU 0's history: $calls calls into raise_smi() ($fn), $rets returns ($ret), $bad calls without a return, $orphan returns without a call, $open left open"
[ "$calls" -ge 20 ] && ok "the history holds the loop ($calls calls of $N)" ||
	not_ok "the history holds the loop ($calls calls of $N)"
# (the oldest record may be a return whose call is older still)
[ "$bad" = 0 ] && [ "$open" = 0 ] && [ "$orphan" -le 1 ] &&
	ok "every call into raise_smi() in it is followed by its return" ||
	not_ok "every call into raise_smi() in it is followed by its return ($bad calls without, $orphan returns without a call, $open open)"
# SeaBIOS's SMI handler runs in SMRAM (0xa0000) and the BIOS's code
# below 1 MiB: no record may begin or end there (kernel addresses are
# symbols, user ones above 4 MiB)
n=$(grep -E ' 0x[0-9a-f]{1,5} -> | -> 0x[0-9a-f]{1,5}( |$)' /tmp/smm.txt |
	grep -vE ' 0x0 -> | -> 0x0( |$)' | wc -l)
is "no record of SMM's code (below 1 MiB)" "$n" 0
done_testing
