#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bts-dump tests: the unit tests (tests/unit.c) and the command-line tests
# below, on dumps generated here, all built with ASan/UBSan. TAP on stdout.
#
#   run-tests.sh BINDIR NOTC_BINDIR
#                            BINDIR holds bts-dump, gen-dump and unit;
#                            NOTC_BINDIR the bts-dump built with NO_LIBTRACECMD=1

set -u
BINDIR=$1
NOTC=${2:-}/bts-dump
BTS=$BINDIR/bts-dump
GEN=$BINDIR/gen-dump
UNIT=$BINDIR/unit
T=$(mktemp -d /tmp/bts-dump-test.XXXXXX)
trap 'rm -rf "$T"' EXIT

results=()
diag=()

# ok_if NAME COMMAND...: one test; COMMAND's status decides.
ok_if() {
	local name=$1
	shift
	if "$@" >"$T/last.out" 2>&1; then
		results+=("ok - $name")
	else
		results+=("not ok - $name")
		while IFS= read -r l; do results+=("# $l"); done < <(head -20 "$T/last.out")
	fi
}

# --- unit tests -----------------------------------------------------------
"$UNIT" >"$T/unit.out" 2>"$T/unit.err"
unit_rc=$?
while IFS= read -r l; do
	case $l in
	"ok - "* | "not ok - "*) results+=("$l") ;;
	*) results+=("# $l") ;;
	esac
done <"$T/unit.out"
sanitizer_clean() {
	! grep -E "AddressSanitizer|LeakSanitizer|runtime error" "$@"
}
ok_if "unit: the unit tests exit 0 with no sanitizer report" \
	bash -c "[ $unit_rc -eq 0 ] && ! grep -E 'Sanitizer|runtime error' '$T/unit.err'"

# --- fixtures -------------------------------------------------------------
S=$T/kallsyms
cat >"$S" <<'SYMS'
ffffffff81000000 T _stext
ffffffff81000100 T entry_SYSCALL_64
ffffffff81000200 T do_syscall_64
ffffffff81000300 T ksys_read
ffffffff81000400 T vfs_read
ffffffff81000500 T _etext
ffffffff81000500 D some_data
ffffffffa0000000 t mod_fn	[mymod]
ffffffffa0000100 t mod_fn2	[mymod]
SYMS

# CPU 1: a syscall that faults in vfs_read (record 5), oldest first.
"$GEN" -o "$T/cpu1.bts" --cpu 1 --flags 3 --reason 1 --fault-index 5 \
	--stext 0xffffffff81000000 \
	--rec 7f0000001000:ffffffff81000100 \
	--rec ffffffff81000120:ffffffff81000200 \
	--rec ffffffff81000210:ffffffff81000300 \
	--rec ffffffff81000308:ffffffff81000400 \
	--rec ffffffff81000430:ffffffff81000440 \
	--rec ffffffff81000444:ffffffff82000000:4000000000000000 \
	--rec ffffffff81000450:ffffffff8100030d \
	--rec ffffffff81000320:ffffffff81000215 \
	--rec ffffffff81000180:7f0000001002
# CPU 0: the software source, call edges only.
"$GEN" -o "$T/cpu0.bts" --cpu 0 --source 2 --stext 0xffffffff81000000 \
	--rec ffffffff81000120:ffffffff81000200:8000000000000000 \
	--rec ffffffff81000210:ffffffff81000300:8000000000000000 \
	--rec ffffffffa0000010:ffffffffa0000100:8000000000000000
# CPU 2: armed, nothing recorded.
"$GEN" -o "$T/cpu2.bts" --cpu 2 --flags 8 --source 1

run() { "$BTS" -s "$S" "$@"; }
run "$T/cpu2.bts" "$T/cpu1.bts" "$T/cpu0.bts" >"$T/all.txt" 2>"$T/all.err"
all_rc=$?
# record lines of CPU 1 only
awk '/^CPU 1:/{p=1;next} /^CPU/{p=0} p && /^ +[0-9]+ /' "$T/all.txt" >"$T/cpu1.lines"

ok_if "cli: several dumps are read and exit 0" test $all_rc -eq 0
ok_if "cli: dumps print in CPU order whatever the argument order" \
	bash -c "[ \"\$(grep -o '^CPU [0-9]' '$T/all.txt' | tr '\n' ' ')\" = 'CPU 0 CPU 1 CPU 2 ' ]"
ok_if "cli: a wrapped window says that older history was lost" \
	grep -q '^CPU 1: 9 records (capacity 2730, wrapped: older history lost)' "$T/all.txt"
ok_if "cli: a capture names its reason and fault index" \
	grep -q '^CPU 1:.*captured at oops, fault at #5' "$T/all.txt"
ok_if "cli: records print oldest first, numbered from 0" \
	bash -c "[ \"\$(awk '{print \$1}' '$T/cpu1.lines' | tr '\n' ' ')\" = '0 1 2 3 4 5 6 7 8 ' ]"
ok_if "cli: an empty CPU says it recorded nothing" \
	grep -q -A1 '^CPU 2: 0 records' "$T/all.txt" -e 'no records: nothing recorded since arming'
ok_if "cli: a user address prints raw and the entry is marked user->kernel" \
	grep -qE '^ +0 syscall\? +0x7f0000001000 -> entry_SYSCALL_64\+0x0  \(user->kernel\)$' "$T/cpu1.lines"
ok_if "cli: the return to user space is a (guessed) sysret marked kernel->user" \
	grep -qE '^ +8 sysret\? .*entry_SYSCALL_64\+0x80 -> 0x7f0000001002  \(kernel->user\)$' "$T/cpu1.lines"
ok_if "cli: an address no symbol covers prints as hex" \
	grep -qE '^ +5 .*vfs_read\+0x44 -> 0xffffffff82000000  <== FAULT$' "$T/cpu1.lines"
ok_if "cli: a branch inside one function is a jump" \
	grep -qE '^ +4 jmp\? +.*vfs_read\+0x30 -> vfs_read\+0x40$' "$T/cpu1.lines"
ok_if "cli: returns land mid-function in the caller" \
	grep -qE '^ +6 ret\? .*vfs_read\+0x50 -> ksys_read\+0xd$' "$T/cpu1.lines"
indent_of() { sed -n "$(($1 + 1))p" "$T/cpu1.lines" | sed -E 's/^ +[0-9]+ [a-z?]+ //' | awk '{ match($0, /^ */); print RLENGTH }'; }
ok_if "cli: calls indent one level deeper per call, returns come back" \
	bash -c "[ $(indent_of 1) -lt $(indent_of 2) ] && [ $(indent_of 2) -lt $(indent_of 3) ] && [ $(indent_of 3) -lt $(indent_of 4) ] && [ $(indent_of 7) -lt $(indent_of 6) ]"
ok_if "cli: software-source records are calls, and the source is named" \
	bash -c "grep -q 'software source' '$T/all.txt' && [ \$(awk '/^CPU 0:/{p=1;next} /^CPU/{p=0} p && / call  /' '$T/all.txt' | wc -l) -eq 3 ]"
ok_if "cli: module symbols print with their module" \
	grep -qE 'mod_fn\+0x10 \[mymod\] -> mod_fn2\+0x0 \[mymod\]' "$T/all.txt"

records_of() { grep -E '^ +[0-9]+ ' "$1" | awk '{print $1}' | tr '\n' ' '; }
run -n 2 "$T/cpu1.bts" >"$T/n2.txt"
ok_if "cli: -n 2 prints the last two records" bash -c "[ \"\$(records_of() { grep -E '^ +[0-9]+ ' \"\$1\" | awk '{print \$1}' | tr '\n' ' '; }; records_of '$T/n2.txt')\" = '7 8 ' ]"
run --since-fault "$T/cpu1.bts" >"$T/since.txt"
ok_if "cli: --since-fault starts at the fault record" \
	bash -c "[ \"\$(grep -E '^ +[0-9]+ ' '$T/since.txt' | awk '{print \$1}' | tr '\n' ' ')\" = '5 6 7 8 ' ]"
run --until-fault -n 3 "$T/cpu1.bts" >"$T/until.txt"
ok_if "cli: --until-fault -n 3 prints the three records up to the fault" \
	bash -c "[ \"\$(grep -E '^ +[0-9]+ ' '$T/until.txt' | awk '{print \$1}' | tr '\n' ' ')\" = '3 4 5 ' ]"
run --since-fault "$T/cpu0.bts" >"$T/nofault.txt"
ok_if "cli: --since-fault on a dump without a fault says so and prints nothing" \
	bash -c "grep -q 'no fault recorded' '$T/nofault.txt' && ! grep -qE '^ +[0-9]+ ' '$T/nofault.txt'"
run --cpu 0,2 "$T/cpu0.bts" "$T/cpu1.bts" "$T/cpu2.bts" >"$T/cpus.txt"
ok_if "cli: --cpu 0,2 leaves CPU 1 out" \
	bash -c "grep -q '^CPU 0' '$T/cpus.txt' && grep -q '^CPU 2' '$T/cpus.txt' && ! grep -q '^CPU 1' '$T/cpus.txt'"

run --json "$T/cpu0.bts" "$T/cpu1.bts" "$T/cpu2.bts" >"$T/all.json"
ok_if "cli: --json prints one JSON object per line: 3 dumps, 12 branches" python3 - "$T/all.json" <<'PY'
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
kinds = [o["type"] for o in objs]
assert kinds.count("dump") == 3 and kinds.count("branch") == 12, kinds
PY
ok_if "cli: --json carries symbols, offsets, fault, transitions and kinds" python3 - "$T/all.json" <<'PY'
import json, sys
b = [o for o in map(json.loads, open(sys.argv[1])) if o["type"] == "branch" and o["cpu"] == 1]
assert b[0]["from_sym"] is None and b[0]["to_sym"] == "entry_SYSCALL_64" and b[0]["transition"] == "user->kernel"
assert b[5]["fault"] is True and b[5]["to_sym"] is None and b[5]["to"] == "0xffffffff82000000"
assert b[3]["from_sym"] == "ksys_read" and b[3]["from_off"] == 8 and b[3]["kind"] == "call"
assert all(x["fault"] is False for i, x in enumerate(b) if i != 5)
d = [o for o in map(json.loads, open(sys.argv[1])) if o["type"] == "dump" and o["cpu"] == 1][0]
assert d["wrapped"] and d["capture"] and d["reason"] == "oops" and d["fault_index"] == 5
PY

run --perf "$T/cpu1.bts" >"$T/perf.txt"
ok_if "cli: --perf prints perf-script-like branch lines" \
	grep -qE '^ +bts +-1 \[001\] +12\.345678: +1 branches:k: ffffffff81000308 ksys_read\+0x8 \(\[kernel\.kallsyms\]\) => ffffffff81000400 vfs_read\+0x0 \(\[kernel\.kallsyms\]\)$' "$T/perf.txt"
ok_if "cli: --perf marks user branches and unknown DSOs" \
	grep -qE 'branches:u: 00007f0000001000 0x7f0000001000 \(\[unknown\]\) => ffffffff81000100 entry_SYSCALL_64\+0x0' "$T/perf.txt"

# A hot loop: 5 x (jcc back to vfs_read+0x40), then a call out.
"$GEN" -o "$T/hot.bts" --cpu 3 $(for i in 1 2 3 4 5; do echo --rec ffffffff81000460:ffffffff81000440; done) \
	--rec ffffffff81000470:ffffffff81000300 --rec ffffffff81000310:ffffffff81000400 \
	--rec ffffffff81000330:ffffffff81000400
run --hist "$T/hot.bts" >"$T/hist.txt"
ok_if "cli: --hist puts the hottest branch target first with its count and share" \
	bash -c "sed -n 4p '$T/hist.txt' | grep -qE '^ +5 +62\.5%  vfs_read\+0x40$'"
ok_if "cli: --hist counts branches landing in each function" \
	bash -c "grep -A1 'function\$' '$T/hist.txt' | grep -qE '^ +7 +87\.5%  vfs_read$'"
run --callgraph "$T/cpu1.bts" >"$T/graph.dot"
ok_if "cli: --callgraph prints caller -> callee edges with counts as DOT" \
	bash -c "head -1 '$T/graph.dot' | grep -q '^digraph' && grep -q '\"do_syscall_64\" -> \"ksys_read\" \[label=\"1\"' '$T/graph.dot' && tail -1 '$T/graph.dot' | grep -q '^}'"
run --folded "$T/cpu1.bts" >"$T/folded.txt"
ok_if "cli: --folded rebuilds stacks from calls and returns" \
	grep -qx '\[user\];entry_SYSCALL_64;do_syscall_64;ksys_read;vfs_read 2' "$T/folded.txt"

"$GEN" -o "$T/nocap.bts" --cpu 4 --flags 2 --source 0 --capacity 0 --source-name ""
run "$T/nocap.bts" >"$T/nocap.txt" 2>&1
ok_if "cli: an empty capture says nothing was captured" \
	grep -qx 'CPU 4: nothing captured (no oops, BUG or panic since it was cleared), kernel 6.12.117-bts' "$T/nocap.txt"
# A capture that was taken while a pid filter held the CPU has no record
# either, but it is no empty slot: it was recorded by a source, at a WARN.
"$GEN" -o "$T/heldcap.bts" --cpu 1 --flags 58 --source 1 --reason 5 --count 0
run "$T/heldcap.bts" >"$T/heldcap.txt" 2>&1
ok_if "cli: a capture the pid filter held empty says so, not that nothing was captured" \
	bash -c "grep -q '^CPU 1: 0 records .*captured at WARN' '$T/heldcap.txt' && grep -q 'was not chosen' '$T/heldcap.txt' && grep -q 'nothing recorded since arming' '$T/heldcap.txt' && ! grep -q 'nothing captured' '$T/heldcap.txt'"

# --- loops: a cycle of branches over and over is listed once, with its count ---
# CPU 3 enters vfs_read from user space (records 0-3), calls spin_check
# once from elsewhere (4-5), then spins: a call to spin_check, its return
# and a jump back, 40 times (6-125), then the call and return once more
# (126-127, a last run cut short), and returns (128-129).
LS=$T/loop.syms
{ grep -v -e _etext -e some_data -e mod_ "$S"; echo "ffffffff81000500 T spin_check"; echo "ffffffff81000600 T _etext"; } >"$LS"
loop_recs=(--rec 7f0000001000:ffffffff81000100 --rec ffffffff81000120:ffffffff81000200
	--rec ffffffff81000210:ffffffff81000300 --rec ffffffff81000308:ffffffff81000400
	--rec ffffffff81000460:ffffffff81000500 --rec ffffffff81000520:ffffffff81000465)
for i in $(seq 40); do
	loop_recs+=(--rec ffffffff81000410:ffffffff81000500 --rec ffffffff81000520:ffffffff81000415
		--rec ffffffff81000430:ffffffff81000408)
done
loop_recs+=(--rec ffffffff81000410:ffffffff81000500 --rec ffffffff81000520:ffffffff81000415
	--rec ffffffff81000450:ffffffff8100030d --rec ffffffff81000320:ffffffff81000215)
"$GEN" -o "$T/loop.bts" --cpu 3 --stext 0xffffffff81000000 "${loop_recs[@]}"
lrun() { "$BTS" -s "$LS" "$@"; }
lrun "$T/loop.bts" >"$T/loop.txt" 2>"$T/loop.err"
loop_rc=$?
ok_if "loop: a dump with a loop reads, exit 0, no warning" bash -c "[ $loop_rc -eq 0 ] && [ ! -s '$T/loop.err' ]"
ok_if "loop: the lead-in, the cycle's first run and the tail are listed, no other run" \
	bash -c "[ \"\$(grep -E '^ +[0-9]+ ' '$T/loop.txt' | awk '{print \$1}' | tr '\n' ' ')\" = '0 1 2 3 4 5 6 7 8 128 129 ' ]"
ok_if "loop: a line before the cycle says which records repeat it, how often, and the last run cut short" \
	bash -c "grep -B1 -E '^ +6 call' '$T/loop.txt' | head -1 | grep -qx '        loop #6\.\.#127 (122 records): the 3 branches below, 40 times, then the first 2 again'"
ok_if "loop: the cycle is the call, the return and the jump back, then a line ends the loop" \
	bash -c "sed -n '/^        loop #6/,/^        end of loop/p' '$T/loop.txt' >'$T/loop.block' && [ \$(wc -l <'$T/loop.block') -eq 5 ] && sed -n 5p '$T/loop.block' | grep -qx '        end of loop #6\.\.#127' && [ \"\$(sed -n 2,4p '$T/loop.block' | awk '{print \$1, \$2, \$3, \$5}' | tr '\n' '|')\" = '6 call? vfs_read+0x10 spin_check+0x0|7 ret? spin_check+0x20 vfs_read+0x15|8 jmp? vfs_read+0x30 vfs_read+0x8|' ]"
lrun --no-fold "$T/loop.bts" >"$T/loop-raw.txt" 2>&1
ok_if "loop: --no-fold lists all 130 records, and no loop line" \
	bash -c "[ \"\$(grep -E '^ +[0-9]+ ' '$T/loop-raw.txt' | awk '{print \$1}' | tr '\n' ' ')\" = \"\$(seq -s ' ' 0 129) \" ] && ! grep -q 'loop' '$T/loop-raw.txt'"
lrun --perf "$T/loop.bts" >"$T/loop-perf.txt" 2>&1
ok_if "loop: --perf lines are never folded (130)" bash -c "[ \$(grep -c 'branches:' '$T/loop-perf.txt') -eq 130 ] && ! grep -q loop '$T/loop-perf.txt'"
lrun --json "$T/loop.bts" >"$T/loop.json" 2>&1
lrun --json --no-fold "$T/loop.bts" >"$T/loop-raw.json" 2>&1
ok_if "loop: --json gives a loop object, then the cycle's records once, each naming the loop" \
	python3 - "$T/loop.json" "$T/loop-raw.json" <<'PY'
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
raw = [o for o in map(json.loads, open(sys.argv[2])) if o["type"] == "branch"]
assert [o["index"] for o in raw] == list(range(130)), "raw"
assert all("loop" not in o for o in raw) and all(o["type"] != "loop" for o in map(json.loads, open(sys.argv[2])))
kinds = [o["type"] for o in objs]
assert kinds.count("loop") == 1 and kinds.count("branch") == 11, kinds
i = kinds.index("loop")
lo = objs[i]
assert lo == {"type": "loop", "cpu": 3, "index": 6, "end": 128, "length": 3, "repeats": 40, "partial": 2}, lo
assert lo["length"] * lo["repeats"] + lo["partial"] == lo["end"] - lo["index"]
cyc = objs[i + 1:i + 1 + lo["length"]]
assert [o["index"] for o in cyc] == [6, 7, 8] and all(o["loop"] == 6 for o in cyc), cyc
assert cyc == [dict(raw[k], loop=6) for k in (6, 7, 8)], "the cycle's records are the raw ones"
# every record of the stretch is its cycle's record (index - start) mod length
for k in range(lo["index"], lo["end"]):
    c = raw[lo["index"] + (k - lo["index"]) % lo["length"]]
    assert (raw[k]["from"], raw[k]["to"]) == (c["from"], c["to"]), k
rest = [o for o in objs if o["type"] == "branch" and "loop" not in o]
assert [o["index"] for o in rest] == [0, 1, 2, 3, 4, 5, 128, 129], rest
assert rest == [raw[k] for k in (0, 1, 2, 3, 4, 5, 128, 129)]
PY
lrun --callgraph "$T/loop.bts" >"$T/loop.dot" 2>&1
ok_if "loop: --callgraph sets the loop's calls apart, with a note of the loop, and keeps the lead-in's" \
	bash -c "grep -qx '	\"loop 1\" \[shape=note, label=\"loop 1: 3 branches, 40 times, CPU 3 #6\.\.#127\"\];' '$T/loop.dot' && grep -q '^	\"vfs_read\" -> \"spin_check\" \[label=\"41 in loop 1\", .*style=dashed\];\$' '$T/loop.dot' && grep -q '^	\"vfs_read\" -> \"spin_check\" \[label=\"1\", penwidth=[0-9.]*\];\$' '$T/loop.dot' && grep -q '^	\"ksys_read\" -> \"vfs_read\" \[label=\"1\", penwidth=[0-9.]*\];\$' '$T/loop.dot'"
lrun --callgraph --no-fold "$T/loop.bts" >"$T/loop-raw.dot" 2>&1
ok_if "loop: --callgraph --no-fold counts every call on one edge" \
	bash -c "grep -q '^	\"vfs_read\" -> \"spin_check\" \[label=\"42\", penwidth=5\.0\];\$' '$T/loop-raw.dot' && ! grep -q loop '$T/loop-raw.dot'"
# The same loop in two histories is one loop of the call graph.
"$GEN" -o "$T/loop2.bts" --cpu 4 --stext 0xffffffff81000000 "${loop_recs[@]:12}"
lrun --callgraph "$T/loop.bts" "$T/loop2.bts" >"$T/loop2.dot" 2>&1
ok_if "loop: --callgraph counts a loop found again, in another history, as the same loop" \
	bash -c "[ \$(grep -c 'shape=note' '$T/loop2.dot') -eq 1 ] && grep -q 'label=\"loop 1: 3 branches, 80 times in 2 stretches, the first CPU 3 #6\.\.#127\"' '$T/loop2.dot' && grep -q '\"vfs_read\" -> \"spin_check\" \[label=\"82 in loop 1\"' '$T/loop2.dot'"
# Too few runs: the cycle twice and a half; one branch three times.
"$GEN" -o "$T/few.bts" --cpu 5 --stext 0xffffffff81000000 "${loop_recs[@]:0:12}" "${loop_recs[@]:12:12}" \
	--rec ffffffff81000410:ffffffff81000500 --rec ffffffff81000520:ffffffff81000415 \
	--rec ffffffff81000450:ffffffff8100030d --rec ffffffff81000450:ffffffff8100030d \
	--rec ffffffff81000450:ffffffff8100030d
lrun "$T/few.bts" >"$T/few.txt" 2>&1
lrun --no-fold "$T/few.bts" >"$T/few-raw.txt" 2>&1
ok_if "loop: a cycle run twice and a half, or one branch three times, is not folded" \
	bash -c "! grep -q loop '$T/few.txt' && [ \$(grep -cE '^ +[0-9]+ ' '$T/few.txt') -eq 17 ] && diff '$T/few.txt' '$T/few-raw.txt'"
# One branch four times, and the three at once.
"$GEN" -o "$T/four.bts" --cpu 5 --stext 0xffffffff81000000 $(for i in 1 2 3 4; do echo --rec ffffffff81000450:ffffffff81000440; done) \
	"${loop_recs[@]:12:18}"
lrun "$T/four.bts" >"$T/four.txt" 2>&1
ok_if "loop: one branch four times folds, and a cycle of 3 three times" \
	bash -c "grep -qx '        loop #0\.\.#3 (4 records): the branch below, 4 times' '$T/four.txt' && grep -qx '        loop #4\.\.#12 (9 records): the 3 branches below, 3 times' '$T/four.txt' && [ \$(grep -cE '^ +[0-9]+ ' '$T/four.txt') -eq 4 ]"
ok_if "loop: a history without repetition lists as before (CPU 1's)" bash -c "! grep -q '^        loop #' '$T/all.txt' && ! grep -q '\"type\":\"loop\"' '$T/all.json'"
# A fault in the middle of a loop (the same branch, flagged): the loop before
# it, the fault record, the loop after it.
fault_recs=("${loop_recs[@]:12:30}" --rec ffffffff81000410:ffffffff81000500:4000000000000000 "${loop_recs[@]:12:30}")
"$GEN" -o "$T/loopfault.bts" --cpu 3 --flags 2 --reason 1 --fault-index 15 --stext 0xffffffff81000000 "${fault_recs[@]}"
lrun --no-summary "$T/loopfault.bts" >"$T/loopfault.txt" 2>&1
ok_if "loop: the fault record is never folded away: the loop before it, the fault, the loop after" \
	bash -c "[ \"\$(grep -E '^ +(loop|[0-9]+ )' '$T/loopfault.txt' | awk '{print \$1 \$2}' | tr '\n' ' ')\" = 'loop#0..#14 0call? 1ret? 2jmp? 15call? loop#16..#30 16call? 17ret? 18jmp? ' ] && grep -qE '^ +15 call\\? .*<== FAULT\$' '$T/loopfault.txt'"

# --- user halves the kernel cleared (bts_user 0: flag bit 61) ---------------
# Without bts_user the kernel sets the user half of a branch between user
# and kernel mode to 0 and flags the record (BTS_FLAG_USER_CLEARED): that
# 0 is no address. CPU 6: a syscall entered from user space (from cleared),
# the return to user space (to cleared), a second entry, then a fault.
UC=2000000000000000
"$GEN" -o "$T/ucl.bts" --cpu 6 --flags 2 --reason 1 --fault-index 10 --stext 0xffffffff81000000 \
	--rec 0:ffffffff81000100:$UC \
	--rec ffffffff81000120:ffffffff81000200 \
	--rec ffffffff81000210:ffffffff81000300 \
	--rec ffffffff81000320:ffffffff81000215 \
	--rec ffffffff81000220:ffffffff81000180 \
	--rec ffffffff81000180:0:$UC \
	--rec 0:ffffffff81000100:$UC \
	--rec ffffffff81000120:ffffffff81000200 \
	--rec ffffffff81000210:ffffffff81000300 \
	--rec ffffffff81000308:ffffffff81000400 \
	--rec ffffffff81000444:ffffffff82000000:4000000000000000
# The same two halves with bit 61 clear (bts_user 1): real branches from and to 0.
"$GEN" -o "$T/uzero.bts" --cpu 7 --flags 4 --stext 0xffffffff81000000 \
	--rec 7f0000001000:0 --rec 0:ffffffff81000100
# A bare 0x0 (not +0x0) or a zero address column anywhere.
no_zero_addr() { ! grep -E "(^|[ \"])0x0([ \"]|\$)|(^|[^0-9a-f])0{16}([^0-9a-f]|\$)" "$@"; }
export -f no_zero_addr
run "$T/ucl.bts" >"$T/ucl.txt" 2>"$T/ucl.err"
ucl_rc=$?
ok_if "cleared: a dump with cleared user halves reads, exit 0, no warning" \
	bash -c "[ $ucl_rc -eq 0 ] && [ ! -s '$T/ucl.err' ]"
ok_if "cleared: the entry's cleared source prints as [user], marked user->kernel" \
	grep -qE '^ +0 syscall\? +\[user\] -> entry_SYSCALL_64\+0x0  \(user->kernel\)$' "$T/ucl.txt"
ok_if "cleared: the return's cleared target prints as [user], marked kernel->user" \
	grep -qE '^ +5 sysret\? +entry_SYSCALL_64\+0x80 -> \[user\]  \(kernel->user\)$' "$T/ucl.txt"
ok_if "cleared: no address 0 anywhere in the listing or the fault summary" no_zero_addr "$T/ucl.txt"
ok_if "cleared: the fault summary's last entry from user space is [user]" \
	grep -qx '  last entry from user space: #6 \[user\] -> entry_SYSCALL_64+0x0' "$T/ucl.txt"
run -a "$T/ucl.bts" >"$T/ucl-a.txt" 2>&1
ok_if "cleared: -a prints no raw address for a cleared half, only [user]" \
	bash -c "no_zero_addr '$T/ucl-a.txt' && grep -qE '^ +0 syscall\? +\[user\] -> ffffffff81000100 entry_SYSCALL_64\+0x0 ' '$T/ucl-a.txt' && grep -qE '^ +5 .*ffffffff81000180 entry_SYSCALL_64\+0x80 -> \[user\]  ' '$T/ucl-a.txt'"
run --json "$T/ucl.bts" >"$T/ucl.json" 2>&1
ok_if "cleared: --json gives a cleared half as null, and user_cleared true on its record only" \
	python3 - "$T/ucl.json" <<'PY'
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
b = [o for o in objs if o["type"] == "branch"]
assert len(b) == 11, len(b)
for i in (0, 6):
    assert b[i]["from"] is None and b[i]["from_sym"] is None and "from_off" not in b[i], b[i]
    assert b[i]["to_sym"] == "entry_SYSCALL_64" and b[i]["transition"] == "user->kernel", b[i]
assert b[5]["to"] is None and b[5]["to_sym"] is None and b[5]["transition"] == "kernel->user", b[5]
assert b[5]["from_sym"] == "entry_SYSCALL_64" and b[5]["from_off"] == 0x80, b[5]
assert [x["user_cleared"] for x in b] == [i in (0, 5, 6) for i in range(11)]
assert all(isinstance(x["from"], str) and isinstance(x["to"], str) for i, x in enumerate(b) if i not in (0, 5, 6))
assert b[10]["fault"] is True and b[10]["user_cleared"] is False
f = [o for o in objs if o["type"] == "fault"][0]
assert f["entry_index"] == 6 and f["chain"][0] == "[user]", f
PY
run --perf "$T/ucl.bts" >"$T/ucl-perf.txt" 2>&1
ok_if "cleared: --perf names a cleared half [user], never a symbol of 0" \
	bash -c "grep -qE 'branches:u: 0000000000000000 \[user\] \(\[unknown\]\) => ffffffff81000100 entry_SYSCALL_64\+0x0 \(\[kernel\.kallsyms\]\)$' '$T/ucl-perf.txt' && grep -qE 'branches:k: ffffffff81000180 entry_SYSCALL_64\+0x80 \(\[kernel\.kallsyms\]\) => 0000000000000000 \[user\] \(\[unknown\]\)$' '$T/ucl-perf.txt' && ! grep -q ' 0x0 ' '$T/ucl-perf.txt'"
run --hist "$T/ucl.bts" >"$T/ucl-hist.txt" 2>&1
ok_if "cleared: --hist counts a cleared target as [user], not as a branch to 0x0" \
	bash -c "no_zero_addr '$T/ucl-hist.txt' && sed -n '/hot branch targets/,/hot functions/p' '$T/ucl-hist.txt' | grep -qE '^ +1 +9\.0%  \[user\]$'"
run --callgraph "$T/ucl.bts" >"$T/ucl.dot" 2>&1
ok_if "cleared: --callgraph enters from [user], no node 0x0" \
	bash -c "no_zero_addr '$T/ucl.dot' && grep -q '\"\[user\]\" -> \"entry_SYSCALL_64\" \[label=\"2\"' '$T/ucl.dot'"
run --folded "$T/ucl.bts" >"$T/ucl-folded.txt" 2>&1
ok_if "cleared: --folded stacks start at [user], no frame 0x0" \
	bash -c "no_zero_addr '$T/ucl-folded.txt' && grep -qx '\[user\];entry_SYSCALL_64;do_syscall_64;ksys_read;vfs_read 1' '$T/ucl-folded.txt' && grep -qx '\[user\] 1' '$T/ucl-folded.txt'"
# Instruction bytes at address 0 (an ELF core mapping it, as --kcore): a
# cleared half must not be decoded, for its kind or for --insns.
python3 - "$T/zero.core" <<'PY'
import struct, sys
code = bytes.fromhex("ffd0") * 8                    # call *%rax, at 0x0 ...
eh = struct.pack("<16sHHIQQQIHHHHHH", b"\x7fELF\x02\x01\x01" + bytes(9), 4, 62, 1, 0, 64, 0, 0,
                 64, 56, 1, 0, 0, 0)
ph = struct.pack("<IIQQQQQQ", 1, 5, 4096, 0, 0, len(code), len(code), 4096)
open(sys.argv[1], "wb").write((eh + ph).ljust(4096, b"\0") + code)
PY
run --kcore "$T/zero.core" --insns "$T/ucl.bts" >"$T/ucl-insns.txt" 2>&1
ok_if "cleared: --insns says a cleared half has no code, and nothing at 0 is decoded (--kcore maps 0)" \
	bash -c "[ \$(sed -n '/^ *5 sysret/,/^ *6 /p' '$T/ucl-insns.txt' | grep -c 'no instructions: .*cleared') -eq 1 ] && grep -qE '^ +0 syscall\\? +\\[user\\] -> ' '$T/ucl-insns.txt' && grep -qE '^ +6 syscall\\? +\\[user\\] -> ' '$T/ucl-insns.txt' && ! grep -q 'rax' '$T/ucl-insns.txt' && no_zero_addr '$T/ucl-insns.txt'"
run "$T/uzero.bts" >"$T/uzero.txt" 2>&1
run --json "$T/uzero.bts" >"$T/uzero.json" 2>&1
ok_if "cleared: without bit 61 an address 0 is a real one and prints as 0x0" \
	bash -c "grep -qE '^ +0 .*0x7f0000001000 -> 0x0\$' '$T/uzero.txt' && grep -qE '^ +1 .*0x0 -> entry_SYSCALL_64\+0x0  \(user->kernel\)\$' '$T/uzero.txt' && grep '\"index\":1,' '$T/uzero.json' | grep -q '\"from\":\"0x0\".*\"user_cleared\":false'"

# A tracing directory as the kernel lays it out.
mkdir -p "$T/tracing/bts/per_cpu/cpu0" "$T/tracing/bts/per_cpu/cpu1" "$T/tracing/bts/per_cpu/cpu10"
cp "$T/cpu0.bts" "$T/tracing/bts/per_cpu/cpu0/records"
cp "$T/cpu1.bts" "$T/tracing/bts/per_cpu/cpu1/records"
cp "$T/cpu2.bts" "$T/tracing/bts/per_cpu/cpu10/records"
cp "$T/cpu1.bts" "$T/tracing/bts/per_cpu/cpu1/capture"
run --tracing-dir "$T/tracing" >"$T/td.txt" 2>&1
ok_if "cli: --tracing-dir reads every per_cpu/cpu*/records" \
	bash -c "[ \$(grep -c '^CPU' '$T/td.txt') -eq 3 ]"
run --capture --tracing-dir "$T/tracing" >"$T/tdc.txt" 2>&1
ok_if "cli: --capture --tracing-dir reads the capture files" \
	bash -c "[ \$(grep -c '^CPU' '$T/tdc.txt') -eq 1 ] && grep -q '^CPU 1' '$T/tdc.txt'"

# Hostile input.
one_line_error() {	# FILE EXPECTED-REGEX
	"$BTS" -s "$S" "$1" >/dev/null 2>"$T/err.txt"
	local rc=$?
	[ $rc -eq 1 ] && [ "$(wc -l <"$T/err.txt")" -eq 1 ] && grep -qE "$2" "$T/err.txt"
}
"$GEN" -o "$T/trunc.bts" --rec 1:2 --rec 3:4 --truncate 230
ok_if "cli: a truncated dump fails with one line naming the file and offset" \
	one_line_error "$T/trunc.bts" "^bts-dump: $T/trunc.bts: offset 216: truncated: header says 2 records, file holds 1$"
"$GEN" -o "$T/hs.bts" --header-size 64 --rec 1:2
ok_if "cli: header_size below 192 fails naming offset 10" \
	one_line_error "$T/hs.bts" "^bts-dump: $T/hs.bts: offset 10: header_size 64 "
"$GEN" -o "$T/rs.bts" --record-size 16 --rec 1:2
ok_if "cli: record_size other than 24 fails naming offset 12" \
	one_line_error "$T/rs.bts" "^bts-dump: $T/rs.bts: offset 12: record_size 16"
head -c 100 /dev/urandom >"$T/random.bin"
ok_if "cli: a file that is not a dump fails naming offset 0" \
	one_line_error "$T/random.bin" "offset 0: bad magic"
ok_if "cli: a missing file fails with exit 1" one_line_error "$T/nonexistent" "No such file"
ok_if "cli: one bad file does not stop the others, but the exit status is 1" \
	bash -c "'$BTS' -s '$S' '$T/trunc.bts' '$T/cpu1.bts' >'$T/mixed.txt' 2>/dev/null; [ \$? -eq 1 ] && grep -q '^CPU 1' '$T/mixed.txt'"

# Bit flips and cuts of a valid dump: errors, never crashes or sanitizer reports.
python3 - "$T/cpu1.bts" "$T/mut" <<'PY'
import os, random, sys
data = open(sys.argv[1], "rb").read()
os.makedirs(sys.argv[2], exist_ok=True)
rnd = random.Random(1)
for i in range(150):
    b = bytearray(data)
    for _ in range(rnd.randint(1, 8)):
        b[rnd.randrange(len(b))] = rnd.randrange(256)
    if i % 3 == 0:
        b = b[:rnd.randrange(len(b))]
    open(os.path.join(sys.argv[2], "m%03d" % i), "wb").write(b)
PY
mutants_ok() {
	local f rc bad=0
	for f in "$T"/mut/m*; do
		for mode in "" --json --folded; do
			"$BTS" -s "$S" $mode "$f" >/dev/null 2>"$T/mut.err"
			rc=$?
			if [ $rc -gt 1 ] || grep -qE 'Sanitizer|runtime error' "$T/mut.err"; then
				echo "$f $mode: exit $rc"; head -3 "$T/mut.err"; bad=1
			fi
		done
	done
	return $bad
}
ok_if "cli: 150 corrupted dumps give exit 0 or 1, never a crash or sanitizer report" mutants_ok

"$GEN" -o "$T/many.bts" --walk 200000 --symbols "$S"
# Inputs that must end quickly with one line, never block or read without bound.
# (Each command runs under timeout 20: a hang fails as exit 124.)
mkdir -p "$T/notbts"	# a tracing directory of a kernel without the bts tracer
cp "$T/cpu1.bts" "$T/notbts/trace_pipe"	# trace_pipe is a regular file that blocks
echo 1 >"$T/notbts/tracing_on"
ok_if "input: -t DIR without bts/ is one line naming bts/ and reads none of DIR's files" \
	bash -c "timeout 20 '$BTS' -s '$S' -t '$T/notbts' >'$T/nb.out' 2>'$T/nb.err'; [ \$? -eq 1 ] && [ \$(wc -l <'$T/nb.err') -eq 1 ] && grep -q 'bts/' '$T/nb.err' && ! grep -q '^CPU' '$T/nb.out'"
mkfifo "$T/fifo"
ok_if "input: a FIFO is refused in one line, without blocking" \
	bash -c "timeout 20 '$BTS' -s '$S' '$T/fifo' 2>'$T/fifo.err'; [ \$? -eq 1 ] && [ \$(wc -l <'$T/fifo.err') -eq 1 ] && grep -q 'not a regular file' '$T/fifo.err'"
ok_if "input: a character device (/dev/zero) is refused in one line" \
	bash -c "timeout 20 '$BTS' -s '$S' /dev/zero 2>'$T/zero.err'; [ \$? -eq 1 ] && [ \$(wc -l <'$T/zero.err') -eq 1 ] && grep -q 'not a regular file' '$T/zero.err'"
ok_if "input: a FIFO given as --symbols or --vmlinux is refused without blocking" \
	bash -c "timeout 20 '$BTS' -s '$T/fifo' '$T/cpu1.bts' >/dev/null 2>'$T/fs.err'; [ \$? -eq 1 ] && grep -q 'not a regular file' '$T/fs.err' && timeout 20 '$BTS' -k '$T/fifo' '$T/cpu1.bts' >/dev/null 2>'$T/fk.err'; [ \$? -eq 1 ] && grep -q 'not a regular file' '$T/fk.err'"
truncate -s 2G "$T/sparse"
# Memory, not time: the magic is checked before the file is read or mapped.
ok_if "input: a sparse 2 GB file is rejected at offset 0 using under 200 MB" \
	bash -c "/usr/bin/time -f '%M' -o '$T/sparse.rss' timeout 60 '$BTS' -s '$S' '$T/sparse' 2>'$T/sparse.err'; [ \$? -eq 1 ] && grep -q 'offset 0: bad magic' '$T/sparse.err' && echo \"max RSS \$(cat '$T/sparse.rss') KB\" && [ \$(tail -1 '$T/sparse.rss') -lt 204800 ]"
"$GEN" -o "$T/sparse-hdr.bts" --rec 1:2
truncate -s 2G "$T/sparse-hdr.bts"
ok_if "input: a valid header followed by 2 GB of zeros fails on the size, using under 200 MB" \
	bash -c "/usr/bin/time -f '%M' -o '$T/sh.rss' timeout 60 '$BTS' -s '$S' '$T/sparse-hdr.bts' 2>'$T/sh.err'; [ \$? -eq 1 ] && grep -q 'garbage after the last of 1 records' '$T/sh.err' && [ \$(tail -1 '$T/sh.rss') -lt 204800 ]"
truncate -s 2G "$T/sparse.map"
ok_if "input: a sparse 2 GB --symbols file is refused quickly in memory" \
	bash -c "/usr/bin/time -f '%M' -o '$T/sm.rss' timeout 60 '$BTS' -s '$T/sparse.map' '$T/cpu1.bts' >/dev/null 2>'$T/sm.err'; [ \$? -eq 1 ] && grep -q 'not a kallsyms' '$T/sm.err' && [ \$(tail -1 '$T/sm.rss') -lt 204800 ]"
rm -f "$T/sparse" "$T/sparse-hdr.bts" "$T/sparse.map"
ok_if "input: --hist --top 1000000000 prints the table and ends" \
	bash -c "timeout 20 '$BTS' -s '$S' --hist --top 1000000000 '$T/many.bts' >'$T/top.txt' 2>&1 && grep -q '^# hot functions' '$T/top.txt'"
ok_if "input: --top larger than 2^32 is clamped, not wrapped to a small number" \
	bash -c "timeout 20 '$BTS' -s '$S' --hist --top 18446744073709551615 '$T/hot.bts' >'$T/top2.txt' 2>&1 && [ \$(grep -cE '^ +[0-9]+ ' '$T/top2.txt') -ge 4 ]"
{ head -3 "$S"; echo "ffffffff8100 this line is broken"; tail -n +4 "$S"; } >"$T/onebad.map"
"$BTS" -s "$T/onebad.map" "$T/cpu1.bts" >"$T/onebad.txt" 2>"$T/onebad.err"
ok_if "input: one malformed System.map line is a warning naming the line; the other symbols stay" \
	bash -c "[ \$(wc -l <'$T/onebad.err') -eq 1 ] && grep -q 'onebad.map: line 4:' '$T/onebad.err' && grep -qE '^ +3 .*ksys_read\+0x8 -> vfs_read\+0x0' '$T/onebad.txt'"

"$GEN" -o "$T/kaslr.bts" --stext 0xffffffff93000000 --kaslr 0x12000000 \
	--rec ffffffff93000310:ffffffff93000400
grep -v mod_ "$S" >"$T/System.map"
"$BTS" -s "$T/System.map" "$T/kaslr.bts" >"$T/kaslr.txt" 2>&1
ok_if "cli: a System.map names a dump taken at a KASLR-randomized base" \
	grep -qE '^ +0 call\? +ksys_read\+0x10 -> vfs_read\+0x0$' "$T/kaslr.txt"

"$BTS" --help >"$T/help.txt"
ok_if "cli: --help exits 0 and documents every option" \
	bash -c "for o in --tracing-dir --capture --cpu --symbols --vmlinux --kcore --last --since-fault --until-fault --json --perf --hist --callgraph --folded; do grep -q -- \"\$o\" '$T/help.txt' || exit 1; done"
ok_if "cli: an unknown option is a usage error (exit 2)" \
	bash -c "'$BTS' --bogus >/dev/null 2>&1; [ \$? -eq 2 ]"
ok_if "cli: a bad --cpu list is a usage error (exit 2)" \
	bash -c "'$BTS' --cpu 3-1 '$T/cpu1.bts' >/dev/null 2>&1; [ \$? -eq 2 ]"
ok_if "cli: a reader that goes away (broken pipe) ends the output quietly" \
	bash -c "set -o pipefail; '$BTS' -s '$S' '$T/many.bts' 2>'$T/pipe.err' | head -1 >/dev/null; rc=\$?; [ \$rc -eq 0 -o \$rc -eq 141 ] && ! grep -qE 'Sanitizer|runtime error' '$T/pipe.err'"

# --- the build: warnings are errors, unless WERROR=0 ----------------------
# The Makefile's flags compile a file with one warning (an unused variable).
build_flags() {
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$(dirname "$0")/.." --no-print-directory \
		--eval 'print-flags: ; @echo $(BASE_CFLAGS) $(CFLAGS)' print-flags "$@" 2>/dev/null
}
printf 'int main(void);\nint main(void)\n{\n\tint unused;\n\treturn 0;\n}\n' >"$T/warn.c"
flags_default=$(build_flags)
flags_werror0=$(build_flags WERROR=0)
ok_if "build: by default a warning fails the build (-Werror)" \
	bash -c "[ -n '$flags_default' ] && ! cc $flags_default -c -o '$T/warn.o' '$T/warn.c' 2>'$T/warn1.err' && grep -q unused '$T/warn1.err'"
ok_if "build: with WERROR=0 the same warning is printed and the build goes on" \
	bash -c "[ -n '$flags_werror0' ] && cc $flags_werror0 -c -o '$T/warn.o' '$T/warn.c' 2>'$T/warn0.err' && grep -q unused '$T/warn0.err'"

# A copy of the Makefile inside a tree that has a kernel build, as the
# project's build/obj-test: no variable points into it unless given.
mkdir -p "$T/tree/tools/bts-dump" "$T/tree/build/obj-test"
cp "$(dirname "$0")/../Makefile" "$T/tree/tools/bts-dump/"
touch "$T/tree/build/obj-test/System.map" "$T/tree/build/obj-test/vmlinux"
env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$T/tree/tools/bts-dump" --no-print-directory \
	--eval 'print-paths: ; @echo "SYSTEM_MAP=$(SYSTEM_MAP) KALLSYMS=$(KALLSYMS) VMLINUX=$(VMLINUX) BENCH_VMLINUX=$(BENCH_VMLINUX) TRACE_DAT=$(TRACE_DAT)"' \
	print-paths >"$T/paths.txt" 2>&1
ok_if "build: the Makefile takes no System.map, vmlinux or trace.dat from the tree it is in" \
	grep -qx 'SYSTEM_MAP= KALLSYMS= VMLINUX= BENCH_VMLINUX= TRACE_DAT=' "$T/paths.txt"

# --- the fixture kernel: DWARF and instructions as a vmlinux has them ----
FK=$BINDIR/fixture-kernel
fk_addr() { nm "$FK" | awk -v s="$1" '$3 == s { print $1; exit }'; }
# A record from every instruction to the next: every address has a location.
objdump -d "$FK" | grep -E '^ *ffffffff8[0-9a-f]+:' | awk -F: '{ gsub(/ /, "", $1); print $1 }' >"$T/fk.addrs"
paste -d' ' "$T/fk.addrs" <(tail -n +2 "$T/fk.addrs"; head -1 "$T/fk.addrs") >"$T/fk.recs"
"$GEN" -o "$T/fk-all.bts" --stext "0x$(fk_addr _stext)" --records-file "$T/fk.recs"
ok_if "inline: every address of the fixture has addr2line -i -f's chain, frame for frame" \
	python3 "$(dirname "$0")/compare-inlines.py" "$BTS" "$FK" "$T/fk-all.bts"
ok_if "inline: the six-deep chain of level6 in outer() is printed whole" \
	bash -c "'$BTS' -k '$FK' '$T/fk-all.bts' | grep -qE 'level6 inlined at [^ ]+:[0-9]+ level5 inlined at [^ ]+:[0-9]+ level4 inlined at [^ ]+:[0-9]+ level3 inlined at [^ ]+:[0-9]+ level2 inlined at [^ ]+:[0-9]+ level1 inlined at [^ ]+:[0-9]+\]'"

ok_if "kinds: runtime-patched text (return thunk, retpoline, static key, alternative) is not misnamed" \
	python3 "$(dirname "$0")/patched-kinds.py" "$BTS" "$GEN" "$FK" "$T"

# --- does the vmlinux / System.map belong to the dumped kernel? -----------
fk_id=$(readelf -n "$FK" | awk '/Build ID:/ { print $3 }')
other_id=$(echo "$fk_id" | tr '0-9a-f' '1-9a-f0')
fk_recs=(--stext "0x$(fk_addr _stext)" --rec "$(fk_addr start_kernel):$(fk_addr keyed)")
"$GEN" -o "$T/id-same.bts" "${fk_recs[@]}" --build-id "$fk_id"
"$GEN" -o "$T/id-other.bts" "${fk_recs[@]}" --build-id "$other_id"
"$GEN" -o "$T/id-none.bts" "${fk_recs[@]}"
ok_if "build id: a vmlinux with the dump's build ID is used without a word" \
	bash -c "'$BTS' -k '$FK' '$T/id-same.bts' >'$T/id1.out' 2>'$T/id1.err' && [ ! -s '$T/id1.err' ] && grep -q 'start_kernel+0x0 .*-> keyed+0x0' '$T/id1.out'"
ok_if "build id: a vmlinux of another build is refused in one line naming both IDs" \
	bash -c "'$BTS' -k '$FK' '$T/id-other.bts' >'$T/id2.out' 2>'$T/id2.err'; [ \$? -eq 1 ] && [ \$(wc -l <'$T/id2.err') -eq 1 ] && grep -q '$fk_id' '$T/id2.err' && grep -q '$other_id' '$T/id2.err' && grep -q -- '--force' '$T/id2.err' && ! grep -q 'keyed' '$T/id2.out'"
ok_if "build id: --force uses it anyway, with one warning" \
	bash -c "'$BTS' --force -k '$FK' '$T/id-other.bts' >'$T/id3.out' 2>'$T/id3.err' && [ \$(wc -l <'$T/id3.err') -eq 1 ] && grep -q 'warning' '$T/id3.err' && grep -q 'keyed+0x0' '$T/id3.out'"
ok_if "build id: a dump without one (older kernels) is read as before" \
	bash -c "'$BTS' -k '$FK' '$T/id-none.bts' >'$T/id4.out' 2>'$T/id4.err' && [ ! -s '$T/id4.err' ] && grep -q 'keyed+0x0' '$T/id4.out'"
"$GEN" -o "$T/etext-same.bts" --stext 0xffffffff93000000 --kaslr 0x12000000 --etext 0xffffffff93000500 \
	--rec ffffffff93000310:ffffffff93000400
"$GEN" -o "$T/etext-other.bts" --stext 0xffffffff93000000 --kaslr 0x12000000 --etext 0xffffffff93000a80 \
	--rec ffffffff93000310:ffffffff93000400
ok_if "build id: a System.map whose _etext matches the dump's is used" \
	bash -c "'$BTS' -s '$S' '$T/etext-same.bts' >'$T/et1.out' 2>'$T/et1.err' && [ ! -s '$T/et1.err' ] && grep -q 'ksys_read+0x10 -> vfs_read+0x0' '$T/et1.out'"
ok_if "build id: a System.map of another build (_etext elsewhere) is refused in one line" \
	bash -c "'$BTS' -s '$S' '$T/etext-other.bts' >'$T/et2.out' 2>'$T/et2.err'; [ \$? -eq 1 ] && [ \$(wc -l <'$T/et2.err') -eq 1 ] && grep -q '_etext' '$T/et2.err' && ! grep -q 'vfs_read' '$T/et2.out'"
"$GEN" -o "$T/id-badsize.bts" "${fk_recs[@]}" --build-id "$fk_id" --build-id-size 21
ok_if "build id: a build_id_size over 20 is a one-line error at offset 172" \
	one_line_error "$T/id-badsize.bts" "offset 172: build_id_size 21"

# --- trace.dat: the ftrace:bts entries trace-cmd saved ---------------------
GT="python3 $(dirname "$0")/gen-tracedat.py"
# Writer CPU 0 writes CPU 1's oops capture (with a print entry in between),
# then CPU 0's dump; writer CPU 1 writes CPU 2's dump with entry 2 of 5 lost.
cat >"$T/td.recs" <<'RECS'
0 1 0 4 1 ffffffff81000120 ffffffff81000200 0
0 1 1 4 1 ffffffff81000210 ffffffff81000300 0
0 print something else on the same CPU
0 1 2 4 1 ffffffff81000308 ffffffff81000400 0
0 1 3 4 1 ffffffff81000444 ffffffff82000000 4000000000000000
0 0 0 2 0 ffffffff81000120 ffffffff81000200 8000000000000000
0 0 1 2 0 ffffffff81000210 ffffffff81000300 8000000000000000
1 2 0 5 0 ffffffff81000120 ffffffff81000200 0
1 2 1 5 0 ffffffff81000210 ffffffff81000300 0
1 lost 1
1 2 3 5 0 ffffffff81000308 ffffffff81000400 0
1 2 4 5 0 ffffffff81000430 ffffffff81000440 0
RECS
$GT -o "$T/td.dat" --kallsyms "$S" "$T/td.recs"
"$BTS" "$T/td.dat" >"$T/td.txt" 2>"$T/td.err"
td_rc=$?
ok_if "trace.dat: read with its own kallsyms, every history printed, exit 0" \
	bash -c "[ $td_rc -eq 0 ] && [ ! -s '$T/td.err' ] && [ \$(grep -c '^CPU' '$T/td.txt') -eq 3 ]"
ok_if "trace.dat: a capture's entries, around another event, are one history with its fault" \
	bash -c "grep -q '^CPU 1: 4 records .*captured at oops' '$T/td.txt' && grep -qE '^ +3 .*vfs_read\+0x44 -> 0xffffffff82000000  <== FAULT' '$T/td.txt'"
ok_if "trace.dat: software-source entries make a software-source history" \
	bash -c "grep -A1 '^CPU 0: 2 records' '$T/td.txt' | grep -q 'software source'"
ok_if "trace.dat: an entry that never arrived is counted, not invented" \
	bash -c "grep -A1 '^CPU 2: 4 records' '$T/td.txt' | grep -q '1 of 5 records did not arrive'"
# The same names as trace-cmd report gives each entry.
# (Not the fault's target past _etext: libtraceevent names it _etext+0xfffb00.)
trace-cmd report -i "$T/td.dat" 2>/dev/null | grep ' bts:' | grep -v '\[fault\]' | sed -E 's/.* cpu=[0-9]+ [0-9]+\/[0-9]+ //; s/ \[sw\]//' | sort >"$T/td.tc"
"$BTS" --no-indent "$T/td.dat" | grep -E '^ +[0-9]+ ' | grep -v 'FAULT' | sed -E 's/^ +[0-9]+ [a-z?]+ +//' | sort >"$T/td.bd"
ok_if "trace.dat: every entry names the same symbols as trace-cmd report" \
	bash -c "[ \$(wc -l <'$T/td.tc') -eq 9 ] && diff '$T/td.tc' '$T/td.bd'"
# KASLR: the kernel ran 0x2a00000 higher; the trace.dat's kallsyms says so.
python3 -c "
import sys
for l in open(sys.argv[1]):
    f = l.split()
    print('%x %s %s' % (int(f[0], 16) + 0x2a00000, f[1], ' '.join(f[2:])))" "$S" >"$T/k-moved"
python3 -c "
import sys
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) == 8 and f[1] not in ('print', 'lost'):
        f[5] = '%x' % (int(f[5], 16) + 0x2a00000); f[6] = '%x' % (int(f[6], 16) + 0x2a00000)
    print(' '.join(f))" "$T/td.recs" >"$T/td-moved.recs"
$GT -o "$T/td-moved.dat" --kallsyms "$T/k-moved" "$T/td-moved.recs"
"$BTS" -s "$T/System.map" "$T/td-moved.dat" >"$T/tdm.txt" 2>&1
ok_if "trace.dat: a System.map names entries of a KASLR-moved kernel by the trace.dat's _stext" \
	bash -c "grep -qE '^ +2 .*ksys_read\+0x8 -> vfs_read\+0x0$' '$T/tdm.txt'"
$GT -o "$T/td-nobts.dat" --no-bts --kallsyms "$S" "$T/td.recs"
ok_if "trace.dat: one without the ftrace:bts format is one line, exit 1" \
	bash -c "'$BTS' '$T/td-nobts.dat' >/dev/null 2>'$T/tdn.err'; [ \$? -eq 1 ] && [ \$(wc -l <'$T/tdn.err') -eq 1 ] && grep -q 'no ftrace:bts event format' '$T/tdn.err'"
head -c 3000 "$T/td.dat" >"$T/td-cut.dat"
ok_if "trace.dat: a truncated one is one line, exit 1" \
	bash -c "timeout 20 '$BTS' '$T/td-cut.dat' >/dev/null 2>'$T/tdc.err'; [ \$? -eq 1 ] && [ \$(wc -l <'$T/tdc.err') -eq 1 ]"
# The whole pipeline on one: decoded kinds and file:line from the fixture kernel.
k_call=$(objdump -d "$FK" | awk '/call .*<keyed>/ { sub(":", "", $1); print $1; exit }')
nm "$FK" | awk '{ print $1, $2, $3 }' >"$T/fk.syms"
echo "0 3 0 1 0 $k_call $(fk_addr keyed) 0" >"$T/td-fk.recs"
$GT -o "$T/td-fk.dat" --kallsyms "$T/fk.syms" "$T/td-fk.recs"
"$BTS" -k "$FK" "$T/td-fk.dat" >"$T/tdk.txt" 2>&1
ok_if "trace.dat: with a vmlinux, kinds are decoded and lines found" \
	bash -c "grep -qE '^ +0 call +start_kernel\+0x[0-9a-f]+ \[[^]]*kernel\.c:[0-9]+\] -> keyed\+0x0' '$T/tdk.txt'"

# --- trace.dat: stream mode (nr 0, reason 6; ftrace:bts_gap) ---------------
# Each ring-buffer CPU's stream entries, oldest first, are its stream. The
# records files below are the expectation: what bts-dump prints is checked
# against them, not against numbers written here.
stream_branches() {	# JSON -> "cpu from to" per branch of a stream, in output order
	python3 -c "
import json, sys
st = False
for o in map(json.loads, open(sys.argv[1])):
    if o['type'] == 'dump':
        st = o.get('stream', False)
    elif o['type'] == 'branch' and st:
        print(o['cpu'], o['from'][2:], o['to'][2:])" "$1"
}
stream_expected() {	# RECORDS -> "cpu from to" of the stream entries, by CPU then order
	awk '$2 != "print" && $2 != "lost" && $2 != "gap" && $4 == 0 && $5 == 6 { print $2, $6, $7 }' "$1" |
		sort -s -n -k1,1
}
export -f stream_branches stream_expected
# Two CPUs writing at once, other entries between.
python3 - "$T/st-clean.recs" <<'PY'
import random, sys
random.seed(7)
fns = [0xffffffff81000100, 0xffffffff81000200, 0xffffffff81000300, 0xffffffff81000400]
pos = {0: 0, 1: 0}
with open(sys.argv[1], "w") as f:
    for _ in range(400):
        c = random.choice((0, 1))
        fr = random.choice(fns) + random.randrange(0x10, 0xf0)
        to = random.choice(fns) + random.choice((0, 0x20))
        f.write("%d %d %d 0 6 %x %x 0\n" % (c, c, pos[c], fr, to))
        pos[c] += 1
        if random.random() < 0.05:
            f.write("%d print between\n" % c)
PY
$GT -o "$T/st-clean.dat" --kallsyms "$S" "$T/st-clean.recs"
"$BTS" --json "$T/st-clean.dat" >"$T/st-clean.json" 2>"$T/st-clean.err"
st_rc=$?
"$BTS" "$T/st-clean.dat" >"$T/st-clean.txt" 2>&1
ok_if "stream: a clean 2-CPU stream gives every record, per CPU in order, no loss, exit 0" \
	bash -c "[ $st_rc -eq 0 ] && [ ! -s '$T/st-clean.err' ] && diff <(stream_branches '$T/st-clean.json') <(stream_expected '$T/st-clean.recs') >/dev/null && [ \$(grep -c '\"type\":\"gap\"' '$T/st-clean.json') -eq 0 ] && [ \$(grep -cE '^CPU [01]: stream of [0-9]+ records from intel_bts, 0 gaps, 0 records lost' '$T/st-clean.txt') -eq 2 ] && ! grep -q -- '---' '$T/st-clean.txt'"

# A bts_gap (known loss), a pos jump without one, a wrap at 2^32, a loss
# after the last record, a dump history in between on the same CPU.
cat >"$T/st-gap.recs" <<'RECS'
0 0 0 0 6 ffffffff81000120 ffffffff81000200 0
0 0 1 0 6 ffffffff81000210 ffffffff81000300 0
0 gap 0 1234
0 0 1236 0 6 ffffffff81000310 ffffffff81000400 0
0 0 0 2 0 ffffffff81000120 ffffffff81000200 0
0 0 1237 0 6 ffffffff81000410 ffffffff81000318 0
0 0 1 2 0 ffffffff81000210 ffffffff81000300 0
0 0 1300 0 6 ffffffff81000320 ffffffff81000218 0
1 1 4294967294 0 6 ffffffff81000120 ffffffff81000200 0
1 1 4294967295 0 6 ffffffff81000210 ffffffff81000300 0
1 1 0 0 6 ffffffff81000310 ffffffff81000400 0
1 1 1 0 6 ffffffff81000410 ffffffff81000318 0
1 gap 1 3
RECS
$GT -o "$T/st-gap.dat" --kallsyms "$S" "$T/st-gap.recs"
"$BTS" --no-indent "$T/st-gap.dat" >"$T/st-gap.txt" 2>"$T/st-gap.err"
st_rc=$?
"$BTS" --json "$T/st-gap.dat" >"$T/st-gap.json" 2>/dev/null
awk '/^CPU 0: stream/{p=1;next} /^CPU/{p=0} p' "$T/st-gap.txt" >"$T/st-gap.cpu0"
awk '/^CPU 1: stream/{p=1;next} /^CPU/{p=0} p' "$T/st-gap.txt" >"$T/st-gap.cpu1"
ok_if "stream: a bts_gap is a marker with its count where it happened" \
	bash -c "[ $st_rc -eq 0 ] && grep -B1 -A1 -x '  --- 1234 records lost (ring buffer full: bts_gap) ---' '$T/st-gap.cpu0' | sed -n '1p;3p' | grep -c 'ksys_read+0x0\$\|ksys_read+0x10 ->' | grep -qx 2"
ok_if "stream: a pos jump without bts_gap is an 'overwritten or unread' marker with its count" \
	bash -c "grep -B1 -A1 -x '  --- 62 records lost (ring buffer overwritten or unread: pos jumped) ---' '$T/st-gap.cpu0' | grep -q 'vfs_read+0x10 -> ksys_read+0x18' && grep -A1 -- '--- 62 records' '$T/st-gap.cpu0' | grep -q 'ksys_read+0x20 -> do_syscall_64+0x18'"
ok_if "stream: the summary counts records, gaps and both kinds of loss" \
	grep -qE '^CPU 0: stream of 5 records from intel_bts, 2 gaps, 1296 records lost \(1234 ring buffer full: bts_gap, 62 overwritten or unread: pos jumped\)' "$T/st-gap.txt"
# CPU 1's first pos says how many records came before the recording.
ok_if "stream: pos wrapping at 2^32 is no loss; a bts_gap after the last record is shown at the end" \
	bash -c "grep -qE '^CPU 1: stream of 4 records from intel_bts, 2 gaps, 4294967297 records lost \(3 ring buffer full: bts_gap, 4294967294 overwritten' '$T/st-gap.txt' && [ \$(grep -c -- '---' '$T/st-gap.cpu1') -eq 2 ] && sed -n 1p '$T/st-gap.cpu1' | grep -qx '  --- 4294967294 records lost (ring buffer overwritten or unread: pos jumped) ---' && sed -n 2,5p '$T/st-gap.cpu1' | grep -cE '^ +[0-9]+ ' | grep -qx 4 && tail -1 '$T/st-gap.cpu1' | grep -qx '  --- 3 records lost (ring buffer full: bts_gap) ---'"
ok_if "stream: a dump history between stream entries of one CPU is a history of its own" \
	bash -c "grep -A2 '^CPU 0: 2 records (capacity 2) from intel_bts, dumped on dump' '$T/st-gap.txt' | grep -qE '^ +1 .*do_syscall_64\+0x10 -> ksys_read\+0x0' && [ \$(grep -c '^CPU' '$T/st-gap.txt') -eq 3 ] && diff <(stream_branches '$T/st-gap.json') <(stream_expected '$T/st-gap.recs') >/dev/null"
ok_if "stream: JSON has each loss as a \"gap\" object and the totals in the stream's header" \
	bash -c "grep -q '\"type\":\"gap\",\"cpu\":0,\"index\":2,\"pos\":1236,\"lost\":1234,\"cause\":\"bts_gap\"' '$T/st-gap.json' && grep -q '\"type\":\"gap\",\"cpu\":0,\"index\":4,\"pos\":1300,\"lost\":62,\"cause\":\"pos_jump\"' '$T/st-gap.json' && grep -q '\"stream\":true,\"gaps\":2,\"lost_known\":1234,\"lost_unseen\":62' '$T/st-gap.json'"
"$BTS" --perf "$T/st-gap.dat" >"$T/st-gap.perf" 2>/dev/null
ok_if "stream: --perf gives each loss as a '#' line where it happened" \
	bash -c "grep -B1 -A1 -x '#  --- 1234 records lost (ring buffer full: bts_gap) ---' '$T/st-gap.perf' | grep -c 'branches:k:' | grep -qx 2 && [ \$(grep -c '^#  --- ' '$T/st-gap.perf') -eq 4 ]"
# The stack model restarts at a loss: after it, ksys_read's call to
# vfs_read has no caller known (without the gap it would be under
# do_syscall_64, as the two records before it say).
cat >"$T/st-fold.recs" <<'RECS'
0 0 0 0 6 7f0000001000 ffffffff81000100 0
0 0 1 0 6 ffffffff81000120 ffffffff81000200 0
0 0 2 0 6 ffffffff81000210 ffffffff81000300 0
0 gap 0 10
0 0 13 0 6 ffffffff81000310 ffffffff81000400 0
RECS
$GT -o "$T/st-fold.dat" --kallsyms "$S" "$T/st-fold.recs"
"$BTS" --folded "$T/st-fold.dat" >"$T/st-fold.txt" 2>&1
# The same without the loss: no bts_gap, pos continuous.
grep -v gap "$T/st-fold.recs" | awk '{ if ($2 != "gap") $3 = NR - 1; print }' >"$T/st-nofold.recs"
$GT -o "$T/st-nofold.dat" --kallsyms "$S" "$T/st-nofold.recs"
"$BTS" --folded "$T/st-nofold.dat" >"$T/st-nofold.txt" 2>&1
ok_if "stream: --folded restarts the stacks after a loss" \
	bash -c "grep -qx 'ksys_read;vfs_read 1' '$T/st-fold.txt' && ! grep -q 'do_syscall_64;ksys_read;vfs_read' '$T/st-fold.txt' && grep -qx '\[user\];entry_SYSCALL_64;do_syscall_64;ksys_read;vfs_read 1' '$T/st-nofold.txt'"
# --callgraph: the generator names each software-source entry's caller ->
# callee from the kallsyms; bts-dump's edges must be that set exactly.
python3 - "$T/st-cg.recs" <<'PY'
import random, sys
random.seed(11)
fns = [0xffffffff81000100, 0xffffffff81000200, 0xffffffff81000300, 0xffffffff81000400,
       0xffffffffa0000000, 0xffffffffa0000100]
pos = {0: 5, 1: 0, 2: 0}
with open(sys.argv[1], "w") as f:
    for _ in range(3000):
        c = random.choice((0, 1, 2))
        # Not from the last symbol: a trace.dat's kallsyms gives it no end.
        fr = random.choice(fns[:-1]) + random.randrange(0x10, 0xf0)
        to = random.choice(fns)
        if random.random() < 0.01:
            f.write("%d gap %d %d\n" % (c, c, 50))
            pos[c] += 50
        if random.random() < 0.01:
            pos[c] += 9
        f.write("%d %d %d 0 6 %x %x 8000000000000000\n" % (c, c, pos[c], fr, to))
        pos[c] += 1
PY
$GT -o "$T/st-cg.dat" --kallsyms "$S" --edges "$T/st-cg.want" "$T/st-cg.recs"
"$BTS" --callgraph "$T/st-cg.dat" 2>/dev/null | sed -nE 's/^\t"([^"]*)" -> "([^"]*)" .*/\1 \2/p' | sort >"$T/st-cg.got"
ok_if "stream: --callgraph has exactly the generated caller -> callee edges ($(wc -l <"$T/st-cg.want") of them)" \
	bash -c "[ \$(wc -l <'$T/st-cg.want') -ge 20 ] && diff '$T/st-cg.want' '$T/st-cg.got'"
# Cleared user halves (flag bit 61) in a stream: [user] in the listing,
# null in JSON, never 0x0 in the analyses.
cat >"$T/st-ucl.recs" <<'RECS'
0 0 0 0 6 0 ffffffff81000100 2000000000000000
0 0 1 0 6 ffffffff81000120 ffffffff81000200 0
0 0 2 0 6 ffffffff81000220 ffffffff81000180 0
0 0 3 0 6 ffffffff81000180 0 2000000000000000
0 0 4 0 6 0 ffffffff81000100 2000000000000000
0 0 5 0 6 ffffffff81000120 ffffffff81000200 0
RECS
$GT -o "$T/st-ucl.dat" --kallsyms "$S" "$T/st-ucl.recs"
"$BTS" "$T/st-ucl.dat" >"$T/st-ucl.txt" 2>&1
"$BTS" --json "$T/st-ucl.dat" >"$T/st-ucl.json" 2>&1
for a in hist callgraph folded; do "$BTS" --$a "$T/st-ucl.dat" >"$T/st-ucl.$a" 2>&1; done
ok_if "stream: cleared user halves are [user] in the listing, null in JSON, never 0x0 in --hist, --callgraph, --folded" \
	bash -c "grep -qE '^CPU 0: stream of 6 records' '$T/st-ucl.txt' && [ \$(grep -cE '^ +[04] syscall\? +\[user\] -> entry_SYSCALL_64\+0x0  \(user->kernel\)\$' '$T/st-ucl.txt') -eq 2 ] && grep -qE '^ +3 sysret\? +entry_SYSCALL_64\+0x80 -> \[user\]  \(kernel->user\)\$' '$T/st-ucl.txt' && [ \$(grep -c '\"from\":null,\"from_sym\":null,.*\"user_cleared\":true' '$T/st-ucl.json') -eq 2 ] && [ \$(grep -c '\"to\":null,\"to_sym\":null,.*\"user_cleared\":true' '$T/st-ucl.json') -eq 1 ] && no_zero_addr '$T/st-ucl.txt' '$T/st-ucl.hist' '$T/st-ucl.callgraph' '$T/st-ucl.folded' && grep -qE '^ +1 +16\.6%  \[user\]\$' '$T/st-ucl.hist' && grep -q '\"\[user\]\" -> \"entry_SYSCALL_64\" \[label=\"2\"' '$T/st-ucl.callgraph'"
# Hostile: nr 0 with another reason, a huge bts_gap, pos going back, a
# stream entry naming another CPU; and a file without the bts_gap format.
cat >"$T/st-bad.recs" <<'RECS'
0 0 0 0 6 ffffffff81000120 ffffffff81000200 0
0 0 1 0 3 ffffffff81000120 ffffffff81000200 0
0 0 1 0 9 ffffffff81000120 ffffffff81000200 0
0 gap 0 18446744073709551615
0 0 1 0 6 ffffffff81000210 ffffffff81000300 0
0 0 0 0 6 ffffffff81000310 ffffffff81000400 0
0 3 1 0 6 ffffffff81000310 ffffffff81000400 0
0 0 1 0 6 ffffffff81000410 ffffffff81000318 0
RECS
$GT -o "$T/st-bad.dat" --kallsyms "$S" "$T/st-bad.recs"
"$BTS" --no-indent "$T/st-bad.dat" >"$T/st-bad.txt" 2>"$T/st-bad.err"
st_rc=$?
ok_if "stream: nr 0 with a reason other than stream is skipped with one warning" \
	bash -c "[ $st_rc -eq 0 ] && [ \$(grep -c 'nr 0 and a reason other than 6' '$T/st-bad.err') -eq 1 ] && grep -q ': 2 ftrace:bts entries with nr 0' '$T/st-bad.err' && grep -q '^CPU 0: stream of 4 records' '$T/st-bad.txt'"
ok_if "stream: a huge bts_gap, pos going back and a foreign CPU are marked or warned, no crash" \
	bash -c "grep -qx '  --- 18446744073709551615 records lost (ring buffer full: bts_gap) ---' '$T/st-bad.txt' && grep -qx '  --- pos went back to 0: a new stream (re-armed?), records lost unknown ---' '$T/st-bad.txt' && grep -q 'pos went back' '$T/st-bad.err' && grep -q '1 stream entries name a CPU other' '$T/st-bad.err' && ! grep -qE 'Sanitizer|runtime error' '$T/st-bad.err' && [ \$(wc -l <'$T/st-bad.err') -eq 4 ]"
$GT -o "$T/st-nogap.dat" --no-gap --kallsyms "$S" "$T/st-gap.recs"
"$BTS" "$T/st-nogap.dat" >"$T/st-nogap.txt" 2>"$T/st-nogap.err"
st_rc=$?
ok_if "stream: without the bts_gap format (older kernel) losses are pos jumps, with one warning" \
	bash -c "[ $st_rc -eq 0 ] && [ \$(wc -l <'$T/st-nogap.err') -eq 1 ] && grep -q 'no ftrace:bts_gap event format' '$T/st-nogap.err' && grep -qx '  --- 1234 records lost (ring buffer overwritten or unread: pos jumped) ---' '$T/st-nogap.txt'"

# --- console text: what ftrace_dump_on_oops printed ------------------------
GC="python3 $(dirname "$0")/gen-console.py"
# CPU 1's oops capture and CPU 0's software dump of the fixtures above.
cat >"$T/con.recs" <<'RECS'
1 0 9 1 7f0000001000 ffffffff81000100 0
1 1 9 1 ffffffff81000120 ffffffff81000200 0
1 2 9 1 ffffffff81000210 ffffffff81000300 0
1 3 9 1 ffffffff81000308 ffffffff81000400 0
1 4 9 1 ffffffff81000430 ffffffff81000440 0
1 5 9 1 ffffffff81000444 ffffffff82000000 4000000000000000
1 6 9 1 ffffffff81000450 ffffffff8100030d 0
1 7 9 1 ffffffff81000320 ffffffff81000215 0
1 8 9 1 ffffffff81000180 7f0000001002 0
0 0 3 0 ffffffff81000120 ffffffff81000200 8000000000000000
0 1 3 0 ffffffff81000210 ffffffff81000300 8000000000000000
0 2 3 0 ffffffffa0000010 ffffffffa0000100 8000000000000000
RECS
record_lines() { grep -E '^ +[0-9]+ ' "$1"; }
"$BTS" -s "$S" "$T/cpu1.bts" "$T/cpu0.bts" >"$T/con-ref.txt" 2>&1
for style in dmesg pstore syslog raw; do
	$GC --kallsyms "$S" --style $style "$T/con.recs" >"$T/con-$style.log"
	"$BTS" -s "$S" "$T/con-$style.log" >"$T/con-$style.txt" 2>"$T/con-$style.err"
	ok_if "console: $style lines give the same records as the dumps, exit 0" \
		bash -c "[ ! -s '$T/con-$style.err' ] && diff <(grep -E '^ +[0-9]+ ' '$T/con-ref.txt') <(grep -E '^ +[0-9]+ ' '$T/con-$style.txt')"
done
ok_if "console: a capture keeps its CPU, reason and fault" \
	bash -c "grep -q '^CPU 1: 9 records .*captured at oops' '$T/con-dmesg.txt' && grep -qE '^ +5 .*<== FAULT' '$T/con-dmesg.txt'"
$GC --kallsyms "$S" --noise "$T/con.recs" >"$T/con-noise.log"
"$BTS" -s "$S" "$T/con-noise.log" >"$T/con-noise.txt" 2>&1
ok_if "console: other lines in between are passed over; a line another printk cut is counted missing" \
	bash -c "grep -A1 '^CPU 1: 8 records' '$T/con-noise.txt' | grep -q '1 of 9 records did not arrive' && [ \$(record_lines() { grep -cE '^ +[0-9]+ ' \"\$1\"; }; record_lines '$T/con-noise.txt') -eq 11 ]"
$GC --kallsyms "$S" --cut "$T/con.recs" >"$T/con-cut.log"
"$BTS" -s "$S" "$T/con-cut.log" >"$T/con-cut.txt" 2>"$T/con-cut.err"
ok_if "console: a text cut in mid-line leaves that line out, says so, and keeps the rest" \
	bash -c "grep -q 'cut short' '$T/con-cut.err' && [ \$(wc -l <'$T/con-cut.err') -eq 1 ] && grep -A2 '^CPU 0: 2 records' '$T/con-cut.txt' | grep -q '1 of 3 records did not arrive'"
ok_if "console: without symbols it says which to give, in one line, exit 1" \
	bash -c "'$BTS' --no-symbols '$T/con-dmesg.log' >'$T/cn.out' 2>'$T/cn.err'; [ \$? -eq 1 ] && [ \$(wc -l <'$T/cn.err') -eq 1 ] && grep -q -- '-s' '$T/cn.err' && ! grep -q '^CPU' '$T/cn.out'"
grep -v 'ksys_read' "$S" >"$T/noksys.map"
ok_if "console: a name the symbol table lacks is one error naming it, exit 1" \
	bash -c "'$BTS' -s '$T/noksys.map' '$T/con-dmesg.log' >/dev/null 2>'$T/cm.err'; [ \$? -eq 1 ] && grep -q 'the first: ksys_read+0x' '$T/cm.err'"
# Another build's System.map: vfs_read is shorter there than the console says.
sed 's/^ffffffff81000500 T _etext$/ffffffff81000420 T _etext/; s/^ffffffff81000500 D some_data$/ffffffff81000420 D some_data/' "$S" >"$T/other.map"
ok_if "console: offsets past the end of their symbol mean another kernel's symbols: refused in one line" \
	bash -c "'$BTS' -s '$T/other.map' '$T/con-dmesg.log' >'$T/co.out' 2>'$T/co.err'; [ \$? -eq 1 ] && [ \$(wc -l <'$T/co.err') -eq 1 ] && grep -q 'past the end of their symbol' '$T/co.err' && grep -q -- '--force' '$T/co.err' && ! grep -q '^CPU' '$T/co.out'"
ok_if "console: --force prints them anyway, with a warning" \
	bash -c "'$BTS' --force -s '$T/other.map' '$T/con-dmesg.log' 2>'$T/cf.err' | grep -q '^CPU 1' && grep -q 'warning' '$T/cf.err'"
# Two static functions called show: the size %pS printed tells them apart.
cat >"$T/dup.map" <<'SYMS'
ffffffff81000000 T _stext
ffffffff81000100 t show
ffffffff81000120 T after_small_show
ffffffff81000200 t show
ffffffff81000300 T after_big_show
ffffffff81000400 T _etext
SYMS
printf '[ 1.0] x-1 0d... 1us : cpu=0 0/1 show+0x8/0x100 -> after_small_show+0x0/0xe0\n' >"$T/dup.log"
"$BTS" -s "$T/dup.map" -a "$T/dup.log" >"$T/dup.txt" 2>&1
ok_if "console: of two symbols with one name, the one of the printed size is taken" \
	grep -q 'ffffffff81000208 show+0x8 -> ' "$T/dup.txt"
# Two static functions called show of one size: only the low 32 bits the
# kernel prints at the end of the line tell them apart. Without them (an
# older kernel) the record says it is in doubt, in every format.
cat >"$T/dup2.map" <<'SYMS'
ffffffff81000000 T _stext
ffffffff81000100 t show
ffffffff81000200 T a
ffffffff81000300 t show
ffffffff81000400 T b
ffffffff81000500 T _etext
SYMS
printf '[ 1.0] x-1 0d... 1us : cpu=0 0/2 a+0x10/0x100 -> show+0x8/0x100 @81000210:81000308\n[ 1.0] x-1 0d... 2us : cpu=0 1/2 show+0x20/0x100 -> b+0x0/0x100 @81000320:81000400\n' >"$T/dup2.log"
sed 's/ @[0-9a-f:]*$//' "$T/dup2.log" >"$T/dup2-old.log"
ok_if "console: the low 32 bits pick the copy of a static function that shares name and size, no doubt left" \
	bash -c "'$BTS' -s '$T/dup2.map' -a '$T/dup2.log' >'$T/d2.txt' 2>'$T/d2.err' && [ ! -s '$T/d2.err' ] && grep -qE '^ +0 .*a\+0x10 -> ffffffff81000308 show\+0x8\$' '$T/d2.txt' && grep -qE '^ +1 .*ffffffff81000320 show\+0x20 -> ' '$T/d2.txt' && ! grep -q ambiguous '$T/d2.txt' && '$BTS' -s '$T/dup2.map' --json '$T/dup2.log' | grep -c '\"from_ambiguous\":false,\"to_ambiguous\":false' | grep -qx 2"
ok_if "console: without them the address is marked ambiguous in text, JSON and perf output and counted, with one warning" \
	bash -c "'$BTS' -s '$T/dup2.map' -a '$T/dup2-old.log' >'$T/d2o.txt' 2>'$T/d2o.err' && [ \$(wc -l <'$T/d2o.err') -eq 1 ] && grep -q '2 addresses name a static function' '$T/d2o.err' && grep -qE '^ +0 .*a\+0x10 -> ffffffff81000108 show\+0x8 \(ambiguous\)\$' '$T/d2o.txt' && grep -qE '^ +1 .*show\+0x20 \(ambiguous\) -> ' '$T/d2o.txt' && grep -q '(2 addresses in 2 records name a static function' '$T/d2o.txt' && '$BTS' -s '$T/dup2.map' --json '$T/dup2-old.log' 2>/dev/null >'$T/d2o.json' && grep -q '\"ambiguous\":2' '$T/d2o.json' && grep -q '\"from_ambiguous\":false,\"to_ambiguous\":true' '$T/d2o.json' && grep -q '\"from_ambiguous\":true,\"to_ambiguous\":false' '$T/d2o.json' && [ \$('$BTS' -s '$T/dup2.map' --perf '$T/dup2-old.log' 2>/dev/null | grep -c '(ambiguous)') -eq 2 ]"
sed 's/@81000210:81000308/@81000210:81000309/' "$T/dup2.log" >"$T/dup2-bad.log"
ok_if "console: low bits no copy agrees with are another kernel's symbols: refused in one line, exit 1; --force warns" \
	bash -c "'$BTS' -s '$T/dup2.map' '$T/dup2-bad.log' >/dev/null 2>'$T/d2b.err'; [ \$? -eq 1 ] && [ \$(wc -l <'$T/d2b.err') -eq 1 ] && grep -q 'disagree with the low 32 bits' '$T/d2b.err' && '$BTS' --force -s '$T/dup2.map' '$T/dup2-bad.log' 2>&1 >/dev/null | grep -q warning"
printf '[ 1.0] x-1 0d... 1us : cpu=0 0/1 0xffffffff81000210 -> b+0x0/0x100 @81000211:81000400\n' >"$T/dup2-raw.log"
ok_if "console: a printed number whose low bits disagree is no entry (a damaged line)" \
	bash -c "'$BTS' -s '$T/dup2.map' '$T/dup2-raw.log' >/dev/null 2>'$T/d2r.err'; [ \$? -eq 1 ] && grep -q 'no bts lines' '$T/d2r.err'"
# The whole pipeline on console text: the fixture kernel's lines and kinds.
echo "3 0 1 0 $k_call $(fk_addr keyed) 0" >"$T/con-fk.recs"
$GC --kallsyms "$T/fk.syms" "$T/con-fk.recs" >"$T/con-fk.log"
"$BTS" -k "$FK" "$T/con-fk.log" >"$T/con-fk.txt" 2>&1
ok_if "console: with a vmlinux, kinds are decoded and lines found" \
	bash -c "grep -qE '^ +0 call +start_kernel\+0x[0-9a-f]+ \[[^]]*kernel\.c:[0-9]+\] -> keyed\+0x0' '$T/con-fk.txt'"
ok_if "console: text that holds no bts line is one error, exit 1" \
	bash -c "echo 'just a log line' >'$T/plain.txt'; '$BTS' -s '$S' '$T/plain.txt' 2>'$T/pl.err'; [ \$? -eq 1 ] && [ \$(wc -l <'$T/pl.err') -eq 1 ] && grep -q 'no bts lines' '$T/pl.err'"

# --- console text: the bts_history line before each CPU's history --------
# It gives the history the dump header's fields: build ID, _stext, KASLR
# offset, release, reason.
fk_stext=$(fk_addr _stext)
printf 'H 3 1 0 %s 0 6.12.117-bts %s\n' "$fk_stext" "$fk_id" | cat - "$T/con-fk.recs" >"$T/hdr-same.recs"
printf 'H 3 1 0 %s 0 6.12.117-bts %s\n' "$fk_stext" "$other_id" | cat - "$T/con-fk.recs" >"$T/hdr-other.recs"
$GC --kallsyms "$T/fk.syms" "$T/hdr-same.recs" >"$T/hdr-same.log"
$GC --kallsyms "$T/fk.syms" "$T/hdr-other.recs" >"$T/hdr-other.log"
ok_if "console header: a vmlinux with the header's build ID is used without a word, the fields are the header's" \
	bash -c "'$BTS' -k '$FK' '$T/hdr-same.log' >'$T/hs.out' 2>'$T/hs.err' && [ ! -s '$T/hs.err' ] && grep -qE '^ +0 call +start_kernel\+0x[0-9a-f]+ .*-> keyed\+0x0' '$T/hs.out' && '$BTS' -k '$FK' --json '$T/hdr-same.log' | grep '\"type\":\"dump\"' | grep -q '\"stext\":\"0x$fk_stext\".*\"release\":\"6.12.117-bts\",\"build_id\":\"$fk_id\"'"
# The same refusal, word for word, as for a dump file of that build ID.
"$BTS" -k "$FK" "$T/id-other.bts" 2>&1 >/dev/null | sed "s|$T/id-other.bts|FILE|" >"$T/ho-dump.err"
ok_if "console header: another build's ID refuses the vmlinux in one line, as for a dump file; nothing printed" \
	bash -c "'$BTS' -k '$FK' '$T/hdr-other.log' >'$T/ho.out' 2>'$T/ho.err'; [ \$? -eq 1 ] && [ \$(wc -l <'$T/ho.err') -eq 1 ] && grep -q '$other_id' '$T/ho.err' && ! grep -q keyed '$T/ho.out' && diff <(sed 's|$T/hdr-other.log|FILE|' '$T/ho.err') '$T/ho-dump.err'"
ok_if "console header: --force uses the other build's vmlinux anyway, with one warning" \
	bash -c "'$BTS' --force -k '$FK' '$T/hdr-other.log' >'$T/hf.out' 2>'$T/hf.err' && [ \$(wc -l <'$T/hf.err') -eq 1 ] && grep -q warning '$T/hf.err' && grep -q 'keyed+0x0' '$T/hf.out'"
# KASLR: the kernel ran 0x12000000 up. Its kallsyms (printing) does not
# have init_fn, which the System.map has (freed init text): %pS printed that
# address as a number. The header's _stext and KASLR offset take it back
# to the System.map's init_fn, as for the dump file.
python3 -c "
import sys
for l in open(sys.argv[1]):
    f = l.split()
    print('%x %s %s' % (int(f[0], 16) + 0x12000000, f[1], ' '.join(f[2:])))" "$T/System.map" >"$T/k-kaslr"
{ cat "$T/System.map"; echo "ffffffff81000600 T init_fn"; echo "ffffffff81000700 T _einittext"; } >"$T/hk.map"
cat >"$T/hk.recs" <<'RECS'
H 1 3 0 ffffffff93000000 12000000 6.12.117-bts -
1 0 3 0 ffffffff93000120 ffffffff93000200 0
1 1 3 0 ffffffff93000210 ffffffff93000300 0
1 2 3 0 ffffffff93000310 ffffffff93000600 0
RECS
"$GEN" -o "$T/hk.bts" --cpu 1 --stext 0xffffffff93000000 --kaslr 0x12000000 \
	--rec ffffffff93000120:ffffffff93000200 --rec ffffffff93000210:ffffffff93000300 \
	--rec ffffffff93000310:ffffffff93000600
$GC --kallsyms "$T/k-kaslr" "$T/hk.recs" >"$T/hk.log"
grep -v '^H' "$T/hk.recs" >"$T/hk-nohdr.recs"
$GC --kallsyms "$T/k-kaslr" "$T/hk-nohdr.recs" >"$T/hk-nohdr.log"
"$BTS" -s "$T/hk.map" -a "$T/hk.bts" >"$T/hk-dump.txt" 2>&1
"$BTS" -s "$T/hk.map" -a "$T/hk.log" >"$T/hk.txt" 2>"$T/hk.err"
ok_if "console header: raw addresses are moved by the header's KASLR offset: the same records, addresses included, as the dump file" \
	bash -c "grep -q 'ksys_read+0x10/0x100 -> 0xffffffff93000600 @93000310:93000600$' '$T/hk.log' && [ ! -s '$T/hk.err' ] && grep -qE '^ +2 .*ksys_read\+0x10 -> ffffffff93000600 init_fn\+0x0$' '$T/hk.txt' && diff <(grep -E '^ +[0-9]+ ' '$T/hk-dump.txt') <(grep -E '^ +[0-9]+ ' '$T/hk.txt')"
ok_if "console header: without it, the same raw address names nothing (what the header adds)" \
	bash -c "'$BTS' -s '$T/hk.map' '$T/hk-nohdr.log' 2>/dev/null | grep -qE '^ +2 .*ksys_read\+0x10 -> 0xffffffff93000600$'"
# Interleaved: CPU 0's and CPU 1's histories, lines alternating; a header
# with no records (nr 0), one whose 4 records never came, another CPU's
# history without a header.
cat >"$T/hi.recs" <<'RECS'
H 1 3 1 ffffffff81000000 0 6.12.117-bts 0102030405060708090a0b0c0d0e0f1011121314
H 0 2 0 ffffffff81000000 0 6.12.117-bts 0102030405060708090a0b0c0d0e0f1011121314
1 0 3 1 ffffffff81000120 ffffffff81000200 0
0 0 2 0 ffffffff81000120 ffffffff81000200 8000000000000000
1 1 3 1 ffffffff81000210 ffffffff81000300 0
0 1 2 0 ffffffff81000210 ffffffff81000300 8000000000000000
H 2 0 0 ffffffff81000000 0 6.12.117-bts 0102030405060708090a0b0c0d0e0f1011121314
1 2 3 1 ffffffff81000308 ffffffff81000400 0
H 3 4 3 ffffffff81000000 0 6.12.117-bts 0102030405060708090a0b0c0d0e0f1011121314
5 0 1 0 ffffffff81000120 ffffffff81000200 0
RECS
$GC --kallsyms "$S" "$T/hi.recs" >"$T/hi.log"
"$BTS" -s "$S" --json "$T/hi.log" >"$T/hi.json" 2>"$T/hi.err"
hi_rc=$?
ok_if "console header: interleaved CPUs each get their own header, records and all; exit 0" \
	python3 - "$T/hi.json" "$hi_rc" "$T/hi.err" <<'PY'
import json, sys
assert sys.argv[2] == "0" and open(sys.argv[3]).read() == "", open(sys.argv[3]).read()
d = {o["cpu"]: o for o in map(json.loads, open(sys.argv[1])) if o["type"] == "dump"}
b = [o for o in map(json.loads, open(sys.argv[1])) if o["type"] == "branch"]
assert sorted(d) == [0, 1, 2, 3, 5], sorted(d)
bid = "0102030405060708090a0b0c0d0e0f1011121314"
for c, n, reason in ((1, 3, "oops"), (0, 2, "dump")):
    assert d[c]["count"] == n and d[c]["missing"] == 0 and d[c]["reason"] == reason, d[c]
    assert d[c]["build_id"] == bid and d[c]["release"] == "6.12.117-bts", d[c]
    assert d[c]["stext"] == "0xffffffff81000000", d[c]
assert [x["to_sym"] for x in b if x["cpu"] == 1] == ["do_syscall_64", "ksys_read", "vfs_read"]
assert d[0]["source"] == "sw" and all(x["sw"] for x in b if x["cpu"] == 0)
assert d[5]["build_id"] is None and d[5]["release"] == "" and d[5]["count"] == 1, d[5]
PY
"$BTS" -s "$S" "$T/hi.log" >"$T/hi.txt" 2>&1
ok_if "console header: a header of nr 0 is an empty history; one whose records never came says they did not arrive" \
	bash -c "grep -A2 '^CPU 2: 0 records' '$T/hi.txt' | grep -q '(no records)' && grep -q '^CPU 3: 0 records .*captured at panic' '$T/hi.txt' && grep -A1 '^CPU 3:' '$T/hi.txt' | grep -q '4 of 4 records did not arrive'"
# A pid filter's mark after the build ID: the dump's header flags say it;
# a mark bts-dump does not know makes the header mangled.
cat >"$T/hf.recs" <<'RECS'
H 1 1 0 ffffffff81000000 0 6.12.117-bts 0102030405060708090a0b0c0d0e0f1011121314 pid
1 0 1 0 ffffffff81000120 ffffffff81000200 0
H 0 1 0 ffffffff81000000 0 6.12.117-bts 0102030405060708090a0b0c0d0e0f1011121314 pid,held
0 0 1 0 ffffffff81000120 ffffffff81000200 0
H 2 1 0 ffffffff81000000 0 6.12.117-bts 0102030405060708090a0b0c0d0e0f1011121314 all
2 0 1 0 ffffffff81000120 ffffffff81000200 0
RECS
$GC --kallsyms "$S" "$T/hf.recs" >"$T/hf.log"
"$BTS" -s "$S" --json "$T/hf.log" >"$T/hf.json" 2>"$T/hf.err"
"$BTS" -s "$S" "$T/hf.log" >"$T/hf.txt" 2>/dev/null
ok_if "console header: filter:pid and filter:pid,held set the pid filter flags; an unknown filter mark is a mangled header" \
	python3 - "$T/hf.json" "$T/hf.err" "$T/hf.txt" <<'PY'
import json, sys
d = {o["cpu"]: o for o in map(json.loads, open(sys.argv[1])) if o["type"] == "dump"}
assert d[1]["pid_filter"] and not d[1]["filter_held"], d[1]
assert d[0]["pid_filter"] and d[0]["filter_held"], d[0]
assert not d[2]["pid_filter"] and d[2]["release"] == "", d[2]
assert "bts_history line" in open(sys.argv[2]).read()
t = open(sys.argv[3]).read()
assert t.count("(pid filter: only the tasks set_ftrace_pid chose were recorded)") == 2, t
assert "was not chosen: the history ends where the last chosen task left CPU 0" in t, t
PY
# Mangled headers: another printk cut into one (its build ID, of another
# build, cut short), bad hex in another, a release over 64 characters.
long=$(printf 'r%.0s' $(seq 65))
cat >"$T/hm.recs" <<RECS
T bts_history cpu:3 nr:1 reason:0 stext:0x$fk_stext kaslr:0x0 release:6.12.117-bts build_id:${other_id:0:16}[   12.9] ata1: link up
T bts_history cpu:4 nr:1 reason:0 stext:0xfffffffg81000000 kaslr:0x0 release:6.12.117-bts build_id:$other_id
T bts_history cpu:5 nr:1 reason:0 stext:0x$fk_stext kaslr:0x0 release:$long build_id:$other_id
RECS
cat "$T/con-fk.recs" >>"$T/hm.recs"
$GC --kallsyms "$T/fk.syms" "$T/hm.recs" >"$T/hm.log"
ok_if "console header: mangled headers are left out with one warning naming the first line; never trusted in part" \
	bash -c "'$BTS' -k '$FK' --json '$T/hm.log' >'$T/hm.json' 2>'$T/hm.err' && [ \$(wc -l <'$T/hm.err') -eq 1 ] && grep -q 'line 5: 3 bts_history lines' '$T/hm.err' && [ \$(grep -c '\"type\":\"dump\"' '$T/hm.json') -eq 1 ] && grep '\"type\":\"dump\"' '$T/hm.json' | grep -q '\"kaslr_offset\":\"0x0\",\"lost\":0,\"release\":\"\",\"build_id\":null' && grep -q '\"to_sym\":\"keyed\"' '$T/hm.json'"
# The running kernel's release in a header: this machine's kallsyms may name it.
printf 'T CPU: 1 PID: 81 Comm: sh Not tainted %s #1\nH 3 1 0 %s 0 %s -\n' "$(uname -r)" "$fk_stext" 9.9.9-other | cat - "$T/con-fk.recs" >"$T/hr-other.recs"
printf 'H 3 1 0 %s 0 %s -\n' "$fk_stext" "$(uname -r)" | cat - "$T/con-fk.recs" >"$T/hr-same.recs"
$GC --kallsyms "$T/fk.syms" "$T/hr-other.recs" >"$T/hr-other.log"
$GC --kallsyms "$T/fk.syms" "$T/hr-same.recs" >"$T/hr-same.log"
ok_if "console header: its release decides whether the running kernel's kallsyms is read, not a mention in the text" \
	bash -c "'$BTS' '$T/hr-other.log' >/dev/null 2>'$T/hro.err'; grep -q 'give -s' '$T/hro.err' && { '$BTS' '$T/hr-same.log' >/dev/null 2>'$T/hrs.err'; ! grep -q 'give -s' '$T/hrs.err'; }"

# --- --vmcore: the capture kept in a kdump crash dump ----------------------
GV="python3 $(dirname "$0")/gen-vmcore.py"
# CPU 1's oops capture and CPU 0's software history, as slots: records from
# byte 4008 of a page (one record across two frames), frames out of order
# in two PT_LOAD segments far apart.
$GV -o "$T/core" "$T/cpu1.bts" "$T/cpu0.bts"
run "$T/cpu1.bts" "$T/cpu0.bts" >"$T/core-ref.txt" 2>&1
run -a --perf "$T/cpu1.bts" "$T/cpu0.bts" >"$T/core-ref-a.txt" 2>&1
run --json "$T/cpu1.bts" "$T/cpu0.bts" | sed 's/"file":"[^"]*"/"file":F/' >"$T/core-ref.json"
ok_if "vmcore: a core with two CPUs' slots prints what their capture files print, exit 0" \
	bash -c "run() { '$BTS' -s '$S' \"\$@\"; }; run --vmcore '$T/core' >'$T/core.txt' 2>'$T/core.err' && [ ! -s '$T/core.err' ] && grep -q '^CPU 1: 9 records' '$T/core.txt' && diff '$T/core-ref.txt' '$T/core.txt' && run -a --perf --vmcore '$T/core' | diff '$T/core-ref-a.txt' - && run --json --vmcore '$T/core' | sed 's/\"file\":\"[^\"]*\"/\"file\":F/' | diff '$T/core-ref.json' -"
$GV -o "$T/core-off" --recs-offset 0,4095 "$T/cpu1.bts" "$T/cpu0.bts"
ok_if "vmcore: records from offset 0 and from the last byte of a page read the same" \
	bash -c "'$BTS' -s '$S' --vmcore '$T/core-off' 2>&1 | diff '$T/core-ref.txt' -"
$GV -o "$T/core-id" "$T/id-other.bts"
"$BTS" -k "$FK" "$T/id-other.bts" 2>&1 >/dev/null | sed "s|$T/id-other.bts|FILE|" >"$T/cid-dump.err"
ok_if "vmcore: another build's vmlinux is refused as for the capture file" \
	bash -c "'$BTS' -k '$FK' --vmcore '$T/core-id' >'$T/cid.out' 2>'$T/cid.err'; [ \$? -eq 1 ] && ! grep -q keyed '$T/cid.out' && diff <(sed 's|$T/core-id|FILE|' '$T/cid.err') '$T/cid-dump.err'"
one_line_vmcore() {	# FILE EXPECTED-REGEX [RECORD LINES STILL PRINTED]
	"$BTS" -s "$S" --vmcore "$1" >"$T/vc.out" 2>"$T/vc.err"
	local rc=$?
	[ $rc -eq 1 ] && [ "$(wc -l <"$T/vc.err")" -eq 1 ] && grep -qE "$2" "$T/vc.err" &&
		[ "$(grep -cE '^ +[0-9]+ ' "$T/vc.out")" -eq "${3:-0}" ] && ! grep -qE 'Sanitizer|runtime error' "$T/vc.err"
}
vcase() {	# NAME REGEX KEPT gen-vmcore-options...
	local name=$1 re=$2 kept=$3
	shift 3
	local f=$T/vcore-${#results[@]}
	$GV -o "$f" "$@" "$T/cpu1.bts" "$T/cpu0.bts"
	ok_if "vmcore: $name: one line, exit 1" one_line_vmcore "$f" "$re" "$kept"
}
vcase "truncated in the first slot's records (the other slot printed)" "^bts-dump: [^ ]+/vcore-[0-9]+: slot 0 \(cpu 1\) records, page 0 \(pfn 0x48003\): physical address 0x48003fa8 is at file offset 40872, past the end of the file \(38000 bytes\): truncated\?$" 3 --truncate 38000
vcase "truncated in the program headers" "4 program headers at offset 64: past the end of the file \(200 bytes\)" 0 --truncate 200
vcase "no VMCOREINFO" "^bts-dump: [^ ]+/vcore-[0-9]+: no VMCOREINFO note" 0 --no-vmcoreinfo
vcase "no BTS_TABLE" "^bts-dump: [^ ]+/vcore-[0-9]+: no bts table in VMCOREINFO \(bts not built in, or no crash kernel reservation at boot\)$" 0 --no-bts-table
vcase "unfilled table" "^bts-dump: [^ ]+/vcore-[0-9]+: bts table never filled: the crash path did not reach bts$" 0 --unfilled
vcase "nr_written 0" ": no capture was kept: .* none of the 4 slots" 0 --nr-written 0
vcase "nr_written over nr_slots" ": bts table at physical 0x1000100: offset 24: nr_written 3 is more than the 2 slots$" 0 --nr-written 3 --nr-slots 2
vcase "a page frame in no PT_LOAD" ": slot 0 \(cpu 1\) records, page 1 \(pfn 0x30000\): physical address 0x30000000 is in no PT_LOAD segment" 3 --pfn-outside
vcase "a bad slot header" ": slot 0 of the bts table at physical 0x1000100 \(physical 0x1000130\): header offset 0: bad magic" 3 --bad-slot-header
vcase "records past p_filesz" ": physical address 0x48003fa8 is not in the dump: its PT_LOAD segment \(physical 0x48000000, 16384 bytes\) has only its first 12288 in the file" 3 --exclude-records
vcase "KERNELOFFSET not the slots'" ": slot 0 \(cpu 1\): kaslr_offset 0x0, but VMCOREINFO has KERNELOFFSET=1200000: the bts table is not this crash's$" 0 --kerneloffset 1200000
vcase "OSRELEASE not the slots'" "OSRELEASE=6.1.0-other: the bts table is not this crash's$" 0 --osrelease 6.1.0-other
ok_if "vmcore: a file that is not an ELF core is one line" \
	one_line_vmcore "$T/cpu1.bts" "not an ELF file"
ok_if "vmcore: a core given as a dump file is one line pointing to --vmcore" \
	one_line_error "$T/core" "an ELF core, not a dump: for a kdump crash dump give --vmcore "
ok_if "vmcore: --help documents --vmcore" grep -q -- '--vmcore FILE' "$T/help.txt"
# Bit flips and cuts of a good core: exit 0 or 1, never a crash or sanitizer report.
python3 - "$T/core" "$T/vmut" <<'PY'
import os, random, sys
data = open(sys.argv[1], "rb").read()
os.makedirs(sys.argv[2], exist_ok=True)
rnd = random.Random(2)
# where the headers, notes, table, slots and records are
hot = [(0, 0x400), (0x1100, 0x1400), (0x9fa8, 0xa000), (0x3000, 0x3100), (0x8000, 0x8048)]
for i in range(150):
    b = bytearray(data)
    for _ in range(rnd.randint(1, 6)):
        lo, hi = rnd.choice(hot)
        b[rnd.randrange(lo, hi)] = rnd.choice([0, 0xff, rnd.randrange(256)])
    if i % 5 == 0:
        b = b[:rnd.randrange(len(b))]
    open(os.path.join(sys.argv[2], "v%03d" % i), "wb").write(b)
PY
vmutants_ok() {
	local f rc bad=0
	for f in "$T"/vmut/v*; do
		"$BTS" -s "$S" --vmcore "$f" >/dev/null 2>"$T/vmut.err"
		rc=$?
		if [ $rc -gt 1 ] || grep -qE 'Sanitizer|runtime error' "$T/vmut.err" ||
			{ [ $rc -eq 1 ] && [ ! -s "$T/vmut.err" ]; }; then
			echo "$f: exit $rc"; head -3 "$T/vmut.err"; bad=1
		fi
	done
	return $bad
}
ok_if "vmcore: 150 corrupted cores give exit 0 or 1 (with a message), never a crash or sanitizer report" vmutants_ok
# The drgn helper (drgn/bts.py) on the same cores, through a stand-in for
# drgn's Program (tests/drgn-fake.py): record for record what bts-dump
# reads; each damaged core one line and exit 1, never a traceback.
DF="python3 $(dirname "$0")/drgn-fake.py"
CMP="python3 $(dirname "$0")/compare-records.py"
"$BTS" -s "$S" --json --vmcore "$T/core" >"$T/core.json" 2>/dev/null
ok_if "drgn helper: the two-CPU core, record for record as bts-dump --vmcore reads it" \
	bash -c "$DF '$T/core' '$S' -j >'$T/dg.json' 2>'$T/dg.err' && [ ! -s '$T/dg.err' ] && $CMP '$T/core.json' '$T/dg.json' >'$T/dg.cmp' && grep -q '^12 records, 0 different' '$T/dg.cmp'"
ok_if "drgn helper: its text has bts-dump's header lines and the fault mark; -c, -r" \
	bash -c "$DF '$T/core' '$S' >'$T/dg.txt' && diff <(grep '^CPU ' '$T/core.txt') <(grep '^CPU ' '$T/dg.txt') && grep -q '<== FAULT' '$T/dg.txt' && [ \$($DF '$T/core' '$S' -c 0 | grep -c '^CPU ') -eq 1 ] && $DF '$T/core' '$S' -r | grep -qE '^ +0 [0-9a-f]{16} -> [0-9a-f]{16}'"
drgn_damaged_ok() {
	local f rc bad=0
	for f in "$T"/vcore-*; do
		$DF "$f" "$S" >/dev/null 2>"$T/dgd.err"
		rc=$?
		if [ $rc -ne 1 ] || [ "$(wc -l <"$T/dgd.err")" -ne 1 ] || grep -q Traceback "$T/dgd.err"; then
			echo "$f: exit $rc"; head -5 "$T/dgd.err"; bad=1
		fi
	done
	return $bad
}
ok_if "drgn helper: every damaged core of the vmcore cases is one line and exit 1" drgn_damaged_ok
drgn_mutants_ok() {
	local f rc bad=0
	for f in "$T"/vmut/v*; do
		$DF "$f" "$S" >/dev/null 2>"$T/dgm.err"
		rc=$?
		if [ $rc -gt 1 ] || grep -q Traceback "$T/dgm.err" || { [ $rc -eq 1 ] && [ ! -s "$T/dgm.err" ]; }; then
			echo "$f: exit $rc"; head -5 "$T/dgm.err"; bad=1
		fi
	done
	return $bad
}
ok_if "drgn helper: the 150 corrupted cores give exit 0 or 1 (with a message), never a traceback" drgn_mutants_ok
# -l, the current histories (bts_live), over made-up kernel memory: each
# kind of slot read as include/uapi/linux/bts.h says, each damaged table or
# slot one line and exit 1 (tests/drgn-live-fake.py, its own TAP)
ok_if "drgn helper -l: every kind of live slot read as the uapi header says; damaged ones one line (drgn-live-fake.py)" \
	bash -c "python3 '$(dirname "$0")/drgn-live-fake.py' >'$T/dlf.tap' 2>&1; ! grep -q '^not ok' '$T/dlf.tap' && grep -qE '^1\.\.[1-9]' '$T/dlf.tap' || { grep -v '^ok' '$T/dlf.tap' | head -5; false; }"

# --- modules: kallsyms names them, a .ko with DWARF gives their lines ------
MODS=$BINDIR/modules
MBASE=ffffffffa0010000
python3 - "$MODS/fixmod.ko" "$S" "$T/modks" "$T/mod.recs" "$MBASE" <<'PY'
import re, subprocess, sys
ko, syms, ks, recs, base = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5], 16)
out = open(syms).read()
for l in subprocess.run(["nm", ko], capture_output=True, text=True).stdout.splitlines():
    f = l.split()
    if len(f) == 3 and f[1] in "tT":
        out += "%x %s %s\t[fixmod]\n" % (base + int(f[0], 16), f[1], f[2])
# kallsyms goes on past a module's last function (its data, the next module)
out += "%x d fixmod_data\t[fixmod]\n" % (base + 0x1000)
open(ks, "w").write(out)
d = subprocess.run(["objdump", "-d", ko], capture_output=True, text=True).stdout
a = [base + int(m.group(1), 16) for m in re.finditer(r"^ +([0-9a-f]+):", d, re.M)]
open(recs, "w").write("".join("%x %x\n" % (x, y) for x, y in zip(a, a[1:] + a[:1])))
PY
"$GEN" -o "$T/mod.bts" --stext 0xffffffff81000000 --records-file "$T/mod.recs"
ok_if "modules: every module address has addr2line -j .text's chain, frame for frame" \
	env MODULE_BASE=0x$MBASE python3 "$(dirname "$0")/compare-inlines.py" "$BTS" "$MODS/fixmod.ko" "$T/mod.bts" addr2line -- -s "$T/modks" --modules "$MODS"
"$BTS" -s "$T/modks" --modules "$MODS" "$T/mod.bts" >"$T/mod.txt" 2>&1
ok_if "modules: module records show symbol [module] and module.c:line with inline frames" \
	grep -qE 'fixmod_work\+0x[0-9a-f]+ \[fixmod\] \[[^]]*module\.c:[0-9]+ mod_(inner|middle) inlined at [^]]*module\.c:[0-9]+' "$T/mod.txt"
ok_if "modules: without --modules, module records still name their symbols, without lines" \
	bash -c "'$BTS' -s '$T/modks' '$T/mod.bts' | grep -qE '^ +0 [a-z?]+ +fixmod_work\+0x0 \[fixmod\] -> '"
ok_if "modules: --modules on a directory without .ko files is one error" \
	bash -c "mkdir -p '$T/nomods'; '$BTS' -s '$T/modks' --modules '$T/nomods' '$T/mod.bts' >/dev/null 2>'$T/nm.err'; [ \$? -eq 1 ] && grep -q 'no .ko files' '$T/nm.err'"

# --- instruction-level history on the fixture kernel ------------------------
# A flow through the fixture: from user space into start_kernel, a call to
# keyed(), its static key on (a jmp), keyed calls outer(), which faults.
python3 - "$FK" "$T/flow.recs" <<'PY'
import re, subprocess, sys
fk, out = sys.argv[1], sys.argv[2]
dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", fk], capture_output=True, text=True).stdout
ins, sym, cur = {}, {}, None
for l in dis.splitlines():
    m = re.match(r"^([0-9a-f]+) <([^>]+)>:$", l)
    if m:
        cur = m.group(2); sym[cur] = int(m.group(1), 16); ins[cur] = []; continue
    m = re.match(r"^ *([0-9a-f]+):\s+(.*)$", l)
    if m and cur:
        ins[cur].append((int(m.group(1), 16), m.group(2)))
find = lambda fn, p: [a for a, t in ins[fn] if re.search(p, t)][0]
call_keyed = find("start_kernel", r"call .*<keyed>")
call_outer = find("keyed", r"call .*<outer>")
fault_at = ins["outer"][1][0]            # outer's second instruction
recs = [
    (0x7f0000001000, sym["start_kernel"], 0),
    (call_keyed, sym["keyed"], 0),
    (sym["keyed"], call_outer, 0),         # the static key's NOP, now a jmp
    (call_outer, sym["outer"], 0),
    (fault_at, sym["asm_exc_page_fault"], 1 << 62),
]
open(out, "w").write("".join("%x %x %x\n" % r for r in recs))
PY
"$GEN" -o "$T/flow.bts" --stext "0x$(fk_addr _stext)" --flags 2 --reason 1 --records-file "$T/flow.recs"
"$BTS" -k "$FK" --insns "$T/flow.bts" >"$T/flow.txt" 2>&1
ok_if "insns: the instructions from a call's target to the next branch are printed, ending at it" \
	bash -c "sed -n '/^ *3 call /,/^ *4 /p' '$T/flow.txt' | grep -qE '^ +outer\+0x0 +add[a-z]? ' && sed -n '/^ *3 call /,/^ *4 /p' '$T/flow.txt' | grep -qE '^ +outer\+0x3 +mov[a-z]? '"
ok_if "insns: a gap that is one instruction is that branch itself" \
	bash -c "sed -n '/^ *1 call /,/^ *2 /p' '$T/flow.txt' | grep -qE '^ +keyed\+0x0 +nop'"
ok_if "insns: user space has no bytes: said, not guessed" \
	bash -c "sed -n '/^ *0 /,/^ *1 /p' '$T/flow.txt' | grep -q 'no instructions:' || sed -n '/^ *0 /,/^ *1 /p' '$T/flow.txt' | grep -qE 'start_kernel\+0x0 '"
# Records missing: from start_kernel's entry to a branch after its first call.
after_call=$(objdump -d "$FK" | awk '/call .*<call_indirect>/ { getline; sub(":", "", $1); print $1; exit }')
printf '7f0000001000 %s 0\n%s %s 0\n' "$(fk_addr start_kernel)" "$after_call" "$(fk_addr outer)" >"$T/gap.recs"
"$GEN" -o "$T/gap.bts" --stext "0x$(fk_addr _stext)" --records-file "$T/gap.recs"
"$BTS" -k "$FK" --insns "$T/gap.bts" >"$T/gap.txt" 2>&1
ok_if "insns: a gap that does not decode to the next branch is refused, with why" \
	grep -qE 'no instructions: a (call|jmp) at 0x[0-9a-f]+ before the next branch' "$T/gap.txt"
"$BTS" -k "$FK" "$T/flow.bts" >"$T/flow-sum.txt" 2>&1
ok_if "summary: a capture starts with the faulting instruction, its line and target" \
	grep -qE '^  fault at #4: outer\+0x[0-9a-f]+ \[[^]]*kernel\.c:[0-9]+[^]]*]: mov[a-z]? [^ ].* -> asm_exc_page_fault\+0x0$' "$T/flow-sum.txt"
ok_if "summary: the call chain at the fault is calls minus returns" \
	grep -qx '  call chain at the fault (calls minus returns): \[user\] > start_kernel > keyed > outer' "$T/flow-sum.txt"
ok_if "summary: the last entry from user space is named" \
	grep -qE '^  last entry from user space: #0 0x7f0000001000 -> start_kernel\+0x0$' "$T/flow-sum.txt"
"$BTS" -k "$FK" --json "$T/flow.bts" >"$T/flow.json" 2>&1
ok_if "summary: JSON has it as a \"fault\" object" \
	bash -c "grep '\"type\":\"fault\"' '$T/flow.json' | grep -q '\"chain\":\[\"\[user\]\",\"start_kernel\",\"keyed\",\"outer\"\]'"
ok_if "summary: --no-summary leaves it out" \
	bash -c "! '$BTS' -k '$FK' --no-summary '$T/flow.bts' | grep -q 'fault at #'"
# --around: only the windows that enter a function, with context.
"$GEN" -o "$T/around.bts" --walk 400 --symbols "$S" --seed 5
"$BTS" -s "$S" --no-fold --around vfs_read --context 1 "$T/around.bts" >"$T/around.txt" 2>&1
"$BTS" -s "$S" --no-fold "$T/around.bts" >"$T/around-all.txt" 2>&1
ok_if "around: every record entering the symbol is shown, with one record of context each side" \
	python3 - "$T/around-all.txt" "$T/around.txt" <<'PY'
import re, sys
def recs(p):
    return {int(l.split()[0]): l for l in open(p) if re.match(r"^ +\d+ ", l)}
allr, shown = recs(sys.argv[1]), recs(sys.argv[2])
enter = [i for i, l in allr.items() if re.search(r"-> vfs_read\+", l)]
want = {j for i in enter for j in (i - 1, i, i + 1) if j in allr}
assert enter and set(shown) == want, (len(enter), sorted(set(shown) ^ want)[:5])
PY
ok_if "around: separate windows are separated by --" \
	grep -qx '  --' "$T/around.txt"
ok_if "around: SYM+OFF matches only that offset; a symbol never entered says so" \
	bash -c "'$BTS' -s '$S' --around vfs_read+0x7 '$T/around.bts' | grep -q 'no record enters vfs_read' && ! '$BTS' -s '$S' --around 'vfs_read+' '$T/around.bts' 2>/dev/null"

# --- built without libtracecmd (NO_LIBTRACECMD=1): all but trace.dat ------
td_refused="bts-dump: $T/td.dat: trace.dat input needs bts-dump built with libtracecmd (install libtracecmd-dev and rebuild)"
ok_if "no libtracecmd: make test gave run-tests.sh the NO_LIBTRACECMD=1 build" \
	test -x "$NOTC"
ok_if "no libtracecmd: --version says trace.dat input is not built in (the full build: that it is)" \
	bash -c "'$NOTC' --version | grep -qx 'trace.dat input: no (built without libtracecmd)' && '$BTS' --version | grep -qx 'trace.dat input: yes (libtracecmd)'"
ok_if "no libtracecmd: it is not linked with libtracecmd, libtracefs or libtraceevent (the full build is)" \
	bash -c "! readelf -d '$NOTC' | grep NEEDED | grep -qE 'libtrace(cmd|fs|event)' && readelf -d '$BTS' | grep NEEDED | grep -q libtracecmd"
"$BTS" -s "$S" "$T/cpu1.bts" "$T/cpu0.bts" >"$T/tc-dump.txt" 2>&1
"$NOTC" -s "$S" "$T/cpu1.bts" "$T/cpu0.bts" >"$T/ntc-dump.txt" 2>"$T/ntc-dump.err"
ntc_rc=$?
ok_if "no libtracecmd: dump files read as with libtracecmd, exit 0" \
	bash -c "[ $ntc_rc -eq 0 ] && [ ! -s '$T/ntc-dump.err' ] && grep -q '^CPU 1' '$T/ntc-dump.txt' && diff '$T/tc-dump.txt' '$T/ntc-dump.txt'"
"$BTS" -s "$S" "$T/con-dmesg.log" >"$T/tc-con.txt" 2>&1
"$NOTC" -s "$S" "$T/con-dmesg.log" >"$T/ntc-con.txt" 2>"$T/ntc-con.err"
ntc_rc=$?
ok_if "no libtracecmd: console text reads as with libtracecmd, exit 0" \
	bash -c "[ $ntc_rc -eq 0 ] && [ ! -s '$T/ntc-con.err' ] && grep -q '^CPU 1' '$T/ntc-con.txt' && diff '$T/tc-con.txt' '$T/ntc-con.txt'"
"$NOTC" "$T/td.dat" >"$T/ntc-td.txt" 2>"$T/ntc-td.err"
ntc_rc=$?
ok_if "no libtracecmd: a trace.dat is refused in one line naming it and what to install, exit 1" \
	bash -c "[ $ntc_rc -eq 1 ] && [ ! -s '$T/ntc-td.txt' ] && [ \"\$(cat '$T/ntc-td.err')\" = '$td_refused' ]"
"$NOTC" -s "$S" "$T/td.dat" "$T/cpu1.bts" >"$T/ntc-mix.txt" 2>"$T/ntc-mix.err"
ntc_rc=$?
ok_if "no libtracecmd: a dump given beside a trace.dat is still printed, exit 1" \
	bash -c "[ $ntc_rc -eq 1 ] && [ \"\$(cat '$T/ntc-mix.err')\" = '$td_refused' ] && grep -q '^CPU 1' '$T/ntc-mix.txt'"

# --- TAP ------------------------------------------------------------------
n=0
fail=0
for r in "${results[@]}"; do
	case $r in "ok - "* | "not ok - "*) n=$((n + 1)) ;; esac
done
echo "1..$n"
i=0
for r in "${results[@]}"; do
	case $r in
	"ok - "*) i=$((i + 1)); echo "ok $i - ${r#ok - }" ;;
	"not ok - "*) i=$((i + 1)); fail=$((fail + 1)); echo "not ok $i - ${r#not ok - }" ;;
	*) echo "$r" ;;
	esac
done
[ $fail -eq 0 ] && echo "# all $n tests passed" || echo "# $fail of $n tests failed"
exit $((fail > 0))
