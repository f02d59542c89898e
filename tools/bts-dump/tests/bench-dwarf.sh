#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bts-dump with vmlinux DWARF against llvm-addr2line on the same addresses:
# a dump of mostly distinct addresses (gen-dump --spread: records between
# random places of random functions), decoded with file:line, full inline
# chains and instruction kinds, against `llvm-addr2line --inlines -f` given
# the same addresses. CPU time (user+sys), best of 3, each pair measured
# back to back; figures and ratios only, no assertions.
#
#   bench-dwarf.sh BTS_DUMP GEN_DUMP VMLINUX [RECORDS] [LABEL]
set -u
BTS=$1
GEN=$2
VMLINUX=$3
N=${4:-100000}
LABEL=${5:-vmlinux}
W=$(mktemp -d /tmp/bts-dump-bench-dwarf.XXXXXX)
trap 'rm -rf "$W"' EXIT

if ! command -v llvm-addr2line >/dev/null; then
	echo "dwarf ($LABEL): llvm-addr2line not installed, comparison skipped"
	exit 0
fi
if [ ! -r "$VMLINUX" ]; then
	echo "dwarf ($LABEL): cannot read $VMLINUX, comparison skipped"
	exit 0
fi
MAP=$(dirname "$VMLINUX")/System.map
if [ ! -r "$MAP" ]; then
	nm -n "$VMLINUX" >"$W/nm.map"
	MAP=$W/nm.map
fi
"$GEN" -o "$W/spread.bts" --spread "$N" --symbols "$MAP" --seed 7
# The same addresses for addr2line, in record order: from, to, from, to...
python3 - "$W/spread.bts" "$W/addrs" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
hs = struct.unpack_from("<H", d, 10)[0]
out = []
for i in range(hs, len(d), 24):
    f, t = struct.unpack_from("<QQ", d, i)
    out.append("0x%x\n0x%x\n" % (f, t))
open(sys.argv[2], "w").write("".join(out))
PY
A=$(wc -l <"$W/addrs")
D=$(sort -u "$W/addrs" | wc -l)
"$GEN" -o "$W/one.bts" --stext "0x$(awk '$3 == "_stext" { print $1; exit }' "$MAP")" \
	--rec "$(head -1 "$W/addrs" | sed 's/^0x//'):$(sed -n 2p "$W/addrs" | sed 's/^0x//')"
head -1 "$W/addrs" >"$W/one.addr"

# cpu OUT CMD...: CPU seconds (user+sys) and peak RSS (KB) of CMD into CPU, RSS.
cpu() {
	local out=$1
	shift
	/usr/bin/time -f "%U %S %M" -o "$W/time" "$@" >"$out" 2>"$W/err" || {
		echo "bench: failed: $*"; head -3 "$W/err"; return 1
	}
	read -r u s RSS <"$W/time"
	CPU=$(echo "$u + $s" | bc -l)
}
best() {	# best VAR VALUE: keep the smaller
	if [ -z "${!1}" ] || [ "$(echo "$2 < ${!1}" | bc -l)" = 1 ]; then
		printf -v "$1" '%s' "$2"
	fi
}
bt= bj= ll= bt_rss= ll_rss=
for run in 1 2 3; do
	cpu /dev/null "$BTS" -k "$VMLINUX" "$W/spread.bts" || exit 1
	best bt "$CPU"; bt_rss=$RSS
	cpu /dev/null llvm-addr2line --inlines -f -e "$VMLINUX" <"$W/addrs" || exit 1
	best ll "$CPU"; ll_rss=$RSS
	cpu /dev/null "$BTS" --json -k "$VMLINUX" "$W/spread.bts" || exit 1
	best bj "$CPU"
done
# Start-up: one record, one address (DWARF index, symbols, first lookup).
bs= ls=
for run in 1 2 3; do
	cpu /dev/null "$BTS" -k "$VMLINUX" "$W/one.bts" || exit 1
	best bs "$CPU"; bs_rss=$RSS
	cpu /dev/null llvm-addr2line --inlines -f -e "$VMLINUX" <"$W/one.addr" || exit 1
	best ls "$CPU"; ls_rss=$RSS
done
ratio() { echo "$1 $2" | awk '{ if ($2 > 0) printf "%.2f", $1 / $2; else print "n/a" }'; }
info=$(readelf -S -W "$VMLINUX" | awk '$2 == ".debug_info" { print $6 }')
echo "# dwarf ($LABEL): $VMLINUX: $(stat -c %s "$VMLINUX") bytes, .debug_info $((16#${info:-0})) bytes"
echo "# dwarf ($LABEL): $N records, $A addresses ($D distinct); CPU s, best of 3; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "dwarf ($LABEL): bts-dump text (file:line of from, inlines, kinds): ${bt}s, peak ${bt_rss} KB"
echo "dwarf ($LABEL): bts-dump --json (file:line of from and to):      ${bj}s"
echo "dwarf ($LABEL): llvm-addr2line --inlines -f, all $A addresses:   ${ll}s, peak ${ll_rss} KB"
echo "dwarf ($LABEL): start-up (one record / one address): bts-dump ${bs}s ${bs_rss} KB, llvm-addr2line ${ls}s ${ls_rss} KB"
echo "ratio dwarf ($LABEL) text: llvm-addr2line/bts-dump = $(ratio "$ll" "$bt")x"
echo "ratio dwarf ($LABEL) json: llvm-addr2line/bts-dump = $(ratio "$ll" "$bj")x"
