#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# trace-cmd report with plugin_bts.so on a trace.dat of bts entries. TAP.
#
#   test-plugin.sh PLUGIN_DIR TRACE_DAT
set -u
DIR=$(cd "$1" && pwd)
TRACE_DAT=${2:-}
if [ -z "$TRACE_DAT" ]; then
	echo "1..0 # SKIP TRACE_DAT not given (make test-plugin TRACE_DAT=path)"
	exit 0
fi
if ! command -v trace-cmd >/dev/null || [ ! -r "$TRACE_DAT" ]; then
	echo "1..0 # SKIP trace-cmd or $TRACE_DAT missing"
	exit 0
fi
T=$(mktemp -d /tmp/bts-plugin.XXXXXX)
trap 'rm -rf "$T"' EXIT
TRACEEVENT_PLUGIN_DIR=$DIR trace-cmd report -i "$TRACE_DAT" >"$T/with.txt" 2>"$T/with.err"
rc=$?
TRACEEVENT_PLUGIN_DIR=/nonexistent trace-cmd report -N -i "$TRACE_DAT" >"$T/without.txt" 2>/dev/null
n=0 fail=0
check() {
	n=$((n + 1))
	if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=$((fail + 1)); fi
}
echo "1..7"
check "plugin: trace-cmd report runs with it (exit 0)" "[ $rc -eq 0 ]"
check "plugin: it prints as many bts lines as without it" \
	"[ \$(grep -c ' bts:' '$T/with.txt') -eq \$(grep -c ' bts:' '$T/without.txt') ] && [ \$(grep -c ' bts:' '$T/with.txt') -gt 0 ]"
check "plugin: every bts line has a kind and a source tag" \
	"! grep ' bts:' '$T/with.txt' | grep -vqE 'cpu=[0-9]+ [0-9]+/[0-9]+ (call|ret|jmp|entry|exit)\\??[ ]+.* (\\[sw\\]|\\[bts\\])'"
check "plugin: call-edge records are indented by call depth" \
	"grep -qE 'cpu=[0-9]+ [0-9]+/[0-9]+ call      +[a-z_]' '$T/with.txt'"
# (A user half the kernel cleared, flag bit 61, is [user] here, 0x0 there.)
check "plugin: symbols match trace-cmd's own (sym+0xoff -> sym+0xoff)" \
	"diff <(grep ' bts:' '$T/with.txt' | sed -E 's/.*\\/[0-9]+ [a-z?]+ +//; s/ @[0-9a-f]{8}:[0-9a-f]{8}\$//; s/  \\(.*//; s/ \\[fault\\] <== .*//; s/ \\[(sw|bts)\\]\$//; s/\\[user\\]/0x0/g' | head -200) <(grep ' bts:' '$T/without.txt' | sed -E 's/.*cpu=[0-9]+ [0-9]+\\/[0-9]+ //; s/ @[0-9a-f]{8}:[0-9a-f]{8}//; s/ \\[(sw|bts)\\]\$//; s/ \\[fault\\]\$//' | head -200) >'$T/diff' || { head -5 '$T/diff'; false; }"
# Cleared user halves (flag bit 61), and real 0s without the flag.
cat >"$T/ucl.recs" <<'RECS'
0 0 0 3 0 0 ffffffff81000100 2000000000000000
0 0 1 3 0 ffffffff81000180 0 2000000000000000
0 0 2 3 0 7f0000001000 0 0
RECS
python3 "$(dirname "$0")/gen-tracedat.py" -o "$T/ucl.dat" "$T/ucl.recs" &&
	TRACEEVENT_PLUGIN_DIR=$DIR trace-cmd report -i "$T/ucl.dat" 2>/dev/null | grep ' bts:' >"$T/ucl.txt"
check "plugin: a cleared user half prints as [user], a 0 without the flag as 0x0" \
	"grep -q ' 0/3 [a-z?]* *\\[user\\] -> 0xffffffff81000100  (user->kernel)' '$T/ucl.txt' && grep -q ' 1/3 [a-z?]* *0xffffffff81000180 -> \\[user\\]  (kernel->user)' '$T/ucl.txt' && grep -q ' 2/3 [a-z?]* *0x7f0000001000 -> 0x0 ' '$T/ucl.txt'"
check "plugin: each line ends with the low 32 bits of both addresses, as the kernel prints them" \
	"grep -q ' 1/3 .* @81000180:00000000\$' '$T/ucl.txt' && grep -q ' 2/3 .* @00001000:00000000\$' '$T/ucl.txt'"
exit $((fail > 0))
