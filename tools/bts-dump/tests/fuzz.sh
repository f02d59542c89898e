#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run each libFuzzer target for a bounded time on its corpus and print, per
# target, how many inputs ran and whether anything crashed. The corpus of
# TARGET is tests/fuzz/TARGET/ (seeds: tests/fuzz-seeds.sh); a run works on
# a copy in BINDIR and leaves the repository alone; --merge minimizes the
# copy back into tests/fuzz/TARGET/.
#
#   fuzz.sh [--merge] BINDIR SECONDS TARGET...
#
# The targets (tests/fuzz-TARGET.c): dump (dump files and kallsyms text),
# tracedat (trace.dat through the libtracecmd child), console (console
# text), vmcore (kdump crash dumps: ELF cores with a bts table).
# ASan+UBSan; a libFuzzer crash, leak or timeout stops a target and fails
# the run.
set -u
merge=0
if [ "${1:-}" = --merge ]; then
	merge=1
	shift
fi
BINDIR=$1
SECONDS_TO_RUN=$2
shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
rc_all=0
for t in "$@"; do
	seeds=$HERE/fuzz/$t
	work=$BINDIR/corpus-$t
	crashes=$BINDIR/crashes-$t
	mkdir -p "$work" "$crashes"
	if [ $merge -eq 1 ]; then
		tmp=$(mktemp -d)
		# The same options as a run; artifacts (of the trace.dat reading
		# child, which carries libFuzzer's handlers) go beside it.
		ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1 \
			"$BINDIR/fuzz-$t" -merge=1 -artifact_prefix="$crashes/" -rss_limit_mb=2048 \
			"$tmp" "$seeds" "$work" >"$BINDIR/fuzz-$t-merge.log" 2>&1
		rm -f "$seeds"/[0-9a-f]*
		cp "$tmp"/* "$seeds"/ 2>/dev/null
		rm -rf "$tmp"
		echo "fuzz $t: corpus merged into $seeds: $(ls "$seeds" | wc -l) files, $(du -sh "$seeds" | cut -f1)"
		continue
	fi
	cp -n "$seeds"/* "$work"/ 2>/dev/null
	case $t in
	tracedat | vmcore) max_len=65536 ;;
	*) max_len=8192 ;;
	esac
	echo "# fuzz $t: $SECONDS_TO_RUN s (libFuzzer, ASan+UBSan), corpus $work"
	# allocator_may_return_null: libtracecmd malloc()s sizes read from the
	# file and checks for NULL; ASan would otherwise abort on a huge one.
	ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1 \
		"$BINDIR/fuzz-$t" -max_total_time="$SECONDS_TO_RUN" -max_len=$max_len -timeout=20 \
		-rss_limit_mb=2048 -artifact_prefix="$crashes/" -print_final_stats=1 "$work" \
		>"$BINDIR/fuzz-$t.log" 2>&1
	rc=$?
	execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$BINDIR/fuzz-$t.log" | grep -o '[0-9]*$')
	secs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$BINDIR/fuzz-$t.log" | grep -o 'in [0-9]*' | grep -o '[0-9]*')
	extra=$(grep -o 'child crashes: [0-9]*' "$BINDIR/fuzz-$t.log" | tail -1)
	found=$(ls "$crashes" | wc -l)
	if [ $rc -ne 0 ]; then
		echo "fuzz $t: executions ${execs:-unknown} in ${secs:-?} s, crashes $((found > 0 ? found : 1)) (exit $rc; see $BINDIR/fuzz-$t.log, $crashes)${extra:+; $extra}"
		grep -E 'ERROR|SUMMARY|Test unit written' "$BINDIR/fuzz-$t.log" | head -5
		rc_all=1
	else
		echo "fuzz $t: executions ${execs:-unknown} in ${secs:-$SECONDS_TO_RUN} s, crashes 0${extra:+ ($extra, contained: one-line errors)}"
		# The trace.dat target's reading child is a fork of the fuzzer: a
		# sanitizer report or a huge malloc there leaves an artifact too.
		if [ "$found" -gt 0 ]; then
			echo "fuzz $t: the reading child left $found crash-/oom- artifacts in $crashes (each one line from bts-dump; replay with bts-dump FILE)"
		fi
	fi
done
exit $rc_all
