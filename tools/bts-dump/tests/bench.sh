#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bts-dump benchmark: records per second symbolizing and printing a large
# generated dump to /dev/null on one core; optionally the same comparison
# against `trace-cmd report` on a trace.dat of bts entries. Prints figures,
# asserts nothing.
#
#   bench.sh BTS_DUMP GEN_DUMP RECORDS [SYSTEM_MAP] [TRACE_DAT] [VMLINUX] [VMLINUX_FULL]
#
# With VMLINUX (and VMLINUX_FULL, a CONFIG_DEBUG_INFO_REDUCED=n build),
# tests/bench-dwarf.sh compares source lines and inline chains with
# llvm-addr2line on the same addresses.
set -u
BTS=$1
GEN=$2
N=$3
MAP=${4:-}
TRACE_DAT=${5:-}
VMLINUX=${6:-}
VMLINUX_FULL=${7:-}
W=$(mktemp -d /tmp/bts-dump-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT

# bts-dump is single-threaded: it runs on one core. BENCH_PIN=N pins it to
# CPU N (on a busy machine pinning can only make it share a loaded CPU).
PIN=
[ -n "${BENCH_PIN:-}" ] && command -v taskset >/dev/null && PIN="taskset -c $BENCH_PIN"

# time_cmd OUTFILE CMD...: run CMD with stdout to OUTFILE; sets WALL and CPU (s).
time_cmd() {
	local out=$1
	shift
	/usr/bin/time -f "%e %U %S" -o "$W/time" $PIN "$@" >"$out" 2>"$W/stderr" || {
		echo "bench: command failed: $*"; head -3 "$W/stderr"; return 1
	}
	read -r WALL USR SYS <"$W/time"
	CPU=$(echo "$USR + $SYS" | bc -l)
}

rate() {	# RECORDS SECONDS -> records/s
	echo "$1 $2" | awk '{ if ($2 > 0) printf "%.0f", $1 / $2; else print "inf" }'
}

if [ -n "$MAP" ] && [ -r "$MAP" ]; then
	SYMS=$MAP
	SYMDESC="$MAP ($(grep -c ' [tT] ' "$MAP") text symbols)"
else
	SYMS=$W/kallsyms
	"$GEN" --synthetic-symbols "$SYMS" 40000
	SYMDESC="synthetic kallsyms (40000 text symbols; no test-kernel System.map found)"
fi

echo "# bts-dump benchmark: $N records, single-threaded ($([ -n "$PIN" ] && echo "$PIN" || echo "not pinned; BENCH_PIN=N pins"))"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (cpu time is the fairer figure on a busy machine)"
echo "# symbols: $SYMDESC"
"$GEN" -o "$W/big.bts" --walk "$N" --symbols "$SYMS" --seed 42
echo "# dump: $(stat -c %s "$W/big.bts") bytes, history over 2048 hot functions x 8 branch sites"

best_wall=
for run in 1 2 3; do
	time_cmd /dev/null "$BTS" -s "$SYMS" "$W/big.bts" || exit 1
	echo "text  run $run: wall ${WALL}s cpu ${CPU}s  $(rate "$N" "$WALL") records/s (wall)  $(rate "$N" "$CPU") records/s (cpu)"
	if [ -z "$best_wall" ] || [ "$(echo "$WALL < $best_wall" | bc -l)" = 1 ]; then
		best_wall=$WALL
		best_cpu=$CPU
	fi
done
time_cmd /dev/null "$BTS" -s "$SYMS" --json "$W/big.bts" || exit 1
echo "json  run 1: wall ${WALL}s cpu ${CPU}s  $(rate "$N" "$WALL") records/s (wall)"
time_cmd /dev/null "$BTS" -s "$SYMS" --perf "$W/big.bts" || exit 1
echo "perf  run 1: wall ${WALL}s cpu ${CPU}s  $(rate "$N" "$WALL") records/s (wall)"
echo "bts-dump: $(rate "$N" "$best_wall") records/s (best of 3, wall; $(rate "$N" "$best_cpu") by cpu time)"

HERE=$(dirname "$0")
[ -n "$VMLINUX" ] && "$HERE/bench-dwarf.sh" "$BTS" "$GEN" "$VMLINUX" 100000 "reduced debug info"
[ -n "$VMLINUX_FULL" ] && "$HERE/bench-dwarf.sh" "$BTS" "$GEN" "$VMLINUX_FULL" 100000 "full debug info"

[ -n "$TRACE_DAT" ] || exit 0

# --- trace-cmd report on a trace.dat of bts entries -----------------------
if ! command -v trace-cmd >/dev/null; then
	echo "trace-cmd: not installed, comparison skipped"
	exit 0
fi
if [ ! -r "$TRACE_DAT" ]; then
	echo "trace-cmd: cannot read $TRACE_DAT, comparison skipped"
	exit 0
fi
echo "# trace.dat: $TRACE_DAT"
# Symbols the same as trace-cmd's: the kallsyms saved in the trace.dat.
trace-cmd dump --kallsyms -i "$TRACE_DAT" 2>/dev/null | grep -E '^[0-9a-f]+ [a-zA-Z] ' >"$W/tkallsyms"
if [ -s "$W/tkallsyms" ]; then
	TSYMS=$W/tkallsyms
else
	TSYMS=$SYMS
fi
# The bts entries as "from to flags". trace-cmd prints the address fields
# symbolized even in raw mode (sym+0xoff): map them back through TSYMS.
trace-cmd report -R -i "$TRACE_DAT" 2>/dev/null | python3 -c '
import re, sys
addr = {}
for line in open(sys.argv[1]):
    a, t, name = line.split()[:3]
    if t in "tTwW" and name not in addr:
        addr[name] = int(a, 16)
def value(v):
    if re.match(r"^(0x)?[0-9a-fA-F]+$", v):
        return int(v, 16) if v.startswith("0x") else int(v)
    m = re.match(r"^([^+]+)\+0x([0-9a-f]+)$", v)
    if m and m.group(1) in addr:
        return addr[m.group(1)] + int(m.group(2), 16)
    return None
for line in sys.stdin:
    if " bts:" not in line:
        continue
    f = dict(re.findall(r"(\w+)=(\S+)", line))
    if "from" not in f or "to" not in f:
        continue
    fr, to = value(f["from"]), value(f["to"])
    if fr is None or to is None:
        continue
    print("%x %x %x" % (fr, to, int(f.get("flags", "0"), 0)))
' "$TSYMS" >"$W/records.txt"
M=$(wc -l <"$W/records.txt")
if [ "$M" -eq 0 ]; then
	echo "trace-cmd: no bts entries in $TRACE_DAT, comparison skipped"
	exit 0
fi
time_cmd "$W/report.txt" trace-cmd report -i "$TRACE_DAT" || exit 1
tc_wall=$WALL
tc_lines=$(grep -c ' bts:' "$W/report.txt")
"$GEN" -o "$W/same.bts" --records-file "$W/records.txt"
time_cmd /dev/null "$BTS" -s "$TSYMS" "$W/same.bts" || exit 1
bd_wall=$WALL
# The same records repeated to about N, for a rate without start-up cost.
reps=$(( (N + M - 1) / M ))
for ((i = 0; i < reps && i < 100000; i++)); do cat "$W/records.txt"; done | head -n "$N" >"$W/rep.txt"
R=$(wc -l <"$W/rep.txt")
"$GEN" -o "$W/rep.bts" --records-file "$W/rep.txt"
time_cmd /dev/null "$BTS" -s "$TSYMS" "$W/rep.bts" || exit 1
rep_wall=$WALL

tc_rate=$(rate "$M" "$tc_wall")
bd_rate=$(rate "$M" "$bd_wall")
echo "trace-cmd report: $M bts entries ($tc_lines lines) in ${tc_wall}s: $tc_rate records/s (whole trace.dat, start-up included)"
echo "bts-dump, same $M records: ${bd_wall}s: $bd_rate records/s (start-up included)"
echo "bts-dump, same records repeated to $R: ${rep_wall}s: $(rate "$R" "$rep_wall") records/s"
echo "ratio bts-dump/trace-cmd (same records): $(echo "$bd_rate $tc_rate" | awk '{ if ($2 > 0) printf "%.1f", $1 / $2; else print "n/a" }')"
