#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The bts_dump event trigger and function command: a trigger on a
# function or an event the test runs a known number of times gives
# exactly that many dumps, each on entry to the function or right after
# the event; the :N count form, removal and instances work; nothing is
# written while bts is not armed; a trigger on sched_switch under load
# leaves the kernel log clean and the buffer readable.
. ./lib.sh
N=50
# On a lockdep+KASAN kernel the path from the call into the traced
# function through the ftrace probe to the freeze can be more than 50
# branches (measured on the BTS machine: none of 5 dumps of 50 reached).
dmesg | grep -q 'KernelAddressSanitizer initialized' && N=1000
log_mark
echo bts > $T/current_tracer
echo $N > $B/nr_records
echo > $T/trace

# dumps FILE: how many dumps (records at position 0)
dumps() { bts_entries "$1" | grep -c " 0/$N "; }
# last_into FILE: per dump, its newest record that enters bts_test_*
last_into() {
	awk -v N=$N '/ cpu=[0-9]+ [0-9]+\/[0-9]+ / {
		if (index($0, " 0/" N " ")) { if (n++) print last; last = "none" }
		if ($0 ~ /-> bts_test_/) last = $0
	} END { if (n) print last }' "$1"
}
if hw; then into='-> bts_test_target\+'; else into='-> bts_test_(outer|target)\+'; fi

# --- the function command ------------------------------------------------
# Windows of 2000 records here: an interrupt that lands between the call
# and the freeze (a timer tick is hundreds of branches, thousands on a
# debug kernel) must not push the call out of the window (it did, 1 of 5
# dumps of 50, on hw-nopti-4 in a loaded run).
N0=$N
N=2000
echo $N > $B/nr_records
echo 'bts_test_target:bts_dump' > $T/set_ftrace_filter
check "set_ftrace_filter lists it" grep -q '^bts_test_target:bts_dump:unlimited' $T/set_ftrace_filter
echo "call 5" > $B/test_fault
cat $T/trace > /tmp/f.txt
is "5 calls into the traced function: 5 dumps" "$(dumps /tmp/f.txt)" 5
is "... of $N records each" "$(bts_entries /tmp/f.txt | wc -l)" $((5 * N))
if hw && dmesg | grep -q 'KernelAddressSanitizer initialized'; then
	# measured there: 4 of 5 dumps of 1000 reached the call; a timer
	# interrupt, thousands of branches, lands in the others (10-tracer)
	skip "each dump ends in the call into the traced function" \
		"lockdep+KASAN kernel on the emulated BTS: the window is shorter than a timer interrupt"
else
	is "each dump ends in the call into the traced function" \
		"$(last_into /tmp/f.txt | grep -cE -e "$into")" 5
fi
echo '!bts_test_target:bts_dump' >> $T/set_ftrace_filter
echo 'bts_test_target:bts_dump:3' > $T/set_ftrace_filter
echo > $T/trace
echo "call 5" > $B/test_fault
is "with :3, 5 calls give 3 dumps" "$(dumps $T/trace)" 3
check "... and the listing says count=0" grep -q '^bts_test_target:bts_dump:count=0' $T/set_ftrace_filter
echo '!bts_test_target:bts_dump' >> $T/set_ftrace_filter
echo > $T/trace
echo "call 5" > $B/test_fault
is "removed: no dump" "$(dumps $T/trace)" 0
is "removed: not listed" "$(grep -c bts_dump $T/set_ftrace_filter)" 0
echo > $T/set_ftrace_filter
write_fails "a count that is not a number is refused" $T/set_ftrace_filter \
	'bts_test_target:bts_dump:x' "Invalid argument"
is "... and nothing was set" "$(grep -c bts_dump $T/set_ftrace_filter)" 0

N=$N0
echo $N > $B/nr_records

# --- what a dump adds to the history --------------------------------------
# Two calls into the traced function on CPU 1, two dumps of 2000 records:
# the second history holds the first one's newest records a few branches
# back (the first dump's thaw and return, the loop, the next call and the
# probe up to the freeze), not thousands: the CPU stays frozen while a
# dump writes its entries, so a trigger, in NMI context too, adds only
# that much (issue 22). An interrupt between the two dumps can push them
# apart: up to 5 tries.
# gap FILE: branches from the first dump's freeze to the second's
gap() {
	awk -v K=20 '
	/ cpu=1 [0-9]+\/[0-9]+ / {
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\/[0-9]+$/) break
		split($i, p, "/"); if (p[1] == 0) nr[++d] = p[2]
		if (d <= 2) rec[d, p[1]] = $(i + 1) " " $(i + 3)
	}
	END {
		if (d < 2 || nr[1] < K) { print "none"; exit }
		# the newest end before the last where the first dump ends
		for (e = nr[2] - 2; e >= K - 1; e--) {
			for (k = 0; k < K; k++)
				if (rec[2, e - k] != rec[1, nr[1] - 1 - k]) break
			if (k == K) { print nr[2] - 1 - e; exit }
		}
		print "none"
	}' "$1"
}
echo 2000 > $B/nr_records
echo 'bts_test_target:bts_dump' > $T/set_ftrace_filter
r=0 g=none
while [ $r -lt 5 ] && [ "$g" = none ]; do
	echo > $T/trace
	taskset 2 sh -c "echo 'call 2' > $B/test_fault"
	g=$(gap $T/trace)
	r=$((r + 1))
done
diag "branches from one trigger dump's freeze to the next one's: $g (try $r)"
[ "$g" != none ] && ok "a trigger dump does not record its own writes" ||
	not_ok "a trigger dump does not record its own writes (the first dump's end is not in the second's history)"
echo '!bts_test_target:bts_dump' >> $T/set_ftrace_filter
echo > $T/set_ftrace_filter
echo $N > $B/nr_records

# --- the event trigger ----------------------------------------------------
E=$T/events/sched/sched_process_fork
# forker TAG COUNT: a shell that forks COUNT times once /tmp/go.TAG exists
forker() {
	rm -f /tmp/go.$1
	(while [ ! -e /tmp/go.$1 ]; do :; done; i=0
	 while [ $i -lt $2 ]; do (:); i=$((i + 1)); done) &
	pid=$!
}
forker a 4
echo "bts_dump if parent_pid == $pid" > $E/trigger
echo "parent_pid == $pid" > $E/filter
echo 1 > $E/enable
echo > $T/trace
touch /tmp/go.a
wait $pid
cat $T/trace > /tmp/e.txt
check "the trigger file lists it" grep -q "^bts_dump:unlimited if parent_pid == $pid" $E/trigger
is "4 forks: 4 fork events" "$(grep -c 'sched_process_fork:' /tmp/e.txt)" 4
is "... and 4 dumps" "$(dumps /tmp/e.txt)" 4
is "each dump comes right after its event" \
	"$(grep -E "sched_process_fork:| 0/$N " /tmp/e.txt | awk '/ 0\// && prev !~ /sched_process_fork:/ { bad++ } { prev = $0 } END { print bad + 0 }')" 0
echo "!bts_dump if parent_pid == $pid" > $E/trigger
forker b 4
echo "bts_dump:2 if parent_pid == $pid" > $E/trigger
echo "parent_pid == $pid" > $E/filter
echo > $T/trace
touch /tmp/go.b
wait $pid
is "with :2, 4 forks give 2 dumps" "$(dumps $T/trace)" 2
echo "!bts_dump:2 if parent_pid == $pid" > $E/trigger
is "removed: the trigger file is empty of it" "$(grep -c "^bts_dump" $E/trigger)" 0
echo 0 > $E/enable
echo 0 > $E/filter
write_fails "a trigger with a bad count is refused" $E/trigger 'bts_dump:x' "Invalid argument"
is "... and nothing was set" "$(grep -c "^bts_dump" $E/trigger)" 0

# --- in an instance: the dumps go into the instance's buffer ----------------
I=$T/instances/trig
mkdir $I
forker c 3
echo "bts_dump if parent_pid == $pid" > $I/events/sched/sched_process_fork/trigger
echo > $T/trace
touch /tmp/go.c
wait $pid
is "in an instance: 3 forks, 3 dumps in the instance's buffer" "$(dumps $I/trace)" 3
is "... and none in the top level's" "$(dumps $T/trace)" 0
echo "!bts_dump if parent_pid == $pid" > $I/events/sched/sched_process_fork/trigger
rmdir $I

# --- not armed: nothing written ------------------------------------------------
echo 'bts_test_target:bts_dump' > $T/set_ftrace_filter
echo nop > $T/current_tracer
echo > $T/trace
echo "call 3" > $B/test_fault
is "with bts not armed the trigger writes nothing" "$(bts_entries $T/trace | wc -l)" 0
echo '!bts_test_target:bts_dump' >> $T/set_ftrace_filter
# A count is used up only by a dump that wrote: none while not armed
echo 'bts_test_target:bts_dump:3' > $T/set_ftrace_filter
echo "call 5" > $B/test_fault
check "not armed, 5 calls leave the function command's count at 3" \
	grep -q '^bts_test_target:bts_dump:count=3' $T/set_ftrace_filter
echo bts > $T/current_tracer
echo $N > $B/nr_records
echo > $T/trace
echo "call 5" > $B/test_fault
is "... armed again, 5 calls give its 3 dumps" "$(dumps $T/trace)" 3
echo '!bts_test_target:bts_dump' >> $T/set_ftrace_filter
echo > $T/set_ftrace_filter
echo nop > $T/current_tracer
forker d 3
echo "bts_dump:2 if parent_pid == $pid" > $E/trigger
echo "parent_pid == $pid" > $E/filter
echo 1 > $E/enable
touch /tmp/go.d
wait $pid
check "not armed, 3 events leave the event trigger's count at 2" \
	grep -q "^bts_dump:count=2 if parent_pid == $pid" $E/trigger
echo "!bts_dump:2 if parent_pid == $pid" > $E/trigger
echo bts > $T/current_tracer
echo $N > $B/nr_records
forker e 4
echo "bts_dump:2 if parent_pid == $pid" > $E/trigger
echo "parent_pid == $pid" > $E/filter
echo > $T/trace
touch /tmp/go.e
wait $pid
is "... armed, 4 events give 2 dumps" "$(dumps $T/trace)" 2
echo "!bts_dump:2 if parent_pid == $pid" > $E/trigger
echo 0 > $E/enable
echo 0 > $E/filter

# --- under load: sched_switch, busy CPUs, 20 s ---------------------------------
echo 'bts_dump' > $T/events/sched/sched_switch/trigger
for c in $(seq 0 $(($(nproc) - 1))); do
	taskset -c $c sh -c 'end=$(($(date +%s) + 20)); while [ $(date +%s) -lt $end ]; do (:); done' &
done
wait
echo '!bts_dump' > $T/events/sched/sched_switch/trigger
n=$(bts_entries $T/trace | wc -l)
diag "$n records from sched_switch dumps in the buffer"
[ "$n" -gt 0 ] && ok "under load: the buffer is readable and holds dumps" ||
	not_ok "under load: the buffer is readable and holds dumps"
check "no warning in the kernel log" sh -c "! (dmesg | tail -n +$((_log_lines + 1)) | grep -E 'WARNING|BUG:|lockup|stall')"
echo nop > $T/current_tracer
done_testing
