#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Stream mode on the Intel source, short: the counts of a small
# workload's stream, for the -singlestep machine (hw-ss), where an
# interrupt lands between any two instructions and the BTS interrupt one
# instruction after the record that crosses the threshold. 16-stream
# checks every record on the plain machines; under -singlestep every
# process started while streaming takes minutes, so this reads only
# bts/stream's counts, with shell builtins: every record of the run
# streamed or counted, none lost by the hardware (source_lost: a BTS
# interrupt that came too late or never), and with the CPU-time budget
# at 5% every loss a pause. (hw runs it too, so that it is known to
# pass where 16-stream checks every record.) The NMI code's own message
# about a slow handler, printed in NMI context, must not cost records.
# bts-boot: own
# bts-machines: hw hw-ss
# bts-timeout: 300
. ./lib.sh
P=$B/stream_budget
budget0=$(cat $P)
# Under -singlestep every process started while bts streams costs its
# exec's hundreds of thousands of branches, all streamed (one run of the
# workload was 545,000 records of CPU 1, and minutes): while streaming
# this test starts only the workloads and reads with shell builtins;
# what needs a process (the kernel log) is read after the tracer stops.
# nmis: CPU 1's NMI count, into $nmi
nmis() {
	local n c0 c1 rest
	while read n c0 c1 rest; do
		if [ "$n" = "NMI:" ]; then
			nmi=$c1
			return
		fi
	done < /proc/interrupts
}
# run N: the workload on CPU 1; sets d_rec d_lost d_src d_paused, CPU 1's
# counts of the run, and st, its last line
run() {
	local n=$1
	stream_counts 1
	set -- $st
	r0=$1 l0=$3 s0=$5 p0=$7
	taskset 2 $BIN/workload sys "$n" > /dev/null
	stream_counts 1
	set -- $st
	d_rec=$(($1 - r0)) d_lost=$(($3 - l0)) d_src=$(($5 - s0)) d_paused=$(($7 - p0))
}
# The kernel's "NMI handler took too long" message is formatted in NMI
# context, after the handler it names: some 1500 branches, more than the
# 341 records of room above the late threshold (an NMI that drains). With
# nmi_longest_ns 0 every handler's slowest run so far prints it, and
# bts's first NMI handler is registered anew at each arming: the first
# BTS interrupt after arming prints it before perf's handler drains, and
# others after. BTS must be off from the NMI's first handler to its
# last, else the buffer fills (on silicon an SMI inside a handler is
# enough to make the NMI code print).
NL=/sys/kernel/debug/x86/nmi_longest_ns
longest0=$(cat $NL)
log_mark
echo 0 > $NL
echo 100 > $P
echo stream > $B/mode
echo bts > $T/current_tracer
nmis
nmi0=$nmi
run 200
nmis
echo "$longest0" > $NL
lost=0
while read c r w l g s rest; do
	[ "$c" = "#" ] || lost=$((lost + s))
done < $B/stream
diag "budget 100%, nmi_longest_ns 0: CPU 1 streamed $d_rec records, lost $d_lost, $((nmi - nmi0)) NMIs; bts/stream: $st; source_lost on all CPUs since arming: $lost"
[ "$d_rec" -gt 2730 ] && ok "CPU 1 streamed more than a buffer ($d_rec records)" ||
	not_ok "CPU 1 streamed more than a buffer ($d_rec records)"
is "... none lost" "$d_lost" 0
is "... none lost by the hardware (source_lost)" "$d_src" 0
is "... and no CPU lost a record in the hardware since arming (source_lost)" "$lost" 0
[ $((nmi - nmi0)) -gt 0 ] && ok "BTS interrupts came" || not_ok "BTS interrupts came"
# At 5% a drain leaves CPU 1 paused for some 19 times as long as it
# took, and a pause is counted when it ends: under -singlestep (a drain
# takes 0.4 s there) that is longer than the workload. Run it again
# until a pause has ended, 60 times at most.
echo 5 > $P
stream_counts 1
set -- $st
l1=$3 s1=$5 p1=$7
i=0
while [ $i -lt 60 ]; do
	run 50
	stream_counts 1
	set -- $st
	[ $(($7 - p1)) -gt 0 ] && break
	sleep 1
	i=$((i + 1))
done
d_lost=$(($3 - l1)) d_src=$(($5 - s1)) d_paused=$(($7 - p1))
diag "budget 5%: $((i + 1)) runs, CPU 1 lost $d_lost, paused $d_paused times; bts/stream: $st"
[ "$d_paused" -gt 0 ] && ok "at 5% CPU 1 paused ($d_paused times)" ||
	not_ok "at 5% CPU 1 paused (bts/stream: $st)"
is "... none lost by the hardware (source_lost)" "$d_src" 0
is "... nothing lost but its pauses" "$d_lost" "$d_paused"
stream_counts 1
set -- $st
[ "$1" = "$(($2 + $3))" ] && ok "bts/stream: records = written + lost ($1 = $2 + $3)" ||
	not_ok "bts/stream: records = written + lost ($st)"
echo nop > $T/current_tracer
echo ring > $B/mode
echo "$budget0" > $P
check "the kernel log says it streamed" sh -c "dmesg | tail -n +$((_log_lines + 1)) | grep 'bts: recording with source' | tail -1 | grep -q 'source intel_bts (.*, streaming)'"
long=$(log_since | grep -c 'NMI handler (bts_nmi_handler) took too long')
diag "nmi_longest_ns 0: $long 'took too long' messages of bts's handler"
[ "$long" -gt 0 ] && ok "bts's NMI handler printed that it took too long ($long times)" ||
	not_ok "bts's NMI handler printed that it took too long"
done_testing
