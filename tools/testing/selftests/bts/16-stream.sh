#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Stream mode (bts/mode, the bts_stream option): records flow into the
# ring buffer as they are taken (the software source) or from the BTS
# interrupt (the Intel source), and nothing is lost silently.
#  - bad writes to bts/mode fail and change nothing;
#  - a known workload pinned to CPU 1 (N getppid() calls) gives exactly N
#    streamed call edges into getppid(), in pos order, without loss,
#    while the ring buffer is large enough;
#  - a small ring buffer without overwrite, read by trace_pipe while the
#    workload runs: records are refused, every jump in a CPU's pos is
#    preceded by an ftrace:bts_gap entry with exactly that count, and
#    bts/stream's counts add up (records = written + lost), read after
#    the stream stopped and while CPU 1 writes;
#  - trace-cmd record -p bts -O bts_stream records the stream, and
#    bts-dump --callgraph on it has the workload's call edge.
#  - the Intel source's CPU-time budget (bts/stream_budget) pauses a CPU
#    over it, and says so.
# bts-boot: own
# bts-timeout: 1500
# bts-machines: sw hw hw-cpl-target
. ./lib.sh
M=$B/mode
N=300
is "bts/mode starts as ring" "$(cat $M)" "[ring] stream"
write_fails "bts/mode refuses an unknown mode" $M bogus "Invalid argument"
is "... and stays ring" "$(cat $M)" "[ring] stream"
is "bts/stream has a line per possible CPU" \
	"$(grep -vc '^#' $B/stream)" "$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)"

src=sw
hw && src=intel_bts

# Under TCG a vCPU that the emulator preempts makes whatever NMI handler
# it was in "take too long"; the kernel's message about it is formatted
# in NMI context (some 1500 branches). BTS is off from the NMI's first
# handler to its last (19-hw-stream-short checks that); kept out of the
# way here all the same, so that the counts below are the workload's.
echo 10000000000 > /sys/kernel/debug/x86/nmi_longest_ns

# 1. every edge of a known workload, in order, nothing lost: a buffer
# that holds them all (the debug kernel makes some 300 calls per system
# call: 4 MiB per CPU held only the newest 80,000 entries there)
echo 16384 > $T/buffer_size_kb
# The CPU-time budget (part 4) would cut gaps into the stream: off here,
# where every edge is counted. Not on a debug kernel (lockdep, KASAN) on
# the emulated CPU: there a drain takes milliseconds against a tenth of
# one for the branches it drains, and without the budget the machine
# crawled (bts.rst). There perf's share for its interrupts, 25%, and the
# exact counts only when CPU 1 did not pause.
P=$B/stream_budget
budget_boot=$(cat $P 2> /dev/null)
debug=
dmesg | grep -q 'KernelAddressSanitizer initialized' && debug=1
if hw; then
	if [ -n "$debug" ]; then echo 25 > $P; else echo 100 > $P; fi
fi
check "bts/mode takes stream before arming" sh -c "echo stream > $M"
is "... and says so" "$(cat $M)" "ring [stream]"
is "... as the bts_stream option does" "$(cat $T/options/bts_stream)" 1
log_mark
nmi0=$(awk '$1 == "NMI:" { print $3 }' /proc/interrupts)
echo bts > $T/current_tracer
check "the boot log says it streams" sh -c "dmesg | grep 'bts: recording with source' | tail -1 | grep -q 'source $src (.*, streaming)'"
# (clearing the buffer refuses records while it resets: counted as lost)
echo > $T/trace
# CPU 1's stream counts, read with a shell builtin: a process started
# around the workload would add records on CPU 1 (and, with the Intel
# source, which records every kernel branch, soon overwrite the
# workload's in the ring buffer)
stream_counts 1
set -- $st
lost0=$3 paused0=${7:-0}
taskset 2 $BIN/workload sys $N > /dev/null
stream_counts 1
# (tracing_on 0 stops the ring buffer a moment before bts pauses: what
# comes between is refused, and counted)
echo 0 > $T/tracing_on
set -- $st
lost1=$3 paused1=${7:-0}
exact=
[ "$paused1" != "$paused0" ] &&
	exact="CPU 1 paused $((paused1 - paused0)) times for its budget ($(cat $P)%, a debug kernel)"
set -- $(grep '^1 ' $B/stream)
if hw; then
	# paused: no more BTS interrupts. The first threshold leaves 2048
	# of the 2730 records free, so a round drains at least 682 records
	# and at most the whole buffer; a round whose drain waits for
	# interrupts to come on past the late threshold (341 records below
	# the end) takes a second NMI. So r rounds, N/2730 <= r <= N/682 + 1,
	# took r to 2r NMIs since arming (and a few others)
	nmis=$(($(awk '$1 == "NMI:" { print $3 }' /proc/interrupts) - nmi0))
	diag "CPU 1: $2 records streamed, $nmis NMIs"
	[ "$nmis" -gt 0 ] && [ $(((nmis - 5) * 341)) -le "$2" ] && [ $((nmis * 2730)) -ge "$2" ] &&
		ok "CPU 1: one BTS interrupt per 682 to 2730 records, at most two NMIs each ($nmis NMIs for $2)" ||
		not_ok "CPU 1: one BTS interrupt per 682 to 2730 records, at most two NMIs each ($nmis NMIs for $2)"
	is "CPU 1: no interrupt came too late (source_lost)" "$6" 0
fi
# with tracing on, reading trace races the writers (as with the function
# tracer): stop first, or read trace_pipe
cat $T/trace > /tmp/s1.txt
echo 1 > $T/tracing_on
grep ' cpu=1 [0-9]*/0 ' /tmp/s1.txt > /tmp/s1-cpu1.txt
diag "CPU 1: $(wc -l < /tmp/s1-cpu1.txt) stream entries; $(grep -c 'bts_gap' /tmp/s1.txt) gap entries; stream: $(grep '^1 ' $B/stream)"
if [ -n "$exact" ]; then
	skip "CPU 1 streamed exactly $N call edges into getppid()" "$exact"
	skip "its pos runs on without a jump" "$exact"
else
	# (from the system call dispatcher: an interrupt that returns to the
	# function's first byte is a branch there too)
	n=$(grep -cE -- '(x64_sys_call|do_syscall_64)\+0x[0-9a-f]+/0x[0-9a-f]+ -> (__x64_sys|__do_sys)_getppid\+0x0/.* stream$' /tmp/s1-cpu1.txt)
	is "CPU 1 streamed exactly $N call edges into getppid()" "$n" "$N"
	# from the workload's first getppid() on, pos runs without a jump
	jumps=$(sed -n '/getppid/,$p' /tmp/s1-cpu1.txt | sed -E 's/.* cpu=1 ([0-9]+)\/0 .*/\1/' |
		awk 'NR > 1 && $1 != p + 1 { j++ } { p = $1 } END { print j + 0 }')
	is "its pos runs on without a jump" "$jumps" 0
fi
is "bts/stream: CPU 1 lost nothing while the workload ran (but for its pauses)" \
	"$((lost1 - lost0))" "$((paused1 - paused0))"
[ "$2" -gt 0 ] && [ "$2" = "$(($3 + $4))" ] && ok "bts/stream: records = written + lost ($2 = $3 + $4)" ||
	not_ok "bts/stream: records = written + lost ($*)"
# ... also read while CPU 1 writes: each line is one moment's counts,
# wherever the read falls in CPU 1's writing of a record or of an NMI's
# drain of thousands (read with shell builtins, on CPU 0)
taskset 2 $BIN/workload sys 1000000 > /dev/null &
wl=$!
i=0 bad=0 badl=
while [ $i -lt 300 ]; do
	while read c r w l rest; do
		[ "$c" = 1 ] && [ "$r" != "$((w + l))" ] && bad=$((bad + 1)) badl="$c $r $w $l $rest"
	done < $B/stream
	i=$((i + 1))
done
kill $wl 2> /dev/null
wait $wl 2> /dev/null
is "bts/stream read 300 times while CPU 1 streams: records = written + lost in each${badl:+ (last bad: $badl)}" "$bad" 0
echo 1 > $B/dump
echo 0 > $T/tracing_on
check "a dump still works in stream mode" grep -q ' cpu=0 [0-9]*/[1-9][0-9]* ' $T/trace
echo 1 > $T/tracing_on
# CPU 1 goes offline and comes back while streaming: it streams again,
# from where its stream was (pos goes on)
set -- $(grep '^1 ' $B/stream)
rec0=$2 paused0=$8
echo 0 > /sys/devices/system/cpu/cpu1/online
echo 1 > /sys/devices/system/cpu/cpu1/online
echo > $T/trace
taskset 2 $BIN/workload sys $N > /dev/null
echo 0 > $T/tracing_on
set -- $(grep '^1 ' $B/stream)
exact=
[ "$8" != "$paused0" ] &&
	exact="CPU 1 paused $(($8 - paused0)) times for its budget ($(cat $P)%, a debug kernel)"
[ -n "$exact" ] || n=$(grep ' cpu=1 [0-9]*/0 ' $T/trace |
	grep -cE -- '(x64_sys_call|do_syscall_64)\+0x[0-9a-f]+/0x[0-9a-f]+ -> (__x64_sys|__do_sys)_getppid\+0x0/.* stream$')
echo 1 > $T/tracing_on
diag "CPU 1 after offline and online: $*"
if [ -n "$exact" ]; then
	skip "CPU 1 offline and online again: it streams the workload's $N calls" "$exact"
else
	is "CPU 1 offline and online again: it streams the workload's $N calls" "$n" "$N"
fi
[ "$2" -gt "$rec0" ] && [ "$6" = 0 ] && ok "... its stream goes on ($rec0 -> $2 records), no source loss" ||
	not_ok "... its stream goes on ($rec0 -> $2 records, source_lost $6)"

# 2. a small buffer without overwrite, drained by a reader: losses
# are counted and marked where they happened
echo nop > $T/current_tracer
echo 0 > $T/options/overwrite
echo 8 > $T/buffer_size_kb
echo bts > $T/current_tracer
echo > $T/trace
cat $T/trace_pipe > /tmp/s2.txt &
reader=$!
# (until CPU 1 has had a few gaps: the Intel source writes its records
# in batches from NMI, and the reader may take a while to free room)
for i in 1 2 3 4 5 6 7 8 9 10; do
	taskset 2 $BIN/workload sys 2000 > /dev/null
	while read c r w l g rest; do [ "$c" = 1 ] && gaps=$g; done < $B/stream
	[ "$gaps" -ge 3 ] && break
done
echo 0 > $T/tracing_on
# until the reader has consumed what the buffer holds (trace, which does
# not consume, shows no entry): no fixed wait; the limit bounds a hang
i=0
while [ "$(grep -cv '^#' $T/trace)" -gt 0 ] && [ $i -lt 2400 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill $reader
wait $reader 2> /dev/null
stream=$(cat $B/stream)
echo 1 > $T/tracing_on
set -- $(echo "$stream" | grep '^1 ')
diag "CPU 1: $*; gap entries read: $(grep -c 'bts_gap cpu:1 ' /tmp/s2.txt)"
[ "$4" -gt 0 ] && ok "the small buffer refused records on CPU 1 ($4 lost)" ||
	not_ok "the small buffer refused records on CPU 1 ($*)"
[ "$2" = "$(($3 + $4))" ] && ok "bts/stream: records = written + lost ($2 = $3 + $4)" ||
	not_ok "bts/stream: records = written + lost ($*)"
# every pos jump of CPU 1 follows a gap entry of CPU 1 with that count
grep -E ' cpu=1 [0-9]+/0 | bts_gap cpu:1 ' /tmp/s2.txt |
	sed -E 's/.* cpu=1 ([0-9]+)\/0 .*/p \1/; s/.* bts_gap cpu:1 lost:([0-9]+).*/g \1/' |
	awk '$1 == "g" { g += $2; ng++; next }
	     { if (seen && $2 != p + 1 + g) bad++; if (seen && $2 != p + 1) jumps++
	       g = 0; p = $2; seen = 1 }
	     END { print (bad + 0) " " (jumps + 0) " " (ng + 0) }' > /tmp/s2.chk
read bad jumps ng < /tmp/s2.chk
diag "CPU 1 in trace_pipe: $jumps pos jumps, $ng gap entries, $bad unexplained"
[ "$jumps" -gt 0 ] && ok "CPU 1's pos jumps where records were refused ($jumps)" ||
	not_ok "CPU 1's pos jumps where records were refused (none seen)"
is "every jump is preceded by a bts_gap entry with exactly that count" "$bad" 0
echo nop > $T/current_tracer
echo 1 > $T/options/overwrite
echo 16384 > $T/buffer_size_kb

# 3. trace-cmd record, and bts-dump's call graph of it
echo ring > $M
cd /tmp
trace-cmd record -q -p bts -O bts_stream -b 4096 -o /tmp/s.dat \
	taskset 2 $BIN/workload sys $N > /tmp/rec.out 2>&1 &&
	ok "trace-cmd record -p bts -O bts_stream" ||
	not_ok "trace-cmd record -p bts -O bts_stream ($(tail -3 /tmp/rec.out | tr '\n' ' '))"
trace-cmd report /tmp/s.dat 2> /dev/null | grep -cE ' cpu=[0-9]+ [0-9]+/0 ' > /tmp/rep.n
[ "$(cat /tmp/rep.n)" -gt 0 ] && ok "trace-cmd report shows the stream ($(cat /tmp/rep.n) records)" ||
	not_ok "trace-cmd report shows the stream"
bts-dump -s /proc/kallsyms --callgraph /tmp/s.dat > /tmp/cg.dot 2> /tmp/cg.err
diag "bts-dump: $(head -c 200 /tmp/cg.err)"
# (on a debug kernel the budget, 25% there, may have paused CPU 1 over
# every call: then the stream has none, and the call graph cannot)
if [ -n "$debug" ] && hw && ! trace-cmd report /tmp/s.dat 2> /dev/null | grep -qE -- '-> (__x64_sys|__do_sys)_getppid\+0x0'; then
	skip "bts-dump --callgraph has the edge into getppid()" "the stream has none: CPU 1 paused for its budget (debug kernel)"
else
	check "bts-dump --callgraph has the edge into getppid()" grep -qE '(__x64_sys|__do_sys)_getppid' /tmp/cg.dot
fi
# coverage: every caller -> callee edge trace-cmd report shows in the
# stream is in the call graph (names turned into addresses with this
# boot's kallsyms, so that aliases of one address compare equal). The
# Intel source records every branch: a call edge there is one into a
# function's first byte from another function, which is what bts-dump
# takes for a call without the instruction bytes (--no-decode; decoded,
# a tail call is a jump, not an edge)
bts-dump -s /proc/kallsyms --no-decode --callgraph /tmp/s.dat > /tmp/cg.dot 2> /tmp/cg.err
trace-cmd report /tmp/s.dat 2> /dev/null | grep -E ' cpu=[0-9]+ [0-9]+/0 ' |
	sed -nE 's/.* cpu=[0-9]+ [0-9]+\/0 ([^ +]+)\+0x[0-9a-f]+ -> ([^ +]+)\+0x0( .*)?$/\1 \2/p' |
	awk '$1 != $2' > /tmp/rep.edges
sed -n 's/^\t"\([^"]*\)" -> "\([^"]*\)".*/\1 \2/p' /tmp/cg.dot > /tmp/cg.edges
# A name that several static functions share (__raw_write_unlock, in
# more than one file) says nor which address: trace-cmd and bts-dump may
# also name one address by different aliases. Edges with such a name are
# left out, and counted.
awk 'FILENAME == "/proc/kallsyms" { if (!($3 in a)) a[$3] = $1; cnt[$3]++; next }
     function k(n) { return (n in a) ? a[n] : n }
     FILENAME == "/tmp/cg.edges" { cg[k($1) " " k($2)] = 1; next }
     cnt[$1] > 1 || cnt[$2] > 1 { if (!(($1 " " $2) in amb)) { amb[$1 " " $2] = 1; na++ }; next }
     { e = k($1) " " k($2); if (!(e in seen)) { seen[e] = 1; n++; if (!(e in cg)) { m++; if (m <= 3) ex = ex " " $1 "->" $2 } } }
     END { print n + 0, m + 0, na + 0, ex }' /proc/kallsyms /tmp/cg.edges /tmp/rep.edges > /tmp/cov.txt
read edges missing ambiguous rest < /tmp/cov.txt
diag "coverage: $edges distinct call edges in trace-cmd report, $missing not in bts-dump's call graph $rest; $ambiguous left out (a name several functions share)"
[ "$edges" -gt 100 ] && [ "$missing" = 0 ] &&
	ok "bts-dump --callgraph covers every call edge of the stream ($edges)" ||
	not_ok "bts-dump --callgraph covers every call edge of the stream ($edges edges, $missing missing:$rest)"
cp /tmp/s.dat $SHARE/stream.dat 2> /dev/null
echo nop > $T/current_tracer
diag "bts/mode after trace-cmd: $(cat $M)"; echo ring > $M

# 4. the Intel source's CPU-time budget (bts/stream_budget): bad values
# are refused and change nothing; a CPU whose drains take more of its
# time than the budget pauses (BTS off until what it owes has passed),
# and the stream says so: a bts_gap entry of one record before what
# comes after the pause, bts/stream's paused column, and it streams on.
# Under TCG a drain takes milliseconds against well under one for the
# branches it drains: at 5% every CPU that streams pauses.
# The file is the tracer's, there whatever the source: its checks run on
# both (the software source hands each record over as it takes it, and
# has no budget to apply).
echo "$budget_boot" > $P
budget0=$(cat $P)
is "bts/stream_budget is 25 unless set" "$budget0" 25
for bad in 0 101 -1 x 50x; do
	write_fails "bts/stream_budget refuses '$bad'" $P "$bad" "Invalid argument"
done
is "... and stays $budget0" "$(cat $P)" "$budget0"
log_mark
echo 100 > $P
is "bts/stream_budget takes 100 (no limit)" "$(cat $P)" 100
check "... and the kernel log says the limit is off" \
	sh -c "dmesg | tail -n +$((_log_lines + 1)) | grep -q 'bts: stream_budget 100: '"
echo "$budget0" > $P
if hw; then
	echo 5 > $P
	echo stream > $M
	echo bts > $T/current_tracer
	echo > $T/trace
	stream_counts 1
	set -- $st
	lost0=$3 paused0=$7
	# Rounds of 3,000 getppid() calls on CPU 1 until it has paused three
	# times since the buffer was cleared: with BTS off a round is quick,
	# and one pause can outlast it (on a busy host a drain takes longer,
	# so it owes longer), leaving a trace with no call and no pos jump;
	# after three, the CPU has streamed between two of them while the
	# workload ran. (A pause is counted with the drain after it.)
	NP=3000 rounds=0
	while :; do
		taskset 2 $BIN/workload sys $NP > /dev/null
		rounds=$((rounds + 1))
		stream_counts 1
		set -- $st
		[ $(($7 - paused0)) -ge 3 ] || [ $rounds -ge 100 ] || continue
		break
	done
	diag "CPU 1 at 5%: $rounds rounds of $NP calls, $(($7 - paused0)) pauses"
	# (the counts of the run, read with the shell builtin while tracing
	# is still on: once tracing_on is 0 the ring buffer refuses what CPU
	# 1 drains next, rightly counted as lost, and a drain comes whenever
	# its idle and interrupts cross the threshold; on a slow machine one
	# did, 1,460 records, before the counts below were read)
	stream_counts 1
	set -- $st
	lostw=$3 pausedw=$7
	echo 0 > $T/tracing_on
	cat $T/trace > /tmp/s4.txt
	set -- $(grep '^1 ' $B/stream)
	echo 1 > $T/tracing_on
	echo nop > $T/current_tracer
	echo ring > $M
	echo "$budget0" > $P
	diag "CPU 1 at 5%: $*"
	[ "$8" -gt 0 ] && ok "at 5% CPU 1 paused ($8 times)" ||
		not_ok "at 5% CPU 1 paused (bts/stream: $*)"
	is "... which is not a loss of the source (source_lost)" "$6" 0
	[ "$2" = "$(($3 + $4))" ] && ok "bts/stream: records = written + lost ($2 = $3 + $4)" ||
		not_ok "bts/stream: records = written + lost ($*)"
	# each pause is a jump in pos, after a bts_gap entry that counts it,
	# and records follow
	grep -E ' cpu=1 [0-9]+/0 | bts_gap cpu:1 ' /tmp/s4.txt |
		sed -E 's/.* cpu=1 ([0-9]+)\/0 .*/p \1/; s/.* bts_gap cpu:1 lost:([0-9]+).*/g \1/' |
		awk '$1 == "g" { g += $2; ng++; if ($2 != 1) other++; next }
		     { if (seen && $2 != p + 1 + g) bad++; if (seen && $2 != p + 1) jumps++
		       g = 0; p = $2; seen = 1; after = ng }
		     END { print (bad + 0) " " (jumps + 0) " " (ng + 0) " " (other + 0) " " (ng - after) }' > /tmp/s4.chk
	read bad jumps ng other trailing < /tmp/s4.chk
	diag "CPU 1 at 5%: $jumps pos jumps, $ng gap entries ($other not of one record), $bad unexplained, $trailing after the last record"
	# (the pauses since the buffer was cleared, which erased the gap
	# entries of those before; a gap entry reports all that is pending,
	# so the records refused while the buffer was cleared come with the
	# first pause's; the last pause's is pending while no record follows)
	np=$(($8 - paused0))
	[ "$ng" -gt 0 ] && [ "$ng" -ge $((np - 1)) ] &&
		ok "a bts_gap entry for each pause in the trace ($ng for $np)" ||
		not_ok "a bts_gap entry for each pause in the trace ($ng gap entries, $other of more than one record, $np pauses)"
	is "every jump in CPU 1's pos is preceded by its bts_gap entry" "$bad" 0
	# (a pause is at least a tick, thousands of getppid() calls: those
	# are not in the stream)
	n=$(grep ' cpu=1 [0-9]*/0 ' /tmp/s4.txt |
		grep -cE -- '(x64_sys_call|do_syscall_64)\+0x[0-9a-f]+/0x[0-9a-f]+ -> (__x64_sys|__do_sys)_getppid\+0x0/.* stream$')
	# (a debug kernel's recording between two pauses may hold no call
	# into getppid(): there records after a pause are enough)
	calls=$((rounds * NP))
	[ "$n" -lt $calls ] && [ "$jumps" -gt 0 ] && { [ "$n" -gt 0 ] || [ -n "$debug" ]; } &&
		ok "CPU 1 streamed on between pauses ($n of $calls calls into getppid(), $jumps jumps)" ||
		not_ok "CPU 1 streamed on between pauses ($n of $calls calls into getppid(), $jumps jumps)"
	is "CPU 1 lost nothing but its pauses while the workload ran" \
		"$((lostw - lost0))" "$((pausedw - paused0))"
fi
done_testing
