#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bts-dump benchmark: records per second symbolizing and printing a large
# generated dump to /dev/null on one core; bts-dump reading a trace.dat
# against `trace-cmd report` on the same file (a generated one of
# BENCH_TRACEDAT_RECORDS entries, default 1000000, and TRACE_DAT if given);
# with a vmlinux, DWARF against llvm-addr2line. Prints figures and ratios,
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

# --- trace.dat: bts-dump reading it against trace-cmd report on it -------
if ! command -v trace-cmd >/dev/null; then
	echo "trace-cmd: not installed, trace.dat comparison skipped"
	exit 0
fi
# tracedat_pair FILE LABEL: both on FILE, best of 3 by CPU time (user+sys,
# bts-dump's reading child included), with records/s and the ratio.
tracedat_pair() {
	local f=$1 label=$2 m tc_best= bd_best= tc_wall bd_wall
	m=$(trace-cmd report -i "$f" 2>/dev/null | grep -cE ' bts: +cpu=[0-9]+ [0-9]+/[0-9]+ ')
	if [ "$m" -eq 0 ]; then
		echo "trace.dat ($label): no bts entries, comparison skipped"
		return 0
	fi
	for run in 1 2 3; do
		time_cmd /dev/null trace-cmd report -i "$f" || return 1
		if [ -z "$tc_best" ] || [ "$(echo "$CPU < $tc_best" | bc -l)" = 1 ]; then
			tc_best=$CPU tc_wall=$WALL
		fi
		time_cmd /dev/null "$BTS" "$f" || return 1
		if [ -z "$bd_best" ] || [ "$(echo "$CPU < $bd_best" | bc -l)" = 1 ]; then
			bd_best=$CPU bd_wall=$WALL
		fi
	done
	echo "trace.dat ($label): $m bts entries, $(stat -c %s "$f") bytes"
	echo "trace.dat ($label): trace-cmd report ${tc_best}s cpu (${tc_wall}s wall): $(rate "$m" "$tc_best") records/s"
	echo "trace.dat ($label): bts-dump        ${bd_best}s cpu (${bd_wall}s wall): $(rate "$m" "$bd_best") records/s"
	echo "ratio trace.dat ($label): bts-dump/trace-cmd report = $(echo "$tc_best $bd_best" | awk '{ if ($2 > 0) printf "%.1f", $1 / $2; else print "n/a" }')x (cpu), $(echo "$tc_wall $bd_wall" | awk '{ if ($2 > 0) printf "%.1f", $1 / $2; else print "n/a" }')x (wall)"
}

# A generated trace.dat: the walk above as histories of 2730 entries on two
# writer CPUs, with SYMS as its kallsyms (tests/gen-tracedat.py).
TN=${BENCH_TRACEDAT_RECORDS:-1000000}
"$GEN" -o "$W/td.bts" --walk "$TN" --symbols "$SYMS" --seed 9
python3 - "$W/td.bts" "$W/td.recs" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
hs = struct.unpack_from("<H", d, 10)[0]
n = (len(d) - hs) // 24
out = []
for i in range(n):
    f, t, fl = struct.unpack_from("<QQQ", d, hs + 24 * i)
    h = i // 2730
    out.append("%d %d %d %d 0 %x %x %x\n" % (h % 2, h % 2, i - h * 2730, min(2730, n - h * 2730), f, t, fl))
open(sys.argv[2], "w").write("".join(out))
PY
python3 "$(dirname "$0")/gen-tracedat.py" -o "$W/gen.dat" --kallsyms "$SYMS" "$W/td.recs"
tracedat_pair "$W/gen.dat" "generated, $TN entries" || exit 1
if [ -n "$TRACE_DAT" ]; then
	if [ -r "$TRACE_DAT" ]; then
		tracedat_pair "$TRACE_DAT" "$TRACE_DAT" || exit 1
	else
		echo "trace.dat: cannot read $TRACE_DAT, comparison skipped"
	fi
fi
