# SPDX-License-Identifier: GPL-2.0
# Shared steps of the fault-capture scenarios (5x-*.sh): arm bts, provoke
# a fault, and check that the capture files and trace_pipe hold history
# whose newest call edge before the marked fault record into the crashing
# function's family (lkdtm_*) enters the function that crashed. (The
# software source sees calls only: lkdtm_ACCESS_NULL calls pr_info()
# before it faults, so the very newest edge is inside printk.) Then provoke it again with ftrace_dump_on_oops,
# for the host checker (5x-*.host) to find the same on the console.
. ./lib.sh
DIRECT=/sys/kernel/debug/provoke-crash/DIRECT

arm() {
	# (as a kselftest a test before may have left tracing off: the
	# capture's history would not reach the ring buffer)
	echo 1 > $T/tracing_on
	echo bts > $T/current_tracer
	# debug kernels (lockdep, KASAN) make many more calls per printk
	if dmesg | grep -q 'KernelAddressSanitizer initialized'; then
		echo 2730 > $B/nr_records
	else
		echo 1000 > $B/nr_records
	fi
	echo 0 > /proc/sys/kernel/ftrace_dump_on_oops
}

# provoke CMD: run CMD in a child, which the oops kills
provoke() { sh -c "$1" > /dev/null 2>&1; sleep 0.5; }

# capture_cpu: the CPU named in bts/capture
capture_cpu() { sed -n 's/.* on cpu \([0-9]*\),.*/\1/p' $B/capture; }

# u32 FILE OFFSET: a little-endian 32-bit field of a dump header
u32() { od -An -t u4 -j "$2" -N 4 "$1" | tr -d ' '; }

# kasan_null_is_gpf: with KASAN's inline checks a NULL access faults on
# the non-canonical shadow address first: a #GP, not a page fault.
kasan_null_is_gpf() { dmesg | grep -q 'Oops: general protection fault.* KASAN'; }

# newest_call_into PREFIX FILE: in bts-dump's text FILE, up to its fault
# record, the newest call edge into a function named PREFIX*. It says
# whose history this is where "within the last N records" cannot: an
# interrupt taken between the call into the crashing function and its
# fault puts its own records in between (a timer tick alone is about 60
# call edges on the software source, hundreds with its softirq).
newest_call_into() {
	sed '/<== FAULT/q' "$2" | grep -v '<== FAULT' | grep -- "-> $1" | tail -1
}

# oops_history FILE: FILE (bts-dump's text) is lkdtm EXCEPTION's oops's
# history: its newest call into lkdtm_* before the fault enters
# lkdtm_EXCEPTION. Says what it found when it is not.
oops_history() {
	local last
	last=$(newest_call_into lkdtm_ "$1")
	echo "$last" | grep -q -- '-> lkdtm_EXCEPTION+' && return 0
	diag "newest call into lkdtm_* before the fault: '${last:-none}'; the fault: '$(grep -m1 '<== FAULT' "$1")'"
	return 1
}

# check_capture REASON-WORD REASON-NUMBER FUNCTION ENTRY: ENTRY is the
# exception entry the faulting instruction goes to (hardware source)
check_capture() {
	local word=$1 num=$2 fn=$3 entry=$4 cpu f c n
	if [ "$word" = oops ] && kasan_null_is_gpf; then
		diag "KASAN turned the NULL access into a #GP"
		word=GPF num=4 entry=asm_exc_general_protection
	fi
	case "$(cat $B/capture)" in
	"$word on cpu "*) ok "bts/capture says: $(cat $B/capture)" ;;
	*) not_ok "bts/capture says $word (got '$(cat $B/capture)')" ;;
	esac
	cpu=$(capture_cpu)
	f=/tmp/capture.bin
	cat $B/per_cpu/cpu${cpu:-0}/capture > $f
	is "the capture file starts with BTSDUMP" "$(head -c 7 $f)" BTSDUMP
	is "the capture file names the reason" "$(u32 $f 32)" "$num"
	is "the capture file is flagged as a capture" $(( $(u32 $f 28) & 2 )) 2
	[ "$(u32 $f 20)" -gt 0 ] && ok "the capture holds $(u32 $f 20) records" ||
		not_ok "the capture holds records"
	[ "$(u32 $f 36)" != 4294967295 ] && ok "a record is marked as the fault" ||
		not_ok "a record is marked as the fault"
	# trace_pipe blocks when it is empty (also with tracing off): read it
	# until this CPU's fault record has come. The limit only bounds a
	# hang (the record never comes); no machine is that slow.
	timeout 240 awk -v c=" cpu=$cpu " \
		'index($0, c) { print; if (/\[fault\]/) exit }' $T/trace_pipe > /tmp/fault.txt
	diag "$(tail -1 /tmp/fault.txt)"
	tail -1 /tmp/fault.txt | grep -q '\[fault\]' && ok "trace_pipe holds the history with the fault marked" ||
		not_ok "trace_pipe holds the history with the fault marked"
	last=$(grep -- "-> ${fn%%_*}_" /tmp/fault.txt | grep -v '\[fault\]' | tail -1)
	echo "$last" | grep -q -- "-> $fn+" &&
		ok "the newest call before the fault into ${fn%%_*}_* enters $fn" ||
		not_ok "the newest call before the fault into ${fn%%_*}_* enters $fn (got: $last)"
	if command -v bts-dump >/dev/null; then
		bts-dump -s /proc/kallsyms $f > /tmp/decoded.txt 2>&1
		check "bts-dump decodes the capture and names $fn" grep -q "$fn" /tmp/decoded.txt
	fi
	hw || return 0
	# The hardware source records the exception itself: the marked record
	# goes from the faulting instruction in FUNCTION to the entry code.
	fault=$(tail -1 /tmp/fault.txt)
	echo "$fault" | grep -qE " $fn\+0x[0-9a-f]+/0x[0-9a-f]+ -> $entry\+0x0/" &&
		ok "the fault record is the exception: $fn -> $entry" ||
		not_ok "the fault record is the exception: $fn -> $entry (got: $fault)"
	# Taken branches from the fault to the freeze, counted from the
	# records themselves (the fault record and everything after it).
	if [ "$(u32 $f 36)" = 4294967295 ]; then
		n=none
		diag "no record is the fault: it is older than the $(u32 $f 20) kept"
	else
		n=$(( $(u32 $f 20) - $(u32 $f 36) ))
		diag "branches from the faulting instruction to the freeze: $n (of $(u32 $f 20) kept)"
	fi
	[ "$n" != none ] && [ "$n" -gt 0 ] && [ "$n" -lt 1000 ] &&
		ok "the history ends $n branches after the fault" ||
		not_ok "the history ends shortly after the fault (got $n branches)"
	# The other CPUs were frozen and copied by the capture's NMI.
	for c in $(seq 0 $(($(nproc) - 1))); do
		[ "$c" = "$cpu" ] && continue
		cat $B/per_cpu/cpu$c/capture > /tmp/other.bin
		[ "$(u32 /tmp/other.bin 20)" -gt 0 ] &&
			ok "CPU $c's history was captured by NMI ($(u32 /tmp/other.bin 20) records)" ||
			not_ok "CPU $c's history was captured by NMI"
	done
}

# again_with_dump_on_oops CMD: clear, provoke again with ftrace_dump_on_oops
again_with_dump_on_oops() {
	local word=$2
	# decided now: the dump of the second oops pushes the first one's
	# lines out of the kernel log buffer
	[ "$word" = oops ] && kasan_null_is_gpf && word=GPF
	echo 0 > $B/capture
	echo > $T/trace
	echo 1 > $T/tracing_on
	echo 1 > /proc/sys/kernel/ftrace_dump_on_oops
	echo "BTS-GUEST: second fault, with ftrace_dump_on_oops"
	echo "BTS-GUEST: second fault, with ftrace_dump_on_oops" > /dev/kmsg
	provoke "$1"
	is "after clearing, the next fault is captured" \
		"$(cat $B/capture | cut -d' ' -f1-2)" "$word on"
}
