#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The crash extension (crash/bts.so) over a kdump crash dump, against
# bts-dump --vmcore on the same dump. TAP.
#
#   test-crash.sh BTS_DUMP EXTENSION VMCORE VMLINUX
#
# crash opens a dump only with a vmlinux that has full debug info (the
# test kernel's reduced DWARF is refused: "no debugging data available",
# even with --minimal): with such a vmlinux the checks run, else the plan
# says SKIP and why.
set -u
BTS=$1 EXT=$2 VMCORE=$3 VMLINUX=$4
HERE=$(cd "$(dirname "$0")" && pwd)
if ! command -v crash >/dev/null; then
	echo "1..0 # SKIP crash is not installed (make deps)"
	exit 0
fi
T=$(mktemp -d /tmp/bts-crash.XXXXXX)
trap 'rm -rf "$T"' EXIT
run_crash() {	# output file, bts arguments
	local out=$1
	shift
	printf 'extend %s\nbts %s\nq\n' "$EXT" "$*" >"$T/cmds"
	# --minimal: crash 8.0.2's full start-up fails on 6.12's slab layout
	# ("invalid structure member offset: kmem_cache_s_num"); bts needs
	# only symbols and memory. --kaslr auto: the offset from VMCOREINFO.
	crash -s --minimal --kaslr auto "$VMLINUX" "${CORE:-$VMCORE}" -i "$T/cmds" >"$out" 2>"$out.err" </dev/null
}
run_crash "$T/crash.json" -j
if grep -q "no debugging data available" "$T/crash.json" "$T/crash.json.err"; then
	echo "1..0 # SKIP crash cannot open the dump with this vmlinux (no full debug info)"
	exit 0
fi
n=0 fail=0
check() {
	n=$((n + 1))
	if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=$((fail + 1)); fi
}
echo "1..5"
"$BTS" --vmcore "$VMCORE" -k "$VMLINUX" -j --no-fold >"$T/bts.json" 2>/dev/null
"$BTS" --vmcore "$VMCORE" -k "$VMLINUX" >"$T/bts.txt" 2>/dev/null
grep '^{' "$T/crash.json" >"$T/crash-only.json"
cmp=$(python3 "$HERE/compare-records.py" "$T/bts.json" "$T/crash-only.json" 2>&1)
check "crash's bts -j reads from the crash dump what bts-dump --vmcore does, record for record ($cmp)" \
	"echo '$cmp' | grep -qE '^[1-9][0-9]* records, 0 different'"
run_crash "$T/crash.txt"
check "crash's bts names the same histories as bts-dump, header for header" \
	"diff <(grep '^CPU ' '$T/bts.txt') <(grep '^CPU ' '$T/crash.txt')"
check "crash's bts marks the fault record" "grep -q '<== FAULT' '$T/crash.txt'"
# bts -l: where each source recorded when the machine went down (the table
# bts_live points to), against drgn's reading of the same dump
if command -v drgn >/dev/null; then
	run_crash "$T/crash-live.json" -l -j -r
	grep '^{' "$T/crash-live.json" >"$T/crash-live-only.json"
	drgn -q -c "$VMCORE" -s "$VMLINUX" "$HERE/../drgn/bts.py" -l -j -r >"$T/drgn-live.json" 2>"$T/drgn-live.err"
	cmp=$(python3 "$HERE/compare-records.py" "$T/drgn-live.json" "$T/crash-live-only.json" 2>&1)
	check "crash's bts -l reads from the crash dump the current histories drgn's bts.py -l does, record for record ($cmp)" \
		"echo '$cmp' | grep -qE '^[1-9][0-9]* records, 0 different'"
else
	n=$((n + 1))
	echo "ok $n - crash's bts -l against drgn's bts.py -l # SKIP drgn is not installed"
fi
# Damaged tables, one field at a time (tests/corrupt-vmcore.py, which
# needs drgn's Python module to find them): each gives a line naming the
# field, and no history from what is damaged; crash lives on.
damaged_ok() {
	local c want args bad=0 dump_all live_all
	# as many histories as the machine has CPUs with one: each undamaged
	dump_all=$(grep -c '"type":"dump"' "$T/crash.json")
	run_crash "$T/crash-live-all.json" -l -j -r
	live_all=$(grep -c '"type":"dump"' "$T/crash-live-all.json")
	while read -r c args want; do
		/usr/bin/python3 "$HERE/corrupt-vmcore.py" "$VMCORE" "$VMLINUX" "$T/bad" "$c" || { bad=1; continue; }
		if ! CORE=$T/bad run_crash "$T/bad.out" "${args//,/ }"; then
			echo "# $c: crash exited $? ($(tail -c 200 "$T/bad.out.err"))"
			bad=1
		fi
		if [ "$(grep -c '^bts: ' "$T/bad.out")" != 1 ] || ! grep -qE "^bts: $want" "$T/bad.out"; then
			echo "# $c: $(grep -m2 -E '^bts' "$T/bad.out")"
			bad=1
		fi
		# nothing from a damaged table; from a damaged slot, every other
		# CPU's (one fewer than from the undamaged dump)
		case $c in
		table-*|live-magic|live-slots) want=0 ;;
		live-*) want=$((live_all - 1)) ;;
		*) want=$((dump_all - 1)) ;;
		esac
		if [ "$(grep -c '"type":"dump"' "$T/bad.out")" != $want ]; then
			echo "# $c: $(grep -c '"type":"dump"' "$T/bad.out") histories printed, not $want"
			bad=1
		fi
		rm -f "$T/bad"
	done <<'CASES'
table-magic -j bts table never filled
table-version -j bts table at physical 0x[0-9a-f]+: offset 8: version 9
table-written -j bts table at physical 0x[0-9a-f]+: offset 24: nr_written 100000
slot-magic -j slot 0: header offset 0: bad magic
slot-count -j slot 0: header offset 20: count 5000
slot-pfn -j slot 0 \(cpu [0-9]+\): records: physical 0x[0-9a-f]+, [0-9]+ bytes: not in the dump
live-magic -l,-j,-r bts live table at 0x[0-9a-f]+: offset 0: bad magic
live-slots -l,-j,-r bts live table at 0x[0-9a-f]+: offset 20: nr_slots 0
live-kind -l,-j,-r live slot of cpu 0: offset 6: kind 9
live-nr -l,-j,-r live slot of cpu 0: offset 8: nr 1073741824
CASES
	return $bad
}
if python3 -c 'import drgn' 2>/dev/null || /usr/bin/python3 -c 'import drgn' 2>/dev/null; then
	check "crash's bts on 10 dumps damaged one field each: a line naming the field, no damaged history" damaged_ok
else
	n=$((n + 1))
	echo "ok $n - crash's bts on damaged dumps # SKIP drgn's Python module is not installed"
fi
exit $((fail > 0))
