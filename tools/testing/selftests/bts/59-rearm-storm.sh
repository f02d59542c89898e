#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Re-arms beside captures: CPU 1 WARNs in a loop with bts_capture_warn
# on (each WARN, once the capture is cleared, is the kept capture and
# sends the capture NMI to the other CPUs), while CPU 0 re-arms bts again
# and again (bts/mode, an option, set_ftrace_pid: each one turns capture
# off, unregistering bts's NMI handler, and on again). With
# unknown_nmi_panic, a capture NMI that found no handler would panic the
# machine. The race is narrow (a task between the fault hook's static
# branch and its IRQs-off section); the KUnit case
# capture_disabled_as_a_fault_enters_sends_no_nmi stops exactly there.
# bts-boot: own
# bts-expect: warn
# bts-cmdline: unknown_nmi_panic=1 panic_on_warn=0
# bts-timeout: 900
# bts-live: no, WARNs on purpose
. ./lib-oops.sh
# A round re-arms six times: on the Intel source a fraction of a second
# under TCG; the software source patches every function's call site at
# each arm and disarm, about 2.5 s each under TCG (measured), so fewer.
if [ "$EXPECT" = hw ]; then
	ROUNDS=${ROUNDS:-100}
else
	ROUNDS=${ROUNDS:-8}
fi
arm
echo 1 > $T/options/bts_capture_warn
log_mark
rm -f /tmp/storm.stop
taskset -c 1 sh -c "while [ ! -e /tmp/storm.stop ]; do
	echo WARNING > $DIRECT; echo 0 > $B/capture; done" > /dev/null 2>&1 &
warner=$!
pid_filter=no
[ -w $T/set_ftrace_pid ] && pid_filter=yes
fails=0
i=0
while [ $i -lt $ROUNDS ]; do
	echo stream > $B/mode || fails=$((fails + 1))
	echo ring > $B/mode || fails=$((fails + 1))
	echo 1 > $T/options/bts_user || fails=$((fails + 1))
	echo 0 > $T/options/bts_user || fails=$((fails + 1))
	if [ $pid_filter = yes ]; then
		echo $warner > $T/set_ftrace_pid || fails=$((fails + 1))
		echo > $T/set_ftrace_pid || fails=$((fails + 1))
	fi
	i=$((i + 1))
done
touch /tmp/storm.stop
wait $warner
warns=$(dmesg | tail -n +$((_log_lines + 1)) | grep -c 'WARNING:')
diag "$ROUNDS rounds of re-arms (pid filter: $pid_filter) beside $warns WARNs on CPU 1"
is "every re-arm succeeded" $fails 0
[ "$warns" -gt 0 ] && ok "CPU 1 WARNed meanwhile ($warns times)" ||
	not_ok "CPU 1 WARNed meanwhile"
check "no NMI for an unknown reason (the machine is up: unknown_nmi_panic)" \
	sh -c "! dmesg | grep -q 'NMI received for unknown reason'"
check "no other warning in the kernel log" sh -c \
	"! (dmesg | tail -n +$((_log_lines + 1)) | grep -E 'BUG:|lockup|stall|bts: .*fail')"
echo 0 > $T/options/bts_capture_warn
echo 0 > $B/capture
echo nop > $T/current_tracer
done_testing
