#!/bin/sh
# Two CPUs oops at once: one capture is kept, the other fault is counted,
# both CPUs' histories are in the capture, and the kernel log holds
# nothing but the two oopses.
# bts-boot: own
# bts-expect: oops
# bts-cmdline: panic_on_oops=0
. ./lib-oops.sh
arm
rm -f /tmp/go
for c in 0 1; do
	taskset -c $c sh -c "while [ ! -e /tmp/go ]; do :; done; echo EXCEPTION > $DIRECT" \
		> /dev/null 2>&1 &
done
sleep 0.5
touch /tmp/go
wait
sleep 0.5
is "two oopses" "$(dmesg | grep -c 'Oops: ')" 2
# (with KASAN's inline checks the NULL write is a #GP: see lib-oops.sh)
cat $B/capture | grep -qxE "(oops|GPF) on cpu [01], later faults not kept: 1" &&
	ok "one oops kept, the other counted: $(cat $B/capture)" ||
	not_ok "one oops kept, the other counted (got '$(cat $B/capture)')"
cpu=$(capture_cpu)
other=$((1 - ${cpu:-0}))
cat $B/per_cpu/cpu$cpu/capture > /tmp/k.bin
cat $B/per_cpu/cpu$other/capture > /tmp/o.bin
if [ "$(u32 /tmp/k.bin 36)" != 4294967295 ]; then
	ok "the kept CPU's history has the fault marked"
elif hw && dmesg | grep -q 'KernelAddressSanitizer initialized'; then
	# measured on the debug kernel on the BTS machine: with the other
	# CPU oopsing at the same time, the path from the fault to the freeze
	# took more branches than the buffer holds
	skip "the kept CPU's history has the fault marked" \
		"KASAN kernel on BTS: more than $(u32 /tmp/k.bin 20) branches from the fault to the freeze"
else
	not_ok "the kept CPU's history has the fault marked"
fi
[ "$(u32 /tmp/o.bin 20)" -gt 0 ] && ok "the other oopsing CPU's history was captured by NMI ($(u32 /tmp/o.bin 20) records)" ||
	not_ok "the other oopsing CPU's history was captured by NMI"
echo 0 > $B/capture
provoke "echo EXCEPTION > $DIRECT"
echo 1 > $T/tracing_on
check "cleared, the next oops is kept" sh -c "cat $B/capture | grep -qE '^(oops|GPF) on cpu'"
done_testing
