#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# set_ftrace_pid for bts: with pids in it, each CPU records only while a
# chosen task runs there (Documentation/trace/bts.rst, "Chosen tasks").
# Two busy processes pinned to CPU 1, one chosen (getppid, getuid, getgid
# in rounds), one not (uname only):
#  - stream mode: CPU 1 streams the chosen one's calls and never uname;
#    CPU 0, where no chosen task runs, streams nothing;
#  - ring mode: CPU 1's dumped history is the chosen task's system calls,
#    in order, and no uname; the records files say a filter was on, and
#    CPU 0's that the filter held it and nothing was recorded;
#  - exit and pid reuse: after the chosen task exits, a task that gets its
#    pid is not recorded, until the pid is written anew;
#  - function-fork: a chosen parent's child is recorded with it, not
#    without it;
#  - migration: a chosen task moved to CPU 0 is recorded there, and CPU 1
#    records nothing more;
#  - CPU hotplug: a CPU that comes back online records nothing until a
#    chosen task runs there;
#  - an instance that owns bts: its set_ftrace_notrace_pid leaves a task
#    out, the top level's lists do not count; no warning.
# Bad writes to set_ftrace_pid change nothing.
# bts-timeout: 1200
. ./lib.sh
P=$T/set_ftrace_pid
M=$B/mode
ncpu=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)
[ -w $P ] || skip_all "no set_ftrace_pid (a kernel without the function tracer)"
[ "$ncpu" -ge 2 ] || skip_all "needs two CPUs"
SYS='(__x64_sys|__do_sys)_'
into() { grep -cE -- "-> $SYS$1\+0x0/" "$2"; }
# flags of a dump header (bytes 28-31)
hflags() { od -An -tu4 -j28 -N4 "$1" | tr -d ' '; }
hcount() { od -An -tu4 -j20 -N4 "$1" | tr -d ' '; }
# dump_calls CPU TRACE MAX: dump bts into TRACE (the trace file of the
# array that owns it) until CPU's history there has a call into getppid,
# at most MAX dumps; prints the count of the last. Under the debug kernel
# one system call takes hundreds of records (lockdep, KASAN), so one
# history may hold none; a chosen task that keeps running shows in one of
# the next. A CPU the filter holds keeps its history: MAX dumps of a task
# that is not recorded all count 0.
dump_calls() {
	local i=0 n=0
	while [ $i -lt $3 ]; do
		echo > $2
		echo 1 > $B/dump
		n=$(bts_entries $2 | grep " cpu=$1 " | grep -cE -- "-> ${SYS}getppid\+0x0/")
		[ "$n" -gt 0 ] && break
		i=$((i + 1))
	done
	echo $n
}
# same_records CPU DIR: CPU's records are those saved in DIR (records_save)
same_records() {
	[ "$(tail -c +193 $B/per_cpu/cpu$1/records | md5sum)" = \
	  "$(tail -c +193 "$2/records-cpu$1" | md5sum)" ]
}
log_mark
# the test itself (this shell, its greps and dumps) runs on CPU 0: where
# no list leaves it out (part 7) it is recorded, and on CPU 1 it would
# push the chosen task's calls out of the history
taskset -p 1 $$ > /dev/null
kmemleak_clear
echo nop > $T/current_tracer
echo > $P
bsize0=$(cut -d' ' -f1 $T/buffer_size_kb)
# Some 40,000 entries per CPU: many rounds of the chosen task's calls,
# and a trace that reads in seconds. (CPU 1 streams at full speed: with
# 16 MiB, CPU 1's 320,000 entries took 250 s to read under TCG.)
echo 2048 > $T/buffer_size_kb
budget=$B/stream_budget
budget0=$(cat $budget 2> /dev/null)
# (every record counts here: the Intel source's CPU-time budget would cut
# pauses into the stream; a debug kernel needs it, as in 16-stream)
if hw && ! dmesg | grep -q 'KernelAddressSanitizer initialized'; then
	echo 100 > $budget
fi

taskset 2 $BIN/pidload other 0 > /dev/null &
other=$!
taskset 2 $BIN/pidload chosen 0 > /dev/null &
chosen=$!
echo $chosen > $P
is "set_ftrace_pid holds the chosen task" "$(cat $P)" "$chosen"

# 1. stream mode
echo stream > $M
echo bts > $T/current_tracer
check "the log says only the chosen tasks are recorded" \
	sh -c "dmesg | tail -n +$((_log_lines + 1)) | grep -q 'bts: recording only the tasks set_ftrace_pid chooses'"
# A bad append fails (ftrace's error) and changes nothing: neither the
# list nor bts, which re-arms only when a write changed it. (A write with
# ">" empties the file when it opens it, as for the function tracer.)
armings=$(dmesg | grep -c 'bts: recording with source')
out=$( (echo x >> $P) 2>&1)
case "$?:$out" in
0:*) not_ok "appending a non-number to set_ftrace_pid fails (it succeeded)" ;;
*"Invalid argument"*) ok "appending a non-number to set_ftrace_pid fails" ;;
*) not_ok "appending a non-number to set_ftrace_pid fails (got '$out')" ;;
esac
is "... and the list is as it was" "$(cat $P)" "$chosen"
is "... and bts was not re-armed" "$(dmesg | grep -c 'bts: recording with source')" "$armings"
# until CPU 1 has streamed 5000 records since the trace was cleared (the
# count is since bts started: the checks above may already have taken
# it past 5000, which left the trace all but empty on a slow machine),
# read with shell builtins (a process started here is not chosen: it
# adds nothing, but costs time); then until both calls are in the trace
# (under the debug kernel the Intel source's budget leaves gaps: 5000
# records may hold neither)
stream_counts 1
set -- $st
rec1=$1
echo > $T/trace
i=0
while [ $i -lt 3000 ]; do
	stream_counts 1
	set -- $st
	[ "$1" -ge $((rec1 + 5000)) ] && [ $((i % 20)) = 0 ] &&
		grep ' cpu=1 [0-9]*/0 ' $T/trace > /tmp/p1-cpu1.txt &&
		[ "$(into getppid /tmp/p1-cpu1.txt)" -gt 0 ] &&
		[ "$(into getgid /tmp/p1-cpu1.txt)" -gt 0 ] && break
	sleep 0.1
	i=$((i + 1))
done
echo 0 > $T/tracing_on
stream_counts 1
diag "stream: CPU 1 records written lost gaps source_lost: $st (at the trace's clear: $rec1 records; $i polls)"
stream_counts 0
set -- $st
rec0=$1
cat $T/trace > /tmp/p1.txt
echo 1 > $T/tracing_on
grep ' cpu=1 [0-9]*/0 ' /tmp/p1.txt > /tmp/p1-cpu1.txt
diag "stream: CPU 1 $(wc -l < /tmp/p1-cpu1.txt) entries, $(into getppid /tmp/p1-cpu1.txt) into getppid, CPU 0 $rec0 records"
[ "$(into getppid /tmp/p1-cpu1.txt)" -gt 0 ] && [ "$(into getgid /tmp/p1-cpu1.txt)" -gt 0 ] &&
	ok "stream: CPU 1 streams the chosen task's system calls" ||
	not_ok "stream: CPU 1 streams the chosen task's system calls"
is "stream: none of the other task's (uname) on any CPU" "$(into newuname /tmp/p1.txt)" 0
is "stream: CPU 0, where no chosen task runs, streamed nothing" "$rec0" 0
is "stream: ... and its trace has no record" "$(grep -c ' cpu=0 [0-9]*/0 ' /tmp/p1.txt)" 0

# 2. ring mode: a dump of CPU 1 is the chosen task's calls, in order
echo nop > $T/current_tracer
echo ring > $M
echo 2730 > $B/nr_records
echo bts > $T/current_tracer
# until CPU 1's history is full (read through its records file)
i=0
while [ "$(hcount $B/per_cpu/cpu1/records)" -lt 2730 ] && [ $i -lt 3000 ]; do
	sleep 0.1
	i=$((i + 1))
done
# until a dump's history holds three calls (one does on the test kernel;
# under the debug kernel a system call takes hundreds of records), at most
# 20 dumps; the order is checked in each
tries=0
while :; do
	echo > $T/trace
	echo 1 > $B/dump
	echo 0 > $T/tracing_on
	cat $T/trace > /tmp/p2.txt
	echo 1 > $T/tracing_on
	bts_entries /tmp/p2.txt | grep ' cpu=1 ' > /tmp/p2-cpu1.txt
	# the order of the calls: each one's successor in getppid, getuid,
	# getgid (an interrupt that returns to a function's first byte is a
	# branch there too: one call may show twice in a row)
	grep -oE -- "-> $SYS(getppid|getuid|getgid)\+0x0/" /tmp/p2-cpu1.txt |
		sed -E 's/.*_(get[a-z]+)\+.*/\1/' | uniq > /tmp/p2-calls.txt
	awk 'BEGIN { nx["getppid"] = "getuid"; nx["getuid"] = "getgid"; nx["getgid"] = "getppid" }
	     NR > 1 && $1 != nx[p] { bad++ } { p = $1; n++ } END { print n + 0, bad + 0 }' \
		/tmp/p2-calls.txt > /tmp/p2.chk
	read calls bad < /tmp/p2.chk
	tries=$((tries + 1))
	[ "$bad" != 0 ] || [ "$calls" -ge 3 ] || [ $tries -ge 20 ] && break
done
diag "ring: CPU 1 $(wc -l < /tmp/p2-cpu1.txt) records, $calls calls of the chosen task, $bad out of order"
[ "$calls" -ge 3 ] && [ "$bad" = 0 ] &&
	ok "ring: CPU 1's history holds the chosen task's system calls, in order ($calls)" ||
	not_ok "ring: CPU 1's history holds the chosen task's system calls, in order ($calls, $bad out of order)"
is "ring: ... and none of the other task's (uname)" "$(into newuname /tmp/p2-cpu1.txt)" 0
check "ring: the dump's bts_history line of CPU 1 says a pid filter was on" \
	grep -qE 'bts_history cpu:1 .* build_id:[0-9a-f]* filter:pid(,held)?$' /tmp/p2.txt
cat $B/per_cpu/cpu1/records > /tmp/p2-cpu1.bin
cat $B/per_cpu/cpu0/records > /tmp/p2-cpu0.bin
f1=$(hflags /tmp/p2-cpu1.bin)
f0=$(hflags /tmp/p2-cpu0.bin)
diag "records headers: CPU 0 flags $f0, count $(hcount /tmp/p2-cpu0.bin); CPU 1 flags $f1"
is "records: CPU 1's header says a pid filter was on (flag 16)" $((f1 & 16)) 16
is "records: CPU 0's says the filter held it (32) and it recorded nothing (8)" $((f0 & 56)) 56
is "records: CPU 0 holds no record" "$(hcount /tmp/p2-cpu0.bin)" 0
if command -v bts-dump > /dev/null; then
	bts-dump -s /proc/kallsyms /tmp/p2-cpu0.bin > /tmp/p2-cpu0.txt 2>&1
	check "bts-dump says the filter held CPU 0" grep -q 'was not chosen' /tmp/p2-cpu0.txt
	bts-dump -s /proc/kallsyms /tmp/p2-cpu1.bin > /tmp/p2-cpu1.dec 2>&1
	check "bts-dump says a pid filter was on" grep -q 'pid filter' /tmp/p2-cpu1.dec
fi

# 3. the chosen task exits; a task that gets its pid is not recorded
kill $chosen
wait $chosen 2> /dev/null
mkdir -p /tmp/p3
records_save /tmp/p3
taskset 2 $BIN/pidload reuse $chosen 3000 > /tmp/p3.out 2>&1
diag "reuse: $(head -1 /tmp/p3.out | tr '\n' ' ')"
is "pid reuse: a new task got the exited chosen task's pid" "$(head -1 /tmp/p3.out)" "$chosen"
is "pid reuse: ... and ran its 3000 rounds" "$(tail -1 /tmp/p3.out)" done
is "pid reuse: no CPU recorded anything meanwhile" "$(records_unchanged /tmp/p3)" "$ncpu"
# written anew, the pid names the task that has it now
echo $chosen > $P
taskset 2 $BIN/pidload reuse $chosen 0 > /dev/null &
reuse=$!
i=0
while [ "$(hcount $B/per_cpu/cpu1/records)" -lt 100 ] && [ $i -lt 3000 ]; do
	sleep 0.1
	i=$((i + 1))
done
n=$(dump_calls 1 $T/trace 50)
# (the parent, and its child with the pid)
kill $reuse $chosen
wait $reuse 2> /dev/null
[ "$n" -gt 0 ] &&
	ok "pid reuse: written anew, the pid's new task is recorded" ||
	not_ok "pid reuse: written anew, the pid's new task is recorded"

# 4. function-fork: a chosen parent's child (which alone calls getppid)
for fork in 0 1; do
	echo $fork > $T/options/function-fork
	# (the child makes its calls until its parent dies)
	taskset 2 $BIN/pidload -w fork 0 > /tmp/p4.out &
	parent=$!
	i=0
	while [ ! -s /tmp/p4.out ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	echo $parent > $P
	kill -USR1 $parent
	# until the child has run (user and system time in its stat)
	i=0
	child=
	while [ $i -lt 3000 ]; do
		child=$(sed -n 2p /tmp/p4.out)
		t=$([ -n "$child" ] && cut -d' ' -f14,15 /proc/$child/stat 2> /dev/null)
		[ -n "$t" ] && [ "$t" != "0 0" ] && break
		sleep 0.1
		i=$((i + 1))
	done
	n=$(dump_calls 1 $T/trace 20)
	kill $parent
	wait $parent 2> /dev/null
	diag "function-fork $fork: $n calls into getppid on CPU 1"
	if [ $fork = 1 ]; then
		[ "$n" -gt 0 ] && ok "function-fork 1: the chosen parent's child is recorded" ||
			not_ok "function-fork 1: the chosen parent's child is recorded"
	else
		is "function-fork 0: the chosen parent's child is not recorded" "$n" 0
	fi
done
echo 0 > $T/options/function-fork

# 5. migration: CPU 1 stops at the chosen task's switch out, CPU 0 records it
taskset 2 $BIN/pidload chosen 0 > /dev/null &
chosen=$!
echo $chosen > $P
taskset -p 1 $chosen > /dev/null
mkdir -p /tmp/p5
records_save /tmp/p5
# until CPU 0 has recorded the chosen task there
i=0
while same_records 0 /tmp/p5 && [ $i -lt 3000 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ "$(dump_calls 0 $T/trace 50)" -gt 0 ] &&
	ok "migration: CPU 0 records the chosen task moved there" ||
	not_ok "migration: CPU 0 records the chosen task moved there"
check "migration: CPU 1's history did not change after it left" same_records 1 /tmp/p5

# 6. CPU 1 offline and online: it records nothing until a chosen task
# runs there (the chosen task stays on CPU 0)
echo 0 > /sys/devices/system/cpu/cpu1/online
echo 1 > /sys/devices/system/cpu/cpu1/online
mkdir -p /tmp/p6
records_save /tmp/p6
i=0
while same_records 0 /tmp/p6 && [ $i -lt 3000 ]; do
	sleep 0.1
	i=$((i + 1))
done
! same_records 0 /tmp/p6 && ok "hotplug: CPU 0 records the chosen task on" ||
	not_ok "hotplug: CPU 0 records the chosen task on"
check "hotplug: CPU 1, back online, recorded nothing meanwhile" same_records 1 /tmp/p6
kill $chosen $other
wait 2> /dev/null

# empty again: every task is recorded, as before
echo > $P
echo 1 > $B/dump
is "set_ftrace_pid emptied: CPU 0's records file says no filter" $(($(hflags $B/per_cpu/cpu0/records) & 48)) 0
echo nop > $T/current_tracer

# 7. an instance owns bts: its own lists count, set_ftrace_notrace_pid
# leaves a task out (the top level's list, naming that task, does not)
I=$T/instances/pids
mkdir $I
taskset 2 $BIN/pidload other 0 > /dev/null &
other=$!
taskset 2 $BIN/pidload chosen 0 > /dev/null &
chosen=$!
echo $other > $P
echo $other > $I/set_ftrace_notrace_pid
armings=$(dmesg | grep -c 'bts: recording only the tasks')
echo bts > $I/current_tracer
is "instance: the log says only chosen tasks are recorded" \
	"$(dmesg | grep -c 'bts: recording only the tasks')" $((armings + 1))
echo > $P
is "instance: the top level's set_ftrace_pid does not re-arm it" \
	"$(dmesg | grep -c 'bts: recording only the tasks')" $((armings + 1))
i=0
while [ "$(hcount $B/per_cpu/cpu1/records)" -lt 2730 ] && [ $i -lt 3000 ]; do
	sleep 0.1
	i=$((i + 1))
done
dump_calls 1 $I/trace 50 > /dev/null
bts_entries $I/trace | grep ' cpu=1 ' > /tmp/p7-cpu1.txt
n=$(into getppid /tmp/p7-cpu1.txt)
diag "instance: CPU 1 $(wc -l < /tmp/p7-cpu1.txt) records, $n calls into getppid"
[ "$n" -gt 0 ] &&
	ok "instance: CPU 1 records the task set_ftrace_notrace_pid does not name" ||
	not_ok "instance: CPU 1 records the task set_ftrace_notrace_pid does not name"
is "instance: ... and none of the one it names (uname)" "$(into newuname /tmp/p7-cpu1.txt)" 0
is "instance: CPU 1's records file says a pid filter was on" $(($(hflags $B/per_cpu/cpu1/records) & 16)) 16
kill $chosen $other
wait 2> /dev/null
echo nop > $I/current_tracer
echo > $I/set_ftrace_notrace_pid
rmdir $I
[ -n "$budget0" ] && echo "$budget0" > $budget
echo "$bsize0" > $T/buffer_size_kb
check "no warning in the kernel log" sh -c "! (dmesg | tail -n +$((_log_lines + 1)) | grep -E 'WARNING|BUG:|bts: .*fail')"
kmemleak_check "kmemleak finds no object leaked by bts"
done_testing
