#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A WARN is not captured by default; with bts_capture_warn it is, and the
# CPU records again afterwards either way; an oops on that CPU then takes
# the WARN's place; with a pid filter, the capture
# of a WARN in a chosen task has its history, one in another task says the
# filter held the CPU.
# bts-boot: own
# bts-expect: warn,oops,bug
# bts-cmdline: panic_on_oops=0
# bts-live: no, WARNs and oopses on purpose
. ./lib-oops.sh
arm

# records_again CPU DESC: CPU records again. A workload pinned there ends
# by dumping from inside it, as 10-tracer's does: the CPU's history holds
# the workload's writes (write_null) only if it recorded them. (Reading a
# records file before and after is no test: an idle CPU's newest records
# can be the same IPI path both times.) Not on the BTS machine with a
# lockdep+KASAN kernel, where 2730 branches are less than a timer
# interrupt (10-tracer says why).
records_again() {
	local n
	if hw && dmesg | grep -q 'KernelAddressSanitizer initialized'; then
		skip "$2" "lockdep+KASAN kernel on the emulated BTS: the window is shorter than a timer interrupt"
		return
	fi
	# the whole window: the hardware source records every branch, and
	# two writes with KPTI are some 1000
	local nr=$(cat $B/nr_records)
	echo 2730 > $B/nr_records
	echo > $T/trace
	taskset -c "$1" sh -c "exec 3> /dev/null 4> $B/dump; echo x >&3; echo x >&3; echo 1 >&4"
	echo $nr > $B/nr_records
	n=$(bts_entries $T/trace | grep " cpu=$1 " | grep -c -- '-> write_null+0x0/')
	[ "$n" -ge 1 ] && ok "$2 (CPU $1: $n writes in its history)" || {
		not_ok "$2 (CPU $1: no write in its history)"
		diag "newest: $(bts_entries $T/trace | grep " cpu=$1 " | tail -1)"
	}
}

provoke "taskset -c 1 sh -c 'echo WARNING > $DIRECT'"
is "a WARN is not captured by default" "$(cat $B/capture)" none
records_again 1 "after a WARN that is not captured, its CPU records again"
echo 1 > $T/options/bts_capture_warn
provoke "taskset -c 1 sh -c 'echo WARNING > $DIRECT'"
case "$(cat $B/capture)" in
"WARN on cpu 1"*) ok "with bts_capture_warn a WARN is captured" ;;
*) not_ok "with bts_capture_warn a WARN is captured (got '$(cat $B/capture)')" ;;
esac
records_again 1 "after a captured WARN, its CPU records again"

# An oops wins over a WARN: CPU 1 has kept its WARN, then oopses. The
# oops takes the WARN's place, as CPU 1's capture and as the kept one,
# and nothing is counted as lost.
provoke "taskset -c 1 sh -c 'echo EXCEPTION > $DIRECT'"
is "an oops on a CPU that kept a WARN takes its place" "$(head -1 $B/capture)" \
	"oops on cpu 1, later faults not kept: 0"
if command -v bts-dump > /dev/null; then
	bts-dump -s /proc/kallsyms $B/per_cpu/cpu1/capture > /tmp/oops-after-warn.txt 2>&1
	check "... and CPU 1's capture is the oops's history" oops_history /tmp/oops-after-warn.txt
fi
echo 0 > $B/capture
# (oops_enter() turned tracing off)
echo 1 > $T/tracing_on

# With a pid filter ("Chosen tasks" in Documentation/trace/bts.rst): a
# WARN in a chosen task is captured with its history; one in a task not
# chosen has what the CPU recorded before, and its header says the filter
# held the CPU (flag 32). Then the CPU records again, as the filter says.
if [ -w $T/set_ftrace_pid ]; then
	echo 0 > $B/capture
	# a shell that chooses itself (bts re-arms), then WARNs
	provoke "taskset -c 1 sh -c 'echo \$\$ > $T/set_ftrace_pid && echo WARNING > $DIRECT'"
	cat $B/per_cpu/cpu1/capture > /tmp/warn-chosen.bin
	diag "chosen: $(cat $B/capture); flags $(u32 /tmp/warn-chosen.bin 28), $(u32 /tmp/warn-chosen.bin 20) records"
	case "$(cat $B/capture)" in
	"WARN on cpu 1"*) ok "pid filter: a WARN in a chosen task is captured" ;;
	*) not_ok "pid filter: a WARN in a chosen task is captured (got '$(cat $B/capture)')" ;;
	esac
	is "pid filter: ... its header says a filter was on and did not hold the CPU" \
		$(($(u32 /tmp/warn-chosen.bin 28) & 48)) 16
	if command -v bts-dump > /dev/null; then
		check "pid filter: ... its history enters lkdtm_WARNING" \
			sh -c "bts-dump -s /proc/kallsyms /tmp/warn-chosen.bin | grep -q 'lkdtm_WARNING'"
	fi
	# a task that never runs is chosen: the CPU is held from the arming on
	sleep 100000 &
	idle=$!
	echo $idle > $T/set_ftrace_pid
	echo 0 > $B/capture
	provoke "taskset -c 1 sh -c 'echo WARNING > $DIRECT'"
	cat $B/per_cpu/cpu1/capture > /tmp/warn-other.bin
	diag "not chosen: $(cat $B/capture); flags $(u32 /tmp/warn-other.bin 28), $(u32 /tmp/warn-other.bin 20) records"
	case "$(cat $B/capture)" in
	"WARN on cpu 1"*) ok "pid filter: a WARN in a task not chosen is captured" ;;
	*) not_ok "pid filter: a WARN in a task not chosen is captured (got '$(cat $B/capture)')" ;;
	esac
	is "pid filter: ... its header says the filter held the CPU, and nothing was recorded" \
		$(($(u32 /tmp/warn-other.bin 28) & 56)) 56
	if command -v bts-dump > /dev/null; then
		bts-dump -s /proc/kallsyms /tmp/warn-other.bin > /tmp/warn-other.txt 2>&1
		grep -q 'was not chosen' /tmp/warn-other.txt &&
			ok "pid filter: ... and bts-dump says the task was not chosen" || {
			not_ok "pid filter: ... and bts-dump says the task was not chosen"
			diag "bts-dump: $(head -c 600 /tmp/warn-other.txt)"
		}
	fi
	kill $idle
	wait $idle 2> /dev/null
	echo > $T/set_ftrace_pid
	records_again 1 "with the pid filter emptied, CPU 1 records again"
fi

# WARNs while the task is moved between CPUs: on a preemptible kernel
# (make check DEBUG=1, 4 vCPUs) the task can run on another CPU when
# report_bug() returns than the one it trapped on. Every WARN must end
# captured as a WARN, none left pending, and the log clean (no
# "using smp_processor_id() in preemptible").
n=0 bad=
for i in $(seq 1 20); do
	echo 0 > $B/capture
	sh -c "echo WARNING > $DIRECT" > /dev/null 2>&1 &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		for c in $(seq 0 $(($(nproc) - 1))); do
			taskset -p -c $c $pid > /dev/null 2>&1
		done
	done
	wait $pid
	case "$(cat $B/capture)" in
	*pending*) bad="$bad [$(cat $B/capture)]" ;;
	"WARN on cpu "*) n=$((n + 1)) ;;
	*) bad="$bad [$(cat $B/capture)]" ;;
	esac
done
is "20 WARNs under migration: each captured as a WARN, none pending$bad" $n 20
for c in $(seq 0 $(($(nproc) - 1))); do
	records_again $c "after the WARNs under migration, every CPU records again"
done

# traceoff_on_warning turns tracing off inside the WARN, before its
# capture is written out: the capture is kept, and says it is not in the
# ring buffer.
echo 0 > $B/capture
echo 1 > /proc/sys/kernel/traceoff_on_warning
provoke "echo WARNING > $DIRECT"
echo 0 > /proc/sys/kernel/traceoff_on_warning
capture=$(cat $B/capture)
diag "$capture"
case "$capture" in
"WARN on cpu "*"not written to the ring buffer (tracing off, or full): "[1-9]*) ok "with traceoff_on_warning the WARN capture is kept and says it is not in the ring buffer" ;;
*) not_ok "with traceoff_on_warning the WARN capture is kept and says it is not in the ring buffer (got '$capture')" ;;
esac
echo 1 > $T/tracing_on

# bts_capture_warn without bts_capture_oops: a BUG() is still an oops,
# captured and written out, not left pending.
echo 0 > $B/capture
echo 0 > $T/options/bts_capture_oops
echo > $T/trace
provoke "echo BUG > $DIRECT"
case "$(cat $B/capture)" in
*pending*) not_ok "with only bts_capture_warn a BUG is captured, not left pending (got '$(cat $B/capture)')" ;;
"BUG on cpu "*) ok "with only bts_capture_warn a BUG is captured, not left pending" ;;
*) not_ok "with only bts_capture_warn a BUG is captured, not left pending (got '$(cat $B/capture)')" ;;
esac
[ "$(bts_entries $T/trace | grep -c ' BUG$')" -gt 0 ] &&
	ok "... and written into the ring buffer" ||
	not_ok "... and written into the ring buffer"

echo 0 > $T/options/bts_capture_warn
echo 0 > $B/capture
provoke "echo EXCEPTION > $DIRECT"
is "with bts_capture_oops off an oops is not captured" "$(cat $B/capture)" none
done_testing
