#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the libFuzzer target for a bounded time, seeded with generated dumps;
# print how many inputs ran and whether anything crashed.
#
#   fuzz.sh BINDIR SECONDS
set -u
BINDIR=$1
SECONDS_TO_RUN=$2
HERE=$(cd "$(dirname "$0")" && pwd)
CORPUS=$HERE/corpus
SEEDS=$(mktemp -d /tmp/bts-dump-seeds.XXXXXX)
CRASHES=$HERE/crashes
trap 'rm -rf "$SEEDS"' EXIT
mkdir -p "$CORPUS" "$CRASHES"

# Seeds: first byte 0 = dump, 1 = kallsyms text.
seed() {	# NAME gen-dump-args...
	local name=$1
	shift
	"$BINDIR/gen-dump" -o "$SEEDS/$name.raw" "$@"
	{ printf '\0'; cat "$SEEDS/$name.raw"; } >"$SEEDS/$name"
	rm -f "$SEEDS/$name.raw"
}
seed valid --flags 3 --reason 1 --fault-index 1 --stext 0xffffffff81000000 \
	--rec 7f0000001000:ffffffff81000100 --rec ffffffff81000120:ffffffff81000200:4000000000000000 \
	--rec ffffffff81000210:ffffffff81000300 --rec ffffffff81000310:ffffffff81000220
seed sw --source 2 --rec ffffffff81000120:ffffffff81000200:8000000000000000 \
	--rec ffffffffa0000010:ffffffff81000300:8000000000000000
seed empty --flags 8 --source 0
seed bighdr --header-size 256 --rec ffffffff81000120:ffffffff81000200
printf '\001ffffffff81000000 T _stext\nffffffff81000100 t f [m]\n' >"$SEEDS/kallsyms"

echo "# fuzzing for $SECONDS_TO_RUN s (libFuzzer, ASan+UBSan), corpus $CORPUS"
"$BINDIR/fuzz-dump" -max_total_time="$SECONDS_TO_RUN" -max_len=8192 -timeout=10 \
	-artifact_prefix="$CRASHES/" -print_final_stats=1 "$CORPUS" "$SEEDS" \
	>"$BINDIR/fuzz.log" 2>&1
rc=$?
execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$BINDIR/fuzz.log" | grep -o '[0-9]*$')
echo "executions: ${execs:-unknown} in $SECONDS_TO_RUN s"
if [ $rc -ne 0 ]; then
	echo "FAILED (exit $rc): see $BINDIR/fuzz.log and $CRASHES"
	grep -E 'ERROR|SUMMARY|Test unit written' "$BINDIR/fuzz.log" | head -5
	exit 1
fi
echo "no crash"
