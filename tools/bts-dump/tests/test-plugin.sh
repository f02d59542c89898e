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
echo "1..5"
check "plugin: trace-cmd report runs with it (exit 0)" "[ $rc -eq 0 ]"
check "plugin: it prints as many bts lines as without it" \
	"[ \$(grep -c ' bts:' '$T/with.txt') -eq \$(grep -c ' bts:' '$T/without.txt') ] && [ \$(grep -c ' bts:' '$T/with.txt') -gt 0 ]"
check "plugin: every bts line has a kind and a source tag" \
	"! grep ' bts:' '$T/with.txt' | grep -vqE 'cpu=[0-9]+ [0-9]+/[0-9]+ (call|ret|jmp|entry|exit)\\??[ ]+.* (\\[sw\\]|\\[bts\\])'"
check "plugin: call-edge records are indented by call depth" \
	"grep -qE 'cpu=[0-9]+ [0-9]+/[0-9]+ call      +[a-z_]' '$T/with.txt'"
check "plugin: symbols match trace-cmd's own (sym+0xoff -> sym+0xoff)" \
	"diff <(grep ' bts:' '$T/with.txt' | sed -E 's/.*\\/[0-9]+ [a-z?]+ +//; s/  \\(.*//; s/ \\[fault\\] <== .*//; s/ \\[(sw|bts)\\]\$//' | head -200) <(grep ' bts:' '$T/without.txt' | sed -E 's/.*cpu=[0-9]+ [0-9]+\\/[0-9]+ //; s/ \\[(sw|bts)\\]\$//; s/ \\[fault\\]\$//' | head -200) >'$T/diff' || { head -5 '$T/diff'; false; }"
exit $((fail > 0))
