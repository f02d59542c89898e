#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bts-dump reading a real trace.dat (the guest's, from trace-cmd extract)
# against trace-cmd report on the same file. TAP; skips without TRACE_DAT.
#
#   test-tracedat.sh BINDIR TRACE_DAT [VMLINUX]
#
# With the VMLINUX of the kernel that recorded it, the trace.dat's records
# are also written as console text (tests/gen-console.py, with the kallsyms
# the trace.dat saved) and read back: every address must come back exactly.
set -u
BTS=$1/bts-dump
TRACE_DAT=${2:-}
VMLINUX=${3:-}
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
"$BTS" --no-indent --no-fold "$TRACE_DAT" >"$T/bts.txt" 2>"$T/bts.err"
rc=$?
"$BTS" --json --no-fold "$TRACE_DAT" >"$T/bts.json" 2>/dev/null
plan=5
[ -n "$VMLINUX" ] && [ -r "$VMLINUX" ] && plan=7
echo "1..$plan"
check "trace.dat: bts-dump reads it, exit 0, no error" "[ $rc -eq 0 ] && ! grep -qv 'warning' '$T/bts.err'"
check "trace.dat: as many records as trace-cmd report shows bts entries ($(wc -l <"$T/report.txt"))" \
	"[ \$(grep -cE '^ +[0-9]+ ' '$T/bts.txt') -eq \$(wc -l <'$T/report.txt') ] && [ -s '$T/report.txt' ]"
# Symbols: trace-cmd report's "sym+off" of every entry, turned back into
# addresses through the kallsyms the trace.dat saved, are bts-dump's
# addresses (aliases at one address may be named either way; libtraceevent
# names addresses past the last symbol last+0xHUGE: those are left out).
# A user half the kernel cleared (flag bit 61) is 0x0 there, null here.
trace-cmd dump --kallsyms -i "$TRACE_DAT" 2>/dev/null | grep -E '^[0-9a-f]+ [a-zA-Z] ' >"$T/kallsyms"
python3 - "$T/report.txt" "$T/bts.json" "$T/kallsyms" >"$T/sym.txt" <<'PY'
import collections, json, re, sys
names = collections.defaultdict(set)
for l in open(sys.argv[3]):
    f = l.split()
    names[f[2]].add(int(f[0], 16))
def addrs(tok):
    if tok.startswith("0x"):
        return {int(tok, 16)}
    m = re.match(r"^(.+)\+0x([0-9a-f]+)$", tok)
    if not m or int(m.group(2), 16) >= 1 << 20:
        return None
    return {a + int(m.group(2), 16) for a in names.get(m.group(1), ())}
theirs = []
for l in open(sys.argv[1]):
    m = re.search(r" cpu=\d+ \d+/\d+ (\S+) -> (\S+)", l)
    fr, to = addrs(m.group(1)), addrs(m.group(2))
    if fr is not None and to is not None:
        theirs.append((fr, to))
def ours_addr(o, half):
    if o[half] is None:
        assert o["user_cleared"], o
        return 0
    return int(o[half], 16)
ours = collections.Counter((ours_addr(o, "from"), ours_addr(o, "to"))
                           for o in map(json.loads, open(sys.argv[2])) if o["type"] == "branch")
bad = 0
for fr, to in theirs:
    hit = next(((f, t) for f in fr for t in to if ours[(f, t)] > 0), None)
    if hit:
        ours[hit] -= 1
    else:
        bad += 1
print(len(theirs), bad)
PY
check "trace.dat: every record is at the addresses trace-cmd report names ($(cat "$T/sym.txt") = compared, different)" \
	"[ \$(cut -d' ' -f1 '$T/sym.txt') -gt 0 ] && [ \$(cut -d' ' -f2 '$T/sym.txt') -eq 0 ]"
python3 - "$T/bts.json" >"$T/missing.txt" <<'PY'
import json, sys
d = [o for o in map(json.loads, open(sys.argv[1])) if o["type"] == "dump"]
print(len(d), sum(o.get("missing", 0) for o in d))
PY
check "trace.dat: every history is whole (no pos gaps; $(cat "$T/missing.txt") = histories, missing)" \
	"[ \$(cut -d' ' -f1 '$T/missing.txt') -gt 0 ] && [ \$(cut -d' ' -f2 '$T/missing.txt') -eq 0 ]"
# Stream mode: per ring-buffer CPU, trace-cmd report's stream entries
# (nr 0, reason 6) and bts_gap lines give the records, what bts_gap
# counted and what pos skipped in all; bts-dump's stream headers must say
# the same.
trace-cmd report -i "$TRACE_DAT" 2>/dev/null | grep -E ' bts(_gap)?: ' >"$T/stream-report.txt"
python3 - "$T/stream-report.txt" "$T/bts.json" >"$T/stream.txt" <<'PY'
import collections, json, re, sys
recs, known, skipped, last = collections.Counter(), collections.Counter(), collections.Counter(), {}
after = collections.Counter()	# bts_gap counts after a CPU's last record: no pos shows them
for l in open(sys.argv[1]):
    m = re.search(r"\[(\d+)\].* bts_gap cpu:\d+ lost:(\d+)", l)
    if m:
        known[int(m.group(1))] += int(m.group(2))
        after[int(m.group(1))] += int(m.group(2))
        continue
    m = re.search(r"\[(\d+)\].* bts: +cpu=\d+ (\d+)/0 ", l)
    if not m:
        continue
    c, pos = int(m.group(1)), int(m.group(2))
    recs[c] += 1
    after[c] = 0
    skipped[c] += (pos - last[c] - 1) % (1 << 32) if c in last else pos
    last[c] = pos
ours = {}
for o in map(json.loads, open(sys.argv[2])):
    if o["type"] == "dump" and o.get("stream"):
        a = ours.setdefault(o["cpu"], [0, 0, 0])
        a[0] += o["count"]; a[1] += o["lost_known"]; a[2] += o["lost_known"] + o["lost_unseen"]
theirs = {c: [recs[c], known[c], skipped[c] + after[c]] for c in recs}
print(len(theirs), sum(v[0] for v in theirs.values()), int(theirs == ours))
PY
read st_cpus st_recs st_same <"$T/stream.txt"
if [ "$st_cpus" -eq 0 ]; then
	n=$((n + 1))
	echo "ok $n - trace.dat: stream entries, losses as trace-cmd report's pos and bts_gap say # SKIP no stream entries in it"
else
	check "trace.dat: stream entries, losses as trace-cmd report's pos and bts_gap say ($st_cpus CPUs, $st_recs records)" \
		"[ $st_same -eq 1 ]"
fi
if [ $plan -eq 7 ]; then
	python3 - "$T/bts.json" "$T/gt.recs" <<'PY'
import collections, json, sys
b = [o for o in map(json.loads, open(sys.argv[1])) if o["type"] == "branch"]
n = collections.Counter(o["cpu"] for o in b)
with open(sys.argv[2], "w") as f:
    for o in b:
        # a cleared user half (null) is 0 in the kernel's text, as the kernel prints it
        f.write("%d %d %d 0 %s %s %s\n" % (o["cpu"], o["index"], n[o["cpu"]], (o["from"] or "0x0")[2:],
                                          (o["to"] or "0x0")[2:], o["flags"][2:]))
PY
	# Each record as the kernel prints it, with the low 32 bits of both
	# addresses (gt), and as older kernels did, without them (old). With
	# them every address comes back exactly and none is in doubt. Without,
	# a name can stand for several static functions of one size that no
	# neighbouring record tells apart (call edges alone, from the software
	# source, give less to go on): no address may then come back wrong
	# without its record saying so (from_ambiguous, to_ambiguous).
	for v in gt old; do
		python3 "$(dirname "$0")/gen-console.py" --kallsyms "$T/kallsyms" \
			$([ $v = old ] && echo --no-low) "$T/gt.recs" >"$T/$v.log"
		"$BTS" -s "$T/kallsyms" -k "$VMLINUX" --json --no-fold "$T/$v.log" >"$T/$v.json" 2>"$T/$v.err"
		python3 - "$T/gt.recs" "$T/$v.json" >"$T/$v.sum" <<'PY'
import json, sys
a = [tuple(l.split()[4:6]) for l in open(sys.argv[1])]
b = [o for o in map(json.loads, open(sys.argv[2])) if o["type"] == "branch"]
wrong = unmarked = marked = 0
for x, o in zip(a, b):
    for want, got, amb in ((x[0], o["from"], o["from_ambiguous"]), (x[1], o["to"], o["to_ambiguous"])):
        wrong += want != (got or "0x0")[2:]
        unmarked += want != (got or "0x0")[2:] and not amb
        marked += amb
print(len(a), len(b), wrong, unmarked, marked)
PY
	done
	check "trace.dat: its records as console text come back to the same addresses with the vmlinux, none in doubt ($(cat "$T/gt.sum") = records, read, wrong, wrong unmarked, marked ambiguous)" \
		"read a b c d e <'$T/gt.sum'; [ \$a -gt 0 ] && [ \$a -eq \$b ] && [ \$c -eq 0 ] && [ \$e -eq 0 ] && [ ! -s '$T/gt.err' ]"
	check "trace.dat: as an older kernel's console text (no low bits), every wrong address is marked ambiguous ($(cat "$T/old.sum") = records, read, wrong, wrong unmarked, marked ambiguous)" \
		"read a b c d e <'$T/old.sum'; [ \$a -gt 0 ] && [ \$a -eq \$b ] && [ \$d -eq 0 ] && [ \$e -ge \$c ]"
fi
exit $((fail > 0))
