#!/bin/sh
# Guest half of branches-to-freeze.sh (appended to the test initramfs as
# /tests/measure.sh, run by /init through bts.tests=measure.sh).
#
# bts.measure=pf|bug|gpf|panic on the kernel command line picks the fault.
# Arms bts, prints __bts_fault_freeze from /proc/kallsyms (the host checks
# it against System.map), then provokes the fault from a child after a
# short sleep. The host's gdb starts QEMU's exec log at a hardware
# breakpoint on the crashing function, so the sleep only lets the console
# lines out first.
T=/sys/kernel/tracing
B=$T/bts
D=/sys/kernel/debug/provoke-crash/DIRECT
con() { echo "BTS-MEASURE: $*" > /dev/console; }

sc=
for a in $(cat /proc/cmdline); do
	case "$a" in bts.measure=*) sc=${a#bts.measure=} ;; esac
done
case "$sc" in
pf)	cmd="echo EXCEPTION > $D" ;;
bug)	cmd="echo BUG > $D" ;;
gpf)	cmd="echo gpf > $B/test_fault" ;;
panic)	cmd="echo PANIC > $D" ;;
*)	con "error: unknown bts.measure=$sc"; exit 1 ;;
esac

echo 0 > /proc/sys/kernel/ftrace_dump_on_oops
echo bts > $T/current_tracer || con "error: cannot select the bts tracer"
con "tracer $(cat $T/current_tracer) source $(cat $B/source 2>/dev/null | tr '\n' ' ')"
for s in __bts_fault_freeze _stext; do
	con "kallsyms $(grep " $s\$" /proc/kallsyms | head -1)"
done
(
	sleep ${MEASURE_DELAY:-1}
	eval "$cmd"
) &
con "ready $sc"
wait
sleep 1
con "done $sc"
