#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bts-dump reading a real trace.dat (the guest's, from trace-cmd extract)
# against trace-cmd report on the same file. TAP; skips without TRACE_DAT.
#
#   test-tracedat.sh BINDIR TRACE_DAT
set -u
BTS=$1/bts-dump
TRACE_DAT=${2:-}
if [ -z "$TRACE_DAT" ]; then
	echo "1..0 # SKIP TRACE_DAT not given (make test-tracedat TRACE_DAT=path)"
	exit 0
fi
if ! command -v trace-cmd >/dev/null || [ ! -r "$TRACE_DAT" ]; then
	echo "1..0 # SKIP trace-cmd or $TRACE_DAT missing"
	exit 0
fi
T=$(mktemp -d /tmp/bts-tracedat.XXXXXX)
trap 'rm -rf "$T"' EXIT
n=0 fail=0
check() {
	n=$((n + 1))
	if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=$((fail + 1)); fi
}
trace-cmd report -i "$TRACE_DAT" 2>/dev/null | grep -E ' bts: +cpu=[0-9]+ [0-9]+/[0-9]+ ' >"$T/report.txt"
"$BTS" --no-indent "$TRACE_DAT" >"$T/bts.txt" 2>"$T/bts.err"
rc=$?
"$BTS" --json "$TRACE_DAT" >"$T/bts.json" 2>/dev/null
echo "1..4"
check "trace.dat: bts-dump reads it, exit 0, no error" "[ $rc -eq 0 ] && ! grep -qv 'warning' '$T/bts.err'"
check "trace.dat: as many records as trace-cmd report shows bts entries ($(wc -l <"$T/report.txt"))" \
	"[ \$(grep -cE '^ +[0-9]+ ' '$T/bts.txt') -eq \$(wc -l <'$T/report.txt') ] && [ -s '$T/report.txt' ]"
# Symbols: the same multiset of "from -> to" as trace-cmd, where trace-cmd's
# are sane (libtraceevent names addresses past the last symbol last+0xHUGE).
sed -E 's/.* cpu=[0-9]+ [0-9]+\/[0-9]+ //; s/ \[(fault|sw)\]//g' "$T/report.txt" |
	grep -vE '\+0x[0-9a-f]{6,}' | sort >"$T/tc.pairs"
grep -E '^ +[0-9]+ ' "$T/bts.txt" | sed -E 's/^ +[0-9]+ [a-z?]+ +//; s/  <== FAULT//; s/  \((user|kernel)->(user|kernel)\)//' |
	grep -vE '\+0x[0-9a-f]{6,}' | sort >"$T/bd.pairs"
check "trace.dat: every record names the symbols trace-cmd report names" \
	"diff '$T/tc.pairs' '$T/bd.pairs' >'$T/diff' || { head -5 '$T/diff'; false; }"
python3 - "$T/bts.json" >"$T/missing.txt" <<'PY'
import json, sys
d = [o for o in map(json.loads, open(sys.argv[1])) if o["type"] == "dump"]
print(len(d), sum(o.get("missing", 0) for o in d))
PY
check "trace.dat: every history is whole (no pos gaps; $(cat "$T/missing.txt") = histories, missing)" \
	"[ \$(cut -d' ' -f1 '$T/missing.txt') -gt 0 ] && [ \$(cut -d' ' -f2 '$T/missing.txt') -eq 0 ]"
exit $((fail > 0))
