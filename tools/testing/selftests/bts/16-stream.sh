#!/bin/sh
# Stream mode (bts/mode, the bts_stream option): records flow into the
# ring buffer as they are taken, and nothing is lost silently.
#  - bad writes to bts/mode fail and change nothing; a source that cannot
#    stream (the Intel source, for now) refuses, and bts keeps recording
#    as it was;
#  - a known workload pinned to CPU 1 (N getppid() calls) gives exactly N
#    streamed call edges into getppid(), in pos order, without loss,
#    while the ring buffer is large enough;
#  - a small ring buffer without overwrite, read by trace_pipe while the
#    workload runs: records are refused, every jump in a CPU's pos is
#    preceded by an ftrace:bts_gap entry with exactly that count, and
#    bts/stream's counts add up (records = written + lost);
#  - trace-cmd record -p bts -O bts_stream records the stream, and
#    bts-dump --callgraph on it has the workload's call edge.
# bts-boot: own
# bts-timeout: 600
. ./lib.sh
M=$B/mode
N=300
is "bts/mode starts as ring" "$(cat $M)" "[ring] stream"
write_fails "bts/mode refuses an unknown mode" $M bogus "Invalid argument"
is "... and stays ring" "$(cat $M)" "[ring] stream"
is "bts/stream has a line per possible CPU" \
	"$(grep -vc '^#' $B/stream)" "$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)"

if hw; then
	echo bts > $T/current_tracer
	write_fails "the Intel source refuses stream mode" $M stream "Operation not supported"
	is "... bts/mode stays ring" "$(cat $M)" "[ring] stream"
	is "... and the Intel source is armed again" "$(sed -n 2p $B/source)" "active: intel_bts"
	is "... the option too" "$(cat $T/options/bts_stream)" 0
	echo nop > $T/current_tracer
	done_testing
	exit 0
fi

# 1. every edge of a known workload, in order, nothing lost: a buffer
# that holds them all (the debug kernel makes some 300 calls per system
# call: 4 MiB per CPU held only the newest 80,000 entries there)
echo 16384 > $T/buffer_size_kb
check "bts/mode takes stream before arming" sh -c "echo stream > $M"
is "... and says so" "$(cat $M)" "ring [stream]"
is "... as the bts_stream option does" "$(cat $T/options/bts_stream)" 1
log_mark
echo bts > $T/current_tracer
check "the boot log says it streams" sh -c "dmesg | tail -5 | grep -q 'recording with source sw (.*, streaming)'"
# (clearing the buffer refuses records while it resets: counted as lost)
echo > $T/trace
set -- $(grep '^1 ' $B/stream)
lost0=$4
taskset 2 /tests/bin/workload sys $N > /dev/null
set -- $(grep '^1 ' $B/stream)
lost1=$4
# (tracing_on 0 stops the ring buffer a moment before bts pauses: what
# comes between is refused, and counted)
echo 0 > $T/tracing_on
# with tracing on, reading trace races the writers (as with the function
# tracer): stop first, or read trace_pipe
cat $T/trace > /tmp/s1.txt
echo 1 > $T/tracing_on
grep ' cpu=1 [0-9]*/0 ' /tmp/s1.txt > /tmp/s1-cpu1.txt
n=$(grep -cE -- '-> (__x64_sys|__do_sys)_getppid\+0x0/.* stream$' /tmp/s1-cpu1.txt)
is "CPU 1 streamed exactly $N call edges into getppid()" "$n" "$N"
diag "CPU 1: $(wc -l < /tmp/s1-cpu1.txt) stream entries; $(grep -c 'bts_gap' /tmp/s1.txt) gap entries; stream: $(grep '^1 ' $B/stream)"
# from the workload's first getppid() on, pos runs without a jump
jumps=$(sed -n '/getppid/,$p' /tmp/s1-cpu1.txt | sed -E 's/.* cpu=1 ([0-9]+)\/0 .*/\1/' |
	awk 'NR > 1 && $1 != p + 1 { j++ } { p = $1 } END { print j + 0 }')
is "its pos runs on without a jump" "$jumps" 0
is "bts/stream: CPU 1 lost nothing while the workload ran" "$((lost1 - lost0))" 0
[ "$2" -gt 0 ] && [ "$2" = "$(($3 + $4))" ] && ok "bts/stream: records = written + lost ($2 = $3 + $4)" ||
	not_ok "bts/stream: records = written + lost ($*)"
echo 1 > $B/dump
echo 0 > $T/tracing_on
check "a dump still works in stream mode" grep -q ' cpu=0 [0-9]*/[1-9][0-9]* ' $T/trace
echo 1 > $T/tracing_on

# 2. a small buffer without overwrite, drained by a reader: losses
# are counted and marked where they happened
echo nop > $T/current_tracer
echo 0 > $T/options/overwrite
echo 8 > $T/buffer_size_kb
echo bts > $T/current_tracer
echo > $T/trace
cat $T/trace_pipe > /tmp/s2.txt &
reader=$!
taskset 2 /tests/bin/workload sys 2000 > /dev/null
echo 0 > $T/tracing_on
sleep 1
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
	taskset 2 /tests/bin/workload sys $N > /tmp/rec.out 2>&1 &&
	ok "trace-cmd record -p bts -O bts_stream" ||
	not_ok "trace-cmd record -p bts -O bts_stream ($(tail -3 /tmp/rec.out | tr '\n' ' '))"
trace-cmd report /tmp/s.dat 2> /dev/null | grep -cE ' cpu=[0-9]+ [0-9]+/0 ' > /tmp/rep.n
[ "$(cat /tmp/rep.n)" -gt 0 ] && ok "trace-cmd report shows the stream ($(cat /tmp/rep.n) records)" ||
	not_ok "trace-cmd report shows the stream"
bts-dump -s /proc/kallsyms --callgraph /tmp/s.dat > /tmp/cg.dot 2> /tmp/cg.err
diag "bts-dump: $(head -c 200 /tmp/cg.err)"
check "bts-dump --callgraph has the edge into getppid()" grep -qE '(__x64_sys|__do_sys)_getppid' /tmp/cg.dot
# coverage: every caller -> callee edge trace-cmd report shows in the
# stream is in the call graph (names turned into addresses with this
# boot's kallsyms, so that aliases of one address compare equal)
trace-cmd report /tmp/s.dat 2> /dev/null | grep -E ' cpu=[0-9]+ [0-9]+/0 ' |
	sed -nE 's/.* cpu=[0-9]+ [0-9]+\/0 ([^ +]+)\+0x[0-9a-f]+ -> ([^ +]+)\+0x[0-9a-f]+ .*/\1 \2/p' > /tmp/rep.edges
sed -n 's/^\t"\([^"]*\)" -> "\([^"]*\)".*/\1 \2/p' /tmp/cg.dot > /tmp/cg.edges
awk 'FILENAME == "/proc/kallsyms" { if (!($3 in a)) a[$3] = $1; next }
     function k(n) { return (n in a) ? a[n] : n }
     FILENAME == "/tmp/cg.edges" { cg[k($1) " " k($2)] = 1; next }
     { e = k($1) " " k($2); if (!(e in seen)) { seen[e] = 1; n++; if (!(e in cg)) { m++; if (m <= 3) ex = ex " " $1 "->" $2 } } }
     END { print n + 0, m + 0, ex }' /proc/kallsyms /tmp/cg.edges /tmp/rep.edges > /tmp/cov.txt
read edges missing rest < /tmp/cov.txt
diag "coverage: $edges distinct call edges in trace-cmd report, $missing not in bts-dump's call graph $rest"
[ "$edges" -gt 100 ] && [ "$missing" = 0 ] &&
	ok "bts-dump --callgraph covers every call edge of the stream ($edges)" ||
	not_ok "bts-dump --callgraph covers every call edge of the stream ($edges edges, $missing missing:$rest)"
cp /tmp/s.dat /host/stream.dat 2> /dev/null
echo nop > $T/current_tracer
diag "bts/mode after trace-cmd: $(cat $M)"; echo ring > $M
done_testing
